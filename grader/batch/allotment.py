"""How much memory this grading run was given: by Slurm, by a container's cgroup, or the machine's own.

A batch child's memory limit is this run's memory shared among its jobs. On a shared node the run's share
is what the scheduler allotted, not the node's total: ``--mem=32G`` with 8 jobs on a 1 TiB node must give
each child 4 GiB, not 8 GiB. Read, in order:

1. Slurm's allocation: ``SLURM_MEM_PER_NODE`` (MiB), or ``SLURM_MEM_PER_CPU`` (MiB) times the CPUs the
   task has (``SLURM_CPUS_PER_TASK``, else ``SLURM_CPUS_ON_NODE``, else 1);
2. the cgroup this process is in (a Kubernetes pod's ``limits.memory``, Slurm's cgroup plugin, systemd):
   the smallest ``memory.max`` (cgroup v2) or ``memory.limit_in_bytes`` (v1) from this process's group up
   to the root, "max" or a near-2^63 figure meaning no limit;
3. the machine's physical memory.

The smallest figure found wins: a Slurm job in a cgroup tighter than its ``--mem`` is held to the cgroup.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

MiB = 1 << 20
GiB = 1 << 30
#: Figures at or above this are "no limit" (cgroup v1 reports 2^63 rounded down to a page).
UNLIMITED = 1 << 60
#: The most a child is given, whatever the allotment (as ``confinement.default_memory_bytes``).
CHILD_CAP = 8 * GiB


@dataclass(frozen=True)
class Allotment:
    """``total`` bytes for this run, where the figure comes from (said in the run's log), and whether a
    scheduler or container set it (``False``: the machine's whole memory)."""

    total: int
    source: str
    allotted: bool = True


def slurm_bytes(environ: Mapping[str, str]) -> int | None:
    """The memory of this Slurm task's allocation, from its environment; None outside Slurm."""

    def number(name: str) -> int | None:
        text = environ.get(name, "").strip()
        return int(text) if text.isdigit() and int(text) > 0 else None

    per_node = number("SLURM_MEM_PER_NODE")
    if per_node:
        return per_node * MiB
    per_cpu = number("SLURM_MEM_PER_CPU")
    if per_cpu:
        cpus = number("SLURM_CPUS_PER_TASK") or number("SLURM_CPUS_ON_NODE") or 1
        return per_cpu * cpus * MiB
    return None


def _limit(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.isdigit():
        return None  # "max": no limit here
    value = int(text)
    return value if 0 < value < UNLIMITED else None


def cgroup_bytes(
    root: Path = Path("/sys/fs/cgroup"), membership: Path = Path("/proc/self/cgroup")
) -> int | None:
    """The smallest memory limit on this process's cgroup and its ancestors; None where none is set or
    the files cannot be read (macOS, Windows, a locked-down container)."""
    try:
        lines = membership.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    found: list[int] = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, group = parts
        if controllers == "":  # cgroup v2: one hierarchy
            base, name = root, "memory.max"
        elif "memory" in controllers.split(","):
            base, name = root / "memory", "memory.limit_in_bytes"
        else:
            continue
        # In a cgroup namespace the group may not be under the mount (it is shown from the host's root):
        # then the mount's own root is this process's group.
        here = (base / group.lstrip("/")).resolve()
        if not here.is_relative_to(base.resolve()) or not here.is_dir():
            here = base.resolve()
        while True:
            limit = _limit(here / name)
            if limit is not None:
                found.append(limit)
            if here == base.resolve():
                break
            here = here.parent
    return min(found) if found else None


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, which a scheduler's allotment sets), else the
    machine's: what ``--jobs 0`` means."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # macOS and Windows have no affinity call
        return os.cpu_count() or 1


def lane_cores(lanes: int) -> list[set[int]] | None:
    """The cores this process may use, split into ``lanes`` disjoint groups of consecutive cores (the
    first groups one larger where they do not divide evenly); None where the OS has no affinity call.
    A BatchError-worthy ValueError when there are fewer cores than lanes."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    cores = sorted(os.sched_getaffinity(0))
    if lanes > len(cores):
        raise ValueError(f"{lanes} lanes need {lanes} cores; this run may use {len(cores)}")
    size, extra = divmod(len(cores), lanes)
    groups, start = [], 0
    for lane in range(lanes):
        end = start + size + (1 if lane < extra else 0)
        groups.append(set(cores[start:end]))
        start = end
    return groups


def machine_bytes() -> int | None:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


def allotment(
    environ: Mapping[str, str] = os.environ,
    cgroup_root: Path = Path("/sys/fs/cgroup"),
    membership: Path = Path("/proc/self/cgroup"),
) -> Allotment | None:
    """This run's memory: the smallest of Slurm's allocation and the cgroup's limit, else the machine's."""
    given = [
        Allotment(total, source)
        for total, source in (
            (slurm_bytes(environ), "the Slurm allocation"),
            (cgroup_bytes(cgroup_root, membership), "the cgroup's memory limit"),
        )
        if total
    ]
    if given:
        return min(given, key=lambda a: a.total)
    total = machine_bytes()
    return Allotment(total, "the machine's memory", allotted=False) if total else None


def child_memory_bytes(jobs: int, given: Allotment | None) -> int:
    """Each of ``jobs`` children's memory limit: its share of ``given``, at most 8 GiB.

    The machine's own memory keeps the floor of 2 GiB a child (a student's tensors need room, and other
    work on the machine is not this run's to protect); an allotment is shared as it is, since going over
    it gets the whole task killed by the scheduler."""
    jobs = max(1, jobs)
    if given is None:
        return CHILD_CAP
    share = given.total // jobs
    if not given.allotted:
        return int(min(CHILD_CAP, max(2 * GiB, share)))
    return int(max(MiB, min(CHILD_CAP, share)))
