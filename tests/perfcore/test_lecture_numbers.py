"""Every number the lecture states, as the expected value of a perfcore call, within the lecture's rounding.

Section numbers refer to seed 000 (the lecture); "seed 002" is the companion script.
"""

from __future__ import annotations

import pytest

import perfcore as pc
from perfcore import A100, B200, H100, H200, LLAMA3_8B, LLAMA3_70B, GiB, KiB, MiB
from perfcore.specs import SOURCED_FIELDS
from perfcore.transformer import decode_read_bytes


def approx_digits(value: float, digits: int) -> pytest.approx:
    """A value quoted with ``digits`` decimals: half a unit of the last digit either way."""
    return pytest.approx(value, abs=0.5 * 10**-digits)


# ---------------------------------------------------------------------------------------------- §1 specs


def test_spec_values_as_the_issue_fixes_them():
    assert (A100.sms, A100.peak("bf16"), A100.peak("fp32"), A100.hbm_bytes_per_s) == (
        108,
        312e12,
        19.5e12,
        2.039e12,
    )
    # HBM capacities: the vendors' "GB" is GiB (tests/perfcore/test_specs.py checks it against what CUDA
    # reports).
    assert (A100.hbm_bytes, A100.sram_bytes_per_sm, A100.l2_bytes) == (80 * GiB, 164 * KiB, 40 * MiB)
    assert (H100.sms, H100.peak("bf16"), H100.peak("fp32"), H100.hbm_bytes_per_s) == (
        132,
        989.4e12,
        66.9e12,
        3.35e12,
    )
    assert (H100.hbm_bytes, H100.sram_bytes_per_sm, H100.l2_bytes) == (80 * GiB, 228 * KiB, 50 * MiB)
    assert (H200.peak("bf16"), H200.hbm_bytes_per_s, H200.hbm_bytes) == (989.4e12, 4.8e12, 141 * GiB)
    assert (H200.sms, H200.sram_bytes_per_sm, H200.l2_bytes) == (132, 228 * KiB, 60 * MiB)
    assert (B200.sms, B200.peak("bf16"), B200.hbm_bytes_per_s, B200.hbm_bytes) == (
        148,
        2.25e15,
        8.0e12,
        180 * GiB,
    )
    assert (B200.sram_bytes_per_sm, B200.l2_bytes) == (228 * KiB, 126 * MiB)
    for gpu in pc.GPUS.values():
        assert gpu.warp_size == 32 and gpu.max_warps_per_sm == 64
        assert {"bf16", "fp16", "fp32", "tf32"} <= set(gpu.dtypes)
        assert set(SOURCED_FIELDS) == set(gpu.sources)
    assert "fp8" in H100.dtypes and "fp8" not in A100.dtypes


def test_bf16_tensor_cores_are_15x_fp32_on_h100():  # §1.2 observation 1, §7.1, pitfall 3
    assert round(H100.peak("bf16") / H100.peak("fp32")) == 15


def test_a100_to_h100_compute_grew_3_2x_bandwidth_1_6x():  # §1.2 observation 2, pitfall 1
    assert H100.peak("bf16") / A100.peak("bf16") == approx_digits(3.2, 1)
    assert H100.hbm_bytes_per_s / A100.hbm_bytes_per_s == approx_digits(1.6, 1)


def test_ridge_points_153_295_and_9_6():  # §1.2, §3.3, exercise 1a
    assert pc.ridge_point(A100) == approx_digits(153, 0)
    assert pc.ridge_point(H100) == approx_digits(295, 0)
    assert pc.ridge_point(A100, "fp32") == approx_digits(9.6, 1)
    # The lecture divides the rounded 989 by 3.35: still 295.
    assert 989e12 / H100.hbm_bytes_per_s == approx_digits(295, 0)


def test_seed002_ridges_b200():  # seed 002 demo 1 (A100 follows seed 000's 2.039 TB/s, see specs.py)
    assert pc.ridge_point(B200) == approx_digits(281, 0)


def test_get_gpu_is_case_insensitive():
    assert pc.get_gpu("h100") is H100 and pc.get_gpu(" A100 ") is A100


# ---------------------------------------------------------------------------------------------- §2 execution


