"""The worker's side of the clock readings (grader.sandbox.clocks.Noting): a real worker, sandboxed where
bubblewrap runs, notes every reading of Python's clocks a call asking for them makes, and no more than its
cap; the judge reads them with grader.sandbox.clocks.Readings."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.sandbox import confinement, wire
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


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    folder: Path = tmp_path_factory.mktemp("student")
    (folder / "clocks.py").write_text(STUDENT, encoding="utf-8")
    process = WorkerProcess(str(folder), limits=confinement.Limits(), bwrap=confinement.find_bwrap()[0])
    process.start()
    loaded = process.ask("load", 60, module="clocks", file="clocks.py")
    assert isinstance(loaded, wire.Loaded) and loaded.error is None, loaded
    yield process
    process.close()


def call(worker: WorkerProcess, func: str, *args: object, readings: bool = True) -> wire.Returned:
    reply = worker.ask("call", 60, module="clocks", func=func, args=list(args), kwargs={}, readings=readings)
    assert isinstance(reply, wire.Returned), reply
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
