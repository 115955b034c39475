"""perfcore.measure.gpu on GPU hosts, on a machine without a GPU: a failing GPU experiment, the sizes on a small
GPU, the names of the parts, several GPUs, a GPU without a spec, TF32, and the MPS label with the CUDA timer
(issue 14; the grader's side is tests/grader/sandbox/test_gpu_hosts.py).

CUDA is faked: ``torch.cuda``'s functions are replaced through ``monkeypatch`` with :class:`FakeCuda`
(tests/fake_cuda.py).
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch", reason="perfcore.measure needs torch (pip install perfkit[torch])")

from perfcore.measure import gpu  # noqa: E402
from perfcore.measure.core import MeasurementError  # noqa: E402
from perfcore.measure.timing import Timing  # noqa: E402
from perfcore.specs import A100, B200, H100, H100_NVL, H100_PCIE, H200, PARTS  # noqa: E402
from tests.fake_cuda import (  # noqa: E402
    H100_PROPS,
    RTX4090_PROPS,
    FakeCuda,
    FakeEvent,
    GiB,
    MiB,
    _figures,
)


@pytest.fixture
def recorded(monkeypatch):
    """gpu.device_experiments replaced by one that records its arguments and returns fixed figures."""
    calls: list[dict] = []
    figures = {"value": _figures()}

    def fake(device, timer, copy_bytes, matmul_sizes, dtype=None, fusion_elements=None):
        calls.append(
            {"device": device, "copy_bytes": copy_bytes, "sizes": tuple(matmul_sizes), "dtype": dtype}
        )
        if isinstance(figures["value"], BaseException):
            raise figures["value"]
        return figures["value"]

    monkeypatch.setattr(gpu, "device_experiments", fake)
    monkeypatch.setattr(gpu, "cuda_event_timer", lambda *a, **k: lambda fn: Timing.from_samples([1e-3], 1))
    return SimpleNamespace(calls=calls, figures=figures)


# --------------------------------------------------------------------------------------------------------
# 4. a failing GPU experiment keeps the CPU results


def test_a_gpu_out_of_memory_keeps_the_cpu_results(monkeypatch, tmp_path):
    from perfcore.measure.suite import Plan, format_report, run_all

    monkeypatch.setenv("PERFKIT_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("PERFKIT_REFRESH_PROFILE", raising=False)

    def out_of_memory(quick=False):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")

    monkeypatch.setattr(gpu, "gpu_experiments", out_of_memory)
    plan = dataclasses.replace(Plan.tiny(), gpu=True)
    report = run_all(plan, progress=None, only=("overhead", "gpu"))
    assert "overhead" in report["experiments"] and "gpu" not in report["experiments"]
    assert "OutOfMemoryError" in report["errors"]["gpu"] and "2.00 GiB" in report["errors"]["gpu"]
    assert "OutOfMemoryError" in format_report(report)


def test_a_cublas_error_is_reported_as_the_experiments_failure(monkeypatch, recorded):
    FakeCuda(monkeypatch, {0: ("NVIDIA H100 80GB HBM3", H100_PROPS)})
    recorded.figures["value"] = RuntimeError(
        "CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling cublasGemmEx"
    )
    calls = []
    monkeypatch.setattr(gpu, "release_gpu_memory", lambda backend=None: calls.append(backend))
    with pytest.raises(RuntimeError, match="CUBLAS"):
        gpu.gpu_experiments(quick=True)
    assert calls == ["cuda"]  # the GPU memory was handed back all the same


# --------------------------------------------------------------------------------------------------------
# 5. sizes follow the free GPU memory; a too-small GPU defers with the reason


def test_the_sizes_are_the_full_ones_on_a_free_gpu_and_smaller_on_a_busy_one():
    assert gpu.cuda_sizes(None, 50 * MiB) == (GiB, (2048, 4096, 8192))
    assert gpu.cuda_sizes(70 * GiB, 50 * MiB, quick=True) == (GiB // 2, (4096, 8192))
    copy_bytes, sizes = gpu.cuda_sizes(3 * GiB // 2, 50 * MiB)
    assert sizes == (2048, 4096) and 200 * MiB <= copy_bytes < GiB
    assert 2 * copy_bytes + 10 * max(sizes) ** 2 + gpu.GPU_HEADROOM_BYTES <= 3 * GiB // 2


def test_a_mig_slice_too_small_is_skipped_with_the_reason(monkeypatch, recorded):
    FakeCuda(monkeypatch, {0: ("NVIDIA A100-SXM4-40GB MIG 1g.5gb", H100_PROPS)}, free=GiB)
    result = gpu.gpu_experiments(quick=True)
    assert isinstance(result, gpu.GpuSkipped)
    assert "1.00 GiB free" in result.reason and "MIG" in result.reason and not recorded.calls


# --------------------------------------------------------------------------------------------------------
# 6. whole names


@pytest.mark.parametrize(
    ("name", "spec"),
    [
        ("NVIDIA H100 80GB HBM3", H100),
        ("NVIDIA H100 PCIe", H100_PCIE),
        ("NVIDIA H100 NVL", H100_NVL),
        ("NVIDIA H200", H200),
        ("NVIDIA A100-SXM4-80GB", A100),
        ("NVIDIA A100 80GB PCIe", None),  # the table's A100 is the SXM part
        ("NVIDIA A100-SXM4-40GB", None),  # 1,555 GB/s, not the 80GB part's 2,039
        ("NVIDIA B200", B200),
        ("NVIDIA RTX A1000 Laptop GPU", None),
        ("NVIDIA GH200 480GB", None),
        ("NVIDIA GB200", None),
        ("NVIDIA H200 NVL", None),
        ("NVIDIA GeForce RTX 4090", None),
    ],
)
def test_a_part_is_matched_by_whole_names(name, spec):
    assert gpu.match_spec(name) is spec


def test_a_mig_slice_has_no_spec():
    for name in ("NVIDIA H100 80GB HBM3 MIG 1g.10gb", "NVIDIA A100-SXM4-40GB MIG 3g.20gb"):
        spec, note = gpu.spec_match(name)
        assert spec is None and note.startswith("MIG slice: no spec")
    with pytest.raises(TypeError, match="device_name"):
        gpu.spec_match(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("part", [H100_PCIE, H100_NVL], ids=lambda p: p.name)
def test_the_other_h100_parts_cite_their_sources_and_differ_from_the_sxm(part):
    from perfcore.specs import SOURCED_FIELDS

    assert PARTS[part.name] is part and set(part.sources) == set(SOURCED_FIELDS)
    assert all("NVIDIA" in s and "(20" in s for s in part.sources.values())
    assert part.hbm_bytes_per_s != H100.hbm_bytes_per_s and part.peak("bf16") < H100.peak("bf16")


# --------------------------------------------------------------------------------------------------------
# 7. several GPUs: the current one


def test_the_current_device_gives_the_name_the_l2_and_the_buffers(monkeypatch, recorded):
    small_l2 = SimpleNamespace(**{**vars(H100_PROPS), "L2_cache_size": 6 * MiB})
    cuda = FakeCuda(
        monkeypatch, {0: ("NVIDIA GeForce RTX 4090", small_l2), 1: ("NVIDIA H200", H100_PROPS)}, current=1
    )
    device = gpu.cuda_device()
    assert (device.index, device.name, device.l2_bytes) == (1, "NVIDIA H200", 50 * MiB)
    assert gpu._gpu()[1] == "cuda:1"
    result = gpu.gpu_experiments(quick=True)
    assert isinstance(result, gpu.GpuResult)
    assert (result.device_name, result.spec, result.device_index) == ("NVIDIA H200", "H200", 1)
    assert recorded.calls[0]["device"] == "cuda:1" and cuda.emptied
    assert gpu.detected_gpu_spec() is H200
    cuda.current = 0
    assert gpu.detected_gpu_spec() is None and gpu._gpu()[1] == "cuda:0"


# --------------------------------------------------------------------------------------------------------
# 8. a GPU without a spec: a bound from its memory clock and bus width


def test_the_memory_clock_and_bus_width_give_the_bandwidth_bound():
    def device(clock, bus):
        return gpu.CudaDevice(0, "x", None, None, None, clock, bus)

    assert device(2619000, 5120).bandwidth_bound == pytest.approx(3.352e12, rel=1e-3)  # H100 SXM: 3.35 TB/s
    assert device(10501000, 384).bandwidth_bound == pytest.approx(1.008e12, rel=1e-3)  # RTX 4090: 1,008 GB/s
    assert device(None, 384).bandwidth_bound is None and device(10501000, None).bandwidth_bound is None


def test_an_impossible_figure_on_a_gpu_without_a_spec_is_an_error(monkeypatch, recorded):
    FakeCuda(monkeypatch, {0: ("NVIDIA GeForce RTX 4090", RTX4090_PROPS)})
    recorded.figures["value"] = _figures(copy_rate=5e12)
    with pytest.raises(MeasurementError, match="memory clock and bus width"):
        gpu.gpu_experiments(quick=True)
    recorded.figures["value"] = _figures(copy_rate=9e11)
    result = gpu.gpu_experiments(quick=True)
    assert isinstance(result, gpu.GpuResult) and result.spec is None
    assert result.bandwidth_bound == pytest.approx(1.008e12, rel=1e-3)


# --------------------------------------------------------------------------------------------------------
# 9. TF32 set for the fp32 matmul, and restored


@pytest.fixture
def tf32_on():
    before = (torch.backends.cuda.matmul.allow_tf32, torch.get_float32_matmul_precision())
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.set_float32_matmul_precision("medium")  # what a student's code might have left behind
    yield
    torch.backends.cuda.matmul.allow_tf32 = before[0]
    torch.set_float32_matmul_precision(before[1])


def _state_recording_timer(seen: list):
    inner = gpu.sync_timer(lambda: None, repeats=3, warmup=1, block_s=0.0001)

    def timer(fn):
        seen.append((torch.backends.cuda.matmul.allow_tf32, torch.get_float32_matmul_precision()))
        return inner(fn)

    return timer


def test_the_fp32_matmul_runs_with_tf32_off_and_says_so(tf32_on):
    seen: list = []
    out = gpu.device_experiments("cpu", _state_recording_timer(seen), 1 << 14, (16,), dtype=torch.float32)
    assert (False, "highest") in seen and (True, "medium") in seen  # the matmul's, and the copy's
    assert out["matmul"][0].name == "matmul 16 float32 (TF32 off)"
    assert (torch.backends.cuda.matmul.allow_tf32, torch.get_float32_matmul_precision()) == (True, "medium")


def test_the_reference_fp32_matmul_sets_tf32(monkeypatch, tf32_on):
    seen: list = []
    monkeypatch.setattr(gpu, "_gpu", lambda: (torch, "cpu", _state_recording_timer(seen)))
    monkeypatch.setattr(gpu, "gpu_backend", lambda: None)
    gpu.gpu_matmul_flops(16, "fp32")
    gpu.gpu_matmul_flops(16, "fp32", tf32=True)
    assert seen == [(False, "highest"), (True, "high")]
    assert (torch.backends.cuda.matmul.allow_tf32, torch.get_float32_matmul_precision()) == (True, "medium")
    with pytest.raises(TypeError, match="tf32"):
        gpu.gpu_matmul_flops(16, "fp32", tf32="no")  # type: ignore[arg-type]
    gpu.release_gpu_memory()


# --------------------------------------------------------------------------------------------------------
# 10. MPS says fp16; the CUDA timer's own code path


def test_mps_matmul_is_labelled_fp16(monkeypatch, recorded):
    from perfcore.measure.core import as_dict
    from perfcore.measure.suite import _gpu

    monkeypatch.setattr(gpu, "gpu_backend", lambda: "mps")
    monkeypatch.setattr(torch.mps, "synchronize", lambda: None)
    monkeypatch.setattr(torch.mps, "empty_cache", lambda: None)
    result = gpu.gpu_experiments(quick=True)
    assert isinstance(result, gpu.GpuResult)
    assert result.matmul_dtype == "fp16" and recorded.calls[0]["dtype"] == torch.float16
    text = _gpu(as_dict(result))
    assert "fp16 matmul" in text and "bf16" not in text


def test_the_cuda_event_timer_reads_the_stream_clock(monkeypatch):
    monkeypatch.setattr(torch.cuda, "Event", FakeEvent)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a: None)
    calls = []

    def kernel():  # one launch: 1 ms on the fake stream clock
        calls.append(1)
        FakeEvent.clock_ms += 1.0

    timing = gpu.cuda_event_timer(repeats=4, warmup=2, block_s=0.05)(kernel)
    assert timing.number == 50  # 50 ms blocks of 1 ms calls
    assert timing.median_s == pytest.approx(1e-3) and timing.best_s == pytest.approx(1e-3)
    assert len(calls) == 2 + 1 + 4 * 50  # warm-up, the sizing call, the blocks
