"""The GPU half: skipped with a reason here (no CUDA, no MPS); the device-agnostic body runs on the CPU."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="perfcore.measure needs torch (pip install perfkit[torch])")

from perfcore.measure import gpu  # noqa: E402
from perfcore.specs import H100, H200  # noqa: E402


def test_spec_matching():
    assert gpu.match_spec("NVIDIA H100 80GB HBM3") is H100
    assert gpu.match_spec("NVIDIA H200") is H200
    assert gpu.match_spec("NVIDIA GeForce RTX 4090") is None


@pytest.mark.skipif(gpu.gpu_backend() is not None, reason="a GPU is present: the skip path does not apply")
def test_without_a_gpu_the_gpu_part_says_so():
    result = gpu.gpu_experiments()
    assert isinstance(result, gpu.GpuSkipped)
    assert "CUDA" in result.reason and "MPS" in result.reason


def test_device_experiments_run_with_a_synchronizing_timer_on_the_cpu():
    calls = []
    timer = gpu.sync_timer(lambda: calls.append(1), repeats=3, warmup=1, block_s=0.0005)
    out = gpu.device_experiments("cpu", timer, copy_bytes=1 << 20, matmul_sizes=(32,), dtype=torch.float32)
    assert calls  # the timer synchronized around every block
    assert out["copy"].rate > 0 and out["sum"].rate > 0
    assert out["matmul"][0].unit == "FLOP" and out["matmul"][0].work == 2 * 32**3
    assert out["fusion_unfused"].work == 8 * out["fusion_fused"].work


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_experiments_sit_under_the_spec():  # pragma: no cover - runs only where there is a GPU
    result = gpu.gpu_experiments(quick=True)
    assert isinstance(result, gpu.GpuResult)
    if result.spec is not None:
        assert 0 < result.bandwidth_fraction_of_spec <= gpu.SPEC_SLACK
        assert 0 < result.flops_fraction_of_spec <= gpu.SPEC_SLACK
