"""Bad input is a ValueError or TypeError that names the argument and says what is allowed."""

from __future__ import annotations

import math

import numpy as np
import pytest

import perfcore as pc

CASES = [
    # (call, exception, words the message must contain)
    (lambda: pc.matmul_cost(0, 4, 4), ValueError, ["m", "positive"]),
    (lambda: pc.matmul_cost(4, -1, 4), ValueError, ["n", "positive"]),
    (lambda: pc.matmul_cost(4, 4, "8"), TypeError, ["k", "integer"]),
    (lambda: pc.matmul_cost(4, 4, 4.5), TypeError, ["k", "integer"]),
    (lambda: pc.matmul_cost(4, 4, 4, bytes_per=0), ValueError, ["bytes_per", "positive"]),
    (lambda: pc.matmul_cost(True, 4, 4), TypeError, ["m"]),
    (lambda: pc.roofline(1e9, 0, pc.H100), ValueError, ["bytes", "positive"]),
    (lambda: pc.roofline(-1, 1e9, pc.H100), ValueError, ["flops", "non-negative"]),
    (lambda: pc.roofline(math.nan, 1e9, pc.H100), ValueError, ["flops", "finite"]),
    (lambda: pc.roofline("lots", 1e9, pc.H100), TypeError, ["flops", "number"]),
    (lambda: pc.roofline(1e9, 1e9, pc.A100, dtype="fp8"), ValueError, ["dtype", "A100", "bf16"]),
    (lambda: pc.roofline(1e9, 1e9, 42), TypeError, ["gpu", "GPUSpec"]),
    (lambda: pc.ridge_point(pc.H100, dtype="fp4"), ValueError, ["dtype", "fp8"]),
    (lambda: pc.ridge_point(pc.H100, dtype=16), TypeError, ["dtype"]),
    (lambda: pc.get_gpu("V100"), ValueError, ["name", "A100", "H100", "H200", "B200"]),
    (lambda: pc.get_gpu(None), TypeError, ["name"]),
    (lambda: pc.simulate_latency_hiding(0), ValueError, ["num_warps", "positive"]),
    (lambda: pc.simulate_latency_hiding(4, compute_per_load=0), ValueError, ["compute_per_load"]),
    (lambda: pc.simulate_latency_hiding(4, mem_latency=-5), ValueError, ["mem_latency", "non-negative"]),
    (lambda: pc.warp_divergence([], 10), ValueError, ["branches"]),
    (lambda: pc.warp_divergence(["a"] * 33, 10), ValueError, ["branches", "32"]),
    (lambda: pc.warp_divergence(["a", "b"], {"a": 3}), ValueError, ["cycles_per_branch", "'b'"]),
    (lambda: pc.wave_efficiency(0, 132), ValueError, ["num_blocks"]),
    (lambda: pc.wave_efficiency(10, 0), ValueError, ["num_sms"]),
    (lambda: pc.wave_efficiency(10, "Z100"), ValueError, ["name"]),
    (lambda: pc.max_square_tile(-1), ValueError, ["sram_bytes"]),
    (lambda: pc.max_square_tile(4, bytes_per=2), ValueError, ["sram_bytes", "cannot hold"]),
    (lambda: pc.tiled_matmul_traffic(256, 0), ValueError, ["tile"]),
    (lambda: pc.tiling_numerics(dtype="float16"), ValueError, ["dtype", "float32"]),
    (lambda: pc.tiled_matmul(np.ones((2, 3)), np.ones((2, 3)), 2), ValueError, ["a.shape[1]"]),
    (lambda: pc.launch_overhead(0, 1e-6, 1e-6), ValueError, ["num_kernels"]),
    (lambda: pc.launch_overhead(5, -1, 1e-6), ValueError, ["compute_s"]),
    (lambda: pc.launch_overhead(5, 0, 0), ValueError, ["compute_s", "launch_s"]),
    (lambda: pc.fusion_estimate(0), ValueError, ["num_ops"]),
    (lambda: pc.param_count("llama"), TypeError, ["cfg", "TransformerConfig"]),
    (lambda: pc.decoder_layer_ops(pc.LLAMA3_8B, 1, 4, 2), ValueError, ["q_len", "kv_len"]),
    (lambda: pc.step_estimate(pc.LLAMA3_8B, pc.H100, 0, 1, 2048), ValueError, ["batch"]),
    (
        lambda: pc.step_estimate(pc.LLAMA3_8B, pc.H100, 1, 1, 2048).time_share("attn"),
        ValueError,
        ["group", "attention"],
    ),
    (lambda: pc.TransformerConfig("x", 64, 2, 6, 4, 16, 128, 100), ValueError, ["heads", "kv_heads"]),
    (lambda: pc.training_flops(0, 1e12), ValueError, ["n_params"]),
    (lambda: pc.training_days(1e23, 1000, 1.5), ValueError, ["mfu", "(0, 1]"]),
    (lambda: pc.mfu(1e23, 1000, -3), ValueError, ["seconds"]),
]


@pytest.mark.parametrize(("call", "exc", "words"), CASES, ids=range(len(CASES)))
def test_bad_input_names_the_argument(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    message = str(info.value)
    for word in words:
        assert word in message, f"{word!r} missing from {message!r}"


def test_whole_numbers_as_floats_are_accepted():
    assert pc.matmul_cost(4.0, 4, 4) == pc.matmul_cost(4, 4, 4)


def test_array_sizes_must_be_whole_and_positive():
    with pytest.raises(ValueError, match="m"):
        pc.matmul_cost(np.array([1, 0]), 4, 4)
    with pytest.raises(ValueError, match="whole numbers"):
        pc.matmul_cost(np.array([1.5, 2]), 4, 4)