@pytest.mark.parametrize(("warps", "c", "expected"), [(1, 4, 0.01), (64, 4, 0.64), (8, 64, 1.0)])
def test_latency_hiding_figures_of_2_2(warps, c, expected):
    r = pc.simulate_latency_hiding(warps, compute_per_load=c, mem_latency=400)
    assert r.utilization == pytest.approx(expected, abs=0.01)


def test_latency_hiding_table_matches_closed_form():
    for c, rows in pc.latency_hiding_table().items():
        for r in rows:
            assert r.utilization == pytest.approx(min(1, r.num_warps * c / (c + 400)), abs=1e-9)


def test_exercise_4_needs_51_warps():
    assert pc.warps_needed(8, 400) == 51
    assert pc.simulate_latency_hiding(51, compute_per_load=8, mem_latency=400).utilization == pytest.approx(
        1.0
    )
    assert pc.warps_needed(8, 400) <= H100.max_warps_per_sm


def test_divergence_halves_efficiency():  # §2.3
    same = pc.warp_divergence(["if"] * 32, 10)
    one_odd = pc.warp_divergence(["else"] + ["if"] * 31, 10)
    assert (same.cycles, same.efficiency) == (10, 1.0)
    assert (one_odd.cycles, one_odd.efficiency) == (20, 0.5)


def test_wave_quantization_4096_vs_4224():  # §2.4
    rows = pc.wave_table((4096, 4224), tile=128, gpu=H100)
    assert [r.waves for r in rows] == [8, 9]
    assert rows[1].work_ratio - 1 == approx_digits(0.063, 3)
    assert rows[1].time_ratio - 1 == approx_digits(0.125, 3)


def test_exercise_5_waves():
    square = pc.wave_efficiency(pc.output_blocks(8192, 8192, 128, 128), 132)
    wide = pc.wave_efficiency(pc.output_blocks(8192, 8192, 256, 128), H100)
    assert (square.num_blocks, square.waves) == (4096, 32)
    assert (wide.num_blocks, wide.waves) == (2048, 16)
    assert square.efficiency == approx_digits(0.970, 3) and wide.efficiency == approx_digits(0.970, 3)


# ---------------------------------------------------------------------------------------------- §3 roofline


def test_exercise_1b_fp32_and_bf16():
    fp32 = pc.roofline(*pc.matmul_cost(4096, 4096, 4096, bytes_per=4), A100, dtype="fp32")
    bf16 = pc.roofline(*pc.matmul_cost(4096, 4096, 4096, bytes_per=2), A100, dtype="bf16")
    assert fp32.intensity == pytest.approx(4096 / 6) and round(fp32.intensity) == 683
    assert fp32.bound == "compute" and fp32.time_s * 1e3 == approx_digits(7.0, 1)
    assert bf16.intensity == pytest.approx(4096 / 3) and bf16.bound == "compute"
    assert bf16.time_s * 1e3 == approx_digits(0.44, 2)
    assert round(fp32.time_s / bf16.time_s) == 16


def test_common_ops_are_memory_bound_by_two_orders_of_magnitude():  # §3.3
    ridge = pc.ridge_point(H100)
    for op in pc.common_ops():
        if op.name in ("add (x + y)", "relu", "softmax", "rmsnorm"):
            assert op.intensity < ridge / 100
            assert pc.roofline(op.flops, op.bytes, H100).fraction_of_peak < 0.01
    matmul = next(op for op in pc.common_ops() if op.name == "matmul")
    assert pc.roofline(matmul.flops, matmul.bytes, H100).bound == "compute"


def test_seed002_intensity_table():  # seed 002 demo 2: n/3 for the matmul, < 1 for the rest
    rows = {op.name: op for op in pc.intensity_table(4096, 2)}
    assert rows["relu"].intensity == pytest.approx(0.25)
    assert rows["dot"].intensity == pytest.approx(2 * 4096 / ((2 * 4096 + 1) * 2))
    assert rows["matvec"].intensity < 1
    assert rows["matmul"].intensity == pytest.approx(4096 / 3)


