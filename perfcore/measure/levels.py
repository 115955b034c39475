"""The copy bandwidth one core reaches in each cache level this machine reports: the machine profile's
``level_bandwidths``, the sloped roofs a roofline draws for working sets that sit in a cache.

- Which levels: every data or unified cache from the L2 up whose size the machine reports
  (:attr:`perfcore.measure.machine.MachineInfo.caches`, read from sysfs, ``lscpu`` or ``sysctl``), named
  ``L<level>`` with the largest cache of that level, as the report reads them back from the profile's machine
  record; on most machines the L2 and the last-level cache. A level whose size cannot be read is left out,
  never assumed (the last-level size :attr:`~perfcore.measure.machine.MachineInfo.llc_bytes` assumes where
  none can be read sizes DRAM's working set only). The L1 is left out: a quarter of it copies in a few
  microseconds, of which the call's own cost is a large part.
- The working set: a source and a destination of their own (two halves of one buffer sit a power of two
  apart, which some cores copy up to a third slower), each a quarter of the level, so that together they
  fill half of it and leave room for what else the core keeps there.
- The timing: as the profile's DRAM ceiling, torch ``copy_`` and ``np.copyto`` timed A B A B on one thread
  (:func:`perfcore.measure.core.compare`, blocks of at least 10 ms, the calls within a block back to back, so
  that every call but a block's first finds its data in the level), the best block of the best path,
  counted as STREAM counts a copy (read + write). About 0.1 s a level.

A level's figure is kept even where it comes out no faster than DRAM's (a machine, or a moment, where the
copy cannot show the level): the report decides what it draws from it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..validation import positive_int
from .core import Bounds, Figure, check_bandwidth, compare
from .machine import CacheLevel
from .timing import require_torch, single_thread

#: The lowest level measured (see the module docstring for why not the L1).
FIRST_LEVEL = 2
#: Source and destination together fill 1/LEVEL_SHARE of the level.
LEVEL_SHARE = 2
#: The bytes of one FP32 number (the copies move FP32 tensors, as the DRAM ceiling's do).
FP32 = 4
#: The two paths timed at each level, as for the DRAM ceiling.
PATHS = ("torch copy_", "np.copyto")


@dataclass(frozen=True)
class LevelCopy:
    """One cache level's copy: the level's name and size, and the bytes of each of the two copied arrays."""

    level: str  # "L2", "L3", ...
    cache_bytes: int
    copy_bytes: int  # each of source and destination

    @property
    def working_set_bytes(self) -> int:
        """Source and destination together: about half the level."""
        return 2 * self.copy_bytes


def level_plan(caches: Iterable[CacheLevel | Mapping[str, Any]]) -> tuple[LevelCopy, ...]:
    """The copies to time for ``caches`` (CacheLevel records or their dicts), smallest level first.

    One per level from the L2 up, sized by the largest data or unified cache of that level; levels whose size
    is missing, not a positive number or too small for one FP32 number in each array are left out.
    """
    sizes: dict[int, int] = {}
    for entry in caches or ():
        get = entry.get if isinstance(entry, Mapping) else functools.partial(getattr, entry)
        level, kind, size = get("level", None), get("type", None), get("size_bytes", None)
        if isinstance(level, bool) or not isinstance(level, int) or level < FIRST_LEVEL:
            continue
        if kind not in ("Data", "Unified") or isinstance(size, bool) or not isinstance(size, int):
            continue
        if size > 0:
            sizes[level] = max(sizes.get(level, 0), size)
    plan = []
    for level in sorted(sizes):
        elements = sizes[level] // (LEVEL_SHARE * 2 * FP32)
        if elements > 0:
            plan.append(LevelCopy(f"L{level}", sizes[level], elements * FP32))
    return tuple(plan)


def measure_levels(plan: Iterable[LevelCopy], repeats: int, bounds: Bounds) -> dict[str, dict[str, Any]]:
    """Time each copy of ``plan`` on one core, both paths of every level A B A B in ``repeats`` rounds.

    Returns, per level: ``bytes_per_s`` (the best block of the best path), ``path``, ``cache_bytes``,
    ``working_set_bytes`` and each path's figures (``candidates``, as the profile keeps the DRAM ceiling's).
    A rate above the core's physical bound raises :class:`~perfcore.measure.core.MeasurementError`.
    """
    torch = require_torch()
    import numpy as np

    plan = tuple(plan)
    repeats = positive_int("repeats", repeats)
    if not plan:
        return {}
    calls: dict[str, Any] = {}
    with single_thread():
        for copy in plan:
            n = copy.copy_bytes // FP32
            src, dst = torch.ones(n), torch.zeros(n)  # filled, so every page is touched before the timing
            # partials, not lambdas: what each call copies stays readable (the tests check the sizes used)
            calls[f"{copy.level} {PATHS[0]}"] = functools.partial(torch.Tensor.copy_, dst, src)
            calls[f"{copy.level} {PATHS[1]}"] = functools.partial(np.copyto, dst.numpy(), src.numpy())
        times = compare(calls, rounds=repeats)
    out: dict[str, dict[str, Any]] = {}
    for copy in plan:
        figures = {
            path: check_bandwidth(
                Figure.from_timing(
                    f"{copy.level} {path}",
                    times[f"{copy.level} {path}"],
                    copy.working_set_bytes,
                    "byte",
                    "STREAM copy: read + write",
                ),
                bounds,
                copy.working_set_bytes,
                is_ceiling=True,
            )
            for path in PATHS
        }
        best = max(PATHS, key=lambda path: figures[path].best_rate)
        out[copy.level] = {
            "bytes_per_s": figures[best].best_rate,
            "path": best,
            "cache_bytes": copy.cache_bytes,
            "working_set_bytes": copy.working_set_bytes,
            "candidates": {
                path: {
                    "best_rate": f.best_rate,
                    "rate": f.rate,
                    "noise": f.noise,
                    "work": f.work,
                    "unit": f.unit,
                    "blocks": f.blocks,
                }
                for path, f in figures.items()
            },
        }
    return out


__all__ = ["FIRST_LEVEL", "LEVEL_SHARE", "LevelCopy", "level_plan", "measure_levels"]
