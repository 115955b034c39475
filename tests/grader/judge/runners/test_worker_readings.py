"""The worker's side of the clock readings (grader.sandbox.clocks.Noting): a real worker, sandboxed where
bubblewrap runs, notes every reading of Python's clocks a call asking for them makes, and no more than its
cap; the judge reads them with grader.sandbox.clocks.Readings."""

from __future__ import annotations

import sys
import time
import timeit
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.sandbox import confinement, messages
from grader.sandbox.clocks import Readings, clock_of
from grader.sandbox.process import WorkerProcess

STUDENT = """
import time, timeit
from time import perf_counter  # taken at import: the noting clock all the same

def reads(n):
    values = [perf_counter() for _ in range(n)]
    time.monotonic_ns(); time.process_time(); timeit.default_timer()
    if hasattr(time, "clock_gettime"):
        time.clock_gettime(time.CLOCK_MONOTONIC)
    return values[-1] - values[0] if values else 0.0

def looks():
    clock = time.perf_counter
    return clock.__name__, hasattr(clock, "__wrapped__"), timeit.default_timer is clock

def spin_then_blocks(n, *seconds):
    for _ in range(n):  # a spin on the clock, past what the record keeps of its readings
        perf_counter()
    taken = []
    for s in seconds:  # then blocks timed, one after another
        start = perf_counter()
        time.sleep(s)
        taken.append(perf_counter() - start)
    return min(taken)

def cost(n):
    start = perf_counter()
    for _ in range(n):
        perf_counter()
    return (perf_counter() - start) / n
"""


def started(folder: Path, module: str, source: str) -> WorkerProcess:
    """A real worker, sandboxed where bubblewrap runs, with ``source`` loaded as ``module``."""
    (folder / f"{module}.py").write_text(source, encoding="utf-8")
    process = WorkerProcess(str(folder), limits=confinement.Limits(), bwrap=confinement.find_bwrap()[0])
    process.start()
    loaded = process.ask("load", 60, module=module, file=f"{module}.py")
    assert isinstance(loaded, messages.Loaded) and loaded.error is None, loaded
    return process


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    process = started(tmp_path_factory.mktemp("student"), "clocks", STUDENT)
    yield process
    process.close()


def call(worker: WorkerProcess, func: str, *args: object, readings: bool = True) -> messages.Returned:
    reply = worker.ask("call", 60, module="clocks", func=func, args=list(args), kwargs={}, readings=readings)
    assert isinstance(reply, messages.Returned), reply
    return reply


def test_every_clock_read_during_the_call_is_noted_inside_its_window(worker: WorkerProcess) -> None:
    start = time.perf_counter()
    reply = call(worker, "reads", 5)
    end = time.perf_counter()
    readings = Readings.parse(reply.readings)
    assert readings is not None and readings.count == len(readings.values)
    clocks = [clock_of(kind) for kind in readings.kinds]
    has_gettime = hasattr(time, "clock_gettime")
    assert len(clocks) == 5 + 3 + has_gettime  # five perf_counter, monotonic_ns, process_time, timeit
    assert "process_time" in clocks
    if sys.platform.startswith("linux"):  # the judge's clock: every reading of it inside the call
        judges = readings.by_clock()["monotonic"]
        assert len(judges) == 5 + 2 + has_gettime
        assert all(start <= value <= end for value in judges)
        assert readings.outside((start, end)) is None


def test_a_call_not_asking_gets_no_readings(worker: WorkerProcess) -> None:
    assert call(worker, "reads", 5, readings=False).readings is None


def test_the_record_is_capped_and_keeps_the_longest_stretches_past_it(worker: WorkerProcess) -> None:
    """Each clock keeps its first 100,000 readings (the worker's MAX_READINGS); past them, its longest
    stretches between consecutive readings and its extremes, so that a loop spinning on one clock neither
    crowds out the others nor hides a block timed after it (which the judge's rule must find), and the
    record stays bounded."""
    start = time.perf_counter()
    reply = call(worker, "spin_then_blocks", 150_000, 0.05, 0.04, 0.03)
    readings = Readings.parse(reply.readings)
    assert readings is not None
    perf = [v for v, k in zip(readings.values, readings.kinds, strict=True) if k == 0]
    assert len(perf) == 100_000 and perf[0] >= start
    ((kind, longest, low, high),) = readings.beyond
    assert kind == 0 and len(longest) <= 4096 and low >= start and high <= time.perf_counter()
    stretches = readings.stretches(took=1.0)
    assert stretches[0] == max(longest) and min(stretches[:3]) >= 0.03  # each block after the spin, its own


