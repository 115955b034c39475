"""Checks of measurement 1 (memory bandwidth of one core): solutions/m1_copy_bandwidth.py."""

import random

from grader.checks import bandwidth_bound
from grader.spec import Exercise, MeasurementCheck, Work
from perfcore.measure.machine import DEFAULT_LLC_BYTES, cache_levels

MiB = 1 << 20


def _copy(n_bytes: int) -> float:
    from perfcore.measure import copy_bandwidth

    return copy_bandwidth(n_bytes=n_bytes, path="torch")


def _copy_probe(rng: random.Random) -> dict[str, int]:
    """A copy the student has not been asked about, its source and destination in the last-level cache
    (together at most a quarter of it, beyond the L2): a cache's bandwidth, which a made-up DRAM figure
    cannot follow."""
    caches = {c.level: c.size_bytes for c in cache_levels()[0] if c.type in ("Data", "Unified")}
    llc = max(caches.values()) if caches else DEFAULT_LLC_BYTES
    low, high = max(caches.get(2, 0), MiB), max(llc // 8, 2 * MiB)
    return {"n_bytes": rng.randrange(low, high + 1, 4096)}


def _copy_work(n_bytes: int) -> Work:
    """One copy reads n_bytes and writes n_bytes."""
    return Work(bytes=2 * n_bytes)


EXERCISE = Exercise(
    id="m1",
    module="m1_copy_bandwidth",
    title_zh="单核的内存带宽",
    title_en="Memory bandwidth of one core",
    checks=(
        MeasurementCheck(
            id="copy_bandwidth",
            part="m1",
            points=3,
            func="copy_bandwidth",
            kwargs={"n_bytes": 256 * MiB},
            reference=_copy,
            work=_copy_work,
            probe=_copy_probe,
            probe_kind="cache",
            kind="dram",
            rounds=5,
            physical_bound=bandwidth_bound,
            hint_zh="STREAM 计数：复制读一遍、写一遍，字节数是 2 × n_bytes；输出要预先分配并先写一遍。",
            hint_en="STREAM counting: a copy reads once and writes once, 2 x n_bytes; preallocate and touch the output.",
        ),
    ),
)
