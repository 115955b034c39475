"""The sandbox against the kernel (what a worker running as root still owns) and against bytecode that is not
the source handed in (tests/hostile/sandbox.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.sandbox import confinement
from tests.hostile.sandbox import KERNEL_PROBE, bytecode_folder

ROOT = Path(__file__).resolve().parents[3]
BWRAP, WHY_NO_BWRAP = confinement.find_bwrap()


def _graded(subs: Path, out: Path, *flags: str) -> dict:
    """The one student of ``subs``, as the batch grader's grades.json has them after grading ex01."""
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(subs), "--out", str(out)]
        + ["--exercises", "ex01", "--lang", "en", "--quiet", *flags],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (student,) = json.loads((out / "grades.json").read_text(encoding="utf-8"))["students"].values()
    return student


def test_the_kernel_settings_are_read_only_and_its_keys_hidden(tmp_path: Path) -> None:
    proc = tmp_path / "proc"
    (proc / "sys").mkdir(parents=True)
    (proc / "acpi").mkdir()
    (proc / "keys").write_text("")
    cmd = confinement.proc_covers(str(proc))
    pairs = [cmd[i : i + 3] for i in range(len(cmd))]
    assert ["--ro-bind", "/proc/sys", "/proc/sys"] in pairs
    assert ["--ro-bind", "/dev/null", "/proc/keys"] in pairs
    assert ["--tmpfs", "/proc/acpi", "--remount-ro"] in pairs
    assert not any("sysrq" in a for a in cmd)  # a kernel without it: nothing to bind, no bwrap error


def test_dev_is_read_only_with_a_sized_shm_after_the_gpu_binds(tmp_path: Path) -> None:
    devices = [(str(tmp_path / "nvidia0"), "/dev/nvidia0")]
    cmd = confinement.bwrap_command("bwrap", str(tmp_path), str(tmp_path), devices=devices)
    ro = cmd.index("--remount-ro", cmd.index("--dev"))
    assert cmd[ro + 1] == "/dev" and ro > cmd.index("--dev-bind")
    shm = cmd.index("/dev/shm")
    assert cmd[shm - 1] == "--tmpfs" and cmd[shm - 3 : shm - 1] == [
        "--size",
        str(confinement.SANDBOX_SHM_BYTES),
    ]


def test_a_submission_reaching_for_the_kernel_gets_nothing_through(tmp_path: Path) -> None:
    if BWRAP is None:
        pytest.skip(f"only bubblewrap can stop this, and {WHY_NO_BWRAP}")
    folder = tmp_path / "subs" / "mallory"
    folder.mkdir(parents=True)
    solution = (ROOT / "solutions" / "ex01_ridge_point.py").read_text(encoding="utf-8")
    (folder / "ex01_ridge_point.py").write_text(solution + KERNEL_PROBE, encoding="utf-8")
    student = _graded(folder.parent, tmp_path / "out")
    answer = next(o for o in student["outcomes"] if o["check_id"] == "1a_ridge_a100_fp32")
    assert answer["state"] == "passed", answer["message"]
    assert not Path("/dev/perfkit-planted").exists()
    shutil.rmtree(tmp_path / "subs")


@pytest.mark.parametrize("sandbox", ["bwrap", "limits alone"])
def test_bytecode_beside_a_stub_earns_nothing(tmp_path: Path, sandbox: str) -> None:
    """Graded is the .py: a forged __pycache__ entry and a sourceless module are never imported."""
    if sandbox == "bwrap" and BWRAP is None:
        pytest.skip(f"bubblewrap does not run here: {WHY_NO_BWRAP}")
    subs = tmp_path / "subs"
    bytecode_folder(
        subs / "sneaky",
        ROOT / "solutions" / "ex01_ridge_point.py",
        ROOT / "exercises" / "ex01_ridge_point.py",
    )
    student = _graded(subs, tmp_path / "out", *(["--no-sandbox"] if sandbox != "bwrap" else []))
    assert student["score"] == 0, [(o["check_id"], o["state"]) for o in student["outcomes"]]


#: Every clock an honest student may time m3's transpose with (benchmarks/honest/<clock>/m3_transpose.py):
#: the solution's own timing, one warm-up and the median of five single transposes, on another clock.
CLOCKS = ("process_time", "thread_time", "perf_counter_ns", "monotonic")


@pytest.mark.parametrize("clock", CLOCKS)
def test_an_honest_transpose_timed_with_any_clock_is_not_marked_wrong(tmp_path: Path, clock: str) -> None:
    """Issue 37: m3's transpose_time timed with ``time.process_time`` read 0.0 in the sandboxed worker (the
    launcher's RLIMIT_CPU made the process clock tick in 4 ms steps), and every honest submission was
    "wrong": "a measuring function must return one positive finite number". Graded through the real judge
    (sandboxed where bubblewrap runs), each clock's file passes, or is deferred where this machine is too
    busy to measure fairly; never wrong, never an error."""
    pytest.importorskip("torch")
    from grader import grade

    folder = tmp_path / clock
    folder.mkdir()
    shutil.copy(ROOT / "benchmarks" / "honest" / clock / "m3_transpose.py", folder)
    result = grade(folder / "m3_transpose.py", "m3", checks=["transpose_time_naive"], lang="en")
    (outcome,) = result.outcomes
    assert "positive finite number" not in outcome.message, outcome.message
    assert outcome.state == "passed" or outcome.deferred, (outcome.state, outcome.message)
