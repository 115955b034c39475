"""grader.sandbox.clocks, the judge's side: the double readings (issue 45 item 1) read back as the worker
writes them and nothing else, and the CPU time of a stretch only where one thread's readings show it. The
worker's side is tests/grader/judge/runners/test_worker_readings.py; the rules on readings,
tests/grader/judge/runners/test_readings.py."""

from __future__ import annotations

import base64
import math
from array import array

from grader.sandbox.clocks import Readings
from tests.grader.judge.runners.clocks import sent


def test_double_readings_read_back_with_their_cpu_time_and_thread() -> None:
    raw = sent([1.0, 1.5, 2.0], [0, 0, 6], cpu=[0.1, 0.5, 0.7], threads=[0, 0, 1])
    readings = Readings.parse(raw)
    assert readings is not None
    assert (
        readings.values == (1.0, 1.5, 2.0)
        and readings.cpu == (0.1, 0.5, 0.7)
        and readings.threads == (0, 0, 1)
    )
    assert readings.call_cpu is not None and abs(readings.call_cpu - 0.6) < 1e-9
    for forged in (-1.0, "0.6", float("nan")):  # the calling thread's CPU in the call: a number, or unread
        again = Readings.parse({**raw, "call_cpu": forged})
        assert again is not None and again.call_cpu is None
    plain = Readings.parse(sent([1.0, 1.5]))  # a record of single readings: no CPU halves
    assert plain is not None and plain.cpu == () and plain.threads == ()
    assert plain.double_stretches(took=1.0) == [(0.5, None)]


def test_a_double_reading_that_does_not_read_as_the_worker_writes_it_makes_no_readings() -> None:
    good = sent([1.0, 1.5], cpu=[0.1, 0.5])
    short = {**good, "cpu": sent([1.0, 1.5, 2.0], cpu=[0.1, 0.2, 0.3])["cpu"]}  # a CPU reading too many
    assert Readings.parse(short) is None
    assert Readings.parse({**good, "threads": {}}) is None  # CPU readings with no threads
    assert Readings.parse({k: v for k, v in good.items() if k != "threads"}) is None
    assert Readings.parse({**good, "cpu": {"0": "not base64!"}}) is None
    assert Readings.parse({**good, "cpu": "0.1"}) is None
    noisy = {**good, "threads": {"0": base64.b64encode(bytes([0])).decode()}}  # one thread for two readings
    assert Readings.parse(noisy) is None
    assert Readings.parse(good) is not None


def test_a_stretch_has_cpu_time_only_within_one_thread_and_within_its_wall_time() -> None:
    one = Readings.parse(sent([0.0, 1.0, 1.5], cpu=[0.0, 0.9, 0.9]))
    assert one is not None and one.double_stretches(took=10.0) == [(1.0, 0.9), (0.5, 0.0)]
    across = Readings.parse(sent([0.0, 1.0], cpu=[0.0, 0.5], threads=[0, 1]))
    assert across is not None and across.double_stretches(took=10.0) == [(1.0, None)]
    faster = Readings.parse(sent([0.0, 1.0], cpu=[0.0, 2.0]))  # more CPU than wall time: not one thread's
    assert faster is not None and faster.double_stretches(took=10.0) == [(1.0, None)]
    back = Readings.parse(sent([0.0, 1.0], cpu=[0.5, 0.0]))  # a thread's CPU time never goes back
    assert back is not None and back.double_stretches(took=10.0) == [(1.0, None)]
    unread = Readings.parse(sent([0.0, 1.0], cpu=[math.nan, 0.5]))
    assert unread is not None and unread.double_stretches(took=10.0) == [(1.0, None)]
    capped = Readings.parse(sent([0.0, 5.0], cpu=[0.0, 4.0]))  # a stretch is at most the call's duration
    assert capped is not None and capped.double_stretches(took=2.0) == [(2.0, 2.0)]


def test_a_cpu_clocks_wall_halves_read_back_in_the_order_of_its_readings() -> None:
    """The third half of a CPU clock's readings (the judge's wall clock), as the worker writes it: one per
    reading of a CPU clock and of no other; anything else makes no readings."""
    thread_time = 8  # the worker's code of a time.thread_time reading
    raw = sent([0.1, 0.3, 0.2], [thread_time] * 3, cpu=[0.1, 0.3, 0.2])
    raw["walls"] = {str(thread_time): base64.b64encode(array("d", [10.0, 10.5, 10.25]).tobytes()).decode()}
    readings = Readings.parse(raw)
    assert readings is not None and readings.walls == (10.0, 10.5, 10.25)
    assert readings.cpu_clock_walls() == ("thread_time", [(10.0, 0.1), (10.25, 0.2), (10.5, 0.3)])
    assert Readings.parse({**raw, "walls": {str(thread_time): raw["walls"][str(thread_time)][:8]}}) is None
    assert (
        Readings.parse({**raw, "walls": {"0": raw["walls"][str(thread_time)]}}) is None
    )  # not a CPU clock's
    assert Readings.parse({**raw, "walls": "10.0"}) is None
    other = Readings.parse(sent([0.1, 0.3], [thread_time, 0], cpu=[0.1, 0.3]))  # one of another clock
    assert other is not None and other.walls == () and other.cpu_clock_walls() is None
    across = dict(sent([0.1, 0.3, 0.2], [thread_time] * 3, cpu=[0.1, 0.3, 0.2], threads=[0, 1, 0]))
    across["walls"] = raw["walls"]
    parsed = Readings.parse(across)
    assert parsed is not None and parsed.cpu_clock_walls() is None  # another thread's CPU clock
