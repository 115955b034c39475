"""Where torch and numpy versions differ in ways that bite, and how the kit copes: one test each.

The tox matrix (tox.ini) runs these under torch 2.1 with numpy < 2, a middle torch, 2.13 and the newest.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import perfcore as pc
from grader.text.show import show

ROOT = Path(__file__).resolve().parents[2]


def _torch_at_least(version: str):
    torch = pytest.importorskip("torch", reason="needs torch")
    from packaging.version import Version

    if Version(torch.__version__.split("+")[0]) < Version(version):
        pytest.skip(f"torch {torch.__version__} predates {version}")
    return torch


@pytest.mark.parametrize(("batch", "q_len", "kv_len"), [(1, 2048, 2048), (32, 1, 2048), (4, 16, 64)])
def test_flop_counter_agrees_with_perfcore(batch, q_len, kv_len):
    """Flop counting: FlopCounterMode exists from torch 2.1; where it does, it counts what perfcore counts."""
    _torch_at_least("2.1")
    from perfcore.measure import torch_layer_flops

    ops = pc.decoder_layer_ops(pc.LLAMA3_8B, batch, q_len, kv_len)
    products = sum(
        o.flops for o in ops if o.group in ("projection", "mlp") or o.name.startswith(("scores", "weighted"))
    )
    assert torch_layer_flops(pc.LLAMA3_8B, batch, q_len, kv_len) == products


def test_flop_counter_missing_is_a_clear_error(monkeypatch):
    torch = pytest.importorskip("torch", reason="needs torch")
    import sys

    from perfcore.measure.flops import flop_counter_mode

    monkeypatch.setitem(sys.modules, "torch.utils.flop_counter", None)
    with pytest.raises(RuntimeError, match=r"needs torch >= 2\.1"):
        flop_counter_mode()
    assert torch.__version__ in str(pytest.raises(RuntimeError, flop_counter_mode).value)


def test_timer_gives_blocks_with_a_median_and_noise():
    """Timer: blocked timing through Timer's one-block run, which every torch 2.x has (adaptive_autorange's
    arguments and Measurement's fields moved between releases, so perfcore uses neither)."""
    pytest.importorskip("torch", reason="needs torch")
    from perfcore.measure.core import time_blocks
    from perfcore.measure.timing import single_thread

    with single_thread():
        t = time_blocks(lambda: sum(range(100)), repeats=5, block_s=0.002)
    assert len(t.samples) == 5 and t.median_s > 0 and t.noise >= 0 and t.number >= 1


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (np.float64(9.56), "9.56"),
        (np.float32(1.5), "1.5"),
        (np.int64(3), "3"),
        ((np.float64(1.0), 2), "(1.0, 2)"),
    ],
)
def test_numpy_scalars_read_as_plain_numbers_in_feedback(value, text):
    """numpy 2 writes repr(np.float64(9.56)) as 'np.float64(9.56)'; feedback shows the number."""
    assert show(value) == text


REMOVED_IN_NUMPY_2 = r"np\.(float_|complex_|NaN|Inf|PINF|NINF|product|cumproduct|in1d|row_stack|trapz|alltrue|sometrue|round_|asfarray|string_|unicode_)\b"


def test_no_alias_removed_in_numpy_2():
    """numpy 2 removed these aliases; the kit runs on numpy 1 and 2 alike."""
    pattern = re.compile(REMOVED_IN_NUMPY_2)
    hits = [
        f"{path.relative_to(ROOT)}:{n}"
        for folder in ("perfcore", "grader", "solutions", "benchmarks")
        for path in (ROOT / folder).rglob("*.py")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert hits == []


def test_longdouble_fallback_for_exact_products():
    """np.longdouble is 80-bit on x86 and plain float64 on some platforms (e.g. Apple silicon): the exact
    reference of §4.3 must not depend on it."""
    a = np.random.default_rng(0).standard_normal((8, 8))
    exact = pc.tiling.exact_matmul(a, a)
    slow = np.array([[__import__("math").fsum(a[i, :] * a[:, j]) for j in range(8)] for i in range(8)])
    assert np.max(np.abs(exact - slow)) < 1e-14
