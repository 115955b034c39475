"""grader.compare.outputs: a result made by the work passes; one made another way, or not made, fails; an
FP32 product made any honest way passes, one of inputs rounded to FP16 or BF16 fails (issue 37 point 6)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.compare import outputs

RNG = np.random.default_rng(5)


def test_a_copy_is_bit_for_bit() -> None:
    src = RNG.random(1000, dtype=np.float32)
    assert outputs.copied({"src": src, "dst": src.copy()})
    wrong = src.copy()
    wrong[999] = np.nextafter(wrong[999], np.float32(2))
    assert not outputs.copied({"src": src, "dst": wrong})
    assert not outputs.copied({"src": src, "dst": np.full_like(src, np.nan)})


def test_transposes_added_r_times_hold_r_times_the_transpose_bit_for_bit() -> None:
    """m3's runs add the transpose into a dst handed at zero: r of them leave r src.T, the same r
    everywhere; a copied transpose is r = 1; a dst with one block added once more, or none added, is not."""
    src = RNG.choice(np.array([1.0, 2.0, 4.0], dtype=np.float32), size=(96, 64))
    dst = np.zeros((64, 96), dtype=np.float32)
    for _ in range(3):
        np.add(dst, src.T, out=dst)
    assert outputs.transposed_sum({"src": src, "dst": dst})
    assert outputs.transposed_sum({"src": src, "dst": np.ascontiguousarray(src.T)})
    block = dst[:16, :16]
    block += src[:16, :16].T
    assert not outputs.transposed_sum({"src": src, "dst": dst})
    assert not outputs.transposed_sum({"src": src, "dst": np.zeros((64, 96), dtype=np.float32)})
    where = np.array([0, 95, 64 * 96 - 1])
    np.testing.assert_array_equal(
        outputs.transposed_added_at({"src": src}, where), np.ascontiguousarray(src.T).reshape(-1)[where]
    )


def test_a_product_is_checked_at_a_sample_of_places() -> None:
    a, b = (RNG.standard_normal((300, 300)).astype(np.float32) for _ in range(2))
    c = a @ b
    assert outputs.product({"a": a, "b": b, "c": c})
    assert not outputs.product({"a": a, "b": b, "c": np.zeros_like(c)})
    half = c.copy()
    half[150:] = np.nan  # half the rows left unwritten
    assert not outputs.product({"a": a, "b": b, "c": half})
    low = (a.astype(np.float16) @ b.astype(np.float16)).astype(np.float32)  # the product at a lower precision
    assert not outputs.product({"a": a, "b": b, "c": low})
    assert not outputs.product({"a": a, "b": b, "c": np.full_like(c, np.nan)})


def _inputs(seed: int, rows: int, inner: int, cols: int, fill: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if fill == "normal":
        return (rng.standard_normal(s).astype(np.float32) for s in ((rows, inner), (inner, cols)))  # type: ignore[return-value]
    return (rng.random(s, dtype=np.float32) for s in ((rows, inner), (inner, cols)))  # type: ignore[return-value]


SHAPES = dict(
    seed=st.integers(0, 2**32 - 1),
    rows=st.integers(16, 96),
    inner=st.integers(16, 1024),
    cols=st.integers(16, 96),
    fill=st.sampled_from(["normal", "uniform"]),
)


@settings(max_examples=25, deadline=None)
@given(**SHAPES)
def test_an_fp32_product_passes_made_any_honest_way(
    seed: int, rows: int, inner: int, cols: int, fill: str
) -> None:
    """numpy's BLAS, torch's, and a plain loop over the inner axis (FP32 sums in their most naive order)."""
    a, b = _inputs(seed, rows, inner, cols, fill)
    assert outputs.product({"a": a, "b": b, "c": a @ b})
    loop = np.zeros((rows, cols), np.float32)
    for k in range(inner):
        loop += np.outer(a[:, k], b[k])
    assert outputs.product({"a": a, "b": b, "c": loop})
    torch = pytest.importorskip("torch")
    assert outputs.product({"a": a, "b": b, "c": torch.mm(torch.from_numpy(a), torch.from_numpy(b)).numpy()})


@settings(max_examples=25, deadline=None)
@given(**SHAPES, low=st.sampled_from(["float16", "bfloat16"]))
def test_a_product_of_inputs_rounded_to_fp16_or_bf16_fails(
    seed: int, rows: int, inner: int, cols: int, fill: str, low: str
) -> None:
    """The inputs rounded to the lower precision, their products summed in FP32 (the least such a product
    loses: an all-FP16 product on a CPU sums so) or, for FP16, summed in FP16 too."""
    torch = pytest.importorskip("torch")
    a, b = _inputs(seed, rows, inner, cols, fill)
    dtype = getattr(torch, low)
    ta, tb = (torch.from_numpy(m).to(dtype).float() for m in (a, b))
    assert not outputs.product({"a": a, "b": b, "c": torch.mm(ta, tb).numpy()})
    if low == "float16":
        half = (a.astype(np.float16) @ b.astype(np.float16)).astype(np.float32)
        assert not outputs.product({"a": a, "b": b, "c": half})


@pytest.mark.parametrize("n", [3072])  # past the largest graded n: the bound looser than at any graded n
def test_at_the_graded_sizes_fp32_passes_with_margin_and_fp16_fails(n: int) -> None:
    """At 3072, m2a's largest n before issue 41 (twice today's largest; the drawn n themselves are tested in
    tests/grader/checks/test_m2_sizes.py): torch's and numpy's FP32 products stay within a tenth of the bound at every
    place sampled (0.004 of it here), and an all-FP16 product (issue 37: it passed 5 of 5 at n = 2560) is
    past it at a tenth of the places and more."""
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    generator = torch.Generator().manual_seed(n)
    a, b = (torch.randn(n, n, generator=generator) for _ in range(2))
    got = {"a": a.numpy(), "b": b.numpy()}
    rng = np.random.default_rng(n)
    where = rng.choice(n * n, size=1024, replace=False)
    i, j = where // n, where % n
    left, right = got["a"][i].astype(np.float64), got["b"][:, j].T.astype(np.float64)
    exact = np.einsum("sk,sk->s", left, right)
    scale = np.einsum("sk,sk->s", np.abs(left), np.abs(right)) * outputs.fp32_share(n)

    def share_of_bound(c: np.ndarray) -> np.ndarray:
        return np.abs(c[i, j].astype(np.float64) - exact) / scale

    for honest in (torch.mm(a, b).numpy(), got["a"] @ got["b"]):
        assert share_of_bound(honest).max() < 0.1
        assert outputs.product({**got, "c": honest})
    for low in (torch.float16, torch.bfloat16):
        rounded = torch.mm(a.to(low).float(), b.to(low).float()).numpy()
        assert (share_of_bound(rounded) > 1).mean() > 0.1
        assert not outputs.product({**got, "c": rounded})


def test_a_matvec_is_checked_at_a_sample_of_rows() -> None:
    w = RNG.standard_normal((200, 500)).astype(np.float32)
    x = RNG.standard_normal(500).astype(np.float32)
    assert outputs.matvec({"w": w, "x": x, "y": w @ x})
    assert not outputs.matvec({"w": w, "x": x, "y": (w @ x) * 1.01})  # another product
    assert not outputs.matvec({"w": w, "x": x, "y": np.full(200, np.nan, np.float32)})


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
    assert outputs.scaled({**got, "y": passes.numpy()}, k, False, 1.01)
    assert not outputs.scaled({**got, "y": one.numpy()}, k, False, 1.01)  # one pass cannot pass for k
    assert outputs.scaled({**got, "y": one.numpy()}, k, True, 1.01)
    assert outputs.scaled({**got, "y": passes.numpy()}, k, True, 1.01)  # k passes: x c^k to rounding
    assert not outputs.scaled({**got, "y": x.numpy()}, k, True, 1.01)


def test_an_accumulator_holds_a_whole_number_of_runs_bit_for_bit_and_counts_at_places() -> None:
    """m5's out += x: x powers of two, out after r runs exactly r x, the same r everywhere (each of a
    curve's pieces its own), at least one; what one run adds at a place is x there."""
    x = np.ldexp(1.0, RNG.integers(0, 3, size=3000)).astype(np.float32)
    out = np.zeros(3000, dtype=np.float32)
    assert not outputs.accumulated({"x": x, "out": out})  # no run at all
    for _ in range(7):
        out += x
    assert outputs.accumulated({"x": x, "out": out})
    wrong = out.copy()
    wrong[2999] += x[2999]  # one place a run ahead
    assert not outputs.accumulated({"x": x, "out": wrong})
    half = x * np.float32(6.5)
    assert not outputs.accumulated({"x": x, "out": half})  # no whole number of runs
    assert not outputs.accumulated({"x": x, "out": out[:-1]})  # a size that is not the input's
    pieces = out.copy()
    pieces[1000:] += x[1000:] * np.float32(4)  # the second piece eleven runs, the first seven
    assert outputs.accumulated({"x": x, "out": pieces}, [(0, 1000), (1000, 3000)])
    assert not outputs.accumulated({"x": x, "out": pieces})
    assert not outputs.accumulated({"x": x, "out": pieces}, [(0, 1000), (1000, 3001)])  # not a piece of it
    assert np.array_equal(outputs.added_at({"x": x}, np.array([0, 2999])), x[[0, 2999]])


def test_a_sweeps_products_are_each_tested_however_small_the_block() -> None:
    w = RNG.standard_normal((64, 32)).astype(np.float32)
    x = RNG.standard_normal((1 + 2 + 300, 64)).astype(np.float32)
    y = x @ w
    assert outputs.products({"w": w, "x": x, "y": y}, (1, 2, 300))
    # the first block (one row of 303) left unwritten: a sample of the whole would miss it most of the time
    missing = y.copy()
    missing[0] = np.nan
    assert not outputs.products({"w": w, "x": x, "y": missing}, (1, 2, 300))
