"""This machine's roofs, level by level, and which level of the memory a roofline sweep's working set sits in.

A roofline's sloped roof is one level's bandwidth: a sweep whose matrices sit in the L3 runs above the DRAM
roof, and a plot that draws only DRAM's roof shows an honest sweep "above the measured roof". So the
report draws the roof of every level the sweep touches, and marks each point with its level.

- The levels and their sizes are the machine's own (nothing here assumes a size): the data and unified caches
  of the profile's ``machine`` record (``caches``: level, type, size), else those this machine reports
  (:func:`perfcore.measure.machine.cache_levels`, read without measuring), then DRAM.
- A level's roof needs its measured bandwidth. The profile's ceiling (``bandwidth_bytes_per_s``) is DRAM's
  (a copy of 4 x the last-level cache); a profile may also give cache levels' figures
  (``level_bandwidths``: ``{"L2": B/s, "L3": B/s}``). perfcore's profile measures DRAM alone today, so a
  level it has no figure for is drawn as a region, not a roof, and the legend says its roof is not in the
  profile.
- The sweep multiplies (m x rows) by (rows x cols) for each m, in FP32: its working set at m is
  ``(m*rows + rows*cols + m*cols) * 4`` bytes, its intensity ``2*m*rows*cols`` FLOP over those bytes. Both grow
  with m, so the levels split the intensity axis into consecutive ranges (:func:`level_ranges`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from perfcore.measure.machine import cache_levels

DRAM = "DRAM"
#: The bytes of one FP32 number.
FP32 = 4


@dataclass(frozen=True)
class MachineRoofs:
    """What a roofline of this machine can draw: its measured peak, each level's measured bandwidth where
    the profile has one, and its cache levels' sizes (smallest first)."""

    #: The measured FP32 peak (FLOP/s); None where no profile is cached.
    peak_flops: float | None = None
    #: Level name ("L2", "L3", "DRAM") -> measured bytes/s, only the levels the profile measured.
    bandwidths: Mapping[str, float] = field(default_factory=dict)
    #: (level name, bytes) of the data and unified caches, smallest first; DRAM follows the last.
    caches: tuple[tuple[str, int], ...] = ()

    @property
    def measured(self) -> bool:
        return self.peak_flops is not None

    @property
    def ceilings(self) -> tuple[float, float] | None:
        """(peak FLOP/s, DRAM B/s), the profile's two ceilings; None without a profile."""
        dram = self.bandwidths.get(DRAM)
        return None if self.peak_flops is None or dram is None else (self.peak_flops, dram)

    def level_of(self, working_set: float) -> str:
        """The smallest level that holds ``working_set`` bytes: a cache, or DRAM past the largest."""
        for name, size in self.caches:
            if working_set <= size:
                return name
        return DRAM


