"""Memory bandwidth on one core (§3.5, seed 002 demo 4) and exercise 10 (a weight in cache vs in DRAM).

Bytes are counted as STREAM counts them: a copy moves its array twice (read + write), a sum once, a
matrix-vector product moves W + x + y. The working set is at least 4 x the last-level cache: the copy's
source and destination together (two tensors of their own, as a student allocates them: the two halves of
one buffer copy up to a third slower on some CPUs, their addresses a large power of two apart), the sum's
whole array, and for the matrix-vector product as many 4096 x 8192 (128 MiB)
weights as that takes, used in turn, so that each call reads a W that the previous calls pushed out of
every cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..validation import positive_int
from .core import (
    Bounds,
    Figure,
    check_bandwidth,
    compare,
    dram_bytes,
    make_bounds,
    round_seconds,
    split,
    time_blocks,
    workspace,
)
from .machine import machine_info
from .rotation import Rotation
from .timing import require_torch, single_thread

STREAM_COUNTING = "STREAM: copy = read + write of the array (2x), sum = the array once, matvec = W + x + y"


@dataclass(frozen=True)
class BandwidthResult:
    """copy, sum and matvec over a DRAM working set; rates in bytes/s, counted as ``counting`` says."""

    working_set_bytes: int
    llc_bytes: int
    matvec_shape: tuple[int, int]
    matvec_buffers: int
    copy: Figure
    sum: Figure
    matvec: Figure
    counting: str = STREAM_COUNTING


_COPY_PAIR: dict[int, tuple[Any, Any]] = {}


def copy_pair(n: int) -> tuple[Any, Any]:
    """A source and a destination of ``n`` FP32 numbers each, allocated separately and touched (one pair
    kept per process: the last size asked for)."""
    torch = require_torch()
    n = positive_int("n", n)
    if n not in _COPY_PAIR:
        _COPY_PAIR.clear()
        _COPY_PAIR[n] = (torch.ones(n), torch.zeros(n))
    return _COPY_PAIR[n]


def weight_buffers(rows: int, cols: int, n_bytes: int | None = None) -> list[Any]:
    """As many rows x cols FP32 weights as fill ``n_bytes`` (default: the DRAM working set), at least one."""
    rows = positive_int("rows", rows)
    cols = positive_int("cols", cols)
    total = n_bytes if n_bytes is not None else dram_bytes()
    total = positive_int("n_bytes", total)
    count = max(1, total // (rows * cols * 4))
    flat = workspace(count * rows * cols * 4)
    return [v.view(rows, cols) for v in split(flat, count, rows * cols)]


def memory_bandwidth(
    n_bytes: int | None = None,
    matvec_shape: tuple[int, int] = (4096, 8192),
    repeats: int = 5,
    bounds: Bounds | None = None,
) -> BandwidthResult:
    """§3.5: copy, sum and matrix-vector bandwidth on one core over ``n_bytes`` (default 4 x LLC)."""
    torch = require_torch()
    machine = machine_info()
    n_bytes = positive_int("n_bytes", n_bytes if n_bytes is not None else dram_bytes(machine))
    rows, cols = (
        positive_int("matvec_shape[0]", matvec_shape[0]),
        positive_int("matvec_shape[1]", matvec_shape[1]),
    )
    repeats = positive_int("repeats", repeats)
    bounds = bounds or make_bounds(machine)
    half = n_bytes // 8  # elements in each half
    with single_thread():
        src, dst = copy_pair(half)
        copy_t = time_blocks(lambda: dst.copy_(src), repeats)
        _COPY_PAIR.clear()
        whole = workspace(2 * half * 4)[: 2 * half]
        total = torch.zeros(())
        sum_t = time_blocks(lambda: torch.sum(whole, dim=0, out=total), repeats)
        weights = weight_buffers(rows, cols, n_bytes)
        x = torch.ones(cols)
        ys = [torch.zeros(rows) for _ in weights]
        mv = Rotation(lambda i: torch.mv(weights[i], x, out=ys[i]), len(weights))
        mv_t = time_blocks(mv, repeats)
    mv_bytes = (rows * cols + rows + cols) * 4
    mv_set = len(weights) * rows * cols * 4
    copy = Figure.from_timing("copy (torch copy_)", copy_t, 2 * half * 4, "byte", "read + write")
    total_sum = Figure.from_timing("sum (torch.sum)", sum_t, 2 * half * 4, "byte", "read once")
    matvec = Figure.from_timing(f"matvec {rows}x{cols} (torch.mv)", mv_t, mv_bytes, "byte", "W + x + y")
    check_bandwidth(copy, bounds, 2 * half * 4)
    check_bandwidth(total_sum, bounds, 2 * half * 4)
    check_bandwidth(matvec, bounds, mv_set)
    return BandwidthResult(
        working_set_bytes=2 * half * 4,
        llc_bytes=machine.llc_bytes,
        matvec_shape=(rows, cols),
        matvec_buffers=len(weights),
        copy=copy,
        sum=total_sum,
        matvec=matvec,
    )


# --------------------------------------------------------------------------------------------------------
# single-shot reference measurements (one float each), for a grader to interleave with a student's
# --------------------------------------------------------------------------------------------------------


def copy_bandwidth(n_bytes: int | None = None, path: str = "torch", block_s: float = 0.01) -> float:
    """Bytes/s of one round of copies of an ``n_bytes`` array into another (STREAM: 2 x n_bytes).

    ``n_bytes`` defaults to half the DRAM working set (so source + destination = 4 x LLC); ``path`` is
    "torch" (``copy_``) or "numpy" (``np.copyto``). Source and destination are two tensors of their own
    (:func:`copy_pair`), kept touched between calls.
    """
    import numpy as np

    n = positive_int("n_bytes", n_bytes if n_bytes is not None else dram_bytes() // 2) // 4
    if path not in ("torch", "numpy"):
        raise ValueError(f"path must be 'torch' or 'numpy', got {path!r}")
    with single_thread():
        src, dst = copy_pair(n)
        if path == "torch":
            seconds = round_seconds(lambda: dst.copy_(src), block_s)
        else:
            s, d = src.numpy(), dst.numpy()
            seconds = round_seconds(lambda: np.copyto(d, s), block_s)
    return 2 * n * 4 / seconds


def sum_bandwidth(n_bytes: int | None = None, block_s: float = 0.01) -> float:
    """Bytes/s of one round of ``torch.sum`` over an ``n_bytes`` array (STREAM: n_bytes once)."""
    torch = require_torch()
    n = positive_int("n_bytes", n_bytes if n_bytes is not None else dram_bytes()) // 4
    with single_thread():
        arr = workspace(n * 4)[:n]
        out = torch.zeros(())
        seconds = round_seconds(lambda: torch.sum(arr, dim=0, out=out), block_s)
    return n * 4 / seconds


def matvec_bandwidth(rows: int = 4096, cols: int = 8192, dram: bool = True, block_s: float = 0.01) -> float:
    """Effective bytes/s (W + x + y) of one round of ``W[rows, cols] @ x``.

    ``dram=True`` uses enough weights in turn to fill 4 x LLC (each call reads one from DRAM);
    ``dram=False`` multiplies one W again and again, which a small W serves from cache (exercise 10).
    """
    torch = require_torch()
    rows = positive_int("rows", rows)
    cols = positive_int("cols", cols)
    with single_thread():
        weights = weight_buffers(rows, cols, None if dram else rows * cols * 4)
        x = torch.ones(cols)
        ys = [torch.zeros(rows) for _ in weights]
        seconds = round_seconds(Rotation(lambda i: torch.mv(weights[i], x, out=ys[i]), len(weights)), block_s)
    return (rows * cols + rows + cols) * 4 / seconds


# --------------------------------------------------------------------------------------------------------
# exercise 10
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CacheVsDram:
    """Exercise 10: m = 1 against a small W (fits in cache) and a large W (read from DRAM)."""

    small_shape: tuple[int, int]
    large_shape: tuple[int, int]
    large_buffers: int
    small: Figure  # effective bytes/s, W + x + y
    large: Figure
    ratio: float  # small / large, medians of the interleaved blocks
    small_fits: str  # the cache level the small W fits in ("L2", "L3", "none")
    l2_bytes: int
    llc_bytes: int
    explanation: str


def cache_vs_dram(
    small_shape: tuple[int, int] = (1024, 1024),
    large_shape: tuple[int, int] = (4096, 8192),
    m: int = 1,
    rounds: int = 5,
    n_bytes: int | None = None,
    bounds: Bounds | None = None,
) -> CacheVsDram:
    """Exercise 10: effective bandwidth of X[m, k] @ W[k, n] for a 4 MiB W and for the 128 MiB W.

    The small W is multiplied again and again, so after the first call it is read from cache; the large W
    is one of several used in turn (4 x LLC in all), so it comes from DRAM. Timed A B A B.
    """
    torch = require_torch()
    machine = machine_info()
    m = positive_int("m", m)
    rounds = positive_int("rounds", rounds)
    bounds = bounds or make_bounds(machine)
    sk, sn = (positive_int("small_shape[0]", small_shape[0]), positive_int("small_shape[1]", small_shape[1]))
    lk, ln = (positive_int("large_shape[0]", large_shape[0]), positive_int("large_shape[1]", large_shape[1]))
    with single_thread():
        gen = torch.Generator().manual_seed(1)
        small_w = torch.randn(sk, sn, generator=gen)
        xs, ys = torch.ones(m, sk), torch.zeros(m, sn)
        large = weight_buffers(lk, ln, n_bytes)
        xl = torch.ones(m, lk)
        yl = [torch.zeros(m, ln) for _ in large]
        times = compare(
            {
                "small": lambda: torch.mm(xs, small_w, out=ys),
                "large": Rotation(lambda i: torch.mm(xl, large[i], out=yl[i]), len(large)),
            },
            rounds=rounds,
        )
    small_bytes = (sk * sn + m * sk + m * sn) * 4
    large_bytes = (lk * ln + m * lk + m * ln) * 4
    small = Figure.from_timing(f"W {sk}x{sn} (cache)", times["small"], small_bytes, "byte", "W + x + y")
    large_fig = Figure.from_timing(f"W {lk}x{ln} (DRAM)", times["large"], large_bytes, "byte", "W + x + y")
    check_bandwidth(small, bounds, small_bytes)
    check_bandwidth(large_fig, bounds, len(large) * lk * ln * 4)
    fits = "L2" if sk * sn * 4 <= machine.l2_bytes else ("L3" if sk * sn * 4 <= machine.llc_bytes else "none")
    ratio = times["large"].median_s / times["small"].median_s * small_bytes / large_bytes
    explanation = (
        f"The {sk * sn * 4 / 2**20:.0f} MiB W fits in {fits} (L2 {machine.l2_bytes / 2**20:.0f} MiB, last level "
        f"{machine.llc_bytes / 2**20:.0f} MiB), so after the first call it is read from cache; the "
        f"{lk * ln * 4 / 2**20:.0f} MiB W is one of {len(large)} used in turn and comes from DRAM. Know which "
        "level the data lives in before reading a bandwidth off a timing."
    )
    return CacheVsDram(
        small_shape=(sk, sn),
        large_shape=(lk, ln),
        large_buffers=len(large),
        small=small,
        large=large_fig,
        ratio=ratio,
        small_fits=fits,
        l2_bytes=machine.l2_bytes,
        llc_bytes=machine.llc_bytes,
        explanation=explanation,
    )


__all__ = [
    "BandwidthResult",
    "CacheVsDram",
    "cache_vs_dram",
    "copy_bandwidth",
    "matvec_bandwidth",
    "memory_bandwidth",
    "sum_bandwidth",
    "weight_buffers",
]
