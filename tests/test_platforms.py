"""Grading where a student's machine is not Linux with bubblewrap: the macOS and Windows code paths, forced on
Linux. No ``SIGALRM`` (Windows has none): time limits come from the judge killing the worker. No sysfs and no
lscpu (macOS): the caches come from ``sysctl``. No bubblewrap: the run says once that it is not confined.
"""

from __future__ import annotations

import ast
import signal
import sys
import textwrap
from pathlib import Path

import pytest

import perfcore.measure.machine as machine
from grader import confinement
from grader.judge import Judge
from grader.sizes import Memory
from grader.spec import Exercise, ValueCheck

ROOT = Path(__file__).resolve().parent.parent
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
