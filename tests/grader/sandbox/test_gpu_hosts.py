"""GPU hosts, on a machine without a GPU: the sandbox's device binds, the memory cap of CUDA workers, the
worker's environment, a failing GPU experiment, the sizes and deferrals on a small GPU, the names of the
parts, several GPUs, a GPU without a spec, TF32, and the MPS label with the CUDA timer (issue 14).

CUDA is faked: device files are plain files in a temporary folder (the bind list is injectable), and
``torch.cuda``'s functions are replaced through ``monkeypatch`` with :class:`FakeCuda`.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch", reason="perfcore.measure needs torch (pip install perfkit[torch])")

from grader import confinement, reference, requirements, wire  # noqa: E402
from grader.checks import m6  # noqa: E402
from grader.judge import Judge  # noqa: E402
from perfcore.measure import gpu  # noqa: E402
from perfcore.measure.core import Figure, MeasurementError  # noqa: E402
from perfcore.measure.timing import Timing  # noqa: E402
from perfcore.specs import A100, B200, H100, H100_NVL, H100_PCIE, H200, PARTS  # noqa: E402

GiB = 1 << 30
MiB = 1 << 20

#: Device properties as torch reports them (clock in kHz, bus in bits): an H100 SXM's 2.619 GHz x 5120 bits.
H100_PROPS = SimpleNamespace(
    L2_cache_size=50 * MiB, total_memory=80 * GiB, memory_clock_rate=2619000, memory_bus_width=5120
)
RTX4090_PROPS = SimpleNamespace(
    L2_cache_size=72 * MiB, total_memory=24 * GiB, memory_clock_rate=10501000, memory_bus_width=384
)


class FakeEvent:
    """A CUDA event on a fake stream clock: every call of the timed function advances it by 1 ms."""

    clock_ms = 0.0

    def __init__(self, enable_timing: bool = False) -> None:
        assert enable_timing
        self.at: float | None = None
        self.synchronized = False

    def record(self) -> None:
        self.at = FakeEvent.clock_ms

    def synchronize(self) -> None:
        self.synchronized = True

    def elapsed_time(self, end: FakeEvent) -> float:
        assert end.synchronized, "the end event must be synchronized before its time is read"
        assert self.at is not None and end.at is not None
        return end.at - self.at


class FakeCuda:
    """``torch.cuda`` of a machine with the given devices ({index: (name, properties)}), ``current`` chosen,
    ``free`` bytes free on each."""

    def __init__(
        self, monkeypatch: pytest.MonkeyPatch, devices: dict, current: int = 0, free: int = 70 * GiB
    ):
        self.devices, self.current, self.free = devices, current, free
        self.emptied = 0
        cuda = torch.cuda
        monkeypatch.setattr(cuda, "is_available", lambda: True)
        monkeypatch.setattr(cuda, "is_initialized", lambda: True)
        monkeypatch.setattr(cuda, "current_device", lambda: self.current)
        monkeypatch.setattr(cuda, "device_count", lambda: len(self.devices))
        monkeypatch.setattr(cuda, "get_device_name", lambda i=None: self.devices[self._index(i)][0])
        monkeypatch.setattr(cuda, "get_device_properties", lambda i=None: self.devices[self._index(i)][1])
        monkeypatch.setattr(
            cuda, "mem_get_info", lambda i=None: (self.free, self.devices[self._index(i)][1].total_memory)
        )
        monkeypatch.setattr(cuda, "synchronize", lambda *a: None)
        monkeypatch.setattr(cuda, "Event", FakeEvent)
        monkeypatch.setattr(cuda, "empty_cache", self._empty)

    def _index(self, i: object) -> int:
        return self.current if i is None else int(i)  # type: ignore[call-overload]

    def _empty(self) -> None:
        self.emptied += 1


def _figure(name: str, rate: float, unit: str = "byte") -> Figure:
    return Figure.from_timing(name, Timing.from_samples([1e-3] * 3, 1), rate * 1e-3, unit)


def _figures(copy_rate: float = 1e11, flops: float = 1e13) -> dict:
    return {
        "copy": _figure("copy", copy_rate),
        "sum": _figure("sum", copy_rate / 2),
        "matmul": (_figure("matmul 8192 bfloat16", flops, "FLOP"),),
        "fusion_unfused": _figure("k=8 unfused", copy_rate),
        "fusion_fused": _figure("k=8 fused", copy_rate),
        "add_small": _figure("add 16", 1e6),
    }


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
# 1. the sandbox binds the GPU's device files back in


def _fake_dev(
    tmp_path: Path,
    names=("nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset"),
    folders=("nvidia-caps", "dri"),
) -> Path:
    dev = tmp_path / "dev"
    dev.mkdir()
    for name in names:
        (dev / name).write_text("")
    for name in folders:
        (dev / name).mkdir()
    (dev / "null").write_text("")  # not a GPU's: never bound
    return dev


def test_the_gpu_device_files_are_found_and_named_under_dev(tmp_path):
    dev = _fake_dev(tmp_path)
    found = dict(confinement.gpu_devices(str(dev)))
    assert sorted(found.values()) == [
        "/dev/dri",
        "/dev/nvidia-caps",
        "/dev/nvidia-modeset",
        "/dev/nvidia-uvm",
        "/dev/nvidia-uvm-tools",
        "/dev/nvidia0",
        "/dev/nvidia1",
        "/dev/nvidiactl",
    ]
    assert found[str(dev / "nvidia1")] == "/dev/nvidia1"


def test_wsl2s_gpu_device_makes_a_gpu_host(tmp_path):
    """WSL 2: CUDA goes through /dev/dxg to the Windows driver; no /dev/nvidia* there."""
    dev = _fake_dev(tmp_path, names=("dxg", "null"), folders=())
    assert confinement.gpu_devices(str(dev)) == [(str(dev / "dxg"), "/dev/dxg")]


def test_render_nodes_alone_do_not_make_a_gpu_host(tmp_path):
    assert confinement.gpu_devices(str(_fake_dev(tmp_path, names=(), folders=("dri",)))) == []
    with pytest.raises(ValueError, match="dev"):
        confinement.gpu_devices("")


def test_bwrap_binds_the_gpu_devices_into_its_fresh_dev(tmp_path):
    devices = confinement.gpu_devices(str(_fake_dev(tmp_path)))
    cmd = confinement.bwrap_command("bwrap", str(tmp_path), str(tmp_path), devices=devices)
    binds = [(cmd[i + 1], cmd[i + 2]) for i, a in enumerate(cmd) if a == "--dev-bind"]
    assert sorted(binds) == sorted(devices)
    assert min(i for i, a in enumerate(cmd) if a == "--dev-bind") > cmd.index("--dev")  # after the fresh /dev
    assert any(cmd[i : i + 3] == ["--ro-bind", "/sys", "/sys"] for i in range(len(cmd)))
    plain = confinement.bwrap_command("bwrap", str(tmp_path), str(tmp_path), devices=[])
    assert "--dev-bind" not in plain and "/sys" not in plain


def test_bwrap_binds_the_library_path(tmp_path, monkeypatch):
    lib = tmp_path / "nvidia-lib64"
    lib.mkdir()
    monkeypatch.setenv("LD_LIBRARY_PATH", f"{lib}{os.pathsep}/does/not/exist{os.pathsep}relative")
    cmd = confinement.bwrap_command("bwrap", str(tmp_path / "x"), str(tmp_path / "x"), devices=[])
    assert any(cmd[i : i + 3] == ["--ro-bind", str(lib), str(lib)] for i in range(len(cmd)))
    assert "/does/not/exist" not in cmd


def test_inside_bwrap_the_bound_device_files_are_there(tmp_path):
    bwrap, why = confinement.find_bwrap()
    if bwrap is None:
        pytest.skip(f"bubblewrap does not run here: {why}")
    devices = confinement.gpu_devices(str(_fake_dev(tmp_path)))
    folder = tmp_path / "work"
    folder.mkdir()
    cmd = confinement.bwrap_command(bwrap, str(folder), str(folder), devices=devices)
    probe = "import os; print(sorted(n for n in os.listdir('/dev') if n.startswith(('nvidia', 'dri'))))"
    out = subprocess.run(
        [*cmd, sys.executable, "-I", "-c", probe], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(sorted(os.path.basename(t) for _, t in devices))


# --------------------------------------------------------------------------------------------------------
# 2. a CUDA worker's memory is capped by RLIMIT_DATA, not RLIMIT_AS


def _limits_inside(cuda: bool) -> tuple[int, int]:
    limits = confinement.Limits(memory_bytes=3 * GiB)
    code = "import resource as r; print(r.getrlimit(r.RLIMIT_AS)[0], r.getrlimit(r.RLIMIT_DATA)[0])"
    cmd = [*confinement.launcher(sys.executable, limits, cuda=cuda), sys.executable, "-I", "-c", code]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=True)
    address, data = (int(v) for v in out.stdout.split())
    return address, data


def test_a_cpu_worker_has_its_address_space_capped():
    address, data = _limits_inside(cuda=False)
    assert address == 3 * GiB and data != 3 * GiB


def test_a_cuda_worker_has_its_data_capped_and_its_address_space_free():
    address, data = _limits_inside(cuda=True)
    assert data == 3 * GiB and address != 3 * GiB


def test_a_machine_with_gpu_device_files_gives_its_workers_the_data_cap(monkeypatch):
    monkeypatch.setattr(confinement, "gpu_devices", lambda dev="/dev": [("/x/nvidia0", "/dev/nvidia0")])
    assert "DATA" in confinement.launcher(sys.executable, confinement.Limits())
    monkeypatch.setattr(confinement, "gpu_devices", lambda dev="/dev": [])
    assert "AS" in confinement.launcher(sys.executable, confinement.Limits())


# --------------------------------------------------------------------------------------------------------
# 3. the worker keeps the admin's choice of GPU and the library path


def test_the_worker_keeps_the_cuda_variables_and_nothing_else(monkeypatch):
    kept = {
        "CUDA_VISIBLE_DEVICES": "MIG-5b8c0a5e-1111-2222-3333-444455556666",
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
        "NVIDIA_VISIBLE_DEVICES": "1",
        "LD_LIBRARY_PATH": "/usr/local/nvidia/lib64",
    }
    for name, value in kept.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PERFKIT_SECRET_TOKEN", "x")
    env = confinement.worker_env("/tmp")
    assert {k: env[k] for k in kept} == kept
    assert "PERFKIT_SECRET_TOKEN" not in env


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


def test_the_m6_checks_are_deferred_on_a_gpu_with_too_little_free_memory(monkeypatch):
    FakeCuda(monkeypatch, {0: ("NVIDIA A100-SXM4-40GB MIG 1g.5gb", H100_PROPS)}, free=4 * GiB)
    copy, matmul = (c.requires for c in m6.EXERCISE.checks)
    reason = requirements.unmet_reason(copy, "en")
    assert reason is not None and "free GPU memory" in reason and "4096.0 MiB" in reason and "MIG" in reason
    assert requirements.unmet_reason(matmul, "en") is None  # 640 MiB twice fits in 4 GiB
    zh = requirements.unmet_reason(copy, "zh")
    assert zh is not None and "显存" in zh


def test_gpu_memory_needs_cuda():
    with pytest.raises(ValueError, match="gpu_memory_bytes"):
        requirements.Requirements(gpu_memory_bytes=GiB)
    with pytest.raises(TypeError, match="gpu_memory_bytes"):
        requirements.Requirements(cuda=True, gpu_memory_bytes=1.5)  # type: ignore[arg-type]


def test_a_reference_out_of_gpu_memory_is_a_shortage():
    assert reference.gpu_shortage(
        torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
    )
    assert reference.gpu_shortage(RuntimeError("CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling x"))
    assert reference.gpu_shortage(RuntimeError("CUDA error: out of memory\nCUDA kernel errors might be ..."))
    assert not reference.gpu_shortage(RuntimeError("CUBLAS_STATUS_EXECUTION_FAILED"))
    assert not reference.gpu_shortage(ValueError("CUDA out of memory"))


def test_the_judge_defers_a_check_whose_reference_ran_out_of_gpu_memory(tmp_path, monkeypatch):
    checks = tmp_path / "oom_checks_issue14.py"
    checks.write_text(
        textwrap.dedent(
            """
            from grader.requirements import Requirements
            from grader.spec import Exercise, MeasurementCheck

            class OutOfMemoryError(RuntimeError):  # torch's, by name: the reference need not import torch
                pass

            def reference():
                raise OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")

            EXERCISE = Exercise(id="oom", module="oom_student", title_zh="显存", title_en="Memory", checks=(
                MeasurementCheck(id="m", part="a", points=1, func="rate", kind="dram", reference=reference,
                                 requires=Requirements(), single_thread=False, rounds=3),
            ))
            """
        ),
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    module = importlib.import_module("oom_checks_issue14")
    folder = tmp_path / "student"
    folder.mkdir()
    (folder / "oom_student.py").write_text("def rate():\n    return 101.0\n", encoding="utf-8")
    with Judge("en", extra_checks=("oom_checks_issue14",), sandbox=False) as judge:
        (outcome,) = judge.grade(module.EXERCISE, folder / "oom_student.py").outcomes
    assert outcome.state == "skipped" and outcome.deferred, outcome.message
    assert "ran out of GPU memory" in outcome.message and "grader bug" not in outcome.message


def test_the_reference_holds_one_set_of_gpu_buffers_and_frees_them(monkeypatch):
    timer = gpu.sync_timer(lambda: None, repeats=3, warmup=1, block_s=0.0001)
    monkeypatch.setattr(gpu, "_gpu", lambda: (torch, "cpu", timer))
    monkeypatch.setattr(gpu, "gpu_backend", lambda: None)
    gpu.release_gpu_memory()
    assert gpu.gpu_copy_bandwidth(1 << 14) > 0
    assert list(gpu._BUFFERS) == [("copy", "cpu", 1 << 12)]
    assert gpu.gpu_matmul_flops(16, "fp32") > 0
    assert list(gpu._BUFFERS) == [("mm", "cpu", 16, "fp32")]  # the copy's buffers were let go
    reference._release_gpu()  # what the reference process does after every request
    assert gpu._BUFFERS == {}


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


def test_m6s_bound_on_a_gpu_without_a_spec(monkeypatch):
    FakeCuda(monkeypatch, {0: ("NVIDIA GeForce RTX 4090", RTX4090_PROPS)})
    assert m6._spec_bound("bandwidth") == pytest.approx(gpu.SPEC_SLACK * 1.008e12, rel=1e-3)
    assert m6._spec_bound("flops") == float("inf")  # no spec, no flops bound: said, not made up
    no_clock = SimpleNamespace(L2_cache_size=4 * MiB, total_memory=16 * GiB)
    FakeCuda(monkeypatch, {0: ("Tesla T4", no_clock)})
    assert m6._spec_bound("bandwidth") == float("inf")


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


def test_the_worker_files_copy_still_runs_outside_the_sandbox():
    """The launcher's argument layout changed (the memory rlimit's name): a plain command still runs."""
    cmd = [
        *confinement.launcher(sys.executable, confinement.Limits(), cuda=False),
        sys.executable,
        "-c",
        "print(7)",
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=tempfile.gettempdir())
    assert out.stdout.strip() == "7"


# --------------------------------------------------------------------------------------------------------
# benchmarks/gpu_smoke.py: what can run without a GPU, so that it works first time on one


def _smoke():
    import importlib.util

    path = Path(__file__).resolve().parents[3] / "benchmarks" / "gpu_smoke.py"
    spec = importlib.util.spec_from_file_location("gpu_smoke_issue14", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_smoke_test_says_there_is_no_gpu_and_exits_3(capsys):
    smoke = _smoke()
    assert smoke.main([]) == smoke.NO_GPU == 3
    assert "no CUDA GPU here, nothing run" in capsys.readouterr().err
    assert sum(smoke.STEPS.values()) < 300


def test_the_smoke_test_reads_a_measure_report_and_the_host(monkeypatch, capsys):
    from perfcore.measure.core import as_dict

    smoke = _smoke()
    figures = _figures(copy_rate=3.0e12, flops=7.0e14)
    result = gpu.GpuResult(backend="cuda", device_name="NVIDIA H100 80GB HBM3", spec="H100", spec_bandwidth=3.35e12,
                           spec_peak_flops=989.4e12, bandwidth_fraction_of_spec=0.9, flops_fraction_of_spec=0.7,
                           timing="t", device_index=0, **figures)  # fmt: skip
    lines, seen, why = smoke.figures_against_spec({"experiments": {"gpu": as_dict(result)}, "errors": {}})
    assert why is None and seen["spec"] == "H100"
    assert lines[1] == "copy bandwidth: 3.000 TB/s = 90% of the spec's 3.35 TB/s"
    assert lines[2].startswith("matmul 8192 bfloat16: 700.0 TFLOP/s = 71% of the spec's 989 TFLOP/s")
    _, _, why = smoke.figures_against_spec(
        {"experiments": {}, "errors": {"gpu": "failed: OutOfMemoryError: x"}}
    )
    assert why is not None and "OutOfMemoryError" in why
    FakeCuda(monkeypatch, {0: ("NVIDIA GeForce RTX 4090", RTX4090_PROPS)})
    host: dict = {}
    smoke.describe_host(host)
    assert host["host"]["device"] == "NVIDIA GeForce RTX 4090" and host["host"]["spec"].startswith("no spec")


def test_the_smoke_tests_grading_steps_read_what_pytest_and_the_batch_grader_write(tmp_path, capsys):
    """Without a GPU m6 is deferred: both steps must say so (a failure), having read the files they read."""
    smoke = _smoke()
    (tmp_path / "p").mkdir()
    (tmp_path / "b").mkdir()
    results: dict = {}
    problem = smoke.step_pytest(tmp_path / "p", results)
    assert problem is not None and "m6 scored 0" in problem, problem
    assert len(results["pytest"]) == 2
    problem = smoke.step_batch(tmp_path / "b", results)
    assert problem is not None, results
    assert results["batch"]["states"] == ["skipped", "skipped"]


def test_a_students_gpu_out_of_memory_is_deferred_only_while_the_gpu_stays_short(tmp_path, monkeypatch):
    """The student's call ran out of GPU memory: deferred where the GPU is still short with the student's
    processes ended (a busy shared GPU), an error where it is not (a raised OutOfMemoryError of their own,
    or memory they filled and let go)."""
    from grader.judge import Prepared
    from grader.requirements import Requirements
    from grader.spec import Exercise, MeasurementCheck

    check = MeasurementCheck(
        id="m",
        part="a",
        points=1,
        func="rate",
        kind="dram",
        reference=lambda: 1.0,
        requires=Requirements(cuda=True, gpu_memory_bytes=1 << 30),
        single_thread=False,
    )
    exercise = Exercise(id="oom", module="oom_student", title_zh="显存", title_en="Memory", checks=(check,))
    oom = wire.Raised(exc_type="OutOfMemoryError", trace="torch.OutOfMemoryError: CUDA out of memory.")
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "oom_student.py").write_text("def rate():\n    return 1.0\n", encoding="utf-8")
    free = {"short": "needs 3.5 GiB of free GPU memory, NVIDIA H100 (cuda:0) has 1.0 GiB free now"}
    monkeypatch.setattr(requirements, "gpu_memory_shortage", lambda need, lang="zh": free["short"])
    with Judge("en", sandbox=False) as judge:
        judge._value(Prepared(exercise, check), str(folder / "oom_student.py"), (), {}, 30)  # a live worker
        (worker,) = judge.workers.values()
        assert worker.alive
        verdict = judge._raised(Prepared(exercise, check), oom)
        assert not worker.alive  # ended before the free memory was read
        assert verdict.deferred and verdict.state == "skipped" and "still short" in verdict.message
        free["short"] = None  # an idle GPU: the student's own out-of-memory is theirs
        assert judge._raised(Prepared(exercise, check), oom).state == "error"
        cpu_check = MeasurementCheck(
            id="c", part="a", points=1, func="rate", kind="dram", reference=lambda: 1.0
        )
        free["short"] = "short"
        assert judge._raised(Prepared(exercise, cpu_check), oom).state == "error"  # not a GPU check


def test_a_data_capped_worker_cannot_fill_the_host_with_shared_memory(tmp_path, monkeypatch):
    """On a GPU host the cap is RLIMIT_DATA, which counts no shared mapping: the judge watches the worker's
    resident memory and ends it past the limit (forced here: a CPU machine that says it has a GPU)."""
    monkeypatch.setattr(confinement, "gpu_devices", lambda dev="/dev": ["nvidia0"])
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "hog.py").write_text(
        "import mmap\n"
        "def fill():\n"
        "    hog = mmap.mmap(-1, 3 << 30)\n"
        "    for at in range(0, len(hog), 4096):\n"
        "        hog[at] = 1\n"
        "    return 1.0\n",
        encoding="utf-8",
    )
    from grader.spec import Exercise, ValueCheck

    check = ValueCheck(id="v", points=1, func="fill", part="a", expected=lambda: 1.0, timeout_s=60)
    exercise = Exercise(id="hog", module="hog", title_zh="内存", title_en="Memory", checks=(check,))
    with Judge("en", sandbox=False, limits=confinement.Limits(memory_bytes=1 << 30)) as judge:
        (outcome,) = judge.grade(exercise, folder / "hog.py").outcomes
        (worker,) = judge.workers.values()
        assert worker.watch_memory
    assert outcome.state == "error" and "memory" in outcome.message, outcome.message
