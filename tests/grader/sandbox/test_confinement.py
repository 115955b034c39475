"""grader.sandbox.confinement as the batch grader uses it: exit statuses and limits read right, and a kit or a
worker under /tmp (where CI clones) still visible inside the sandbox."""

from __future__ import annotations

import shutil
import signal
import sys
from pathlib import Path

import pytest

from grader.sandbox import confinement
from grader.sandbox.confinement import Limits, describe_exit
from tests.grader.batch.helpers import (
    BWRAP,
    EX01_POINTS,
    SOLUTIONS,
    WHY_NO_BWRAP,
)


def test_exit_statuses_and_limits_are_read_right():
    assert describe_exit(128 + signal.SIGXCPU, sandboxed=True) == ("cpu", "")
    assert describe_exit(-signal.SIGXFSZ, sandboxed=False) == ("output", "")
    assert describe_exit(-signal.SIGKILL, sandboxed=False) == ("signal", "SIGKILL")
    assert describe_exit(0, sandboxed=True) == ("exit", "0")
    with pytest.raises(ValueError, match="Limits.memory_bytes"):
        Limits(memory_bytes=0)
    with pytest.raises(ValueError, match="Limits.grace_s"):
        Limits(grace_s=-1)


def test_a_kit_under_tmp_stays_visible_in_the_sandbox(monkeypatch, tmp_path):
    """The sandbox's private /tmp must not hide an interpreter or a checkout that lives under /tmp (CI
    clones into one): they are bound back read-only after it, and a kit installed inside a bound
    site-packages is covered again after that; the checkout's own solutions/ is never bound."""
    clone = tmp_path / "clone"
    venv = clone / ".venv"
    installed = venv / "lib" / "site-packages" / "grader"
    installed.mkdir(parents=True)
    (clone / "solutions").mkdir()
    monkeypatch.setattr(confinement, "interpreter_paths", lambda python=sys.executable: [str(venv)])
    kit = [str(installed), str(clone / "solutions")]
    monkeypatch.setattr(
        confinement,
        "kit_packages",
        lambda names=None: [p for p in kit if names is None or Path(p).name in names],
    )
    cmd = confinement.bwrap_command("bwrap", str(tmp_path / "copy"), str(tmp_path / "runtime"))
    pairs = list(zip(cmd, cmd[1:], strict=False))
    private_tmp = pairs.index(("--tmpfs", "/tmp"))
    assert pairs.index(("--ro-bind", str(venv))) > private_tmp  # bound back after the private /tmp
    assert pairs.index(("--tmpfs", str(installed))) > pairs.index(("--ro-bind", str(venv)))  # then covered
    assert str(clone / "solutions") not in cmd
    assert pairs.index(("--ro-bind", str(tmp_path / "runtime"))) > private_tmp
    folder = [
        i
        for i, pair in enumerate(pairs)
        if pair in (("--bind", str(tmp_path / "copy")), ("--ro-bind", str(tmp_path / "copy")))
    ]
    assert folder and folder[0] > private_tmp


def test_the_worker_under_tmp_runs_in_the_sandbox(tmp_path):
    """A real worker whose folder and runtime files are under /tmp starts and is graded inside bwrap."""
    if BWRAP is None:
        pytest.skip(f"only bubblewrap can do this, and {WHY_NO_BWRAP}")
    from grader import grade

    folder = tmp_path / "student"
    folder.mkdir()
    shutil.copy(SOLUTIONS / "ex01_ridge_point.py", folder)
    assert grade(folder / "ex01_ridge_point.py", "ex01", lang="en").score == EX01_POINTS
