"""Reaping: nothing a student started outlives grading, and nothing the judge started is left unreaped.

The judge records the workers it starts (:func:`started`, inside :func:`starting`) and the reference
processes it trusts (:func:`trust`); on Linux, while it has a worker, it is a *child subreaper*
(:func:`become_subreaper`), so that a process the student detached with ``setsid`` is re-parented to the
judge instead of init, and :func:`reap` finds, kills and collects it. Killing a worker's whole tree is
:func:`grader.sandbox.confinement.kill_tree`, which names here (:func:`expect`) the processes it saw below
the worker, by identity (pid and start time, :func:`grader.sandbox.proctree.identity`: a pid the system
gives again is never taken for one of them), and waits until each is gone (:func:`collect`).

A process that ends after its parent is re-parented here and, ended, waits to be collected: bubblewrap's
own process inside the sandbox outlives the one the judge started when the worker ends by itself (its
``bye``, a crash), so every worker that ends leaves one such process. In a long-lived process
(``nbgrader autograde``: a judge per notebook, and a judge per check cell in the kernel before it) those
ran the system out of process ids; :func:`collect` waits for each and :func:`reap` collects it. When no
worker is left, the process stops being a subreaper: what the kernels nbgrader starts leave behind goes
to init, not to a process that would never collect it.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Iterable

from . import proctree
from .proctree import below, children, identity

_PR_SET_CHILD_SUBREAPER = 36
#: The signal that kills (Windows has no SIGKILL; its ``os.kill`` terminates with any signal number).
KILL = getattr(signal, "SIGKILL", signal.SIGTERM)

#: Marks a worker's environment, and so whatever it starts unless that clears its environment.
WORKER_MARK = "PERFKIT_WORKER"

_trusted: set[int] = set()  # reference processes
_started: set[int] = set()  # live workers (their launchers)
#: Processes seen below a worker when it was started or killed, by identity: collected once re-parented here.
_ours: set[tuple[int, int]] = set()
#: Whether this process is a child subreaper now (only while it has workers).
_subreaper = False
#: Held while a worker is started and while orphans are reaped, so that a worker another thread is starting
#: is never taken for an orphan. Re-entrant: :func:`started` runs inside :func:`starting`.
_lock = threading.RLock()


def _set_subreaper(on: bool) -> bool:
    """Ask Linux to make this process a child subreaper (``on``) or no longer one; whether it did."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    """Make this process a child subreaper (Linux) until :func:`reap` finds no worker left; False where
    the OS has no such thing. Call it inside :func:`starting`, so that no reap ends it meanwhile."""
    global _subreaper
    with _lock:
        if not _subreaper:
            _subreaper = _set_subreaper(True)
        return _subreaper


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


def expect(tree: Iterable[tuple[int, int]]) -> None:
    """Record the processes of ``tree`` (identities, seen below a worker) as orphans to collect once
    re-parented here."""
    with _lock:
        _ours.update(tree)


def collect(tree: Iterable[tuple[int, int]], timeout_s: float = 2.0) -> None:
    """Reap until no process of ``tree`` (identities of processes just killed) is left, for at most
    ``timeout_s``, then forget them: one that ends after its parent is re-parented here a moment later. One
    still there then is reaped in the background once it ends (:func:`_finish_later`)."""
    tree = set(tree)
    left = set(tree)
    deadline = time.monotonic() + timeout_s
    while True:
        reap()
        left = {i for i in left if identity(i[0]) == i}
        if not left or time.monotonic() >= deadline:
            break
        time.sleep(0.005)
    with _lock:  # one still there past the deadline (a process stuck in the kernel) is kept for a later reap
        _ours.difference_update(tree - left)
    if left:
        _finish_later(left)


#: How long a process still there after :func:`collect`'s deadline is waited for in the background.
LATER_S = 120.0


def _finish_later(left: set[tuple[int, int]]) -> None:
    """Reap in a daemon thread until every process of ``left`` is gone (``LATER_S`` at most): on a busy
    machine a killed tree can take longer to end than :func:`collect` waits, and the last worker of a
    long-lived process (``nbgrader autograde``'s last notebook) has no later reap to collect it."""

    def finish() -> None:
        deadline = time.monotonic() + LATER_S
        remaining = set(left)
        while remaining and time.monotonic() < deadline:
            time.sleep(0.05)
            reap()
            remaining = {i for i in remaining if identity(i[0]) == i}

    threading.Thread(target=finish, name="perfkit-reap-later", daemon=True).start()


def kill_all(pids: Iterable[int]) -> None:
    """Kill every process of ``pids`` that is still there."""
    for pid in pids:
        try:
            os.kill(pid, KILL)
        except OSError:  # gone already, or not ours to kill
            pass


#: How long :func:`until_ended` waits for killed processes to finish dying.
ENDED_WAIT_S = 10.0


def until_ended(tree: Iterable[tuple[int, int]], timeout_s: float = ENDED_WAIT_S) -> set[tuple[int, int]]:
    """Wait until no process of ``tree`` (identities of processes just killed) still runs, at most
    ``timeout_s``; return those still running then. A killed process is not gone at once: one that mapped
    much memory (a worker with torch) runs its exit for a while, and only an ended one (a zombie, or
    collected) can no longer touch a file or a core."""
    left = set(tree)
    deadline = time.monotonic() + timeout_s
    while True:
        left = {i for i in left if identity(i[0]) == i and (proctree.stat_fields(i[0]) or ["Z"])[0] != "Z"}
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.005)


def _marked(pid: int) -> bool:
    return f"{WORKER_MARK}=1".encode() in (proctree.environment(pid) or [])


def reap() -> int:
    """Kill and collect the orphans this process inherited as a subreaper; return how many.

    An orphan here is a direct child of this process that no judge started as a worker (nor trusted as a
    reference) and that came from a worker: it carries the worker's environment mark, or it was below a
    worker when that was killed. Any other child of this process (a notebook's, a test's) is left alone.
    A process that detached *and* cleared its environment before its worker was killed escapes this;
    inside bubblewrap nothing escapes (the PID namespace ends with the worker). Once no worker is left,
    this process stops being a subreaper. A no-op where it never was one and expects no orphan (no worker
    started yet, or not Linux).
    """
    global _subreaper
    with _lock:
        if not _subreaper and not _ours:
            return 0
        tree = children(zombies=True)
        known = {p: identity(p) for p in tree.get(os.getpid(), []) if p not in _started and p not in _trusted}
        orphans = {p: i for p, i in known.items() if i in _ours or _marked(p)}
        victims = [v for p in orphans for v in [p, *below(tree, p)]]
        kill_all(victims)
        for pid, ident in orphans.items():
            try:
                os.waitpid(pid, 0)
            except (ChildProcessError, OSError):
                pass
            if ident is not None:
                _ours.discard(ident)
        if _subreaper and not _started:
            _subreaper = not _set_subreaper(False)
    return len(victims)
