"""Property tests: the laws perfcore's models must obey for every input, not only the lecture's."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import perfcore as pc

from .strategies import bytes_per, compute_per_load, flops, gpus, latency, nbytes, sizes, small_sizes, warps


@given(flops, nbytes, gpus, st.sampled_from(["bf16", "fp32", "tf32"]))
def test_roofline_time_is_at_least_each_bound(f, b, gpu, dtype):
    r = pc.roofline(f, b, gpu, dtype)
    assert r.time_s >= r.compute_time_s and r.time_s >= r.memory_time_s
    assert r.time_s == max(r.compute_time_s, r.memory_time_s)
    assert 0 < r.fraction_of_peak <= 1 + 1e-12
    assert r.achieved_flops <= gpu.peak(dtype) * (1 + 1e-12)
    assert (r.bound == "compute") == (r.intensity >= pc.ridge_point(gpu, dtype))


@given(st.lists(flops, min_size=1, max_size=20), nbytes, gpus)
def test_roofline_broadcasts_like_scalar_calls(fs, b, gpu):
    arr = pc.roofline(np.array(fs), b, gpu)
    for i, f in enumerate(fs):
        one = pc.roofline(f, b, gpu)
        assert arr.time_s[i] == pytest.approx(one.time_s)
        assert arr.bound[i] == one.bound


@given(sizes, sizes, sizes, bytes_per)
def test_matmul_cost_grows_with_every_dimension(m, n, k, bp):
    base = pc.matmul_cost(m, n, k, bp)
    for bigger in (
        pc.matmul_cost(m + 1, n, k, bp),
        pc.matmul_cost(m, n + 1, k, bp),
        pc.matmul_cost(m, n, k + 1, bp),
    ):
        assert bigger.flops > base.flops and bigger.bytes > base.bytes


@given(st.integers(1, 1 << 14), st.integers(256, 1 << 14))
def test_batch_intensity_grows_with_batch_and_stays_below_it(b, d):
    assert pc.batch_intensity(b + 1, d) > pc.batch_intensity(b, d)
    assert pc.batch_intensity(b, d) <= b


@given(warps, compute_per_load, latency)
def test_simulation_agrees_with_closed_form(w, c, lat):
    r = pc.simulate_latency_hiding(w, c, lat)
    assert 0 < r.utilization <= 1
    assert r.utilization == pytest.approx(min(1.0, w * c / (c + lat)), abs=1e-9)
    assert (w >= r.warps_needed) == (r.utilization == pytest.approx(1.0))


@given(compute_per_load, latency)
def test_utilization_is_monotone_in_warps(c, lat):
    values = [pc.simulate_latency_hiding(w, c, lat).utilization for w in (1, 2, 4, 8, 16, 32, 64)]
    assert values == sorted(values)


@given(st.lists(st.sampled_from("abcd"), min_size=1, max_size=32), st.integers(1, 50))
def test_divergence_efficiency_in_unit_interval(labels, cycles):
    d = pc.warp_divergence(labels, cycles)
    assert 0 < d.efficiency <= 1
    assert d.cycles == cycles * len(set(labels))
    assert (d.efficiency == 1) == (len(set(labels)) == 1)


@given(st.integers(1, 1 << 20), st.integers(1, 1024))
def test_wave_efficiency_in_unit_interval(blocks, sms):
    w = pc.wave_efficiency(blocks, sms)
    assert 0 < w.efficiency <= 1
    assert (w.waves - 1) * sms < blocks <= w.waves * sms


@given(small_sizes, small_sizes, bytes_per)
def test_traffic_counter_equals_closed_form(n, t, bp):
    assert pc.count_tiled_matmul_traffic(n, t, bp) == pc.tiled_matmul_traffic(n, t, bp)


@given(st.integers(1, 64), st.integers(1, 64))
def test_closed_form_is_2n3_over_t_when_t_divides_n(q, t):
    n = q * t
    assert pc.tiled_matmul_traffic(n, t).elements == 2 * n**3 // t + n * n


@given(st.integers(1, 512), small_sizes)
def test_bigger_tiles_never_move_more(n, t):
    assert pc.tiled_matmul_traffic(n, t + 1).bytes <= pc.tiled_matmul_traffic(n, t).bytes


@given(st.integers(12, 1 << 24), bytes_per, st.integers(1, 4))
def test_max_square_tile_is_the_largest_that_fits(sram, bp, tiles):
    if tiles * bp > sram:
        return
    t = pc.max_square_tile(sram, bp, tiles)
    assert tiles * t * t * bp <= sram < tiles * (t + 1) ** 2 * bp


@given(st.integers(1, 64), st.integers(1, 1 << 26))
def test_fusion_speedup_equals_op_count_when_memory_bound(k, n):
    f = pc.fusion_estimate(k, n)
    assert f.speedup == pytest.approx(k)
    assert f.unfused_time_s >= f.fused_time_s


@given(st.integers(1, 1000), st.floats(0, 1e-2), st.floats(1e-9, 1e-4))
def test_launch_overhead_busy_fraction(n, compute, launch):
    o = pc.launch_overhead(n, compute, launch)
    assert 0 <= o.busy_fraction < 1
    assert o.time_s == pytest.approx(n * launch + compute)


@given(st.integers(1, 64), st.integers(1, 4096), st.integers(0, 4096))
def test_decode_step_grows_with_batch_and_context(b, ctx, extra):
    small = pc.step_estimate(pc.LLAMA3_8B, "H100", b, 1, ctx)
    longer = pc.step_estimate(pc.LLAMA3_8B, "H100", b, 1, ctx + extra)
    bigger = pc.step_estimate(pc.LLAMA3_8B, "H100", b + 1, 1, ctx)
    assert longer.time_s >= small.time_s and bigger.time_s > small.time_s
    assert bigger.time_s / small.time_s < (b + 1) / b + 1e-9  # sublinear: the weights are shared
    assert sum(small.time_share(g) for g in pc.transformer.GROUPS) == pytest.approx(1)
    assert sum(small.flop_share(g) for g in pc.transformer.GROUPS) == pytest.approx(1)


configs = st.builds(
    lambda hidden, layers, kv_heads, group, head_dim, intermediate, vocab, tied: pc.TransformerConfig(
        "random", hidden, layers, kv_heads * group, kv_heads, head_dim, intermediate, vocab, tied
    ),
    st.integers(1, 1024),
    st.integers(1, 8),
    st.integers(1, 8),
    st.integers(1, 4),
    st.integers(1, 128),
    st.integers(1, 4096),
    st.integers(1, 1 << 17),
    st.booleans(),
)


@given(configs, gpus, st.integers(1, 4096), bytes_per)
def test_decode_bound_and_per_op_model_read_the_same_weights(cfg, gpu, ctx, bp):
    # The per-op model's bytes are W + batch x (activations, KV cache); two batches isolate W.
    one = pc.step_estimate(cfg, gpu, 1, 1, ctx, bytes_per=bp)
    two = pc.step_estimate(cfg, gpu, 2, 1, ctx, bytes_per=bp)
    read = pc.transformer.decode_read_bytes(cfg, bp)
    assert 2 * one.bytes - two.bytes == pytest.approx(read, rel=1e-9)
    assert one.time_s >= pc.decode_time_bound(cfg, gpu, bp) * (1 - 1e-12)
    # The input table is left out unless it is tied to the LM head, which reads it whole.
    table = cfg.vocab * cfg.hidden * bp
    assert read == pytest.approx(pc.weight_bytes(cfg, bp) - (0 if cfg.tied_embeddings else table))


@given(st.floats(1e6, 1e13), st.floats(1e6, 1e14))
def test_training_flops_is_linear(n, d):
    assert pc.training_flops(2 * n, d) == pytest.approx(2 * pc.training_flops(n, d))
    assert pc.training_flops(n, d, recompute=True) == pytest.approx(8 / 6 * pc.training_flops(n, d))


@given(st.floats(1e20, 1e25), st.integers(1, 10000), st.floats(0.05, 1.0))
def test_mfu_and_days_invert(c, gpus_, m):
    seconds = pc.training_seconds(c, gpus_, m)
    assert pc.mfu(c, gpus_, seconds) == pytest.approx(m)
    assert math.isclose(pc.gpu_hours(c, m) * 3600, seconds * gpus_, rel_tol=1e-9)
