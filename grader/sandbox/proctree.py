"""The process tree, read from Linux's ``/proc``: who is below whom, each process's ``stat`` and ``status``
lines, threads and environment, the memory a tree holds. Standard library only, and imports nothing: the worker (:mod:`.worker`, which loads a copy
of this file beside it), the judge's CPU readings (:mod:`.cputime`), stops (:mod:`.scheduling`) and kills
(:mod:`.confinement`) read the tree through here. Elsewhere (no
``/proc``) a tree is its root alone.
"""

from __future__ import annotations

import os


def stat_fields(pid: int | str) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name, the state first; None where it cannot be
    read. The command name (field 2) may hold spaces and parentheses: the line is split after its last ")"."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rsplit(")", 1)[-1].split()
    except OSError:
        return None


def status(pid: int) -> dict[bytes, bytes] | None:
    """The fields of ``/proc/PID/status`` (``{b"State": b"S (sleeping)", ...}``, values stripped); None where
    the process is gone, or ``{}`` where there is no ``/proc`` to read (what the kernel says of its end is
    then all there is)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            lines = fh.read().splitlines()
    except FileNotFoundError:
        return None
    except OSError:
        return {}
    pairs = (line.split(b":", 1) for line in lines if b":" in line)
    return {key: value.strip() for key, value in pairs}


def threads(pid: int) -> list[int]:
    """The thread ids of process ``pid`` (``/proc/PID/task``); ``[pid]`` where they cannot be read."""
    try:
        return [int(t) for t in os.listdir(f"/proc/{pid}/task") if t.isdigit()] or [pid]
    except OSError:
        return [pid]


def environment(pid: int) -> list[bytes] | None:
    """The ``NAME=value`` entries of process ``pid``'s environment (``/proc/PID/environ``); None where it
    cannot be read."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return fh.read().split(b"\0")
    except OSError:
        return None


def identity(pid: int) -> tuple[int, int] | None:
    """``(pid, start time)`` of a live or ended, not yet collected process: it names that process and no
    other the system gives the same pid later; None where there is no such process (or no ``/proc``)."""
    fields = stat_fields(pid)
    try:
        return (pid, int(fields[19])) if fields is not None else None  # field 22 of the line: its start
    except (IndexError, ValueError):
        return None


def identities(pids: list[int]) -> set[tuple[int, int]]:
    """The :func:`identity` of each process of ``pids`` still there."""
    return {i for i in map(identity, pids) if i is not None}


def children(zombies: bool = False) -> dict[int, list[int]]:
    """``{parent pid: [child pids]}`` of the live processes (and the zombies, when asked)."""
    tree: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return tree
    for name in names:
        if not name.isdigit():
            continue
        fields = stat_fields(name)
        if fields is not None and len(fields) > 2 and (zombies or fields[0] != "Z"):
            tree.setdefault(int(fields[1]), []).append(int(name))
    return tree


def below(tree: dict[int, list[int]], pid: int) -> list[int]:
    """Every pid below ``pid`` in ``tree`` (as :func:`children` gives it)."""
    found, todo = [], list(tree.get(pid, []))
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(tree.get(p, []))
    return found


def thread_children(pid: int) -> list[int] | None:
    """The children of ``pid``, live or ended and not yet collected, from each of its threads'
    ``/proc/PID/task/TID/children`` file: a few reads, not a scan of every process. ``[]`` where ``pid`` is
    gone (or there is no ``/proc``); None where the kernel has no such files (or a thread ended between
    the listing and the read: the caller scans instead). A file that cannot be read otherwise is passed over."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found: list[int] = []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as fh:
                found += [int(k) for k in fh.read().split()]
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            continue
    return found


def children_files(pid: int) -> list[int] | None:
    """The processes below ``pid`` from the children files (:func:`thread_children`); None where the
    kernel has no such files."""
    found, todo = [], [pid]
    while todo:
        kids = thread_children(todo.pop())
        if kids is None:
            return None
        found.extend(kids)
        todo.extend(kids)
    return found


def child_pids(pid: int) -> list[int]:
    """The children of ``pid``, live or ended and not yet collected: its threads' children files, else a
    scan of every process."""
    kids = thread_children(pid)
    return kids if kids is not None else children(zombies=True).get(pid, [])


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (Linux ``/proc``; none elsewhere): from the children files (the
    judge's memory watch asks ten times a second), else by a scan of every process."""
    found = children_files(pid)
    return found if found is not None else below(children(), pid)


def tree_memory_bytes(pid: int) -> int | None:
    """The anonymous memory resident in ``pid`` and every process below it, private and shared (Linux's
    ``RssAnon`` + ``RssShmem``); None where there is no ``/proc``. ``RLIMIT_DATA`` counts no shared
    mapping, so a worker capped by it could fill the host with ``mmap.mmap(-1, n)``: the judge reads this
    while it waits on such a worker and kills it past its limit."""
    total, seen = 0, False
    for one in [pid, *descendants(pid)]:
        fields = status(one) or {}
        for key in (b"RssAnon", b"RssShmem"):
            try:
                total += int(fields[key].split()[0]) * 1024  # "123456 kB"
            except (KeyError, ValueError, IndexError):
                continue
            seen = True
    return total if seen else None
