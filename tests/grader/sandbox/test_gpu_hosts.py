"""The grader on GPU hosts, on a machine without a GPU: the sandbox's device binds, the memory cap of CUDA
workers, the worker's environment, deferrals on a small GPU, m6's bound on a GPU without a spec, the GPU smoke
test, and a student's out-of-memory (issue 14; perfcore's side is tests/perfcore/test_measure_gpu_hosts.py).

CUDA is faked: device files are plain files in a temporary folder (the bind list is injectable), and
``torch.cuda``'s functions are replaced through ``monkeypatch`` with :class:`FakeCuda` (tests/fake_cuda.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch", reason="perfcore.measure needs torch (pip install perfkit[torch])")

from grader.checks import m6  # noqa: E402
from grader.judge import Judge  # noqa: E402
from grader.judge import reference_server as reference  # noqa: E402  (the reference process's own side)
from grader.sandbox import confinement, messages  # noqa: E402
from grader.specs import requirements  # noqa: E402
from perfcore.measure import gpu  # noqa: E402
from tests.fake_cuda import (  # noqa: E402
    H100_PROPS,
    RTX4090_PROPS,
    FakeCuda,
    GiB,
    MiB,
    _figures,
)

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
# 5. a too-small GPU defers with the reason; the reference's GPU memory


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
            from grader.specs.requirements import Requirements
            from grader.specs.check import Exercise, MeasurementCheck

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
    (folder / "oom_student.py").write_text(  # it reads the clock around its call, as a figure must
        "import time\ndef rate():\n    t0 = time.perf_counter()\n    sum(range(10000))\n"
        "    time.perf_counter()\n    return 101.0\n",
        encoding="utf-8",
    )
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
# 8. a GPU without a spec: m6's bound from its memory clock and bus width


def test_m6s_bound_on_a_gpu_without_a_spec(monkeypatch):
    FakeCuda(monkeypatch, {0: ("NVIDIA GeForce RTX 4090", RTX4090_PROPS)})
    assert m6._spec_bound("bandwidth") == pytest.approx(gpu.SPEC_SLACK * 1.008e12, rel=1e-3)
    assert m6._spec_bound("flops") == float("inf")  # no spec, no flops bound: said, not made up
    no_clock = SimpleNamespace(L2_cache_size=4 * MiB, total_memory=16 * GiB)
    FakeCuda(monkeypatch, {0: ("Tesla T4", no_clock)})
    assert m6._spec_bound("bandwidth") == float("inf")


# --------------------------------------------------------------------------------------------------------
# 10. the launcher's own code path


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


def test_the_smoke_test_says_there_is_no_gpu_and_exits_3(capsys, monkeypatch):
    smoke = _smoke()
    # a machine without CUDA, whatever this one has (on a GPU host the smoke test would run in full: seen on
    # an H200, where this test then failed)
    monkeypatch.setattr(smoke, "no_gpu_reason", lambda: "torch.cuda.is_available() is False")
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


# --------------------------------------------------------------------------------------------------------
# a student's GPU out of memory, and a data-capped worker's shared memory


def test_a_students_gpu_out_of_memory_is_deferred_only_while_the_gpu_stays_short(tmp_path, monkeypatch):
    """The student's call ran out of GPU memory: deferred where the GPU is still short with the student's
    processes ended (a busy shared GPU), an error where it is not (a raised OutOfMemoryError of their own,
    or memory they filled and let go)."""
    from grader.judge import Prepared
    from grader.specs.check import Exercise, MeasurementCheck
    from grader.specs.requirements import Requirements

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
    oom = messages.Raised(exc_type="OutOfMemoryError", trace="torch.OutOfMemoryError: CUDA out of memory.")
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "oom_student.py").write_text("def rate():\n    return 1.0\n", encoding="utf-8")
    free = {"short": "needs 3.5 GiB of free GPU memory, NVIDIA H100 (cuda:0) has 1.0 GiB free now"}
    monkeypatch.setattr(requirements, "gpu_memory_shortage", lambda need, lang="zh": free["short"])
    with Judge("en", sandbox=False) as judge:
        judge.sides.call(
            Prepared(exercise, check), str(folder / "oom_student.py"), (), {}, 30
        )  # a live worker
        (worker,) = judge.workers.values()
        assert worker.alive
        verdict = judge.sides.raised(Prepared(exercise, check), oom)
        assert not worker.alive  # ended before the free memory was read
        assert verdict.deferred and verdict.state == "skipped" and "still short" in verdict.message
        free["short"] = None  # an idle GPU: the student's own out-of-memory is theirs
        assert judge.sides.raised(Prepared(exercise, check), oom).state == "error"
        cpu_check = MeasurementCheck(
            id="c", part="a", points=1, func="rate", kind="dram", reference=lambda: 1.0
        )
        free["short"] = "short"
        assert judge.sides.raised(Prepared(exercise, cpu_check), oom).state == "error"  # not a GPU check


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
    from grader.specs.check import Exercise, ValueCheck

    check = ValueCheck(id="v", points=1, func="fill", part="a", expected=lambda: 1.0, timeout_s=60)
    exercise = Exercise(id="hog", module="hog", title_zh="内存", title_en="Memory", checks=(check,))
    with Judge("en", sandbox=False, limits=confinement.Limits(memory_bytes=1 << 30)) as judge:
        (outcome,) = judge.grade(exercise, folder / "hog.py").outcomes
        (worker,) = judge.workers.values()
        assert worker.watch_memory
    assert outcome.state == "error" and "memory" in outcome.message, outcome.message
