"""Working sets for the machine that grades: where a measurement's data must live, and how big that is here.

A measurement means what it says only at the memory level it was meant for: a copy "from DRAM" whose buffers
fit in the last-level cache measures the cache (on a Xeon reporting a 300 MiB L3, the lecture's 128 MiB
weight is cache-resident), and a curve whose shape assumes one level must keep every point in it. So each
measurement check takes its sizes from the machine, a :class:`Memory` (read with :meth:`Memory.here`;
tests inject a laptop's, a Xeon's, an Apple M-series', or one whose caches cannot be read):

- DRAM: the whole working set at least 4 x the last-level cache and at least 256 MiB
  (:func:`perfcore.measure.core.dram_working_set`, the rule perfcore's own experiments follow);
- in cache: the whole working set at most half of the level meant;
- each buffer a whole number of pages (4 KiB on x86, 16 KiB on Apple silicon).

The student's function receives the sizes as arguments, and the stubs say that the grader chooses them. Where
the machine cannot host an experiment, the check is deferred with the reason (its
:class:`~grader.specs.requirements.Requirements` say ``caches=True`` and ``memory_bytes=...``): caches that cannot
be read leave no size sure to be in or out of them, and a working set must fit, twice (the student's process
and perfcore's), in the memory available.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfcore.measure.core import dram_working_set
from perfcore.measure.machine import (
    DEFAULT_LLC_BYTES,
    CacheLevel,
    available_memory_bytes,
    cache_levels,
    page_bytes,
)


@dataclass(frozen=True)
class Memory:
    """What sizing needs to know of a machine. ``caches`` empty: none could be read; ``available_bytes``
    None: unknown (then nothing is capped by it)."""

    caches: tuple[CacheLevel, ...]
    available_bytes: int | None = None
    page_bytes: int = 4096
    name: str = "this machine"

    @classmethod
    def here(cls) -> Memory:
        """This machine, read now (the caches once per process; the free memory every time)."""
        available, _ = available_memory_bytes()
        return cls(cache_levels()[0], available, page_bytes())

    @property
    def _data(self) -> list[CacheLevel]:
        """The caches that hold data (instruction caches left out)."""
        return [c for c in self.caches if c.type in ("Data", "Unified")]

    def level_bytes(self, level: int) -> int:
        """The data or unified cache of ``level`` (0 where there is none or it cannot be read)."""
        sizes = [c.size_bytes for c in self._data if c.level == level]
        return max(sizes) if sizes else 0

    @property
    def known(self) -> bool:
        """Whether any data cache could be read."""
        return bool(self._data)

    @property
    def llc_bytes(self) -> int:
        """The last-level cache: the largest data or unified cache (``DEFAULT_LLC_BYTES`` when unknown, so
        that sizes still exist; the checks that need them are deferred, see the module docstring)."""
        return max((c.size_bytes for c in self._data), default=DEFAULT_LLC_BYTES)


def _pages_down(n_bytes: int, page: int) -> int:
    return max(page, n_bytes // page * page)


def _pages_up(n_bytes: int, page: int) -> int:
    return -(-n_bytes // page) * page


def dram_buffer_bytes(memory: Memory, buffers: int = 1) -> int:
    """Bytes of each of ``buffers`` equal buffers that together make a DRAM working set here."""
    return _pages_up(-(-dram_working_set(memory.llc_bytes) // buffers), memory.page_bytes)


def cache_buffer_bytes(memory: Memory, buffers: int = 1, level: int | None = None) -> int:
    """Bytes of each of ``buffers`` equal buffers that together take at most half of cache ``level`` (the
    last-level cache by default)."""
    size = memory.level_bytes(level) if level is not None else memory.llc_bytes
    return _pages_down(size // 2 // buffers, memory.page_bytes)


def pow2_at_most(n: float) -> int:
    return 1 << max(0, int(n).bit_length() - 1)


def pow2_at_least(n: float) -> int:
    return 1 << max(0, (int(n) - 1).bit_length())


__all__ = [
    "Memory",
    "cache_buffer_bytes",
    "dram_buffer_bytes",
    "pow2_at_least",
    "pow2_at_most",
]
