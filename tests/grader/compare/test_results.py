"""grader.compare.results: a result made by the work passes; one made another way, or not made, fails."""

from __future__ import annotations

import numpy as np
import pytest

from grader.compare import results

RNG = np.random.default_rng(5)


def test_a_copy_is_bit_for_bit() -> None:
    src = RNG.random(1000, dtype=np.float32)
    assert results.copied({"src": src, "dst": src.copy()})
    wrong = src.copy()
    wrong[999] = np.nextafter(wrong[999], np.float32(2))
    assert not results.copied({"src": src, "dst": wrong})
    assert not results.copied({"src": src, "dst": np.full_like(src, np.nan)})


def test_a_transpose_is_bit_for_bit() -> None:
    src = RNG.standard_normal((64, 64)).astype(np.float32)
    assert results.transposed({"src": src, "dst": np.ascontiguousarray(src.T)})
    assert not results.transposed({"src": src, "dst": src.copy()})


def test_a_product_is_checked_at_a_sample_of_places() -> None:
    a, b = (RNG.standard_normal((300, 300)).astype(np.float32) for _ in range(2))
    c = a @ b
    assert results.product({"a": a, "b": b, "c": c})
    assert not results.product({"a": a, "b": b, "c": np.zeros_like(c)})
    half = c.copy()
    half[150:] = np.nan  # half the rows left unwritten
    assert not results.product({"a": a, "b": b, "c": half})
    low = (a.astype(np.float16) @ b.astype(np.float16)).astype(np.float32)  # the product at a lower precision
    assert not results.product({"a": a, "b": b, "c": low})
    assert not results.product({"a": a, "b": b, "c": np.full_like(c, np.nan)})


def test_a_matvec_is_checked_at_a_sample_of_rows() -> None:
    w = RNG.standard_normal((200, 500)).astype(np.float32)
    x = RNG.standard_normal(500).astype(np.float32)
    assert results.matvec({"w": w, "x": x, "y": w @ x})
    assert not results.matvec({"w": w, "x": x, "y": (w @ x) * 1.01})  # another product
    assert not results.matvec({"w": w, "x": x, "y": np.full(200, np.nan, np.float32)})


@pytest.mark.parametrize("k", [8, 37])
def test_k_passes_leave_their_own_rounding_which_one_pass_does_not(k: int) -> None:
    torch = pytest.importorskip("torch")
    x = torch.rand(50_000)
    passes, one = torch.empty_like(x), torch.empty_like(x)
    torch.mul(x, 1.01, out=passes)
    for _ in range(k - 1):
        passes.mul_(1.01)
    torch.mul(x, 1.01**k, out=one)
    got = {"x": x.numpy()}
    assert results.scaled({**got, "y": passes.numpy()}, k, False, 1.01)
    assert not results.scaled({**got, "y": one.numpy()}, k, False, 1.01)  # one pass cannot pass for k
    assert results.scaled({**got, "y": one.numpy()}, k, True, 1.01)
    assert results.scaled({**got, "y": passes.numpy()}, k, True, 1.01)  # k passes: x c^k to rounding
    assert not results.scaled({**got, "y": x.numpy()}, k, True, 1.01)
