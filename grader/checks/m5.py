"""Checks of measurement 5 (fixed overhead): solutions/m5_overhead.py."""

from grader.requirements import Requirements
from grader.spec import Exercise, MeasurementCheck, ShapeCheck


def _add(n_elements: int) -> float:
    from perfcore.measure import add_time

    return add_time(n_elements=n_elements)


EXERCISE = Exercise(
    id="m5",
    module="m5_overhead",
    title_zh="固定开销",
    title_en="Fixed overhead",
    checks=(
        MeasurementCheck(
            id="add_16",
            part="m5a",
            points=2,
            func="add_time",
            kwargs={"n_elements": 16},
            reference=_add,
            kind="overhead",
            rounds=5,
            higher_is_better=False,
            unit="s",
            hint_zh="一次调用只有几微秒：一次计时里调用很多次再平均。",
            hint_en="One call takes microseconds: time many calls in one block and divide.",
        ),
        ShapeCheck(
            id="overhead_curve",
            part="m5b",
            points=3,
            func="overhead_curve",
            kwargs={"sizes": (16, 256, 4096, 1 << 18, 1 << 20, 1 << 22)},
            shape="overhead",
            requires=Requirements(torch=">=2.0", serial=True),
            timeout_s=120,
            hint_zh="返回 (元素数, 秒) 对；小的时候是固定开销，大的时候随元素数线性增长。",
            hint_en="Return (elements, seconds) pairs: flat overhead when small, linear growth when large.",
        ),
    ),
)
