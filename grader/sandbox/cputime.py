"""The CPU time a process tree uses between two readings, read by the judge from outside it.

A measuring call must work for the time it says its operation takes: a call that sleeps out that time and
returns a made-up figure spends wall time, not CPU time. The student's code runs in the worker and can
patch any clock in it, so the judge reads the worker's tree from the kernel instead, per process:

- the process's CPU clock (``clock_gettime`` on the clock id Linux derives from a pid): nanoseconds on a
  CPU, summed over all its threads, those that have ended included (a per-thread reading loses an ended
  thread's time, and a call could end one on purpose to make the reading say nothing);
- ``/proc/PID/stat``: user and system clock ticks, where that clock cannot be read (the reading's
  resolution is then one tick, and the caller does not ask it for less), and the ticks of the children
  the process has waited for (``cutime``, ``cstime``), where a child that ended between the readings
  left its time.

A process of the first reading that is gone by the second left its time only in the counters of whichever
process waited for it: when no process of the tree did, that time is not in the reading, which then says
so (``complete`` False) and gives what it could see: never more than the tree used, so a call cannot gain
by hiding work. Reaped children's time is read in whole ticks (rounded down), which errs only against a
call that does its work in short-lived children.

The judge reads the tree this way for two things: the CPU-time rule of a measuring call (two readings
around it, :func:`used`), and the worker's CPU-time limit (from the load of the file graded, or from
:func:`since_start` before one, read while the judge waits on the worker, which is killed past
``Limits.cpu_s``; see :mod:`grader.sandbox.process`).

Elsewhere (macOS, Windows: no ``/proc``) there is no reading (:data:`READS_TREES` is False), and the check
that needs one is not made.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from . import proctree

#: The resolution of a process clock's nanoseconds, read here as a microsecond of margin.
CLOCK_RESOLUTION_S = 1e-6
#: Whether this OS lets the judge read a process tree's CPU time (Linux's ``/proc``): where it does not,
#: the worker's CPU-time limit is an rlimit instead (:data:`grader.sandbox.confinement.LAUNCHER`).
READS_TREES = sys.platform.startswith("linux")
#: Linux's clock id for a process's CPU time (``MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)``).
_CPUCLOCK_SCHED = 2


@dataclass(frozen=True)
class Process:
    """One process at one reading: its own CPU time (clock nanoseconds, else stat ticks) and the ticks of
    the children it has waited for."""

    own_ns: int | None
    own_ticks: int
    reaped_ticks: int


@dataclass(frozen=True)
class TreeCpu:
    """A process tree's CPU time at one moment, per process keyed by (pid, start time): a pid the kernel gives
    again to a new process is a different key. ``group_ns``: the CPU time of the tree's cgroup (every process that ran in
    it, ended ones included: :mod:`grader.sandbox.cgroup`), where it has one."""

    processes: Mapping[tuple[int, int], Process]
    group_ns: int | None = None


@dataclass(frozen=True)
class Used:
    """CPU seconds a tree used between two readings: all of it where ``complete``, else what could be
    seen (a process ended without any process of the tree waiting for it); ``resolution`` in seconds."""

    seconds: float
    resolution: float
    complete: bool


def _tick_s() -> float:
    return 1.0 / os.sysconf("SC_CLK_TCK")


def _clock_ns(pid: int) -> int | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return time.clock_gettime_ns(((~pid) << 3) | _CPUCLOCK_SCHED)
    except (OSError, OverflowError):  # gone, or a kernel that gives no such clock
        return None


def _stat(pid: int) -> tuple[int, int, int] | None:
    """Start time, own ticks (utime + stime) and reaped children's ticks (cutime + cstime) of ``pid``."""
    fields = proctree.stat_fields(pid)
    if fields is None:
        return None
    try:  # fields 14-17 (utime, stime, cutime, cstime) and 22 (starttime) of the line, counted from 1
        return int(fields[19]), int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14])
    except (ValueError, IndexError):  # not a stat line
        return None


def read(pids: Iterable[int], group_ns: int | None = None) -> TreeCpu | None:
    """A reading of ``pids`` and every live process below them (with their cgroup's ``group_ns``, where
    known); None where the kernel gives none."""
    tree: list[int] = []
    for pid in pids:
        tree += [one for one in (pid, *proctree.descendants(pid)) if one not in tree]
    processes: dict[tuple[int, int], Process] = {}
    for pid in tree:
        stat = _stat(pid)
        if stat is not None:
            start, own, reaped = stat
            processes[(pid, start)] = Process(_clock_ns(pid), own, reaped)
    return TreeCpu(processes, group_ns) if processes else None


def used(before: TreeCpu | None, after: TreeCpu | None) -> Used | None:
    """The CPU time the tree used from ``before`` to ``after``; None where either reading is missing.
    Processes started in between count whole: all their time lies between the readings."""
    if before is None or after is None:
        return None
    if before.group_ns is not None and after.group_ns is not None:  # the cgroup's: nothing escapes it
        return Used(max(0, after.group_ns - before.group_ns) / 1e9, CLOCK_RESOLUTION_S, True)
    tick = _tick_s()
    own_s, reaped_ticks, coarse = 0.0, 0, False
    for key, now in after.processes.items():
        was = before.processes.get(key, Process(0, 0, 0))
        if now.own_ns is not None and was.own_ns is not None:
            own_s += (now.own_ns - was.own_ns) / 1e9
        else:
            own_s += (now.own_ticks - was.own_ticks) * tick
            coarse = True
        reaped_ticks += now.reaped_ticks - was.reaped_ticks
    # a process gone by ``after`` left its whole life's time in the counters of the process that waited
    # for it: what it had used by ``before`` is already counted there, and comes off
    gone = [was for key, was in before.processes.items() if key not in after.processes]
    gone_ticks = sum(was.own_ticks + was.reaped_ticks for was in gone)
    complete = reaped_ticks + len(gone) >= gone_ticks  # each side rounded down: a tick each of margin
    seconds = max(0.0, own_s) + max(0, reaped_ticks - gone_ticks) * tick
    return Used(seconds, tick if coarse else CLOCK_RESOLUTION_S, complete)


def since_start(grouped: bool) -> TreeCpu:
    """The reading a tree had before any of it ran, for :func:`used` to give its whole life's CPU time:
    no process yet (every process read later counts whole, with the children it waited for), and, for a
    tree in a cgroup made for it (``grouped``), a group that has used nothing."""
    return TreeCpu({}, 0 if grouped else None)
