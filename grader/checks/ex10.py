"""Checks of exercise 10 (measure it yourself): solutions/ex10_cache_bandwidth.py.

Both matvec measurements run against perfcore's reference on the same single W, interleaved. The small W
is the lecture's 1024 x 1024 (4 MiB): a cache experiment only where it takes at most half of the last-level
cache, so that check requires an 8 MiB one. The large W is a DRAM working set on this machine
(:mod:`grader.specs.sizes`): 4096 rows and as many columns as make it at least 4 x the last-level cache (the
lecture's 4096 x 8192 is 128 MiB, which a 300 MiB L3 would hold).

Each check's shape is drawn per submission, the graded one and the probe from one distribution: the small W
from 512-1024 x 512-1024 (at most the lecture's 4 MiB, so still at most half of the required 8 MiB cache),
the large one with one to 5/4 of the DRAM working set's columns. Each call must read its W (the Work floor).
"""

import random

from grader.checks import bandwidth_bound
from grader.compare import outputs
from grader.specs.check import ChoiceCheck, Exercise, MeasurementCheck, Work
from grader.specs.handed import Buffer, Handed
from grader.specs.requirements import Requirements
from grader.specs.sizes import Memory, dram_buffer_bytes
from perfcore.measure import matvec_bandwidth

MiB = 1 << 20
SMALL_SHAPE = (1024, 1024)
LARGE_ROWS = 4096


def large_shape(memory: Memory) -> tuple[int, int]:
    """(rows, cols) of the large W: 4096 rows, a DRAM working set of ``memory`` in all."""
    cols = -(-dram_buffer_bytes(memory) // (LARGE_ROWS * 4))
    return LARGE_ROWS, cols


def small_input(u: float, rng: random.Random) -> dict[str, int]:
    """The small W at quantile ``u`` of its rows (512-1024, steps of 64); its columns drawn alike."""
    return {"rows": 512 + round(u * 8) * 64, "cols": 512 + rng.randrange(9) * 64}


def large_input(u: float, rng: random.Random, shape: tuple[int, int] | None = None) -> dict[str, int]:
    """The large W at quantile ``u`` of its columns: one to 5/4 of the DRAM working set's (steps of 1024)."""
    rows, cols = shape or _LARGE
    return {"rows": rows, "cols": cols + int(u * (cols // 4)) // 1024 * 1024}


def _matvec_work(rows: int, cols: int) -> Work:
    """W @ x reads W and x and writes y once."""
    return Work(bytes=(rows * cols + rows + cols) * 4)


#: The matvec's arguments, W and x drawn, y written: y must hold W @ x. Uniform numbers, not normal ones: the
#: judge draws W for every call (it then compares W at a sample of places, never drawn again), and numpy
#: draws 64 Mi FP32 normal numbers in 1.2-2.3 s on the project's EPYC, uniform ones in 0.24 s (issue 41: the
#: large W's check spent most of its 10.9 s there). A matvec's time does not depend on the values; its FP32
#: bound holds for both.
MATVEC_HANDED = Handed(
    arguments=lambda rows, cols: {
        "w": Buffer((rows, cols), fill="uniform"),
        "x": Buffer((cols,), fill="uniform"),
        "y": Buffer((rows,), output=True),
    },
    result=lambda got, **_: outputs.matvec(got),
    result_zh="y 等于 w @ x（FP32 的舍入误差之内）",
    result_en="y equal to w @ x, to FP32 rounding",
    watched="y",
    at=lambda got, where, **_: outputs.matvec_at(got, where),
)


def _matvec(rows: int, cols: int) -> float:
    return matvec_bandwidth(rows=rows, cols=cols, dram=False)


_LARGE = large_shape(Memory.here())

EXERCISE = Exercise(
    id="ex10",
    module="ex10_cache_bandwidth",
    title_zh="自己测一测",
    title_en="Measure it yourself",
    checks=(
        MeasurementCheck(
            id="10_small_w",
            part="10",
            points=2,
            func="matvec_bandwidth",
            kwargs={"rows": SMALL_SHAPE[0], "cols": SMALL_SHAPE[1]},
            reference=_matvec,
            work=_matvec_work,
            handed=MATVEC_HANDED,
            inputs=small_input,
            kind="cache",
            rounds=5,
            physical_bound=bandwidth_bound,
            requires=Requirements(torch=">=2.0", serial=True, min_llc_bytes=8 * MiB),
            hint_zh="字节数 = (rows·cols + cols + rows) × 4；一个线程；热身后取中位数。",
            hint_en="Bytes = (rows cols + cols + rows) x 4; one thread; warm up, then take the median.",
        ),
        MeasurementCheck(
            id="10_large_w",
            part="10",
            points=2,
            func="matvec_bandwidth",
            kwargs={"rows": _LARGE[0], "cols": _LARGE[1]},
            reference=_matvec,
            work=_matvec_work,
            handed=MATVEC_HANDED,
            inputs=large_input,
            kind="dram",
            rounds=5,
            physical_bound=bandwidth_bound,
            requires=Requirements(
                torch=">=2.0",
                serial=True,
                caches=True,
                memory_bytes=(_LARGE[0] + 2) * (_LARGE[1] + _LARGE[1] // 4) * 4,
            ),
            hint_zh="大的 W（评分器按本机缓存选的大小）：先调用一次把每一页都摸过，再计时。",
            hint_en="The large W (sized by the grader for this machine's caches): call once to touch every page "
            "before timing.",
        ),
        ChoiceCheck(
            id="10_why",
            part="10",
            points=1,
            func="answer_10_why",
            expected="a",
            choices=("a", "b", "c", "d"),
            hint_zh="重复测量时，4 MiB 的 W 住在存储层次的哪一层？",
            hint_en="Across repeated runs, which level of the hierarchy does the 4 MiB W live in?",
        ),
    ),
)
