"""Checks of exercise 4 (hiding latency): solutions/ex04_latency_hiding.py."""

from hypothesis import strategies as st

import perfcore as pc
from grader.specs.check import ChoiceCheck, Exercise, PropertyCheck, ValueCheck
from grader.specs.strategies import call_kwargs

_WARPS = st.integers(min_value=1, max_value=128)
_COMPUTE = st.integers(min_value=1, max_value=256)
_LATENCY = st.integers(min_value=0, max_value=2000)

EXERCISE = Exercise(
    id="ex04",
    module="ex04_latency_hiding",
    title_zh="隐藏延迟",
    title_en="Hiding latency",
    checks=(
        PropertyCheck(
            id="utilization",
            part="4",
            points=2,
            func="utilization",
            strategy=call_kwargs(num_warps=_WARPS, compute_per_load=_COMPUTE, mem_latency=_LATENCY),
            reference=lambda num_warps, compute_per_load, mem_latency: (
                pc.simulate_latency_hiding(num_warps, compute_per_load, mem_latency).utilization
            ),
            rtol=1e-9,
            atol=1e-12,
            hint_zh="一个线程束每 c + L 个周期只发射 c 条指令；利用率不会超过 1。",
            hint_en="One warp issues c instructions every c + L cycles; utilization never exceeds 1.",
        ),
        PropertyCheck(
            id="warps_needed",
            part="4",
            points=2,
            func="warps_needed",
            strategy=call_kwargs(compute_per_load=_COMPUTE, mem_latency=_LATENCY),
            reference=lambda compute_per_load, mem_latency: pc.warps_needed(compute_per_load, mem_latency),
            hint_zh="要满足 W·c ≥ c + L 的最小整数 W（向上取整）。",
            hint_en="The smallest integer W with W c >= c + L (round up).",
        ),
        ValueCheck(
            id="4_warps",
            part="4",
            points=1,
            func="answer_4_warps",
            expected=lambda: pc.warps_needed(8, 400),
            hint_zh="c = 8，L = 400。",
            hint_en="c = 8, L = 400.",
        ),
        ValueCheck(
            id="4_enough",
            part="4",
            points=1,
            func="answer_4_enough",
            expected=lambda: pc.warps_needed(8, 400) <= pc.H100.max_warps_per_sm,
            hint_zh="和每个 SM 最多 64 个线程束比较。返回 True 或 False。",
            hint_en="Compare with at most 64 warps per SM. Return True or False.",
        ),
        ChoiceCheck(
            id="4_rewrite",
            part="4",
            points=1,
            func="answer_4_rewrite",
            expected="a",
            choices=("a", "b", "c", "d"),
            hint_zh="公式里哪个量变大能让需要的线程束变少？",
            hint_en="Which quantity in the formula, made larger, lowers the warps needed?",
        ),
    ),
)
