"""The results the measurements' handed buffers must hold after a call (:mod:`grader.specs.handed`).

Each test reads the buffers the student's code wrote (numpy arrays over the judge's mapping where the
buffers are sealed, else read into the judge's own memory; the inputs
are checked unchanged before) and says whether they hold the result of the work the call timed. Where the
whole result would cost the judge as much as the work (k passes, a product, a matvec), it tests a sample of
places drawn from a seed nobody else knows: a result made without the work (another product, a lower
precision, a part left unwritten) fails at many of them, and a right one passes at all of them. A product
or a matvec is FP32's: within FP32's rounding of a sum of its length (:func:`fp32_share`), which a
product of the inputs rounded to FP16 or BF16 is not.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Mapping, Sequence

import numpy as np

#: Places of a result sampled where the whole would cost as much as the work: elements of k passes, entries
#: of a product, rows of a matvec (each a sum over a whole row of the input: fewer, to keep the judge's
#: share of a call to a few tens of milliseconds).
SAMPLE = 4096
PRODUCT_SAMPLE = 1024
MATVEC_SAMPLE = 256
#: A sum of n FP32 products, as any order of FP32 additions makes it (a BLAS kernel's blocked sums, a
#: vector unit's lanes, a plain loop), is within about lambda x sqrt(n) x u of the sum of their absolute values,
#: u = 2^-24 FP32's unit roundoff, with a probability that nears 1 fast in lambda (rounding errors taken as
#: independent and zero-mean: Higham and Mary's probabilistic bound). With lambda = 4, torch's and numpy's
#: FP32 products at m2a's graded n (2560-3072) came within 0.004 of the bound at every place sampled, while
#: inputs rounded to FP16 (u = 2^-11) and summed in FP32 were past it at 12-20% of the places (at most 2.6x
#: it), and BF16's (u = 2^-8) at 85%: a sample of hundreds of places never misses them. (The former share,
#: 1e-4 whatever n, let an all-FP16 product pass at n = 2560.) An FP16 product is not the FP32 one asked for.
FP32_UNIT = 2.0**-24
FP32_LAMBDA = 4.0


def fp32_share(n: int) -> float:
    """The most a sum of ``n`` FP32 products may be off, as a share of the sum of their absolute values."""
    return FP32_LAMBDA * math.sqrt(max(n, 1)) * FP32_UNIT


def _rng() -> np.random.Generator:
    return np.random.default_rng(secrets.randbits(64))


def copied(got: Mapping[str, np.ndarray], src: str = "src", dst: str = "dst") -> bool:
    """``dst`` holds a copy of ``src``, bit for bit."""
    return bool(np.array_equal(got[dst], got[src]))


def _near(value: np.ndarray, exact: np.ndarray, scale: np.ndarray, n: int) -> bool:
    """``value`` (FP32 sums of ``n`` products each) within :func:`fp32_share` of the sums of absolute values
    ``scale`` of ``exact`` (NaN, where an output was not written, is never near)."""
    return bool(np.all(np.abs(value.astype(np.float64) - exact) <= fp32_share(n) * scale + 1e-30))


def product(got: Mapping[str, np.ndarray], a: str = "a", b: str = "b", c: str = "c") -> bool:
    """``c`` holds ``a @ b`` at a sample of its places, each against its sum of products in FP64."""
    ma, mb, mc = got[a], got[b], got[c]
    rows, cols = mc.shape
    count = min(rows * cols, PRODUCT_SAMPLE)
    where = _rng().choice(rows * cols, size=count, replace=False)
    i, j = where // cols, where % cols
    for start in range(0, count, 256):  # a slice of rows of a and columns of b at a time
        exact, scale = _entries(ma, mb, i[start : start + 256], j[start : start + 256])
        if not _near(mc[i[start : start + 256], j[start : start + 256]], exact, scale, ma.shape[1]):
            return False
    return True


def _entries(ma: np.ndarray, mb: np.ndarray, i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The entries ``[i, j]`` of ``ma @ mb`` summed in FP64, and the sums of their terms' absolute values."""
    left, right = ma[i].astype(np.float64), mb[:, j].T.astype(np.float64)
    return np.einsum("sk,sk->s", left, right), np.einsum("sk,sk->s", np.abs(left), np.abs(right))


