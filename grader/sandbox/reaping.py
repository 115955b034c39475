"""Reaping: nothing a student started outlives grading, and nothing the judge started is left unreaped.

The judge records the workers it starts (:func:`started`, inside :func:`starting`) and the reference
processes it trusts (:func:`trust`); on Linux it becomes a *child subreaper* (:func:`become_subreaper`), so
that a process the student detached with ``setsid`` is re-parented to the judge instead of init, and
:func:`reap` finds, kills and collects it. Killing a worker's whole tree is
:func:`grader.sandbox.confinement.kill_tree`, which names here (:func:`expect`) the processes it saw below
the worker, to be collected once re-parented here.
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal
import sys
import threading
from collections.abc import Iterable

from .proctree import below, children

_PR_SET_CHILD_SUBREAPER = 36
#: The signal that kills (Windows has no SIGKILL; its ``os.kill`` terminates with any signal number).
KILL = getattr(signal, "SIGKILL", signal.SIGTERM)

#: Marks a worker's environment, and so whatever it starts unless that clears its environment.
WORKER_MARK = "PERFKIT_WORKER"

_trusted: set[int] = set()  # reference processes
_started: set[int] = set()  # live workers (their launchers)
_ours: set[int] = set()  # processes seen below a worker when it was killed: collected once re-parented here
#: Held while a worker is started and while orphans are reaped, so that a worker another thread is starting
#: is never taken for an orphan. Re-entrant: :func:`started` runs inside :func:`starting`.
_lock = threading.RLock()


@functools.cache
def become_subreaper() -> bool:
    """Make this process a child subreaper (Linux); False where the OS has no such thing."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def trust(pid: int) -> None:
    """Mark ``pid`` (a reference process the judge started) and what it starts as never to be reaped."""
    with _lock:
        _trusted.add(pid)


def starting() -> threading.RLock:
    """Hold this around starting a worker and recording it with :func:`started`."""
    return _lock


def started(pid: int) -> None:
    """Record a worker the judge started itself, so that :func:`reap` tells it from an orphan."""
    with _lock:
        _started.add(pid)


def ended(pid: int) -> None:
    """Forget a worker :func:`started` recorded: it has been killed and collected."""
    with _lock:
        _started.discard(pid)


def expect(pids: Iterable[int]) -> None:
    """Record ``pids`` (seen below a worker as it is killed) as orphans to collect once re-parented here."""
    with _lock:
        _ours.update(pids)


def kill_all(pids: Iterable[int]) -> None:
    """Kill every process of ``pids`` that is still there."""
    for pid in pids:
        try:
            os.kill(pid, KILL)
        except OSError:  # gone already, or not ours to kill
            pass


def _marked(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return f"{WORKER_MARK}=1".encode() in fh.read().split(b"\0")
    except OSError:
        return False


def reap() -> int:
    """Kill and collect the orphans this process inherited as a subreaper; return how many.

    An orphan here is a direct child of this process that no judge started as a worker (nor trusted as a
    reference) and that came from a worker: it carries the worker's environment mark, or it was below a
    worker when that was killed. Any other child of this process (a notebook's, a test's) is left alone.
    A process that detached *and* cleared its environment before its worker was killed escapes this;
    inside bubblewrap nothing escapes (the PID namespace ends with the worker). A no-op where this
    process is not a subreaper (no worker started yet, or not Linux).
    """
    if not become_subreaper.cache_info().currsize or not become_subreaper():
        return 0
    with _lock:
        tree = children(zombies=True)
        orphans = [
            p
            for p in tree.get(os.getpid(), [])
            if p not in _started and p not in _trusted and (p in _ours or _marked(p))
        ]
        victims = [v for p in orphans for v in [p, *below(tree, p)]]
        kill_all(victims)
        for pid in orphans:
            try:
                os.waitpid(pid, 0)
            except (ChildProcessError, OSError):
                pass
            _ours.discard(pid)
    return len(victims)