def test_batch_intensity_is_about_the_batch():  # §3.4
    for b in (1, 8, 32, 128):
        assert pc.batch_intensity(b, 8192) == pytest.approx(b, rel=0.04)
    t1 = pc.roofline(*pc.matmul_cost(1, 8192, 8192), H100).time_s
    t128 = pc.roofline(*pc.matmul_cost(128, 8192, 8192), H100).time_s
    assert t128 / t1 < 1.05  # "almost unchanged"
    assert 100 <= 128 * t1 / t128 < 130  # "per-token cost down about 100x"
    assert pc.min_compute_bound_batch(A100) == 256 and pc.min_compute_bound_batch(H100) == 512


# ---------------------------------------------------------------------------------------------- §4 tiling


def test_naive_matmul_intensity_is_half():  # §4.1
    assert pc.tiled_matmul_traffic(4096, 1).intensity == approx_digits(0.5, 2)


def test_tiled_intensity_about_t_over_2():  # §4.2
    for t in (32, 64, 128):
        assert pc.tiled_matmul_traffic(8192, t).intensity == pytest.approx(t / 2, rel=0.02)


def test_tiles_197_and_139_and_256_does_not_fit():  # §4.2, exercise 6
    assert pc.max_square_tile(H100.sram_bytes_per_sm, bytes_per=2) == 197
    assert pc.max_square_tile(H100.sram_bytes_per_sm, bytes_per=4) == 139
    assert 3 * 256**2 * 2 > H100.sram_bytes_per_sm
    assert pc.tiled_intensity(139, 4) == approx_digits(35, 0)
    assert pc.tiled_intensity(197, 2) == approx_digits(98, 0)


def test_counter_agrees_at_n_256():  # 03 part 1
    for t in (8, 16, 32, 64, 128):
        assert pc.count_tiled_matmul_traffic(256, t) == pc.tiled_matmul_traffic(256, t)


def test_tiling_changes_only_rounding():  # §4.3: FP64 ~1e-13, FP32 ~4e-5, errors of the same order
    f64 = pc.tiling_numerics(256, 64, "float64")
    f32 = pc.tiling_numerics(256, 64, "float32")
    assert 1e-15 < f64.tiled_vs_direct < 1e-12
    assert 1e-6 < f32.tiled_vs_direct < 4e-4
    assert 0.1 < f32.tiled_error / f32.direct_error < 10
    assert f32.tiled_error < 1e-4 and f32.direct_error < 1e-4


# ---------------------------------------------------------------------------------------------- §5 fusion


def test_fusion_speedup_is_the_number_of_ops():  # §5.1
    for k in (1, 2, 4, 8):
        assert pc.fusion_estimate(k).speedup == pytest.approx(k)
    assert pc.fusion_estimate(1).n_elements == 64 * 2**20


def test_exercise_2_rmsnorm_and_residual():
    r = pc.rmsnorm_residual_fusion((16, 4096, 8192), H100)
    assert r["n_elements"] / 1e8 == approx_digits(5.37, 2)
    assert r["rmsnorm"] * 1e3 == approx_digits(0.64, 2)
    assert r["residual_add"] * 1e3 == approx_digits(0.96, 2)
    assert r["unfused"] * 1e3 == approx_digits(1.60, 2)
    assert r["fused"] * 1e3 == approx_digits(0.96, 2)
    assert r["saved"] * 1e3 == approx_digits(0.64, 2)
    assert r["speedup"] == approx_digits(1.7, 1)


def test_exercise_9_overhead():
    r = pc.overhead_remedies(200, 1e-6, 5e-6, 0.5e-6, 20)
    assert r["baseline"].time_s * 1e6 == pytest.approx(1200)
    assert r["baseline"].busy_fraction == approx_digits(0.17, 2)
    assert r["cuda graphs"].time_s * 1e6 == pytest.approx(300)
    assert r["fusion"].time_s * 1e6 == pytest.approx(300)
    assert r["baseline"].time_s / r["cuda graphs"].time_s == pytest.approx(4)
    assert r["graphs + fusion"].time_s * 1e6 == pytest.approx(210)


# ---------------------------------------------------------------------------------------------- §6 transformer


def test_llama3_8b_parameters_and_kv_cache():
    assert pc.param_count(LLAMA3_8B) == 8_030_261_248
    assert pc.kv_cache_bytes_per_token(LLAMA3_8B) == 131_072 == 128 * KiB
    assert pc.param_count(LLAMA3_70B) / 1e9 == approx_digits(70.6, 1)