def matvec(got: Mapping[str, np.ndarray], w: str = "w", x: str = "x", y: str = "y") -> bool:
    """``y`` holds ``w @ x`` at a sample of its rows."""
    rows = got[w].shape[0]
    where = np.sort(_rng().choice(rows, size=min(rows, MATVEC_SAMPLE), replace=False))
    exact, scale = _rows(got[w], got[x], where)
    return _near(got[y][where], exact, scale, got[x].size)


def _rows(mw: np.ndarray, vx: np.ndarray, where: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows ``where`` of ``mw @ vx`` summed in FP64, and the sums of their terms' absolute values."""
    part, vector = mw[where].astype(np.float64), vx.astype(np.float64)
    return part @ vector, np.abs(part) @ np.abs(vector)


def scaled(got: Mapping[str, np.ndarray], k: int, fused: bool, c: float, x: str = "x", y: str = "y") -> bool:
    """``y`` holds ``x`` multiplied by ``c`` the way named, at a sample of its places: unfused, the k
    successive FP32 multiplications by ``c``, bit for bit (one multiplication by c**k rounds otherwise at
    most places: the k passes were made); fused, ``x * c**k`` within FP32 rounding."""
    size = got[x].size
    where = _rng().choice(size, size=min(size, SAMPLE), replace=False)
    start, result = got[x][where].astype(np.float32), got[y][where]
    if fused:
        return bool(np.allclose(result, start.astype(np.float64) * c**k, rtol=1e-5, atol=0.0))
    return bool(np.array_equal(result, _passes(start, k, c)))


#: The most runs an accumulator may count: every whole multiple of a power of two up to 2^24 of it is exact
#: in FP32 (the witness's own limit).
MOST_RUNS = 2**24


def accumulated(
    got: Mapping[str, np.ndarray],
    segments: Sequence[tuple[int, int]] | None = None,
    x: str = "x",
    out: str = "out",
) -> bool:
    """``out`` holds ``r * x`` for a whole number ``r`` of runs, at least one, the same everywhere (each of a
    curve's ``segments``, flat ranges, its own ``r``), bit for bit: ``x`` holds powers of two, so FP32 adds
    them exactly (at most :data:`MOST_RUNS` of them). Read a slice at a time, so that no product of the whole
    is held."""
    vx, vo = got[x].reshape(-1), got[out].reshape(-1)
    if vx.size != vo.size or vo.size == 0:
        return False
    step = 1 << 20
    for lo, hi in segments if segments is not None else [(0, vo.size)]:
        if not 0 <= lo < hi <= vo.size:
            return False
        runs = float(vo[lo]) / float(vx[lo]) if vx[lo] else math.nan
        if not (math.isfinite(runs) and runs == round(runs) and 1 <= runs <= MOST_RUNS):
            return False
        r = np.float32(runs)
        for i in range(lo, hi, step):
            j = min(hi, i + step)
            if not np.array_equal(vo[i:j], vx[i:j] * r):
                return False
    return True


def products(
    got: Mapping[str, np.ndarray], rows: Sequence[int], x: str = "x", w: str = "w", y: str = "y"
) -> bool:
    """``y`` holds ``x @ w`` in each block of ``rows`` rows of ``x`` and ``y`` (a sweep's products, one per
    block), each block tested at a sample of its places (:func:`product`), so that no block is left
    untested however small."""
    start = 0
    for count in rows:
        block = {"a": got[x][start : start + count], "b": got[w], "c": got[y][start : start + count]}
        if not product(block):
            return False
        start += count
    return True


def _passes(start: np.ndarray, k: int, c: float) -> np.ndarray:
    """``start`` (FP32) after k FP32 multiplications by ``c``, as k passes round it."""
    expected = start.copy()
    for _ in range(k):
        np.multiply(expected, np.float32(c), out=expected)
    return expected


# The result at a few places, for the judge's witness of a call (grader.judge.runners.witness): what a run
# leaves at each of the flat places ``where`` of the output, and how far from it a value may lie (0: bit for
# bit), worked out from the inputs before the call, as the tests above would judge those places.

Expected = tuple[np.ndarray, np.ndarray]


def copied_at(got: Mapping[str, np.ndarray], where: np.ndarray, src: str = "src") -> Expected:
    """A copy's result at ``where``: the source's numbers there, bit for bit."""
    values = got[src].reshape(-1)[where].astype(np.float64)
    return values, np.zeros_like(values)


def transposed_sum(got: Mapping[str, np.ndarray], src: str = "src", dst: str = "dst") -> bool:
    """``dst`` holds ``r * src.T`` for a whole number ``r`` of runs, at least one, the same everywhere, bit for
    bit: each run adds the transpose (``dst += src.T``) into a ``dst`` handed at zero (:func:`accumulated`)."""
    return accumulated({"x": got[src].T, "out": got[dst]})


def transposed_added_at(got: Mapping[str, np.ndarray], where: np.ndarray, src: str = "src") -> np.ndarray:
    """What one run of an added transpose (``dst += src.T``) adds at ``where`` (flat places of ``src.T``):
    ``src[j, i]`` at ``[i, j]``."""
    rows, _ = got[src].shape
    i, j = where // rows, where % rows  # the output is cols x rows
    return got[src][j, i].astype(np.float64)


def scaled_at(
    got: Mapping[str, np.ndarray], where: np.ndarray, k: int, fused: bool, c: float, x: str = "x"
) -> Expected:
    """k passes' result at ``where``: the k FP32 multiplications by ``c``, bit for bit; fused, ``x * c**k``
    within :func:`scaled`'s relative 1e-5."""
    start = got[x].reshape(-1)[where].astype(np.float32)
    if fused:
        values = start.astype(np.float64) * c**k
        return values, np.abs(values) * 1e-5
    values = _passes(start, k, c).astype(np.float64)
    return values, np.zeros_like(values)


def scaled_stages(
    got: Mapping[str, np.ndarray], where: np.ndarray, k: int, fused: bool, c: float, x: str = "x"
) -> np.ndarray | None:
    """What k passes leave at ``where`` before the first and after each: a table of a row a place and k + 1
    columns, ``x`` and then each FP32 multiplication by ``c`` in turn, bit for bit; None where ``fused`` (one
    pass has no passes between)."""
    if fused:
        return None
    stage = got[x].reshape(-1)[where].astype(np.float32)
    table = np.empty((len(stage), k + 1), dtype=np.float64)
    table[:, 0] = stage
    for i in range(1, k + 1):
        np.multiply(stage, np.float32(c), out=stage)
        table[:, i] = stage
    return table


def added_at(got: Mapping[str, np.ndarray], where: np.ndarray, x: str = "x") -> np.ndarray:
    """What one run of an accumulator (``out += x``) adds at ``where``: ``x`` there."""
    return got[x].reshape(-1)[where].astype(np.float64)


def product_at(got: Mapping[str, np.ndarray], where: np.ndarray, a: str = "a", b: str = "b") -> Expected:
    """A product's entries at ``where`` (flat places of ``a @ b``), within :func:`fp32_share` of their
    sums of absolute values."""
    ma, mb = got[a], got[b]
    exact, scale = _entries(ma, mb, where // mb.shape[1], where % mb.shape[1])
    return exact, fp32_share(ma.shape[1]) * scale + 1e-30


def matvec_at(got: Mapping[str, np.ndarray], where: np.ndarray, w: str = "w", x: str = "x") -> Expected:
    """A matvec's rows at ``where``, within :func:`fp32_share` of their sums of absolute values."""
    exact, scale = _rows(got[w], got[x], where)
    return exact, fp32_share(got[x].size) * scale + 1e-30
