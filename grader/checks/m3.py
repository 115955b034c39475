"""Checks of measurement 3 (a tiled transpose): solutions/m3_transpose.py.

Each transpose time is judged against perfcore's at the same size, interleaved, and so is m3c's speedup.
Every run adds the transpose into dst (``dst += src.T``, naive or tile by tile: :func:`_transpose_buffers`),
so that the judge counts the runs at each of the call's clock readings, as m5's adds.

The inputs are drawn per submission, the graded one and the probes from one distribution per check. m3b's
(:func:`time_input`) has small tiles, where a Python loop over tile x tile blocks costs several naive runs
(on a 2-vCPU Xeon VM reporting a 480 MiB L3: 3-18x at tile 8, and 1-5x at tile 16, where n = 1024's
power-of-two stride slows the naive reads to the tiled loop's time): a tiled time made up from the naive one
(a share of it) cannot follow perfcore's there, while an honest loop does on any machine, since perfcore
runs the same loop at the same input; and the counts hold a figure to the runs its stretches held.

m3c's speedup (naive time over tiled time) is a figure of the machine, not a constant: whether tiling wins
depends on n and the tile (on that Xeon 0.14-0.39x at tile 8, where the Python loop over 16384 and more
blocks costs more than the cache misses it saves, 1.4-3.4x at tile 32 below n = 2048, 2.7-4.2x at n = 2048
and 3072 with tiles of 64 and 128, where a power-of-two stride makes the naive reads collide in the cache's
sets; on a 2-vCPU EPYC, with copies, 0.3x, 1.1-1.4x and 1.7-2.2x). Its inputs (:data:`SPEEDUP_LADDER`) run
from where tiling loses to where it wins, and the graded input and two probes are drawn one from each third:
the student's speedup must follow perfcore's at each, within the band of a Python loop's overhead (a loop
written otherwise costs up to about 1.5x perfcore's per block). A constant cannot: the first third's and
the last's speedups lie 4x and more apart, farther than the band is wide. The lecture's claim (tiling beats
the naive transpose by more than 1.2x at n = 2048, tile 64) is no longer a rule of its own: it holds where
perfcore's speedup shows it, and the band against perfcore's at the same input judges the student's there
too.
"""

import random

import numpy as np

from grader.compare import outputs
from grader.specs.check import Exercise, MeasurementCheck, ValueCheck, Work
from grader.specs.handed import Buffer, Handed
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
    """One transpose of n x n FP32 added into dst reads src and dst and writes dst: its n^2 numbers three
    times."""
    return Work(bytes=3 * n * n * 4)


#: m3c's inputs (n, tile), ordered from where tiling loses (tile 8) through where it about breaks even
#: (tile 32, n below 2048) to where it wins (n = 2048 and 3072, tiles 64 and 128); each third of the ladder is
#: a stratum of the draws (:func:`speedup_input`).
SPEEDUP_LADDER = (
    (1024, 8),
    (1280, 8),
    (1536, 8),
    (1024, 32),
    (1280, 32),
    (1536, 32),
    (2048, 64),
    (3072, 64),
    (3072, 128),
)
#: m3c's probes: with the graded input, one draw from each third of :data:`SPEEDUP_LADDER`.
SPEEDUP_PROBES = 2


def speedup_input(u: float, rng: random.Random) -> dict[str, int]:
    """m3c's input at quantile ``u`` of :data:`SPEEDUP_LADDER`."""
    n, tile = SPEEDUP_LADDER[min(int(u * len(SPEEDUP_LADDER)), len(SPEEDUP_LADDER) - 1)]
    return {"n": n, "tile": tile}


def _speedup_work(n: int, tile: int) -> Work:
    """A speedup times both transposes, each at least once."""
    return Work(bytes=2 * 3 * n * n * 4)


