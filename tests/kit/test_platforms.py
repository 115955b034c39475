"""Grading where a student's machine is not Linux with bubblewrap: the macOS and Windows code paths, forced on
Linux. No ``SIGALRM`` (Windows has none): time limits come from the judge killing the worker. No sysfs and no
lscpu (macOS): the caches come from ``sysctl``. No bubblewrap: the run says once that it is not confined.
Windows' worker: no rlimits (so no launcher), no descriptor passing (the worker connects back over loopback
with a secret), no process groups.
"""

from __future__ import annotations

import ast
import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest

import perfcore.measure.machine as machine
from grader.judge import Judge
from grader.sandbox import channel, confinement, messages
from grader.sandbox.process import WorkerProcess
from grader.specs.check import Exercise, ValueCheck
from grader.specs.sizes import Memory

ROOT = Path(__file__).resolve().parents[2]
KiB, MiB = 1 << 10, 1 << 20


def _exercise(timeout_s: float = 3.0) -> Exercise:
    check = ValueCheck(id="v", points=1, func="f", part="a", expected=lambda: 1.0, timeout_s=timeout_s)
    return Exercise(id="ex97", module="ex97_platform", title_zh="平台", title_en="Platform", checks=(check,))


def _student(folder: Path, code: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "ex97_platform.py"
    path.write_text(textwrap.dedent(code), encoding="utf-8")
    return path


def test_the_grader_never_asks_for_an_alarm() -> None:
    """Neither side of grading uses SIGALRM, signal.alarm or an interval timer, which Windows lacks."""
    for path in [*(ROOT / "grader").rglob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        assert not names & {"SIGALRM", "alarm", "setitimer"}, path


def test_a_time_limit_holds_without_sigalrm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(signal, "SIGALRM", raising=False)
    monkeypatch.delattr(signal, "alarm", raising=False)
    path = _student(tmp_path / "s", "def f():\n    while True:\n        pass\n")
    with Judge("en", sandbox=False) as judge:
        (outcome,) = judge.grade(_exercise(2.0), path).outcomes
    assert outcome.state == "timeout" and "2" in outcome.message


def test_caches_come_from_sysctl_where_there_is_no_sysfs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An Apple M-series: sysctl gives perflevel0's L1d and L2 and no L3; 16 KiB pages."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "sysctl"
    fake.write_text(
        "#!/bin/sh\n"
        'case "$2" in\n'
        "  hw.perflevel0.l1dcachesize) echo 131072 ;;\n"
        "  hw.perflevel0.l2cachesize) echo 16777216 ;;\n"
        "  hw.l3cachesize) echo ;;\n"
        "  *) echo ;;\n"
        "esac\n",
        encoding="utf-8",
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))  # no lscpu on the path either
    read_sysfs, no_sysfs = machine.read_sysfs_caches, str(tmp_path / "no-sysfs" / "index*")
    monkeypatch.setattr(machine, "read_sysfs_caches", lambda: read_sysfs(no_sysfs))
    monkeypatch.setattr(sys, "platform", "darwin")
    machine.cache_levels.cache_clear()
    try:
        caches, source = machine.cache_levels()
    finally:
        machine.cache_levels.cache_clear()
    assert source == "sysctl"
    memory = Memory(caches, 8 << 30, 16 * KiB)
    assert memory.level_bytes(1) == 128 * KiB and memory.llc_bytes == memory.level_bytes(2) == 16 * MiB


def test_without_bubblewrap_the_run_says_once_it_is_not_confined(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PERFKIT_NO_BWRAP", "1")
    confinement.find_bwrap.cache_clear()
    said: list[str] = []
    try:
        with Judge("en", say=said.append) as judge:
            assert not judge.confined
            for name in ("alice", "bob"):
                path = _student(tmp_path / name, "def f():\n    return 1.0\n")
                (outcome,) = judge.grade(_exercise(), path).outcomes
                assert outcome.state == "passed"
    finally:
        confinement.find_bwrap.cache_clear()
    assert len(said) == 1 and "PERFKIT_NO_BWRAP" in said[0]


@pytest.fixture
def windows_like(monkeypatch: pytest.MonkeyPatch) -> None:
    """What Windows lacks, taken away: rlimits (and so the launcher), passing a socket by descriptor, process
    groups; and bubblewrap."""
    monkeypatch.setattr(confinement, "HAS_RLIMITS", False)
    monkeypatch.setattr(channel, "PASSES_FDS", False)
    monkeypatch.setattr(confinement, "HAS_PROCESS_GROUPS", False)
    monkeypatch.delattr(os, "killpg")  # a stray call would fail as on Windows


def test_without_rlimits_there_is_no_launcher(windows_like: None) -> None:
    assert confinement.launcher(sys.executable, confinement.Limits()) == []


def test_a_windows_like_worker_connects_back_grades_and_times_out(tmp_path: Path, windows_like: None) -> None:
    right = _student(tmp_path / "right", "def f():\n    return 1.0\n")
    # a loop that also leaves a child behind: killed with its worker though there is no process group
    spinning = _student(
        tmp_path / "spin",
        "import subprocess, sys\n"
        "def f():\n"
        "    p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        "    open('child.pid', 'w').write(str(p.pid))\n"
        "    while True:\n"
        "        pass\n",
    )
    (spinning.parent / "child.pid").touch()
    spinning.parent.chmod(0o777)  # the worker writes its child's pid beside the file (no sandbox here)
    with Judge("en", sandbox=False) as judge:
        (passed,) = judge.grade(_exercise(), right).outcomes
        (late,) = judge.grade(_exercise(2.0), spinning).outcomes
    assert passed.state == "passed", passed.message
    assert late.state == "timeout", late.message
    child = int((spinning.parent / "child.pid").read_text() or 0)
    assert child > 0
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and Path(f"/proc/{child}").exists():
        time.sleep(0.05)
    assert not Path(f"/proc/{child}").exists() or "Z" in Path(f"/proc/{child}/stat").read_text().split()[2]


def test_a_connection_without_the_secret_is_not_taken_for_the_worker(
    tmp_path: Path, windows_like: None
) -> None:
    """Another process that connects first and says hello without the worker's secret: the start fails."""
    impostor = tmp_path / "python"
    impostor.write_text(
        f"#!{sys.executable}\n"
        "import json, socket, sys\n"
        "host, _, port = sys.argv[sys.argv.index('--connect') + 1].rpartition(':')\n"
        "s = socket.create_connection((host, int(port)))\n"
        "s.sendall(json.dumps({'reply': 'hello', 'pid': 1, 'secret': 'guessed'}).encode() + b'\\n')\n"
        "s.recv(1)\n",
        encoding="utf-8",
    )
    impostor.chmod(0o755)
    worker = WorkerProcess(
        str(tmp_path), limits=confinement.Limits(startup_s=10), bwrap=None, python=str(impostor)
    )
    with pytest.raises(messages.WorkerFailure) as failed:
        worker.start()
    worker.close()
    assert failed.value.kind == "startup" and "secret" in str(failed.value)
