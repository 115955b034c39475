"""Where and when the processes of a measurement run: every thread of a process pinned to the measuring
core, and a worker's whole tree stopped while perfcore's side measures.

Linux's ``sched_setaffinity(pid)`` sets only the thread whose id is ``pid``: a student's call that starts a
thread before the judge pins its worker would keep that thread on any core, so every thread is pinned. A
thread left running between calls could still compete with perfcore's reference on the core the two share;
stopping the worker's tree (SIGSTOP, SIGCONT after) for the reference's measurement leaves it nothing to
compete with. Windows has neither: there the affinity of the process is what can be set, and nothing is
stopped.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterable

from . import proctree


def threads_of(pid: int) -> list[int]:
    """The thread ids of process ``pid`` (:func:`grader.sandbox.proctree.threads`).
    ``sched_setaffinity(pid)`` sets only the thread whose id is ``pid``: pinning a process is pinning each
    of these."""
    return proctree.threads(pid)


def pin_tree(pids: Iterable[int], cpus: set[int]) -> None:
    """Every thread of every process of ``pids`` on ``cpus``, where the OS allows it."""
    if not hasattr(os, "sched_setaffinity"):
        return
    for pid in pids:
        for tid in threads_of(pid):
            try:
                os.sched_setaffinity(tid, cpus)
            except OSError:  # gone, or not ours
                pass


#: Where processes can be stopped and continued (POSIX): the worker's tree is stopped while perfcore measures.
CAN_STOP = hasattr(signal, "SIGSTOP") and hasattr(signal, "SIGCONT")


def signal_tree(pids: Iterable[int], signum: int) -> None:
    """Send ``signum`` to each of ``pids`` (gone or not ours: passed over)."""
    for pid in pids:
        try:
            os.kill(pid, signum)
        except OSError:
            pass


def stopped_state(pid: int) -> bool | None:
    """Whether ``pid`` is stopped now (``/proc/PID/stat``'s T or t); None where that cannot be read (gone,
    or no ``/proc``)."""
    fields = proctree.stat_fields(pid)
    return fields[0] in ("T", "t") if fields else None


#: How long :func:`stop_tree` waits for the kernel to stop every process: a signal is delivered when its
#: process next enters the kernel, within a scheduler tick of a running one.
STOP_WAIT_S = 0.2
#: Sweeps of a stop that must find nothing new in a row before the tree counts as stopped.
QUIET_SWEEPS = 2


def stop_tree(tree: Callable[[], list[int]]) -> tuple[list[int], int]:
    """SIGSTOP every process ``tree()`` lists, sweep after sweep, until :data:`QUIET_SWEEPS` sweeps in a row
    find nothing new (a process forked while the tree was being stopped is listed by a later sweep), and
    wait (at most :data:`STOP_WAIT_S` in all) until the kernel says every one it can read is stopped. Returns
    the processes stopped and how many the first sweep missed (the tree's escapes, counted by the caller)."""
    stopped: list[int] = []
    missed, quiet, first = 0, 0, True
    deadline = time.monotonic() + STOP_WAIT_S
    while quiet < QUIET_SWEEPS and time.monotonic() < deadline:
        new = [pid for pid in tree() if pid not in stopped]
        if new:
            signal_tree(new, signal.SIGSTOP)
            stopped += new
            missed += 0 if first else len(new)
            quiet = 0
        else:
            quiet += 1
        first = False
        while any(stopped_state(pid) is False for pid in stopped) and time.monotonic() < deadline:
            time.sleep(0.001)
    return stopped, missed
