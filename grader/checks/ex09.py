"""Checks of exercise 9 (overhead): solutions/ex09_overhead.py."""

from hypothesis import strategies as st

import perfcore as pc
from grader.specs.check import Exercise, PropertyCheck, ValueCheck
from grader.specs.strategies import call_kwargs

_KERNELS = st.integers(min_value=1, max_value=10_000)
_COMPUTE = st.floats(min_value=1e-7, max_value=1.0)
_LAUNCH = st.floats(min_value=1e-8, max_value=1e-4)
_R = pc.overhead_remedies(200, 1e-6, 5e-6, 0.5e-6, 20)

EXERCISE = Exercise(
    id="ex09",
    module="ex09_overhead",
    title_zh="开销",
    title_en="Overhead",
    checks=(
        PropertyCheck(
            id="forward_time",
            part="9",
            points=2,
            func="forward_time",
            strategy=call_kwargs(num_kernels=_KERNELS, total_compute_s=_COMPUTE, launch_s=_LAUNCH),
            reference=lambda num_kernels, total_compute_s, launch_s: (
                pc.launch_overhead(num_kernels, total_compute_s, launch_s).time_s
            ),
            rtol=1e-9,
            hint_zh="每个核函数都要付一次启动开销；启动和计算不重叠。",
            hint_en="Every kernel pays one launch; launches and compute do not overlap.",
        ),
        PropertyCheck(
            id="busy_fraction",
            part="9",
            points=1,
            func="busy_fraction",
            strategy=call_kwargs(num_kernels=_KERNELS, total_compute_s=_COMPUTE, launch_s=_LAUNCH),
            reference=lambda num_kernels, total_compute_s, launch_s: (
                pc.launch_overhead(num_kernels, total_compute_s, launch_s).busy_fraction
            ),
            rtol=1e-9,
            hint_zh="计算时间占总时间的比例。",
            hint_en="Compute time over total time.",
        ),
        ValueCheck(
            id="9a_time",
            part="9a",
            points=1,
            func="answer_9a_time",
            expected=lambda: _R["baseline"].time_s,
            rtol=1e-3,
            hint_zh="单位秒：1 µs = 1e-6 s。",
            hint_en="Seconds: 1 µs = 1e-6 s.",
        ),
        ValueCheck(
            id="9a_busy",
            part="9a",
            points=1,
            func="answer_9a_busy",
            expected=lambda: _R["baseline"].busy_fraction,
            rtol=1e-2,
            hint_zh="0 到 1 之间的小数。",
            hint_en="A fraction between 0 and 1.",
        ),
        ValueCheck(
            id="9b_graphs_speedup",
            part="9b",
            points=1,
            func="answer_9b_graphs_speedup",
            expected=lambda: _R["baseline"].time_s / _R["cuda graphs"].time_s,
            rtol=1e-3,
            hint_zh="旧时间除以新时间。",
            hint_en="Old time over new time.",
        ),
        ValueCheck(
            id="9b_fusion_speedup",
            part="9b",
            points=1,
            func="answer_9b_fusion_speedup",
            expected=lambda: _R["baseline"].time_s / _R["fusion"].time_s,
            rtol=1e-3,
            hint_zh="融合后计算总量不变，只是核函数变少了。",
            hint_en="Fusion keeps the total compute; only the kernel count drops.",
        ),
        ValueCheck(
            id="9b_both_time",
            part="9b",
            points=1,
            func="answer_9b_both_time",
            expected=lambda: _R["graphs + fusion"].time_s,
            rtol=1e-3,
            hint_zh="20 个核函数，每个启动 0.5 µs。",
            hint_en="20 kernels, 0.5 µs launch each.",
        ),
    ),
)
