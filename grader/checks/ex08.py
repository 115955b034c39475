"""Checks of exercise 8 (MFU): solutions/ex08_mfu.py."""

from hypothesis import strategies as st

import perfcore as pc
from grader.specs.check import Exercise, PropertyCheck, ValueCheck
from grader.specs.strategies import call_kwargs, peak_flops

_FLOPS = st.floats(min_value=1e18, max_value=1e26)
_GPUS = st.integers(min_value=1, max_value=100_000)


def _c() -> float:
    return pc.training_flops(pc.param_count(pc.LLAMA3_8B), 15e12)


EXERCISE = Exercise(
    id="ex08",
    module="ex08_mfu",
    title_zh="MFU",
    title_en="MFU",
    checks=(
        PropertyCheck(
            id="training_flops",
            part="8",
            points=1,
            func="training_flops",
            strategy=call_kwargs(n_params=st.floats(1e6, 1e13), n_tokens=st.floats(1e6, 1e14)),
            reference=lambda n_params, n_tokens: pc.training_flops(n_params, n_tokens),
            rtol=1e-9,
            hint_zh="前向 2 FLOP、反向 4 FLOP，每个参数每个 token。",
            hint_en="2 FLOP forward and 4 backward, per parameter per token.",
        ),
        PropertyCheck(
            id="mfu",
            part="8",
            points=2,
            func="mfu",
            strategy=call_kwargs(
                model_flops=_FLOPS, n_gpus=_GPUS, peak_flops=peak_flops, seconds=st.floats(1e3, 1e8)
            ),
            reference=lambda model_flops, n_gpus, peak_flops, seconds: pc.mfu(
                model_flops, n_gpus, seconds, peak_flops
            ),
            rtol=1e-9,
            hint_zh="有用运算除以所有 GPU 在这段时间里能做的峰值运算。",
            hint_en="Useful FLOPs over what all the GPUs could do at peak in that time.",
        ),
        PropertyCheck(
            id="training_days",
            part="8",
            points=2,
            func="training_days",
            strategy=call_kwargs(
                model_flops=_FLOPS, n_gpus=_GPUS, peak_flops=peak_flops, utilization=st.floats(0.01, 1.0)
            ),
            reference=lambda model_flops, n_gpus, peak_flops, utilization: pc.training_days(
                model_flops, n_gpus, utilization, peak_flops
            ),
            rtol=1e-9,
            hint_zh="一天 86400 秒。",
            hint_en="A day is 86400 seconds.",
        ),
        ValueCheck(
            id="8_mfu",
            part="8",
            points=1,
            func="answer_8_mfu",
            expected=lambda: pc.mfu(_c(), 2048, 30 * 86400, pc.H100),
            rtol=0.01,
            hint_zh="返回 0 到 1 之间的小数，不是百分数。",
            hint_en="Return a fraction between 0 and 1, not a percentage.",
        ),
        ValueCheck(
            id="8_days_at_40",
            part="8",
            points=1,
            func="answer_8_days_at_40",
            expected=lambda: pc.training_days(_c(), 2048, 0.4, pc.H100),
            rtol=0.01,
            hint_zh="MFU 越高，天数越少，成反比。",
            hint_en="Days scale inversely with MFU.",
        ),
    ),
)
