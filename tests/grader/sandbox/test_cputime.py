"""grader.sandbox.cputime: the CPU time of a process tree, as the kernel reads it, between two readings."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from grader.sandbox import cputime

pytestmark = pytest.mark.skipif(
    not os.path.exists("/proc/self/stat"), reason="the kernel keeps no /proc here"
)


def _spin(cpu_seconds: float) -> None:
    """Keep this thread on a CPU for ``cpu_seconds`` of its own CPU time (not wall time: the machine is shared)."""
    start = time.thread_time()
    while time.thread_time() - start < cpu_seconds:
        pass


def test_work_reads_as_cpu_time_and_sleep_does_not() -> None:
    me = [os.getpid()]
    before = cputime.read(me)
    _spin(0.1)
    worked = cputime.used(before, cputime.read(me))
    before = cputime.read(me)
    time.sleep(0.1)
    slept = cputime.used(before, cputime.read(me))
    assert worked is not None and slept is not None
    assert worked.complete and worked.resolution == cputime.CLOCK_RESOLUTION_S
    assert worked.seconds >= 0.1 - 2 * worked.resolution
    assert slept.seconds < 0.05


def test_a_thread_started_between_the_readings_counts_whole() -> None:
    me = [os.getpid()]
    spun, stop = threading.Event(), threading.Event()
    before = cputime.read(me)

    def work() -> None:
        _spin(0.1)
        spun.set()
        stop.wait()  # alive at the second reading

    thread = threading.Thread(target=work)
    thread.start()
    try:
        assert spun.wait(60)
        got = cputime.used(before, cputime.read(me))
    finally:
        stop.set()
        thread.join()
    assert got is not None and got.seconds >= 0.1 - 2 * got.resolution


def _gone(tid: int) -> None:
    """Wait until the kernel no longer lists task ``tid`` of this process (join returns a moment before)."""
    deadline = time.monotonic() + 30
    while os.path.exists(f"/proc/self/task/{tid}") and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not os.path.exists(f"/proc/self/task/{tid}")


def test_a_thread_that_ended_between_the_readings_keeps_its_time() -> None:
    """A call that ends a thread alive at the first reading must not blank the reading (a sleeping call
    did that to skip the CPU-time rule), and the thread's work counts."""
    me = [os.getpid()]
    go = threading.Event()

    def work() -> None:
        go.wait()
        _spin(0.1)

    thread = threading.Thread(target=work)
    thread.start()
    before = cputime.read(me)
    go.set()
    thread.join()
    _gone(thread.native_id or 0)
    got = cputime.used(before, cputime.read(me))
    assert got is not None and got.complete
    assert got.seconds >= 0.1 - 2 * got.resolution


def test_a_thread_that_ended_idle_reads_as_no_work() -> None:
    me = [os.getpid()]
    go = threading.Event()
    thread = threading.Thread(target=go.wait)
    thread.start()
    before = cputime.read(me)
    go.set()
    thread.join()
    _gone(thread.native_id or 0)
    time.sleep(0.1)
    got = cputime.used(before, cputime.read(me))
    assert got is not None and got.seconds < 0.05


def test_without_the_process_clock_the_reading_is_in_clock_ticks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cputime, "_clock_ns", lambda pid: None)
    me = [os.getpid()]
    before = cputime.read(me)
    _spin(0.1)
    got = cputime.used(before, cputime.read(me))
    assert got is not None and got.resolution == pytest.approx(1 / os.sysconf("SC_CLK_TCK"))
    assert got.seconds >= 0.1 - 2 * got.resolution


def test_no_reading_where_the_kernel_gives_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cputime, "_stat", lambda pid: None)
    assert cputime.read([os.getpid()]) is None
    assert cputime.used(None, None) is None


def _spinning_child(seconds: float, then_sleep: float) -> list[str]:
    return [
        sys.executable,
        "-c",
        f"import time\nt = time.process_time()\nwhile time.process_time() - t < {seconds}: pass\n"
        f"time.sleep({then_sleep})",
    ]


def test_a_child_that_ended_and_was_waited_for_counts_in_its_parent() -> None:
    """Its time moves to the parent's counters of reaped children: the reading stays complete."""
    child = subprocess.Popen(_spinning_child(0.0, 0.5))
    me = [os.getpid()]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # seen by the first reading, as a worker's child would be
        before = cputime.read(me)
        assert before is not None
        if any(pid == child.pid for pid, _ in before.processes):
            break
    child.wait()
    spun = subprocess.run(_spinning_child(0.2, 0.0), check=True)  # started and ended in between
    assert spun.returncode == 0
    got = cputime.used(before, cputime.read(me))
    assert got is not None and got.complete
    assert got.seconds >= 0.2 - 2 / os.sysconf("SC_CLK_TCK")


def test_a_process_gone_with_no_one_in_the_tree_waiting_makes_the_reading_incomplete() -> None:
    """What it used is nowhere in the tree's counters: the reading says so and never claims more."""
    child = subprocess.Popen(_spinning_child(0.1, 1.0))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # the tree is the child alone: its parent (this test) is outside
        before = cputime.read([child.pid])
        assert before is not None
        if sum(p.own_ticks for p in before.processes.values()) * 1.0 / os.sysconf("SC_CLK_TCK") >= 0.1:
            break
        time.sleep(0.02)
    child.wait()
    other = subprocess.Popen(_spinning_child(0.0, 5))
    try:
        got = cputime.used(before, cputime.read([other.pid]))
    finally:
        other.kill()
        other.wait()
    assert got is not None and not got.complete


def test_a_process_below_counts_in_its_tree() -> None:
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.2: pass\ntime.sleep(5)",
        ]
    )
    try:
        me = [os.getpid()]
        first = cputime.read(me)
        assert first is not None and any(pid == child.pid for pid, _ in first.processes)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            got = cputime.used(first, cputime.read(me))
            assert got is not None
            if got.seconds >= 0.15:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the child's CPU time never showed in its parent's tree")
    finally:
        child.kill()
        child.wait()


def test_since_start_reads_a_trees_whole_life() -> None:
    """What the CPU-time limit reads (:func:`cputime.since_start`): a process spun before the first reading
    counts whole, with its threads and the children it waited for; a cgroup's reading counts from zero."""
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, sys, time\n"
            "subprocess.run([sys.executable, '-c', 'import time\\nt = time.process_time()\\n"
            "while time.process_time() - t < 0.2: pass'])\n"
            "t = time.process_time()\nwhile time.process_time() - t < 0.2: pass\ntime.sleep(30)",
        ]
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            got = cputime.used(cputime.since_start(False), cputime.read([child.pid]))
            assert got is not None
            if got.seconds >= 0.4 - 2 / os.sysconf("SC_CLK_TCK"):
                break
            time.sleep(0.05)
        else:
            pytest.fail("the tree's whole life never read as the 0.4 s it spun")
    finally:
        child.kill()
        child.wait()
    grouped = cputime.used(cputime.since_start(True), cputime.TreeCpu({}, 1_500_000_000))
    assert grouped is not None and grouped.seconds == pytest.approx(1.5)
    assert cputime.since_start(False).group_ns is None  # no group: the processes are read