@pytest.fixture(scope="module")
def prefill():
    return pc.step_estimate(LLAMA3_8B, H100, batch=1, q_len=2048, kv_len=2048)


def test_prefill_2048_tokens(prefill):  # §6.1, §7.8
    assert prefill.flops / 1e12 == approx_digits(30.8, 1)
    assert prefill.time_s * 1e3 == pytest.approx(43, abs=1)
    assert prefill.fraction_of_peak == approx_digits(0.72, 2)
    assert prefill.flop_share("attention") == approx_digits(0.07, 2)
    assert prefill.time_share("attention") == approx_digits(0.25, 2)


def test_prefill_details(prefill):  # §6.1 bullets
    q_proj = next(o for o in prefill.ops if o.name == "q_proj")
    assert q_proj.intensity == pytest.approx(1024, rel=0.01)
    attention_flops = sum(o.flops for o in prefill.ops if o.name in ("scores (QK^T)", "weighted sum (PV)"))
    assert attention_flops / 1e12 == approx_digits(2.2, 1)
    # FLOPs ~ 2 x parameters x tokens, leaving out the ~1B embedding and LM-head parameters.
    matmul_params = pc.param_count(LLAMA3_8B) - 2 * LLAMA3_8B.vocab * LLAMA3_8B.hidden
    assert (prefill.flops - attention_flops) == pytest.approx(2 * matmul_params * 2048, rel=0.01)
    assert 2 * LLAMA3_8B.vocab * LLAMA3_8B.hidden / 1e9 == pytest.approx(1.0, abs=0.1)  # "about 1 billion"
    # Per layer, the matmuls and attention's two products: what FlopCounterMode counts (962.07 GFLOP).
    per_layer = sum(
        o.flops / o.runs
        for o in prefill.ops
        if o.group in ("projection", "mlp", "attention") and o.name != "softmax"
    )
    assert per_layer / 1e9 == approx_digits(962.07, 2)


def test_decode_batch_1():  # §6.2, §7.8, pitfall 4
    d = pc.step_estimate(LLAMA3_8B, H100, batch=1, q_len=1, kv_len=2048)
    assert pc.weight_bytes(LLAMA3_8B, include_embedding=False) / GiB == approx_digits(14.0, 1)
    assert pc.decode_time_bound(LLAMA3_8B, H100) * 1e3 == approx_digits(4.5, 1)
    assert 4.5e-3 <= d.time_s <= 4.65e-3
    assert d.tokens_per_s == pytest.approx(220, abs=5)
    assert d.fraction_of_peak == approx_digits(0.004, 3)


def _hand_counted_decode_weight_bytes(cfg, bytes_per=2):
    """The weights a decode step multiplies, counted here from the shape, not by perfcore: per layer
    Q, K, V, O, gate, up, down and two RMSNorm weights; then the final norm and the LM head. The input
    embedding table is not among them (a step gathers one row of it per token)."""
    h, q, kv = cfg.hidden, cfg.heads * cfg.head_dim, cfg.kv_heads * cfg.head_dim
    per_layer = h * q + 2 * h * kv + q * h + 3 * h * cfg.intermediate + 2 * h
    return (cfg.layers * per_layer + h + cfg.vocab * h) * bytes_per


def test_decode_bound_and_per_op_model_read_the_same_weights():  # §6.2: one convention in both paths
    expected = _hand_counted_decode_weight_bytes(LLAMA3_8B)
    assert decode_read_bytes(LLAMA3_8B) == expected
    bound = pc.decode_time_bound(LLAMA3_8B, H100)
    assert bound == pytest.approx(expected / H100.hbm_bytes_per_s, rel=1e-12)
    # The per-op model's bytes are W + batch x (activations, KV cache): two batches give W exactly.
    one = pc.step_estimate(LLAMA3_8B, H100, batch=1, q_len=1, kv_len=1)
    two = pc.step_estimate(LLAMA3_8B, H100, batch=2, q_len=1, kv_len=1)
    assert 2 * one.bytes - two.bytes == pytest.approx(expected, rel=1e-12)
    # At batch 1 every op is memory-bound, so the per-op time is the bound plus a few activation bytes.
    assert bound <= one.time_s <= bound * 1.001
    # Counting the whole embedding table (the old decode_time_bound) was 7% off the per-op model.
    table = LLAMA3_8B.vocab * LLAMA3_8B.hidden * 2 / H100.hbm_bytes_per_s
    assert (bound + table) / one.time_s > 1.06