def test_the_noting_clock_hides_the_original_and_is_timeits(worker: WorkerProcess) -> None:
    assert call(worker, "looks").value == ("perf_counter", False, True)


def test_noting_a_reading_stays_cheap(worker: WorkerProcess) -> None:
    """A reading noted costs a few hundred nanoseconds on this machine; a record that grew slower with its
    length (a list copied, a search) would cost milliseconds at 100k readings."""
    noted = call(worker, "cost", 100_000).value
    assert isinstance(noted, float) and noted < 20e-6, noted


STUDENT_DOUBLE = """
import threading, time
from time import perf_counter

def spin_then_sleep(seconds):
    # on the CPU for that long in this thread's own CPU time (a loaded machine stretches the wall time, never
    # this), a few thousand readings (under the record's cap)
    ran_from = getattr(time, "thread_time", time.process_time)()
    while getattr(time, "thread_time", time.process_time)() - ran_from < seconds:
        perf_counter()
        sum(range(1000))
    middle = perf_counter()
    time.sleep(seconds)  # off it
    return perf_counter() - middle

def seen(n):
    return [perf_counter() for _ in range(n)]

def in_a_thread():
    perf_counter()
    out = []
    worker = threading.Thread(target=lambda: out.append(perf_counter()))
    worker.start(); worker.join()
    perf_counter()
    return len(out)

last = [0.0]

def slept_and_spun(seconds):
    start = perf_counter()
    time.sleep(seconds)
    middle = perf_counter()
    spin_from = time.process_time()
    while time.process_time() - spin_from < seconds:  # on the CPU
        pass
    return middle - start, perf_counter() - middle, time.time_ns()

def never_back():
    before, last[0] = last[0], perf_counter()
    return before <= last[0]

def on_the_thread_clock(seconds):
    start = time.thread_time()
    while time.thread_time() - start < seconds:  # on the CPU, timed on the thread's CPU clock alone
        pass
    return time.thread_time() - start
"""


