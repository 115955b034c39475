"""Checks of exercise 2 (the time of a memory-bound op): solutions/ex02_memory_bound.py."""

from hypothesis import strategies as st

import perfcore as pc
from grader.specs.check import Exercise, PropertyCheck, ValueCheck
from grader.specs.strategies import bandwidth, bytes_per, call_kwargs, n_bytes

_EX2 = pc.rmsnorm_residual_fusion((16, 4096, 8192), pc.H100, bytes_per=2)
_COUNT = st.integers(min_value=1, max_value=4)

EXERCISE = Exercise(
    id="ex02",
    module="ex02_memory_bound",
    title_zh="访存受限运算的耗时",
    title_en="The time of a memory-bound op",
    checks=(
        PropertyCheck(
            id="elementwise_bytes",
            part="2",
            points=2,
            func="elementwise_bytes",
            strategy=call_kwargs(
                n_elements=st.integers(1, 1 << 34), n_inputs=_COUNT, n_outputs=_COUNT, bytes_per=bytes_per
            ),
            reference=lambda n_elements, n_inputs, n_outputs, bytes_per: (
                pc.elementwise_cost(n_elements, n_inputs, n_outputs, bytes_per=bytes_per).bytes
            ),
            rtol=1e-12,
            hint_zh="每个输入读一遍、每个输出写一遍。",
            hint_en="Every input is read once and every output written once.",
        ),
        PropertyCheck(
            id="memory_time",
            part="2",
            points=1,
            func="memory_time",
            strategy=call_kwargs(n_bytes=n_bytes, bandwidth=bandwidth),
            reference=lambda n_bytes, bandwidth: (
                pc.roofline_from_peaks(0.0, n_bytes, 1.0, bandwidth).memory_time_s
            ),
            rtol=1e-9,
            hint_zh="访存受限：耗时 = 字节数 / 带宽。",
            hint_en="Memory-bound: time = bytes / bandwidth.",
        ),
        ValueCheck(
            id="rmsnorm_time",
            part="2",
            points=1,
            func="answer_rmsnorm_time",
            expected=lambda: _EX2["rmsnorm"],
            rtol=0.01,
            hint_zh="元素数是三个维度之积；BF16 每个数 2 字节；单位秒。",
            hint_en="Elements are the product of the three dimensions; BF16 is 2 bytes; seconds.",
        ),
        ValueCheck(
            id="unfused_time",
            part="2",
            points=1,
            func="answer_unfused_time",
            expected=lambda: _EX2["unfused"],
            rtol=0.01,
            hint_zh="残差相加读两个张量、写一个。",
            hint_en="The residual add reads two tensors and writes one.",
        ),
        ValueCheck(
            id="fused_time",
            part="2",
            points=1,
            func="answer_fused_time",
            expected=lambda: _EX2["fused"],
            rtol=0.01,
            hint_zh="融合后中间结果不写回显存：读两个输入、写一个输出。",
            hint_en="Fused, the intermediate never goes to HBM: read two inputs, write one output.",
        ),
        ValueCheck(
            id="saved_time",
            part="2",
            points=1,
            func="answer_saved_time",
            expected=lambda: _EX2["saved"],
            rtol=0.01,
            hint_zh="省下的是写出残差结果再读回来的那一趟。",
            hint_en="What is saved is writing the residual sum out and reading it back.",
        ),
    ),
)