def test_decode_batch_32_and_256():  # §6.2, pitfall 5
    d32 = pc.step_estimate(LLAMA3_8B, H100, batch=32, q_len=1, kv_len=2048)
    assert d32.time_s * 1e3 == approx_digits(7.3, 1)
    d256 = pc.step_estimate(LLAMA3_8B, H100, batch=256, q_len=1, kv_len=2048)
    assert d256.kv_cache_bytes / GiB == pytest.approx(64)
    assert pc.weight_bytes(LLAMA3_8B) / GiB == approx_digits(15, 0)
    assert not d256.fits_in_memory and d32.fits_in_memory


def test_long_context_attention_share():  # §6.3, exercise 7
    at_2k = pc.step_estimate(LLAMA3_8B, H100, batch=32, q_len=1, kv_len=2048)
    at_8k = pc.step_estimate(LLAMA3_8B, H100, batch=32, q_len=1, kv_len=8192)
    assert at_2k.time_share("attention") == approx_digits(0.37, 2)
    assert at_8k.time_share("attention") == pytest.approx(0.70, abs=0.01)


def test_exercise_7_crossover():
    assert pc.kv_weight_crossover(LLAMA3_8B, batch=1) / 1e5 == approx_digits(1.1, 1)
    assert pc.kv_weight_crossover(LLAMA3_8B, batch=32) == pytest.approx(3600, abs=50)


def test_exercise_3_70b_int4():
    assert pc.weight_bytes(LLAMA3_70B) / 1e9 == approx_digits(141, 0)
    assert pc.weight_bytes(LLAMA3_70B) > H100.hbm_bytes
    assert pc.weight_bytes(LLAMA3_70B, bytes_per=0.5) / 1e9 == approx_digits(35, 0)
    # The worked answer reads every parameter once, the embedding table too: 10.5 ms, 95 tokens/s.
    t_all = pc.weights_read_time(pc.param_count(LLAMA3_70B), 0.5, H100.hbm_bytes_per_s)
    assert t_all * 1e3 == approx_digits(10.5, 1)
    assert 1 / t_all == approx_digits(95, 0)
    # perfcore's bound leaves the table out (a step gathers rows of it): 1.5% less.
    t = pc.decode_time_bound(LLAMA3_70B, H100, bytes_per=0.5)
    assert t * 1e3 == approx_digits(10.4, 1)
    assert t_all / t == pytest.approx(
        pc.param_count(LLAMA3_70B) / (pc.param_count(LLAMA3_70B) - LLAMA3_70B.vocab * LLAMA3_70B.hidden)
    )


# ---------------------------------------------------------------------------------------------- §6.4 training


def test_6nd_for_llama3_8b():
    c = pc.training_flops(pc.param_count(LLAMA3_8B), 15e12)
    assert c / 1e23 == approx_digits(7.2, 1)
    assert c / 1e23 == approx_digits(7.23, 2)  # exercise 8 quotes 7.23e23


def test_half_a_million_h100_hours_and_three_weeks():  # §6.4, §7.8
    c = pc.training_flops(pc.param_count(LLAMA3_8B), 15e12)
    assert pc.gpu_hours(c, 0.4, H100) / 1e5 == approx_digits(5, 0)
    assert pc.training_days(c, 1000, 0.4, H100) / 7 == approx_digits(3, 0)


def test_exercise_8_mfu():
    c = pc.training_flops(pc.param_count(LLAMA3_8B), 15e12)
    assert 2048 * H100.peak("bf16") * 30 * 86400 / 1e24 == approx_digits(5.25, 2)
    m = pc.mfu(c, 2048, 30 * 86400, H100)
    assert m == approx_digits(0.138, 3)
    assert pc.training_days(c, 2048, 0.4, H100) == approx_digits(10.3, 1)
