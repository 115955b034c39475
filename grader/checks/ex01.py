"""Checks of exercise 1 (the ridge point): solutions/ex01_ridge_point.py."""

from hypothesis import strategies as st

import perfcore as pc
from grader.specs.check import ChoiceCheck, Exercise, PropertyCheck, ValueCheck
from grader.specs.strategies import bandwidth, bytes_per, call_kwargs, flops, n_bytes, peak_flops, sizes

_FP32 = pc.roofline(*pc.matmul_cost(4096, 4096, 4096, bytes_per=4), pc.A100, dtype="fp32")
_BF16 = pc.roofline(*pc.matmul_cost(4096, 4096, 4096, bytes_per=2), pc.A100, dtype="bf16")
_BOUND = ("compute", "memory")

EXERCISE = Exercise(
    id="ex01",
    module="ex01_ridge_point",
    title_zh="平衡点",
    title_en="The ridge point",
    checks=(
        PropertyCheck(
            id="1a_ridge_formula",
            part="1a",
            points=2,
            func="ridge_point",
            strategy=call_kwargs(peak_flops=peak_flops, bandwidth=bandwidth),
            reference=lambda peak_flops, bandwidth: (
                pc.roofline_from_peaks(1.0, 1.0, peak_flops, bandwidth).ridge
            ),
            rtol=1e-9,
            hint_zh="平衡点 = 峰值算力 / 带宽，单位 FLOP/字节。",
            hint_en="Ridge point = peak FLOP/s / bandwidth in bytes/s, in FLOP/byte.",
        ),
        PropertyCheck(
            id="matmul_intensity",
            part="1b",
            points=2,
            func="matmul_intensity",
            strategy=call_kwargs(m=sizes, n=sizes, k=sizes, bytes_per=bytes_per),
            reference=lambda m, n, k, bytes_per: pc.matmul_cost(m, n, k, bytes_per).intensity,
            rtol=1e-9,
            hint_zh="FLOPs 是 2mnk；字节数是 (mk + kn + mn) × 每个数的字节数。",
            hint_en="FLOPs are 2mnk; bytes are (mk + kn + mn) x bytes per number.",
        ),
        PropertyCheck(
            id="roofline_time",
            part="1b",
            points=2,
            func="roofline_time",
            strategy=call_kwargs(flops=flops, n_bytes=n_bytes, peak_flops=peak_flops, bandwidth=bandwidth),
            reference=lambda flops, n_bytes, peak_flops, bandwidth: (
                pc.roofline_from_peaks(flops, n_bytes, peak_flops, bandwidth).time_s
            ),
            rtol=1e-9,
            hint_zh="计算和搬数据可以重叠：耗时由较慢的那个决定。",
            hint_en="Compute and data movement overlap: the slower of the two sets the time.",
        ),
        PropertyCheck(
            id="is_compute_bound",
            part="1b",
            points=1,
            func="is_compute_bound",
            strategy=call_kwargs(intensity=st.floats(1e-3, 1e4), ridge=st.floats(0.1, 1e3)),
            reference=lambda intensity, ridge: bool(
                pc.roofline_from_peaks(intensity, 1.0, ridge, 1.0).bound == "compute"
            ),
            hint_zh="强度不低于平衡点就是计算受限。",
            hint_en="At or above the ridge point an op is compute-bound.",
        ),
        ValueCheck(
            id="1a_ridge_a100_fp32",
            part="1a",
            points=1,
            func="answer_1a",
            expected=lambda: pc.ridge_point(pc.A100, "fp32"),
            rtol=0.01,
            hint_zh="用 FP32 通用单元的峰值，不是张量核心的。",
            hint_en="Use the FP32 (non-tensor) peak, not the tensor cores'.",
        ),
        ChoiceCheck(
            id="1b_fp32_bound",
            part="1b",
            points=0.5,
            func="answer_1b_fp32_bound",
            expected=lambda: _FP32.bound,
            choices=_BOUND,
            hint_zh="把 4096³ FP32 矩阵乘法的算术强度和 (a) 的平衡点比较。",
            hint_en="Compare the FP32 4096^3 matmul's intensity with the ridge point of (a).",
        ),
        ValueCheck(
            id="1b_fp32_time",
            part="1b",
            points=0.5,
            func="answer_1b_fp32_time",
            expected=lambda: _FP32.time_s,
            rtol=0.01,
            hint_zh="计算受限时耗时 ≈ FLOPs / 峰值；单位是秒。",
            hint_en="When compute-bound the time is FLOPs / peak, in seconds.",
        ),
        ChoiceCheck(
            id="1b_bf16_bound",
            part="1b",
            points=0.5,
            func="answer_1b_bf16_bound",
            expected=lambda: _BF16.bound,
            choices=_BOUND,
            hint_zh="BF16 每个数 2 字节，平衡点用 312 TFLOP/s 算。",
            hint_en="BF16 numbers are 2 bytes; the ridge uses 312 TFLOP/s.",
        ),
        ValueCheck(
            id="1b_bf16_time",
            part="1b",
            points=0.5,
            func="answer_1b_bf16_time",
            expected=lambda: _BF16.time_s,
            rtol=0.01,
            hint_zh="单位是秒，不是毫秒。",
            hint_en="In seconds, not milliseconds.",
        ),
    ),
)
