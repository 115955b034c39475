"""Checks of measurement 3 (a tiled transpose): solutions/m3_transpose.py.

Each transpose time is judged against perfcore's at the same size, interleaved. Whether tiling beats the
naive transpose by more than 1.2x depends on the machine's caches and TLB: perfcore's own speedup, measured
alongside, must show it here, or the check is deferred with the reason rather than failed.

The inputs are drawn per submission, the graded one and the probe from one distribution per check. m3b's
(:func:`time_input`) has small tiles, where a Python loop over tile x tile blocks costs several naive
transposes (3-5x at tile 8 on a 2-vCPU EPYC, 1.3-1.8x at tile 16 below n = 1280): a tiled time made up
from the naive one (a share of it) cannot follow perfcore's there, while an honest loop does on any machine,
since perfcore runs the same loop at the same input. m3c keeps the lecture's fixed n = 2048 and tile 64:
tiling wins there through the power-of-two stride that makes the naive transpose's reads collide in the
cache's sets, and not at the sizes between (at n = 2432 perfcore's own speedup read 0.8-0.9x on a 2-vCPU
EPYC), so no range of n keeps the lecture's claim true on every machine.
"""

import random

import numpy as np

from grader.specs.check import Exercise, MeasurementCheck, ShapeCheck, ValueCheck, Work
from grader.specs.requirements import Requirements
from perfcore.measure import transpose_time

#: A non-square matrix whose sides the tile does not divide, so edge blocks are exercised too.
_X = np.random.default_rng(3).standard_normal((300, 200)).astype(np.float32)
_TILE = 64
#: m3b's n: the range of its graded input and its probe, in steps of 64; its tiles (:func:`time_input`).
TIME_N = (512, 1280)
TIME_TILES = (8, 16)


def time_input(u: float, rng: random.Random) -> dict[str, int]:
    """m3b's input at quantile ``u`` of its n; its tile drawn from :data:`TIME_TILES`."""
    low, high = TIME_N
    return {"n": low + round(u * (high - low) / 64) * 64, "tile": rng.choice(TIME_TILES)}


def _transpose_work(n: int, tile: int, method: str = "") -> Work:
    """One transpose of n x n FP32 reads and writes its n^2 numbers once."""
    return Work(bytes=2 * n * n * 4)


def _speedup_work(n: int, tile: int) -> Work:
    """A speedup times both transposes, each at least once."""
    return Work(bytes=2 * 2 * n * n * 4)


def _reference_time(n: int, tile: int, method: str) -> float:
    """perfcore's time on one (src, dst) pair, as the stub measures it: m3b's sizes fit in a large cache,
    where a reference taking DRAM-sized turns of pairs read 1.3-1.7x slower than an honest student's."""
    return transpose_time(n=n, method=method, tile=tile, pairs=1)


def _speedup(n: int, tile: int) -> float:
    """perfcore's naive time over its tiled time at the student's input."""
    return transpose_time(n=n, method="naive", tile=tile) / transpose_time(n=n, method="tiled", tile=tile)


def _faster_than_naive(speedup: object) -> str | None:
    try:
        value = float(speedup)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return f"expected a number (naive time / tiled time), got {speedup!r}"
    if not value > 1.2:
        return f"the tiled transpose should beat the naive one by more than 1.2x; measured {value:.3g}x"
    return None


EXERCISE = Exercise(
    id="m3",
    module="m3_transpose",
    title_zh="分块转置",
    title_en="A tiled transpose",
    checks=(
        ValueCheck(
            id="tiled_transpose_exact",
            part="m3a",
            points=2,
            func="tiled_transpose",
            args=(_X, _TILE),
            expected=lambda: np.ascontiguousarray(_X.T),
            rtol=None,
            atol=None,
            requires=Requirements(),
            hint_zh="转置只搬数据，结果必须完全相等；边缘的块可能不满。",
            hint_en="A transpose only moves data: the result must be exactly equal; edge blocks may be partial.",
        ),
        MeasurementCheck(
            id="transpose_time_naive",
            part="m3b",
            points=1,
            func="transpose_time",
            kwargs={"n": TIME_N[0], "tile": TIME_TILES[0], "method": "naive"},
            reference=lambda n, tile, method: _reference_time(n, tile, method),
            work=_transpose_work,
            inputs=lambda u, rng: {**time_input(u, rng), "method": "naive"},
            kind="cache",
            rounds=3,
            higher_is_better=False,
            unit="s",
            hint_zh="朴素转置：np.copyto(dst, src.T)，dst 预先分配；返回一次的秒数。",
            hint_en="Naive: np.copyto(dst, src.T) into a preallocated dst; return seconds per transpose.",
        ),
        MeasurementCheck(
            id="transpose_time_tiled",
            part="m3b",
            points=2,
            func="transpose_time",
            kwargs={"n": TIME_N[0], "tile": TIME_TILES[0], "method": "tiled"},
            reference=lambda n, tile, method: _reference_time(n, tile, method),
            work=_transpose_work,
            inputs=lambda u, rng: {**time_input(u, rng), "method": "tiled"},
            kind="overhead",
            rounds=3,
            higher_is_better=False,
            unit="s",
            hint_zh="分块：Python 循环遍历 tile×tile 的块，每块写进 dst 对应的位置。",
            hint_en="Tiled: a Python loop over tile x tile blocks, each written into its place in dst.",
        ),
        ShapeCheck(
            id="tiled_beats_naive",
            part="m3c",
            points=1,
            func="transpose_speedup",
            kwargs={"n": 2048, "tile": _TILE},
            shape=_faster_than_naive,
            reference=_speedup,
            work=_speedup_work,
            rounds=3,
            requires=Requirements(torch=">=2.0", serial=True),  # perfcore's transpose timing needs torch
            timeout_s=120,
            hint_zh="返回 朴素时间 / 分块时间（大于 1 表示分块更快）。",
            hint_en="Return naive time / tiled time (above 1 means tiled is faster).",
        ),
    ),
)
