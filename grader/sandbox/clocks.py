"""The worker's noting clocks: Python's clocks replaced, before any preload and any student import, by ones
that note every reading a measuring call makes (:class:`Readings`), so that the judge can hold a figure to
the clock readings it came from (:mod:`grader.judge.runners.readings`).

Like :mod:`grader.sandbox.wire` this module is copied beside the worker and loaded by path; it imports only
the standard library. What it records lives in the student's process: evidence, not proof (see
docs/measurement.md, "A figure must come from timing the work").
"""

from __future__ import annotations

import base64
import heapq
import sys
import time
from array import array
from typing import Any


class Readings:
    """The readings of Python's clocks in a call whose request asks for ``readings``, as read, in an array per
    clock (of :data:`CLOCKS`; ``clock_gettime``: the id asked, then the reading), the first MAX_READINGS.
    Past them (a loop spinning on the clock, then blocks timed) a clock keeps what the judge's rule asks of
    its readings (:class:`Beyond`): its LONGEST stretches between consecutive readings and its extremes, so
    that the blocks timed after a spin are not lost. Evidence, not proof: the record is in the student's
    process."""

    MAX_READINGS = 100_000  # a loop spinning on the clock reads it millions of times
    LONGEST = 4096  # stretches kept past them: more than any curve has points
    cells: list[
        tuple[int, list[Any]]
    ] = []  # (clock, a cell: its array("d") while a call records, its Beyond)

    @classmethod
    def start(cls) -> None:
        """Record from now on (a measuring call begins)."""
        for _, cell in cls.cells:
            cell[0], cell[1] = array("d"), None

    @classmethod
    def stop(cls) -> dict[str, Any]:
        noted = {str(k): base64.b64encode(c[0].tobytes()).decode() for k, c in cls.cells if c[0]}
        beyond = {str(k): c[1].sent() for k, c in cls.cells if c[1] is not None}
        for _, cell in cls.cells:
            cell[0], cell[1] = None, None
        return {"clocks": noted, "order": sys.byteorder, **({"beyond": beyond} if beyond else {})}


class Beyond:
    """One clock's readings past :attr:`Readings.MAX_READINGS`, as the stretches they make: the
    :attr:`Readings.LONGEST` longest between consecutive readings (of all the call's readings of this clock),
    the extremes, and how many readings there were."""

    def __init__(self, notes: Any) -> None:
        stretches = [abs(b - a) for a, b in zip(notes, notes[1:], strict=False)]
        self.longest = heapq.nlargest(Readings.LONGEST, stretches)
        heapq.heapify(self.longest)
        self.last, self.low, self.high, self.count = notes[-1], min(notes), max(notes), len(notes)

    def add(self, value: float) -> None:
        stretch = abs(value - self.last)
        if len(self.longest) < Readings.LONGEST:
            heapq.heappush(self.longest, stretch)
        elif stretch > self.longest[0]:
            heapq.heapreplace(self.longest, stretch)
        self.last, self.count = value, self.count + 1
        if value < self.low:
            self.low = value
        elif value > self.high:
            self.high = value

    def sent(self) -> dict[str, Any]:
        longest = base64.b64encode(array("d", self.longest).tobytes()).decode()
        return {"longest": longest, "low": self.low, "high": self.high, "count": self.count}


def _noted(original: Any, kind: int) -> Any:  # ``original``, its readings noted (and no ``__wrapped__``)
    cap, cell = Readings.MAX_READINGS, [None, None]
    Readings.cells.append((kind, cell))

    def clock() -> Any:
        value = original()
        notes = cell[0]
        if notes is not None:  # a measuring call is running
            if len(notes) < cap:
                notes.append(value)
            elif cell[1] is None:
                cell[1] = Beyond(notes)
                cell[1].add(value)
            else:
                cell[1].add(value)
        return value

    def clock_gettime(ident: Any) -> Any:
        value = original(ident)
        notes = cell[0]
        if notes is not None and len(notes) < 2 * cap:
            notes.extend((ident, value))
        return value

    noted = clock if kind < 10 else clock_gettime
    noted.__name__, noted.__qualname__, noted.__doc__ = original.__name__, original.__name__, original.__doc__
    return noted


#: The clocks noted (:class:`Readings`); ``timeit.default_timer`` is the first.
CLOCKS = ("perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "time", "time_ns", "process_time",
    "process_time_ns", "thread_time", "thread_time_ns", "clock_gettime", "clock_gettime_ns")  # fmt: skip


def note_clocks() -> None:
    """Replace the clocks of :data:`CLOCKS` by noting ones (:class:`Readings`)."""
    for kind, name in enumerate(CLOCKS):
        if hasattr(time, name):
            setattr(time, name, _noted(getattr(time, name), kind))
    if "timeit" in sys.modules:  # not imported at start; where it is, it holds the clock it took
        vars(sys.modules["timeit"])["default_timer"] = time.perf_counter
