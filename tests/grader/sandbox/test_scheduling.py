"""grader.sandbox.scheduling through a real judge: perfcore's side measures with the student's whole tree
stopped, and pinning a worker pins every thread of it, not only the main one (issue 20)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from grader.judge import Judge
from grader.sandbox import proctree, scheduling
from grader.sandbox.cgroup import Group
from tests.grader.judge.helpers import exercise, student, value

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads the worker's threads and states from Linux's /proc"
)

#: A student module that leaves a thread spinning (its own, and one in a child process it starts): what
#: would slow perfcore's reference on the core the two share.
SPINNER = """
import os, subprocess, sys, threading

def _spin():
    while True:
        pass

threading.Thread(target=_spin, daemon=True).start()
CHILD = subprocess.Popen([sys.executable, "-c", "while True: pass"])

def f():
    return (1.0, 2.0)
"""


def _tree(judge: Judge, folder: Path) -> list[int]:
    worker = judge.worker(str(folder))
    assert worker.proc is not None
    return [worker.proc.pid, *proctree.descendants(worker.proc.pid)]


def _states(pids: list[int]) -> dict[int, str]:
    """pid -> the state letter of /proc/PID/stat (T: stopped), for the processes still there."""
    states = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
                states[pid] = fh.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            pass
    return states


def _cpu(pids: list[int]) -> float:
    ticks = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
        except OSError:
            pass
    return ticks / os.sysconf("SC_CLK_TCK")


@contextmanager
def _control(beside: int) -> Iterator[int]:
    """A spinner of the test's own, the control, on the cores process ``beside`` may run on: what the machine
    gives it in an interval is what a spinning process could get there then, on a quiet machine or a busy one."""
    proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        os.sched_setaffinity(proc.pid, os.sched_getaffinity(beside))
        yield proc.pid
    finally:
        proc.kill()
        proc.wait()


def _gains(
    tree: list[int], control: int, evidence_s: float = 0.2, within_s: float = 30.0
) -> tuple[float, float]:
    """The CPU seconds ``tree`` and the ``control`` gained over the same interval, one that lasts until the
    control has gained ``evidence_s`` (the machine gave a spinner that much), or ``within_s`` at most."""
    tree_before, control_before = _cpu(tree), _cpu([control])
    deadline = time.monotonic() + within_s
    while True:
        time.sleep(0.1)
        control_gain = _cpu([control]) - control_before
        if control_gain >= evidence_s or time.monotonic() > deadline:
            return _cpu(tree) - tree_before, control_gain


def _runs(tree: list[int], control: int) -> None:
    """The tree's spinners ran: with two spinning threads it got at least half what the control got."""
    tree_gain, control_gain = _gains(tree, control)
    assert control_gain > 0, "the machine gave the control no CPU in 30 s"
    assert tree_gain >= 0.5 * control_gain, (tree_gain, control_gain)


@pytest.mark.parametrize("groups", [True, False], ids=["cgroup-if-any", "sweeps"])
@pytest.mark.parametrize("sandbox", [True, False], ids=["bwrap", "limits-only"])
def test_the_students_tree_is_stopped_while_perfcore_measures(
    tmp_path: Path, sandbox: bool, groups: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stopped by its cgroup's freezer where the machine lets the grader make one (the processes then sleep,
    frozen), else by SIGSTOP sweeps (state T): either way, nothing of the tree uses CPU meanwhile."""
    if not groups:
        monkeypatch.setattr(Group, "make", classmethod(lambda cls: None))
    path = student(tmp_path, SPINNER)
    with Judge("en", sandbox=sandbox) as judge:
        outcomes = list(judge.grade(exercise(value()), path).outcomes)
        assert outcomes[0].state == "passed", outcomes[0].message
        tree = _tree(judge, tmp_path)
        assert len(tree) >= 2  # the worker and, below it, the student's file and its spinning child
        group = judge.worker(str(tmp_path)).group
        assert group is None or groups
        # CPU is compared with what a control spinner got in the same interval, not with a share of the
        # wall clock: on a busy machine a spinner may get a tenth of a core
        with _control(beside=tree[0]) as control:
            _runs(tree, control)  # the spinners run while nothing is stopped
            with judge.workers_stopped():
                states = _states(tree)
                if group is not None:
                    assert states and group.frozen() is True
                else:
                    assert states and set(states.values()) <= {"T", "t"}, states
                tree_gain, control_gain = _gains(tree, control)
                assert control_gain > 0, "the machine gave the control no CPU in 30 s"
                assert tree_gain < 0.05, (tree_gain, control_gain)
            assert not set(_states(tree).values()) & {"T", "t"}
            _runs(tree, control)  # and run again after


def test_pinning_a_worker_pins_every_thread_of_its_tree(tmp_path: Path) -> None:
    cpus = sorted(os.sched_getaffinity(0))
    path = student(tmp_path, SPINNER)
    with Judge("en", sandbox=False) as judge:
        assert list(judge.grade(exercise(value()), path).outcomes)[0].state == "passed"
        judge.worker(str(tmp_path)).pin({cpus[-1]})
        tree = _tree(judge, tmp_path)
        threads = [tid for pid in tree for tid in scheduling.threads_of(pid)]
        assert len(threads) > len(tree)  # the spinning thread is not its process's main one
        pinned = {}
        for tid in threads:
            try:
                pinned[tid] = os.sched_getaffinity(tid)
            except OSError:  # a thread that ended
                pass
        assert pinned and all(a == {cpus[-1]} for a in pinned.values()), pinned