@pytest.fixture(scope="module")
def double(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    process = started(tmp_path_factory.mktemp("student"), "double", STUDENT_DOUBLE)
    yield process
    process.close()


def ask(
    worker: WorkerProcess, func: str, *args: object, readings: bool = True, on_cpu: bool = False
) -> messages.Returned:
    clock = {"clock": "cpu"} if on_cpu else {}
    reply = worker.ask(
        "call", 60, module="double", func=func, args=list(args), kwargs={}, readings=readings, **clock
    )
    assert isinstance(reply, messages.Returned), reply
    return reply


@pytest.mark.skipif(not hasattr(time, "thread_time"), reason="no thread CPU clock here")
def test_every_reading_is_a_double_reading_with_the_cpu_time_its_thread_ran(double: WorkerProcess) -> None:
    """Each reading carries the reading thread's CPU time: a stretch spun on the CPU ran about its whole
    wall time, a stretch asleep next to none of it (issue 45 item 1)."""
    readings = Readings.parse(ask(double, "spin_then_sleep", 0.05).readings)
    assert readings is not None and len(readings.cpu) == len(readings.values) == len(readings.threads)
    pairs = readings.double_stretches(took=1.0)
    asleep = [(wall, ran) for wall, ran in pairs if wall >= 0.04 and ran is not None and ran < 0.5 * wall]
    assert len(asleep) == 1 and asleep[0][1] < 0.01  # the sleep: 50 ms on the wall, next to none on the CPU
    spun = sum(ran for wall, ran in pairs if ran is not None and wall < 0.04)
    assert spun > 0.02  # the spin's many short stretches ran 50 ms on the CPU, however loaded the machine


def test_a_reading_of_another_thread_gives_no_cpu_time_across_threads(double: WorkerProcess) -> None:
    readings = Readings.parse(ask(double, "in_a_thread").readings)
    assert readings is not None and sorted(set(readings.threads)) == [0, 1]
    pairs = readings.double_stretches(took=1.0)
    assert len(pairs) == 2 and all(ran is None for _, ran in pairs)  # main, other, main: each across


@pytest.mark.skipif(not hasattr(time, "thread_time"), reason="no thread CPU clock here")
def test_the_second_reading_is_kept_out_of_what_the_student_times(double: WorkerProcess) -> None:
    """The calling thread's wall clocks leave out the noting's own time (a CPU clock read, a system call):
    between the student's readings lies what the student did, not the judge's bookkeeping; the record keeps
    the true readings. And the clock never goes back, in a call, between calls or outside them."""
    n = 2000
    reply = ask(double, "seen", n)
    readings = Readings.parse(reply.readings)
    assert readings is not None
    student, noted = reply.value, sorted(readings.values)
    assert len(student) == len(noted) == n
    assert all(b >= a for a, b in zip(student, student[1:], strict=False))
    assert all(s <= r for s, r in zip(student, noted, strict=True))
    cost = min(timeit.repeat(time.thread_time, number=1000, repeat=5)) / 1000  # a CPU clock read here
    kept_out = (noted[-1] - noted[0]) - (student[-1] - student[0])
    assert kept_out >= 0.5 * (n - 1) * cost, (kept_out, cost)
    assert all(ask(double, "never_back", readings=flag).value for flag in (True, False, True, False))


@pytest.mark.skipif(not hasattr(time, "thread_time"), reason="no thread CPU clock here")
def test_a_call_on_the_judges_cpu_clock_reads_the_cpu_time_its_thread_received(double: WorkerProcess) -> None:
    """Asked on the CPU clock (issue 45 item 5), the calling thread's wall clocks advance by its CPU time:
    a sleep reads as next to nothing, a spin as about its length; the record keeps the true readings (the
    sleep's 50 ms among them, each inside the call's window); a call not asking reads the wall clock."""
    start = time.perf_counter()
    reply = ask(double, "slept_and_spun", 0.05, on_cpu=True)
    end = time.perf_counter()
    slept, spun, _ = reply.value
    assert slept < 0.01 and 0.03 < spun < 0.5, reply.value
    readings = Readings.parse(reply.readings)
    assert readings is not None and readings.outside((start, end)) is None
    assert max(wall for wall, _ in readings.double_stretches(took=end - start)) >= 0.05
    slept, spun, _ = ask(double, "slept_and_spun", 0.05).value
    assert slept >= 0.05 and spun >= 0.03
    # the clock never goes back: into a call on the CPU clock, out of it, and between calls
    flags = [(True, True), (True, False), (False, False), (True, True), (True, False)]
    assert all(ask(double, "never_back", readings=r, on_cpu=c).value for r, c in flags)
    assert not ask(double, "never_back", on_cpu=True, readings=False).readings  # the CPU clock asks readings


@pytest.mark.skipif(not hasattr(time, "thread_time"), reason="no thread CPU clock here")
def test_the_record_says_how_much_cpu_the_calling_thread_ran_in_the_whole_call(double: WorkerProcess) -> None:
    """Before its first reading and after its last too (a call's arrays made, its warm-up): the CPU clock's
    cover of a call is judged on the whole call (grader.judge.runners.cpuclock.covered)."""
    readings = Readings.parse(ask(double, "spin_then_sleep", 0.05).readings)
    assert readings is not None and readings.call_cpu is not None
    assert readings.call_cpu >= max(readings.cpu) - min(readings.cpu) > 0.02


@pytest.mark.skipif(not hasattr(time, "thread_time"), reason="no thread CPU clock here")
def test_a_cpu_clocks_readings_carry_the_judges_wall_clock(double: WorkerProcess) -> None:
    """A call timed on ``thread_time`` alone: each reading carries the judge's wall clock, read with it inside
    the call's window, so that its stretches can be placed among the witness's looks (issue 45: a figure
    timed on a CPU clock and scaled down)."""
    start = time.perf_counter()
    readings = Readings.parse(ask(double, "on_the_thread_clock", 0.02).readings)
    end = time.perf_counter()
    assert readings is not None and len(readings.walls) == len(readings.values)
    read = readings.cpu_clock_walls()
    assert read is not None and read[0] == "thread_time"
    walls = [wall for wall, _ in read[1]]
    assert all(start <= wall <= end for wall in walls) and walls == sorted(walls)
    cpu = [value for _, value in read[1]]
    assert cpu == sorted(cpu) and cpu[-1] - cpu[0] >= 0.02
    mixed = Readings.parse(ask(double, "slept_and_spun", 0.01).readings)  # perf_counter and process_time
    assert mixed is not None and mixed.cpu_clock_walls() is None