def _positive(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value > 0 else None


def caches_of(entries: Any) -> tuple[tuple[str, int], ...]:
    """(``L<n>``, bytes) of the data and unified caches in ``entries`` (dicts or objects with ``level``,
    ``type``, ``size_bytes``), the largest of each level, smallest level first; odd entries are skipped."""
    sizes: dict[int, int] = {}
    for entry in entries or ():
        get = entry.get if isinstance(entry, Mapping) else lambda key, e=entry: getattr(e, key, None)
        level, kind, size = get("level"), get("type"), _positive(get("size_bytes"))
        if not isinstance(level, int) or isinstance(level, bool) or kind not in ("Data", "Unified"):
            continue
        if size is not None:
            sizes[level] = max(sizes.get(level, 0), int(size))
    return tuple((f"L{level}", sizes[level]) for level in sorted(sizes))


def this_machines_caches() -> tuple[tuple[str, int], ...]:
    """The caches this machine reports (nothing measured; none where none can be read)."""
    try:
        caches, _ = cache_levels()
    except Exception:  # noqa: BLE001 - an unreadable machine draws its points unmarked, never breaks the page
        return ()
    return caches_of(caches)


def from_profile(profile: Any) -> MachineRoofs:
    """The roofs of a machine profile (:class:`perfcore.measure.profile.MachineProfile` or one shaped
    like it); None: no roof, the caches this machine reports."""
    if profile is None:
        return MachineRoofs(caches=this_machines_caches())
    machine = getattr(profile, "machine", None)
    caches = caches_of(machine.get("caches") if isinstance(machine, Mapping) else None)
    bandwidths: dict[str, float] = {}
    dram = _positive(getattr(profile, "bandwidth_bytes_per_s", None))
    if dram is not None:
        bandwidths[DRAM] = dram
    levels = getattr(profile, "level_bandwidths", None)
    if isinstance(levels, Mapping):
        for name, _ in caches:
            figure = _positive(levels.get(name))
            if figure is not None:
                bandwidths[name] = figure
    return MachineRoofs(
        peak_flops=_positive(getattr(profile, "peak_flops", None)),
        bandwidths=bandwidths,
        caches=caches or this_machines_caches(),
    )


# ---------------------------------------------------------------------------------------------------
# the sweep's geometry


@dataclass(frozen=True)
class Sweep:
    """A roofline sweep's shape: (m x rows) @ (rows x cols) for each m of ``ms``, FP32."""

    rows: int
    cols: int
    ms: tuple[int, ...]

    def working_set(self, m: float) -> float:
        return (m * self.rows + self.rows * self.cols + m * self.cols) * FP32

    def intensity(self, m: float) -> float:
        return 2 * m * self.rows * self.cols / self.working_set(m)

    @property
    def limit(self) -> float:
        """The intensity the sweep approaches as m grows, and never reaches."""
        return self.rows * self.cols / (2 * (self.rows + self.cols))

    def m_at(self, working_set: float) -> float:
        """The m whose working set is ``working_set`` bytes (0 or less: not even the weights fit)."""
        return (working_set / FP32 - self.rows * self.cols) / (self.rows + self.cols)


def sweep_of(kwargs: Any) -> Sweep | None:
    """The sweep of a check's input (``rows``, ``cols``, ``ms``); None where the input names no such sweep."""
    if not isinstance(kwargs, Mapping):
        return None
    rows, cols, ms = kwargs.get("rows"), kwargs.get("cols"), kwargs.get("ms")
    if not (isinstance(rows, int) and isinstance(cols, int) and rows > 0 and cols > 0):
        return None
    if not isinstance(ms, Sequence) or not ms:
        return None
    if not all(isinstance(m, int) and not isinstance(m, bool) and m > 0 for m in ms):
        return None
    return Sweep(rows, cols, tuple(sorted(ms)))


@dataclass(frozen=True)
class LevelRange:
    """The intensities at which a sweep's working set sits in ``level``, and the ms of the sweep there."""

    level: str
    low: float  # 0: from the left of the axis
    high: float  # at most the sweep's limit: no m has a higher intensity
    ms: tuple[int, ...]
    #: The working sets of those ms, in bytes (smallest, largest).
    working_sets: tuple[float, float]


def level_ranges(sweep: Sweep, roofs: MachineRoofs) -> list[LevelRange]:
    """The levels the sweep's ms touch, in order, each with its range of intensities (its edges are where
    the working set equals a cache's size); none where the machine's caches are not known (nothing then
    says that a working set is past them)."""
    if not roofs.caches:
        return []
    by_level: dict[str, list[int]] = {}
    for m in sweep.ms:
        by_level.setdefault(roofs.level_of(sweep.working_set(m)), []).append(m)
    edges = {}  # level -> the intensity at which the working set fills it
    for name, size in roofs.caches:
        m = sweep.m_at(size)
        edges[name] = sweep.intensity(m) if m > 0 else 0.0
    names = [name for name, _ in roofs.caches] + [DRAM]
    ranges = []
    for level, ms in by_level.items():
        index = names.index(level)
        low = edges.get(names[index - 1], 0.0) if index > 0 else 0.0
        high = min(edges.get(level, math.inf), sweep.limit)
        sets = (sweep.working_set(min(ms)), sweep.working_set(max(ms)))
        ranges.append(LevelRange(level, low, high, tuple(ms), sets))
    return sorted(ranges, key=lambda r: names.index(r.level))


def level_at(intensity: float, ranges: Sequence[LevelRange]) -> str | None:
    """The level of a point at ``intensity`` among the touched ``ranges``; None outside all of them (a
    student's intensity no m of the sweep has)."""
    for r in ranges:
        if r.low < intensity <= r.high or (r.low == 0 and intensity <= r.high):
            return r.level
    return None


__all__ = [
    "DRAM",
    "LevelRange",
    "MachineRoofs",
    "Sweep",
    "caches_of",
    "from_profile",
    "level_at",
    "level_ranges",
    "sweep_of",
]
