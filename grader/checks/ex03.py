"""Checks of exercise 3 (quantization speeds up decoding): solutions/ex03_quantized_decode.py."""

from hypothesis import strategies as st

import perfcore as pc
from grader.specs.check import ChoiceCheck, Exercise, PropertyCheck, ValueCheck
from grader.specs.strategies import bandwidth, bytes_per, call_kwargs

_PARAMS = st.floats(min_value=1e6, max_value=2e12, allow_nan=False)


def _every_weight_once() -> float:
    """The exercise's own model, as its text states it: each step reads every parameter once (the
    lecture's 10.5 ms). perfcore's ``decode_time_bound`` leaves the input embedding table out (a step reads
    one row of it per token), 1.5% less for Llama-3-70B: the exercise keeps the simpler count it asks for."""
    return pc.weights_read_time(pc.param_count(pc.LLAMA3_70B), 0.5, pc.H100.hbm_bytes_per_s)


EXERCISE = Exercise(
    id="ex03",
    module="ex03_quantized_decode",
    title_zh="量化让解码变快",
    title_en="Quantization speeds up decoding",
    checks=(
        PropertyCheck(
            id="decode_step_time",
            part="3b",
            points=2,
            func="decode_step_time",
            strategy=call_kwargs(n_params=_PARAMS, bytes_per_param=bytes_per, bandwidth=bandwidth),
            reference=lambda n_params, bytes_per_param, bandwidth: pc.weights_read_time(
                n_params, bytes_per_param, bandwidth
            ),
            rtol=1e-9,
            hint_zh="批大小 1 的解码每一步把全部权重读一遍。",
            hint_en="A batch-1 decode step reads every weight once.",
        ),
        PropertyCheck(
            id="weight_bytes",
            part="3a",
            points=1,
            func="weight_bytes",
            strategy=call_kwargs(n_params=_PARAMS, bytes_per_param=bytes_per),
            reference=lambda n_params, bytes_per_param: pc.weights_read_time(n_params, bytes_per_param, 1.0),
            rtol=1e-9,
            hint_zh="参数个数 × 每个参数的字节数。",
            hint_en="Parameters x bytes per parameter.",
        ),
        ValueCheck(
            id="3a_fits",
            part="3a",
            points=1,
            func="answer_3a_fits",
            expected=lambda: pc.weight_bytes(pc.LLAMA3_70B, 2) <= pc.H100.hbm_bytes,
            hint_zh="BF16 每个参数 2 字节；H100 有 80 GB（厂商的 GB 其实是 GiB，2^30 字节）。返回 True 或 False。",
            hint_en="BF16 is 2 bytes per parameter; the H100 has 80 GB (the vendor's GB is a GiB, 2^30 bytes). "
            "Return True or False.",
        ),
        ValueCheck(
            id="3b_step_time",
            part="3b",
            points=1,
            func="answer_3b_step_time",
            expected=lambda: _every_weight_once(),
            rtol=0.01,
            hint_zh="INT4 每个参数 0.5 字节；单位秒。",
            hint_en="INT4 is 0.5 bytes per parameter; seconds.",
        ),
        ValueCheck(
            id="3b_tokens_per_s",
            part="3b",
            points=1,
            func="answer_3b_tokens_per_s",
            expected=lambda: 1 / _every_weight_once(),
            rtol=0.01,
            hint_zh="每一步为这个用户产出一个 token。",
            hint_en="Each step makes one token for the user.",
        ),
        ChoiceCheck(
            id="3c_why",
            part="3c",
            points=2,
            func="answer_3c",
            expected="a",
            choices=("a", "b", "c", "d"),
            hint_zh="先判断解码和 prefill 各是哪一种受限。",
            hint_en="First decide which bound decode and prefill each hit.",
        ),
    ),
)
