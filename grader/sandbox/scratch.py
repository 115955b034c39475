"""Scratch folders that name their owner, and the removal of those whose owner is gone.

A run that is killed outright (SIGKILL, the OOM killer, a power cut) runs no cleanup, so its scratch folders
(a private copy of a student's files among them) stay in the temporary folder. A folder made by
:func:`make_owned` is named ``<prefix><pid>-<start>-<random>``: the process that made it and when that
process started (``/proc/<pid>/stat``'s start time in clock ticks since boot; ``0`` where it cannot be read).
:func:`remove_orphans` removes the folders of a prefix whose owner no longer runs: no process of that pid,
or one that started at another time (the pid reused). A live owner's folders are never removed, so two runs
at once leave each other's alone; folders of another user, or named otherwise (an older kit's, without an
owner), are left too.

Imports nothing of the grader but :mod:`.proctree`, the one reader of ``/proc/<pid>/stat``: the sandbox's worker
folders and the batch grader's copies both use it.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from . import proctree

#: The folders a worker's start makes in the temporary folder (its runtime, and its home where bwrap does not
#: give it one): removed by :func:`remove_orphans` once they are made by :func:`make_owned`.
WORKER_PREFIXES = ("perfkit-worker-", "perfkit-home-")
#: This user's id (None on Windows, where a folder's owner is not compared).
_UID = os.getuid() if hasattr(os, "getuid") else None


def start_time(pid: int) -> str:
    """When process ``pid`` started (clock ticks since boot, as text, from :func:`.proctree.identity`); "0"
    where that cannot be read."""
    found = proctree.identity(pid)
    return str(found[1]) if found is not None and found[1] >= 0 else "0"


def owner_tag(pid: int | None = None) -> str:
    """``<pid>-<start>-``: what a folder's name carries after its prefix to name its owner."""
    pid = os.getpid() if pid is None else pid
    return f"{pid}-{start_time(pid)}-"


def make_owned(prefix: str, folder: str | os.PathLike[str] | None = None) -> Path:
    """A new folder ``<prefix><pid>-<start>-<random>`` in ``folder`` (the temporary folder by default),
    owned by this process (see the module docstring), mode 0700 as ``mkdtemp`` makes it."""
    return Path(tempfile.mkdtemp(prefix=prefix + owner_tag(), dir=folder))


def owner_alive(pid: int, start: str) -> bool:
    """Whether the process that named a folder ``pid``, ``start`` still runs."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process of that pid: alive, though perhaps not the owner
        pass
    now = start_time(pid)
    return start == "0" or now == "0" or now == start


def remove_orphans(
    prefix: str, folder: str | os.PathLike[str] | None = None, remove: Callable[[Path], None] | None = None
) -> list[Path]:
    """Remove the folders ``<prefix><pid>-<start>-*`` in ``folder`` (the temporary folder by default) whose
    owner is gone and that belong to this user; return those removed. ``remove`` removes one (by default
    the whole tree; a cgroup's folder is removed by ``rmdir`` alone, and only once empty). Never raises: a
    folder that cannot be read or removed is left."""
    if not prefix:
        raise ValueError("remove_orphans: prefix must name the folders, got ''")
    top = Path(folder if folder is not None else tempfile.gettempdir())
    pattern = re.compile(re.escape(prefix) + r"(\d+)-(\d+)-")
    removed: list[Path] = []
    try:
        entries = list(os.scandir(top))
    except OSError:
        return removed
    for entry in entries:
        found = pattern.match(entry.name)
        if found is None:
            continue
        try:
            if not entry.is_dir(follow_symlinks=False):
                continue
            if _UID is not None and entry.stat(follow_symlinks=False).st_uid != _UID:
                continue
        except OSError:
            continue
        if owner_alive(int(found[1]), found[2]):
            continue
        path = Path(entry.path)
        try:
            (remove or _remove_tree)(path)
        except OSError:
            continue
        if not path.exists():
            removed.append(path)
    return removed


def _remove_tree(path: Path) -> None:
    for inner, dirs, _ in os.walk(path):  # a student may leave folders it cannot be removed from
        for name in dirs:
            child = os.path.join(inner, name)
            if os.path.islink(child):  # chmod follows a link: a planted one would open its target
                continue
            try:
                os.chmod(child, 0o700)
            except OSError:
                pass
    shutil.rmtree(path, ignore_errors=True)
