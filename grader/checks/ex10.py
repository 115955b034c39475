"""Checks of exercise 10 (measure it yourself): solutions/ex10_cache_bandwidth.py.

Both matvec measurements run against perfcore's reference on the same single W, interleaved; the small W
is only a cache experiment where the last-level cache holds it, so that check requires one larger than it.
"""

from grader.checks import bandwidth_bound
from grader.requirements import Requirements
from grader.spec import ChoiceCheck, Exercise, MeasurementCheck

MiB = 1 << 20


def _matvec(rows: int, cols: int) -> float:
    from perfcore.measure import matvec_bandwidth

    return matvec_bandwidth(rows=rows, cols=cols, dram=False)


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
            kwargs={"rows": 1024, "cols": 1024},
            reference=_matvec,
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
            kwargs={"rows": 4096, "cols": 8192},
            reference=_matvec,
            kind="dram",
            rounds=5,
            physical_bound=bandwidth_bound,
            hint_zh="128 MiB 的 W：先调用一次把每一页都摸过，再计时。",
            hint_en="The 128 MiB W: call once to touch every page before timing.",
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
