"""The CPU time a process tree uses between two readings, read by the judge from outside it.

A measuring call must work for the time it says its operation takes: a call that sleeps out that time and
returns a made-up figure spends wall time, not CPU time. The student's code runs in the worker and can
patch any clock in it, so the judge reads the worker's tree from the kernel instead:

- ``/proc/PID/task/TID/schedstat``: nanoseconds on a CPU, per thread. Exact, but a thread's time is gone
  once it ends, so where a thread of the first reading has ended by the second, the reading says nothing
  (None) rather than too little.
- ``/proc/PID/stat``: user and system clock ticks per process, where schedstat cannot be read; the
  reading's resolution is then one tick, and the caller does not ask it for less.

Elsewhere (macOS, Windows: no ``/proc``) there is no reading, and the check that needs one is not made.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from . import confinement

#: The resolution of schedstat's counters: nanoseconds, read here as microseconds of margin.
SCHEDSTAT_RESOLUTION_S = 1e-6


@dataclass(frozen=True)
class Reading:
    """One reading of a process tree: per thread (schedstat, nanoseconds) or, where schedstat cannot be
    read, per process (stat, clock ticks)."""

    threads: Mapping[tuple[int, int], int]
    ticks: Mapping[int, int]

    @property
    def per_thread(self) -> bool:
        return bool(self.threads)


def _thread_ns(pid: int) -> dict[tuple[int, int], int]:
    out: dict[tuple[int, int], int] = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat", encoding="ascii") as fh:
                out[(pid, int(tid))] = int(fh.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # a thread that ended between the listing and the read: as if it had not been there
    return out


def _process_ticks(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            # the command name (field 2) may hold spaces and parentheses: split after its last ")"
            fields = fh.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime and stime: fields 14 and 15 of the line
    except (OSError, ValueError, IndexError):
        return None


def read(pids: Iterable[int]) -> Reading | None:
    """A reading of ``pids`` and every live process below them; None where the kernel gives none."""
    tree: list[int] = []
    for pid in pids:
        tree += [one for one in (pid, *confinement.descendants(pid)) if one not in tree]
    threads: dict[tuple[int, int], int] = {}
    ticks: dict[int, int] = {}
    for pid in tree:
        threads.update(_thread_ns(pid))
        got = _process_ticks(pid)
        if got is not None:
            ticks[pid] = got
    if not threads and not ticks:
        return None
    return Reading(threads, ticks)


def used(before: Reading | None, after: Reading | None) -> tuple[float, float] | None:
    """CPU seconds the tree used from ``before`` to ``after``, and the resolution of that figure; None
    where either reading is missing or a thread (or process) of ``before`` has ended by ``after``.
    Threads and processes started in between count whole: all their time lies between the readings."""
    if before is None or after is None:
        return None
    if before.per_thread and after.per_thread:
        if not before.threads.keys() <= after.threads.keys():
            return None
        ns = sum(after.threads[key] - before.threads.get(key, 0) for key in after.threads)
        return max(0, ns) / 1e9, SCHEDSTAT_RESOLUTION_S
    if not before.ticks.keys() <= after.ticks.keys():
        return None
    ticks = sum(after.ticks[pid] - before.ticks.get(pid, 0) for pid in after.ticks)
    tick = 1.0 / os.sysconf("SC_CLK_TCK")
    return max(0, ticks) * tick, tick
