"""grader.cputime: the CPU time of a process tree, as the kernel reads it, between two readings."""

from __future__ import annotations

import os
import threading
import time

import pytest

from grader import cputime

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
    assert worked[0] >= 0.1 - 2 * worked[1]
    assert slept[0] < 0.05


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
    assert got is not None and got[0] >= 0.1 - 2 * got[1]


def test_a_thread_that_ended_between_the_readings_gives_no_reading() -> None:
    """Its time is gone from the per-thread counters: no figure rather than too small a one."""
    me = [os.getpid()]
    go = threading.Event()
    thread = threading.Thread(target=go.wait)
    thread.start()
    before = cputime.read(me)
    go.set()
    thread.join()
    # join returns once Python is done with the thread; the kernel may list its task a moment longer
    deadline = time.monotonic() + 30
    while os.path.exists(f"/proc/self/task/{thread.native_id}") and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not os.path.exists(f"/proc/self/task/{thread.native_id}")
    assert before is not None and before.per_thread
    assert cputime.used(before, cputime.read(me)) is None


def test_without_schedstat_the_reading_is_in_clock_ticks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cputime, "_thread_ns", lambda pid: {})
    me = [os.getpid()]
    before = cputime.read(me)
    _spin(0.1)
    got = cputime.used(before, cputime.read(me))
    assert got is not None and got[1] == pytest.approx(1 / os.sysconf("SC_CLK_TCK"))
    assert got[0] >= 0.1 - 2 * got[1]


def test_no_reading_where_the_kernel_gives_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cputime, "_thread_ns", lambda pid: {})
    monkeypatch.setattr(cputime, "_process_ticks", lambda pid: None)
    assert cputime.read([os.getpid()]) is None
    assert cputime.used(None, None) is None


def test_a_process_below_counts_in_its_tree() -> None:
    import subprocess
    import sys

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
        assert first is not None and any(pid == child.pid for pid, _ in first.threads)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            got = cputime.used(first, cputime.read(me))
            assert got is not None
            if got[0] >= 0.15:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the child's CPU time never showed in its parent's tree")
    finally:
        child.kill()
        child.wait()
