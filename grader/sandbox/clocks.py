"""The worker's noting clocks: Python's clocks replaced, before any preload and any student import, by ones
that note every reading a measuring call makes (:class:`Readings`), so that the judge can hold a figure to
the clock readings it came from (:mod:`grader.judge.runners.readings`).

Like :mod:`grader.sandbox.wire` this module is copied beside the worker and loaded by path; it imports only
the standard library. What it records lives in the student's process: evidence, not proof (see
docs/measurement.md, "A figure must come from timing the work").
"""

from __future__ import annotations

import base64
import sys
import time
from array import array
from typing import Any


class Readings:
    """The readings of Python's clocks in a call whose request asks for ``readings``, as read, in an array per
    clock (of :data:`CLOCKS`; ``clock_gettime``: the id asked, then the reading), the first MAX_READINGS, then
    the latest in the last slot. Evidence, not proof: the record is in the student's process."""

    MAX_READINGS = 100_000  # a loop spinning on the clock reads it millions of times
    cells: list[tuple[int, list[Any]]] = []  # (clock, a cell holding its array("d") while a call records)

    @classmethod
    def start(cls) -> None:
        """Record from now on (a measuring call begins)."""
        for _, cell in cls.cells:
            cell[0] = array("d")

    @classmethod
    def stop(cls) -> dict[str, Any]:
        noted = {str(k): base64.b64encode(c[0].tobytes()).decode() for k, c in cls.cells if c[0]}
        for _, cell in cls.cells:
            cell[0] = None
        return {"clocks": noted, "order": sys.byteorder}


def _noted(original: Any, kind: int) -> Any:  # ``original``, its readings noted (and no ``__wrapped__``)
    cap, cell = Readings.MAX_READINGS, [None]
    Readings.cells.append((kind, cell))

    def clock() -> Any:
        value = original()
        notes = cell[0]
        if notes is not None:  # a measuring call is running
            if len(notes) < cap:
                notes.append(value)
            else:
                notes[-1] = value
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
