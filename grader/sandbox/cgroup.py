"""A cgroup (v2) of one worker's whole tree, where the machine lets the grader make one: a stop nothing
escapes, a CPU reading nothing hides from, a kill that reaches every process.

A list of processes can be outrun: a chain that forks its successor and exits every millisecond has a live
member born after any listing, which a stop in the listed order misses (issue 29: 20 of 20 escapes). A
cgroup holds every process started in it, whatever it forks or detaches, so:

- ``cgroup.freeze`` stops them all at once, and ``cgroup.events`` says when they are;
- ``cpu.stat``'s ``usage_usec`` counts the CPU time of every process that ran in it, those that have
  ended and were never waited for included;
- ``cgroup.kill`` (Linux 5.14) kills them all; elsewhere each pid of ``cgroup.procs`` is killed until none
  is left.

The worker's launcher writes its own pid into the group's ``cgroup.procs`` before it execs the rest
(:data:`grader.sandbox.confinement.LAUNCHER`), so the first process of the tree, and all that follow, are
in it. A group is made beside the grader's own cgroup, in the cgroup2 hierarchy of ``/proc/self/mounts``;
where there is none, or it may not be written (most unprivileged desktops without a delegated subtree), no
group is made and the caller stops the tree by repeated sweeps (:func:`grader.sandbox.scheduling.stop_tree`).
"""

from __future__ import annotations

import os
import secrets
import signal
import time
from pathlib import Path

from . import scratch

#: How long :meth:`Group.freeze` waits for the kernel to say every process of the group is frozen.
FREEZE_WAIT_S = 0.5
#: How long :meth:`Group.remove` waits for a killed group to empty.
REMOVE_WAIT_S = 2.0


def hierarchy(mounts: str = "/proc/self/mounts") -> Path | None:
    """Where the cgroup2 hierarchy is mounted (``/sys/fs/cgroup`` on a unified system, often
    ``/sys/fs/cgroup/unified`` on a hybrid one); None where there is none (not Linux, or cgroup v1 only)."""
    try:
        with open(mounts, encoding="utf-8") as fh:
            for line in fh:
                fields = line.split()
                if len(fields) >= 3 and fields[2] == "cgroup2":
                    return Path(fields[1])
    except OSError:
        return None
    return None


def own_path(cgroup: str = "/proc/self/cgroup") -> str | None:
    """This process's cgroup in the v2 hierarchy (the ``0::`` line), e.g. ``/user.slice/...``."""
    try:
        with open(cgroup, encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("0::"):
                    return line[3:].strip() or "/"
    except OSError:
        return None
    return None


#: The start of a group's folder name; its judge's :func:`.scratch.owner_tag` follows, then a random tag.
PREFIX = "perfkit-"
#: The parents whose stale groups this judge has removed: once per judge process is enough.
_swept: set[Path] = set()


def stale_removed(parent: Path) -> int:
    """Remove the empty groups in ``parent`` whose judge has ended (the owner named in the folder's name, by
    pid and start time, runs no more: :func:`.scratch.remove_orphans`): a judge killed before it could
    remove its group (SIGKILL, a machine's OOM killer) leaves the folder behind, and a shared server's
    hierarchy would gather one a killed grading. A group that still holds a process cannot be removed and
    stays (a cgroup's folder goes by ``rmdir`` alone). How many were removed."""
    return len(scratch.remove_orphans(PREFIX, parent, remove=Path.rmdir))


class Group:
    """One worker tree's cgroup, made by :meth:`make`; ``path`` is its folder."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def make(cls) -> Group | None:
        """A new, empty group beside this process's own cgroup (or, where that cannot hold one, at the
        hierarchy's root); None where no group can be made and written here."""
        root = hierarchy()
        own = own_path()
        if root is None or own is None:
            return None
        name = f"{PREFIX}{scratch.owner_tag()}{secrets.token_hex(4)}"
        parents = [root / own.lstrip("/")]
        parents += [p.parent for p in parents if p != root] + [root]
        for parent in dict.fromkeys(parents):
            if parent not in _swept:
                _swept.add(parent)
                stale_removed(parent)
            path = parent / name
            try:
                path.mkdir()
            except OSError:
                continue
            group = cls(path)
            if os.access(path / "cgroup.procs", os.W_OK) and (path / "cgroup.freeze").exists():
                return group
            group.remove()
        return None

    @property
    def procs(self) -> str:
        """The file a process writes its pid into to join the group."""
        return str(self.path / "cgroup.procs")

    def pids(self) -> list[int]:
        try:
            return [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def _write(self, name: str, value: str) -> bool:
        try:
            (self.path / name).write_text(value)
            return True
        except OSError:
            return False

    def frozen(self) -> bool | None:
        """Whether the kernel says the whole group is frozen; None where it cannot be read."""
        try:
            events = dict(line.split() for line in (self.path / "cgroup.events").read_text().splitlines())
        except (OSError, ValueError):
            return None
        return events.get("frozen") == "1"

    def freeze(self, wait_s: float = FREEZE_WAIT_S) -> bool:
        """Freeze every process of the group, and wait (at most ``wait_s``) until the kernel says they are;
        whether it did. Where it did not, the group is thawed again before this returns False: the caller
        then stops the tree by signals and continues it by signals, which never undo a freeze, so a freeze
        left asked for would keep the worker frozen through the student's next call, which would run past
        its limit with milliseconds of CPU."""
        if not self._write("cgroup.freeze", "1"):
            return False
        deadline = time.monotonic() + wait_s
        while self.frozen() is False and time.monotonic() < deadline:
            time.sleep(0.001)
        if self.frozen():
            return True
        self.thaw()
        return False

    def thaw(self) -> None:
        self._write("cgroup.freeze", "0")

    def cpu_ns(self) -> int | None:
        """The CPU time every process that ran in the group used, in nanoseconds; None where unread."""
        try:
            for line in (self.path / "cpu.stat").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "usage_usec":
                    return int(value) * 1000
        except (OSError, ValueError):
            return None
        return None

    def kill(self) -> None:
        """Kill every process of the group: at once by ``cgroup.kill``, else pid by pid until none is left
        (a frozen group is thawed, so that the kills are delivered)."""
        self.thaw()
        if self._write("cgroup.kill", "1"):
            return
        for _ in range(100):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.001)

    def remove(self) -> None:
        """Kill what is left and remove the group's folder (it can go once empty)."""
        self.kill()
        deadline = time.monotonic() + REMOVE_WAIT_S
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() >= deadline:
                    return
                time.sleep(0.01)
