"""How perfcore times things: torch.utils.benchmark.Timer, one thread, median and IQR, interleaving.

Everything that measures goes through here, so that the method of measuring (one thread, warm-up,
blocked runs, median as the figure, IQR/median as its noise, A B A B interleaving for comparisons) is
written once.

The clock. perfcore's CPU measurements read one clock, the clock in force (:func:`clock_in_force`): the
wall clock, ``time.perf_counter``, unless :func:`cpu_clock` says otherwise. Every CPU reading perfcore
makes goes through it: the Timer's blocks (core.py passes it as ``timer=``), the calibrating call, and
``compare``'s ``min_time_s`` loop. A measurement takes the clock in force when it starts and reads that one
to its end. The GPU paths (CUDA events, the MPS host timer) and the profile's record of the machine's load
(/proc/stat) keep their own clocks.

Within ``with cpu_clock():`` the clock is ``time.thread_time``, the calling thread's CPU time. Why: where
the measured core is time-shared with other processes, the scheduler's slices stretch the wall time of the
work but not the CPU time it received (a 64 MiB ``np.copyto`` pinned beside two busy loops on its core read
12 GB/s by the wall clock and 47 GB/s by the thread's CPU time, 49-50 GB/s by both when quiet), so a grader
can compare a student's figure and perfcore's in CPU time when the machine is busy. What it cannot undo:
contention for memory bandwidth and shared caches from work on other cores (that slows the CPU time too),
and multi-threaded work: only the calling thread's CPU time is read, so threads the work hands off to
(torch's intra-op pool, a BLAS) go uncounted; use it only within :func:`single_thread`. Time the work spends
off the CPU (sleeping, waiting for I/O or a device) is not counted either. Outside the context, and by
default, wall time stays perfcore's figure.

The clock in force is a ``contextvars.ContextVar``: ``cpu_clock`` nests, restores the previous clock on
exit (also when the body raises), and changes it for the entering thread only (a thread started within
it reads the wall clock, unless the interpreter has new threads inherit the context: ``sys.flags``'
``thread_inherit_context``).
"""

from __future__ import annotations

import contextlib
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from ..validation import positive_int

#: perfcore's figure by default: seconds of wall time.
WALL_CLOCK: Callable[[], float] = time.perf_counter
_CLOCK: ContextVar[Callable[[], float]] = ContextVar("perfcore_clock", default=WALL_CLOCK)


def require_torch() -> Any:
    """Import torch, or raise an ImportError that says how to install it."""
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - exercised in the no-torch tox environment
        raise ImportError(
            "perfcore.measure needs torch: pip install 'torch==2.13.0' (CPU build) or perfkit[torch]"
        ) from exc
    return torch


@contextlib.contextmanager
def single_thread() -> Iterator[None]:
    """One thread for torch and for the BLAS under numpy (threadpoolctl); both restored afterwards."""
    torch = require_torch()
    before = torch.get_num_threads()
    limiter: Any = contextlib.nullcontext()
    try:
        from threadpoolctl import threadpool_limits

        limiter = threadpool_limits(limits=1)
    except ImportError:  # threadpoolctl is in the torch extra; without it numpy's BLAS keeps its threads
        pass
    torch.set_num_threads(1)
    try:
        with limiter:
            yield
    finally:
        torch.set_num_threads(before)


def clock_in_force() -> Callable[[], float]:
    """The clock perfcore's CPU measurements read now: ``time.perf_counter`` unless within :func:`cpu_clock`."""
    return _CLOCK.get()


@contextlib.contextmanager
def cpu_clock() -> Iterator[Callable[[], float]]:
    """Within it, perfcore's CPU measurements read ``time.thread_time`` (the calling thread's CPU time).

    Yields that clock. Nests; the previous clock is restored on exit, also on an exception. Raises
    ValueError, naming the platform, on entry where ``time.thread_time`` does not exist. See the module's
    docstring for what it corrects (time-sharing of the core) and what it cannot (other cores' memory and
    cache traffic, other threads' work: use it within :func:`single_thread`).
    """
    thread_time = getattr(time, "thread_time", None)
    if thread_time is None:
        raise ValueError(
            f"cpu_clock: time.thread_time does not exist on this platform ({sys.platform}); "
            "perfcore can only measure wall time here"
        )
    token = _CLOCK.set(thread_time)
    try:
        yield thread_time
    finally:
        _CLOCK.reset(token)


@dataclass(frozen=True)
class Timing:
    """Seconds per call: the median of ``samples`` (one per block of ``number`` calls) and its spread."""

    median_s: float
    iqr_s: float
    best_s: float
    samples: tuple[float, ...]
    number: int

    @classmethod
    def from_samples(cls, samples: Sequence[float], number: int) -> Timing:
        """Median, IQR and best of per-call ``samples``, each from a block of ``number`` calls."""
        low, high = _quartiles(list(samples))
        return cls(statistics.median(samples), high - low, min(samples), tuple(samples), number)

    @property
    def noise(self) -> float:
        """IQR / median: the relative spread of the figure."""
        return self.iqr_s / self.median_s if self.median_s > 0 else float("inf")


def _quartiles(values: list[float]) -> tuple[float, float]:
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def interleave(calls: Mapping[str, Callable[[], float]], rounds: int = 5) -> dict[str, list[float]]:
    """Call each of ``calls`` once per round, in turn (A B A B ...), and collect what each returns.

    Each callable measures one figure (a time or a rate) and returns it; interleaving exposes them to the
    same drift of the machine, so the ratio of their medians is steadier than that of sequential runs.
    """
    rounds = positive_int("rounds", rounds)
    if not calls:
        raise ValueError("calls must name at least one callable")
    results: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            results[name].append(float(call()))
    return results


def median_ratio(numerator: list[float], denominator: list[float]) -> float:
    """median(numerator) / median(denominator)."""
    return statistics.median(numerator) / statistics.median(denominator)
