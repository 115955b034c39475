"""A batch stopped from outside (Ctrl-C, SIGKILL, SIGTERM, SIGHUP) leaves no student's process running and,
where it can, no copy of their code."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.grader.batch.helpers import (
    BWRAP,
    WHY_NO_BWRAP,
    _sleepers,
    _stuck_grading,
    _stuck_student,
    _wait_for_sleeper,
)

#: How long a grader may take to stop after Ctrl-C: a bound for a hang, not a speed claim.
STOP_WITHIN_S = 180


def _sigint_at_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("sandbox", [True, False], ids=["bwrap", "limits-only"])
def test_ctrl_c_leaves_nothing_running(tmp_path, sandbox):
    if sandbox and BWRAP is None:
        pytest.skip(f"only bubblewrap can do this, and {WHY_NO_BWRAP}")
    cmd = _stuck_grading(tmp_path) + ([] if sandbox else ["--no-sandbox"])
    # Ctrl-C as at a terminal: SIGINT at its default in the grader, whatever this run inherited (a suite
    # started in the background by a non-interactive shell ignores SIGINT, and Python then keeps ignoring it)
    grader = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=_sigint_at_default
    )
    try:
        assert _wait_for_sleeper(), "the submission's child never started"
        grader.send_signal(signal.SIGINT)
        # two to three seconds here at load 7 on two cores; a machine several times busier gets several times
        # that: what is asserted is that it stops, by itself, and says so
        _, err = grader.communicate(timeout=STOP_WITHIN_S)
    finally:
        grader.kill()
    assert grader.returncode == 130, err
    assert b"interrupted; every child process was stopped" in err and b"Traceback" not in err
    time.sleep(0.5)
    assert _sleepers() == []


def test_children_die_with_a_killed_grader(tmp_path):
    if BWRAP is None:
        pytest.skip(
            f"without bubblewrap a detached grandchild outlives a SIGKILLed grader, and {WHY_NO_BWRAP}"
        )
    cmd = [
        sys.executable,
        "-m",
        "grader",
        "grade",
        str(_stuck_student(tmp_path)),
        "--out",
        str(tmp_path / "o"),
    ]
    scratch = tmp_path / "scratch"  # a killed grader cannot remove its scratch folder: keep it in tmp_path
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    grader = subprocess.Popen([*cmd, "--exercises", "ex01", "--quiet"], stderr=subprocess.DEVNULL, env=env)
    try:
        assert _wait_for_sleeper(), "the submission's child never started"
        grader.kill()
        grader.wait(timeout=30)
    finally:
        grader.kill()
    deadline = time.monotonic() + 10
    while _sleepers() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _sleepers() == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_terminated_grader_stops_its_children_and_removes_the_copies(tmp_path, signum):
    """SIGTERM (a scheduler's stop) or SIGHUP (a closed terminal) ends the run as Ctrl-C does: the workers
    stopped, the copies of the students' code removed, the exit status 128 + the signal."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    grader = subprocess.Popen(_stuck_grading(tmp_path), stderr=subprocess.PIPE, env=env)
    try:
        assert _wait_for_sleeper(), "the submission's child never started"
        assert any(p.name.startswith("perfkit-batch-") for p in scratch.iterdir())
        grader.send_signal(signum)
        _, err = grader.communicate(timeout=60)
    finally:
        grader.kill()
    assert grader.returncode == 128 + signum, err
    assert f"stopped by {signal.Signals(signum).name}" in err.decode() and b"Traceback" not in err
    time.sleep(0.5)
    assert _sleepers() == []
    # nothing is left: no copy of a student's code, no worker's folder (perfkit-worker-*, perfkit-home-*)
    left = sorted(p.name for p in scratch.iterdir())
    assert left == []
