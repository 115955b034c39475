"""The clock perfcore's CPU measurements read (perfcore.measure.timing): wall time by default, the thread's
CPU time within ``cpu_clock()``. The seam itself needs no torch; the measurements through torch's Timer
(time_blocks, compare) skip without it."""

from __future__ import annotations

import sys
import threading
import time

import pytest

from perfcore.measure import core
from perfcore.measure.timing import WALL_CLOCK, clock_in_force, cpu_clock, single_thread

SLEEP_S = 0.02
SPIN_S = 0.02


def sleeper() -> None:
    """20 ms off the CPU: wall time passes, the thread's CPU time hardly does."""
    time.sleep(SLEEP_S)


def spinner() -> None:
    """20 ms of the thread's CPU time, however long the wall clock says that took."""
    start = time.thread_time()
    while time.thread_time() - start < SPIN_S:
        pass


def _seconds(fn) -> float:
    """One call of ``fn`` read by the clock in force, as perfcore's readings are."""
    read = clock_in_force()
    start = read()
    fn()
    return read() - start


# ---------------------------------------------------------------------------------------------- the seam


def test_the_wall_clock_is_the_default():
    assert WALL_CLOCK is time.perf_counter
    assert clock_in_force() is time.perf_counter


def test_within_cpu_clock_the_thread_time_is_read_and_restored_after():
    with cpu_clock() as read:
        assert read is time.thread_time
        assert clock_in_force() is time.thread_time
    assert clock_in_force() is time.perf_counter


def test_cpu_clock_nests():
    with cpu_clock():
        with cpu_clock():
            assert clock_in_force() is time.thread_time
        assert clock_in_force() is time.thread_time
    assert clock_in_force() is time.perf_counter


def test_the_previous_clock_is_restored_after_an_exception():
    with pytest.raises(KeyError):
        with cpu_clock():
            raise KeyError("inside")
    assert clock_in_force() is time.perf_counter
    with cpu_clock():
        with pytest.raises(KeyError):
            with cpu_clock():
                raise KeyError("nested")
        assert clock_in_force() is time.thread_time
    assert clock_in_force() is time.perf_counter


def test_without_thread_time_entering_raises_and_names_the_platform(monkeypatch):
    monkeypatch.delattr(time, "thread_time")
    with pytest.raises(ValueError, match=sys.platform):
        with cpu_clock():
            pass  # pragma: no cover - never entered
    assert clock_in_force() is time.perf_counter


@pytest.mark.skipif(
    bool(getattr(sys.flags, "thread_inherit_context", False)), reason="new threads inherit the context here"
)
def test_the_clock_is_the_entering_threads_alone():
    seen = []
    with cpu_clock():
        other = threading.Thread(target=lambda: seen.append(clock_in_force()))
        other.start()
        other.join()
    assert seen == [time.perf_counter]


def test_a_sleep_reads_near_zero_cpu_time_and_a_spin_its_own():
    assert _seconds(sleeper) >= SLEEP_S
    with cpu_clock():
        assert _seconds(sleeper) < SLEEP_S / 4
        cpu = _seconds(spinner)
    wall = _seconds(spinner)
    assert SPIN_S * 0.95 <= cpu <= SPIN_S * 1.5
    assert 0.3 * wall <= cpu <= 1.5 * wall


def test_a_long_call_is_its_own_warm_up_by_the_clock_in_force():
    """core's calibrating reading: a 0.12 s sleep is a long call (kept as the sample) by the wall clock, a
    short one (warmed up, then timed by the block runner) by the thread's CPU time."""

    def nap() -> None:
        time.sleep(core.LONG_CALL_S * 1.2)

    def run(number: int) -> float:
        return -1.0  # the block runner's figure, recognisable

    assert core._warm_and_calibrate(nap, run, 1, clock_in_force()) >= core.LONG_CALL_S
    with cpu_clock():
        assert core._warm_and_calibrate(nap, run, 1, clock_in_force()) == -1.0


# ---------------------------------------------------------------------------------------------- through torch's Timer


@pytest.fixture
def one_thread():
    pytest.importorskip("torch", reason="perfcore.measure needs torch (pip install perfkit[torch])")
    with single_thread():
        yield


def test_time_blocks_of_a_sleep_read_near_zero_within_cpu_clock(one_thread):
    # block_s below the Timer's floor (1e-9 s a block) keeps every block at one call by either clock
    wall = core.time_blocks(sleeper, repeats=3, block_s=1e-9, warmup=0)
    with cpu_clock():
        cpu = core.time_blocks(sleeper, repeats=3, block_s=1e-9, warmup=0)
    assert wall.number == cpu.number == 1
    assert wall.median_s >= SLEEP_S
    assert cpu.median_s < SLEEP_S / 4


def test_time_blocks_of_a_spin_read_about_the_same_by_both_clocks(one_thread):
    wall = core.time_blocks(spinner, repeats=3, block_s=1e-9, warmup=1)
    with cpu_clock():
        cpu = core.time_blocks(spinner, repeats=3, block_s=1e-9, warmup=1)
    assert SPIN_S * 0.95 <= cpu.median_s <= SPIN_S * 1.5
    assert 0.3 * wall.median_s <= cpu.median_s <= 1.5 * wall.median_s


def test_compare_reads_the_clock_in_force(one_thread):
    calls = {"sleep": sleeper, "spin": spinner}
    wall = core.compare(calls, rounds=3, block_s=1e-9, warmup=0)
    with cpu_clock():
        cpu = core.compare(calls, rounds=3, block_s=1e-9, warmup=0)
    assert wall["sleep"].median_s >= SLEEP_S
    assert cpu["sleep"].median_s < SLEEP_S / 4
    assert 0.3 * wall["spin"].median_s <= cpu["spin"].median_s <= 1.5 * wall["spin"].median_s


def test_compares_min_time_is_of_the_clock_in_force(one_thread):
    """Sleeping, 0.06 s of wall time pass in about three rounds; 0.06 s of CPU time not in ten."""
    rounds = {"rounds": 1, "block_s": 1e-9, "warmup": 0, "min_time_s": 0.06, "max_rounds": 10}
    wall = core.compare({"sleep": sleeper}, **rounds)
    with cpu_clock():
        cpu = core.compare({"sleep": sleeper}, **rounds)
    assert len(wall["sleep"].samples) < 10
    assert len(cpu["sleep"].samples) == 10