def _transpose_buffers(n: int, tile: int, **plain: str) -> dict[str, object]:
    """The student's src (drawn: powers of two) and dst (handed at zero), n x n FP32 numpy arrays, with the
    tile (and method). Every run adds the transpose into dst (``dst += src.T``), so after r runs dst holds
    exactly r src.T: the worker reads its places at each clock reading and the judge counts the runs each
    stretch between readings held (as m5's add: :func:`grader.judge.runners.honesty.counted`). A
    transpose's time does not depend on the values."""
    square = (n, n)
    return {
        "src": Buffer(square, library="numpy", fill="powers"),
        "dst": Buffer(square, library="numpy", output=True, zeroed=True),
        "tile": tile,
        **plain,
    }


#: m3b's and m3c's arguments: dst must hold r src.T, r >= 1 the runs made (each adds the transpose).
TRANSPOSE_HANDED = Handed(
    arguments=_transpose_buffers,
    result=lambda got, **_: outputs.transposed_sum(got),
    result_zh="dst 等于 r·src.T（r 是做过的转置相加次数，至少一次，逐位相同）",
    result_en="dst equal to r·src.T, r the transposes added (at least one), bit for bit",
    watched="dst",
    counted=lambda got, where, **_: outputs.transposed_added_at(got, where),
)


def _reference_time(n: int, tile: int, method: str) -> float:
    """perfcore's time on one (src, dst) pair, as the stub measures it: m3b's sizes fit in a large cache,
    where a reference taking DRAM-sized turns of pairs read 1.3-1.7x slower than an honest student's."""
    return transpose_time(n=n, method=method, tile=tile, pairs=1, add=True)


def _speedup(n: int, tile: int) -> float:
    """perfcore's naive time over its tiled time at the drawn input, on one (src, dst) pair as the student's."""
    return _reference_time(n, tile, "naive") / _reference_time(n, tile, "tiled")


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
            handed=TRANSPOSE_HANDED,
            inputs=lambda u, rng: {**time_input(u, rng), "method": "naive"},
            kind="cache",
            rounds=3,
            higher_is_better=False,
            unit="s",
            hint_zh="朴素：每次运行 np.add(dst, src.T, out=dst)（dst += src.T），dst 由评分器交给你（全为 0）；"
            "返回一次的秒数。",
            hint_en="Naive: each run adds np.add(dst, src.T, out=dst) (dst += src.T) into the dst handed to you "
            "(all zeros); return seconds per run.",
        ),
        MeasurementCheck(
            id="transpose_time_tiled",
            part="m3b",
            points=2,
            func="transpose_time",
            kwargs={"n": TIME_N[0], "tile": TIME_TILES[0], "method": "tiled"},
            reference=lambda n, tile, method: _reference_time(n, tile, method),
            work=_transpose_work,
            handed=TRANSPOSE_HANDED,
            inputs=lambda u, rng: {**time_input(u, rng), "method": "tiled"},
            kind="overhead",
            rounds=3,
            higher_is_better=False,
            unit="s",
            hint_zh="分块：Python 循环遍历 tile×tile 的块，每块的转置加到 dst 对应的位置上（block += ...T）。",
            hint_en="Tiled: a Python loop over tile x tile blocks, each one's transpose added into its place in "
            "dst (block += ...T).",
        ),
        MeasurementCheck(
            id="transpose_speedup",
            part="m3c",
            points=1,
            func="transpose_speedup",
            kwargs={"n": 2048, "tile": _TILE},
            reference=_speedup,
            work=_speedup_work,
            handed=TRANSPOSE_HANDED,
            inputs=speedup_input,
            probes=SPEEDUP_PROBES,
            kind="overhead",
            rounds=3,
            unit="x",
            hint_zh="返回 朴素时间 / 分块时间（大于 1 表示分块更快；块很小时 Python 循环的开销会让它小于 1）。",
            hint_en="Return naive time / tiled time (above 1: tiled is faster; with very small tiles the Python "
            "loop's overhead can make it less than 1).",
        ),
    ),
)
