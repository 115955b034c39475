"""Where a measurement runs: the least busy core this process may use, for the worker and the reference alike.

Both sides of a measurement are pinned to one core, so that they alternate on the same hardware and see
the same neighbours; the core is the one least busy over a short sample of ``/proc/stat`` (another grader,
or a student's other program, is likely on the others).
"""

from __future__ import annotations

import os
import time

from ...sandbox import load
from .protocol import JudgeSide

#: How long the judge watches the cores before it picks the least busy one for a measurement.
CPU_SAMPLE_S = 0.05


def cpu_busy(stat: str | None = None) -> dict[int, int]:
    """Per CPU, the clock ticks it has spent busy (not idle, not waiting on I/O; stolen time counted as
    busy) since boot (Linux), as :func:`grader.sandbox.load.read_cpus` reads them."""
    return {c: cpu.busy + cpu.steal for c, cpu in load.read_cpus(stat).items()}


def measure_cpu(sample_s: float = CPU_SAMPLE_S) -> set[int] | None:
    """One core for the worker and the reference: of those this process may use, the one least busy over a
    short sample (another grader, or a student's other program, is likely on the others), else the last."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    cpus = sorted(os.sched_getaffinity(0))
    if not cpus:
        return None
    before = cpu_busy()
    if before and len(cpus) > 1:
        time.sleep(sample_s)
        after = cpu_busy()
        load = {c: after.get(c, 0) - before.get(c, 0) for c in cpus if c in before and c in after}
        if load:
            return {min(sorted(load, reverse=True), key=lambda c: load[c])}
    return {cpus[-1]}


def pin_pair(judge: JudgeSide, path: str) -> set[int] | None:
    """Pin the worker grading ``path`` and the reference process to the least busy core; that core (None
    where nothing was pinned)."""
    cpus = measure_cpu()
    if cpus is not None:
        judge.pin(path, cpus)
    return cpus
