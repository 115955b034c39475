"""m2a's products sized for the rate (grader.checks.m2, perfkit issue 41): at both ends of the drawn range an
FP32 product made by torch or numpy passes the result test, and one of inputs rounded to FP16 or BF16 fails
it (issue 37's decision: FP16 inputs are not the FP32 product asked for), as it did at the old 2560-3072;
and the time limit still holds every call the check makes at the largest n on a slow core."""

from __future__ import annotations

import random

import numpy as np
import pytest

from grader.checks import m2
from grader.compare import outputs
from grader.judge.runners.rounds import PROBE_ROUNDS
from grader.specs.check import MeasurementCheck


def _check() -> MeasurementCheck:
    check = m2.EXERCISE.check("matmul_flops")
    assert isinstance(check, MeasurementCheck)
    return check


def test_the_drawn_n_spans_the_range_in_blocks_of_128() -> None:
    check = _check()
    assert check.inputs is not None
    drawn = {check.inputs(u / 200, random.Random(u))["n"] for u in range(200)}
    assert drawn == set(range(m2.MATMUL_N[0], m2.MATMUL_N[1] + 1, 128))


@pytest.mark.parametrize("n", m2.MATMUL_N)
def test_fp32_passes_and_fp16_or_bf16_inputs_fail_at_the_drawn_n(n: int) -> None:
    """The inputs as the judge hands them (standard normal, FP32); every product judged by outputs.product,
    which samples its places afresh: the low-precision ones must fail every time (five tries each)."""
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    rng = np.random.default_rng(n)
    a, b = (rng.standard_normal((n, n), dtype=np.float32) for _ in range(2))
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    for honest in (torch.mm(ta, tb).numpy(), a @ b):
        assert all(outputs.product({"a": a, "b": b, "c": honest}) for _ in range(5))
    for low in (torch.float16, torch.bfloat16):
        rounded = torch.mm(ta.to(low).float(), tb.to(low).float()).numpy()
        assert not any(outputs.product({"a": a, "b": b, "c": rounded}) for _ in range(5))


def test_the_time_limit_holds_every_call_at_the_largest_n_on_a_slow_core() -> None:
    """3 rounds and a probe of PROBE_ROUNDS, each call seven products of the largest n at 10 GFLOP/s."""
    check = _check()
    calls = check.rounds + check.probes * PROBE_ROUNDS
    assert check.timeout_s >= calls * 7 * 2 * m2.MATMUL_N[1] ** 3 / m2.SLOW_CORE_FLOPS
    assert m2.MATMUL_N[1] - m2.MATMUL_N[0] >= 256  # a range to draw from, not one size a model could meet
