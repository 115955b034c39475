"""The measurement checks' sizes on machines this one is not: profiles injected, no hardware needed.

Each profile is a :class:`grader.specs.sizes.Memory` as the machine would report it: a laptop with an 8 MiB L3,
the 2-vCPU AMD EPYC with a 32 MiB L3 this project's sessions run on, Xeon VMs reporting a 300 MiB and a
480 MiB L3, an Apple M-series (no L3 in sysctl, an L2 as its last level, 16 KiB pages), one whose caches
cannot be read, and one with little memory free. For each, the sizes chosen must put the data where the check means it to
be, and the requirements must be met, or unmet with the reason.
"""

from __future__ import annotations

import random

import pytest

import grader.specs.sizes
from grader.checks import ex10, m1, m4, m5
from grader.registry import load_exercises
from grader.specs.requirements import MEMORY_HEADROOM, Requirements, unmet_reason
from grader.specs.sizes import Memory
from perfcore.measure.machine import CacheLevel, available_memory_bytes

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30


def _caches(l1: int, l2: int, l3: int | None) -> tuple[CacheLevel, ...]:
    levels = [CacheLevel(1, "Data", l1), CacheLevel(1, "Instruction", l1), CacheLevel(2, "Unified", l2)]
    if l3 is not None:
        levels.append(CacheLevel(3, "Unified", l3))
    return tuple(levels)


PROFILES = {
    "laptop": Memory(_caches(48 * KiB, 1280 * KiB, 8 * MiB), 12 * GiB, 4096, "laptop"),
    "epyc": Memory(_caches(32 * KiB, 512 * KiB, 32 * MiB), 22 * GiB, 4096, "epyc"),
    "xeon": Memory(_caches(48 * KiB, 2 * MiB, 300 * MiB), 22 * GiB, 4096, "xeon"),
    "xeon-480": Memory(_caches(48 * KiB, 2 * MiB, 480 * MiB), 22 * GiB, 4096, "xeon-480"),
    "apple": Memory(_caches(128 * KiB, 16 * MiB, None), 8 * GiB, 16 * KiB, "apple"),
}
UNKNOWN = Memory((), 22 * GiB, 4096, "caches unknown")


def _m1_requires(memory: Memory) -> Requirements:
    return Requirements(caches=True, memory_bytes=2 * m1.copy_bytes(memory))


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_dram_sizes_are_at_least_four_times_the_last_level_cache(name: str) -> None:
    memory = PROFILES[name]
    llc, page = memory.llc_bytes, memory.page_bytes
    n_bytes = m1.copy_bytes(memory)
    assert 2 * n_bytes >= 4 * llc and 2 * n_bytes >= 256 * MiB and n_bytes % page == 0
    rows, cols = ex10.large_shape(memory)
    assert rows * cols * 4 >= 4 * llc and rows * cols * 4 >= 256 * MiB
    assert 2 * 4 * m4.scale_elements(memory) >= 4 * llc
    assert unmet_reason(_m1_requires(memory), "en", memory=memory) is None


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_in_cache_sizes_take_at_most_half_of_their_level(name: str) -> None:
    memory = PROFILES[name]
    low, high = m1.probe_range(memory)
    assert 0 < low <= high and 2 * high <= memory.llc_bytes // 2 and high % memory.page_bytes == 0
    small = ex10.SMALL_SHAPE[0] * ex10.SMALL_SHAPE[1] * 4
    small_check = load_exercises()["ex10"].check("10_small_w")
    cache_need = Requirements(min_llc_bytes=small_check.requires.min_llc_bytes)  # torch aside
    met = unmet_reason(cache_need, "en", memory=memory) is None
    assert met == (small <= memory.llc_bytes // 2)  # 4 MiB: only where it is half the LLC or less


def test_the_sizes_follow_the_machine() -> None:
    """The lecture's sizes where they fit (the 32 MiB EPYC), larger where the cache is larger."""
    assert m1.copy_bytes(PROFILES["epyc"]) == 128 * MiB  # the lecture's 2 x 128 MiB copy
    assert m1.copy_bytes(PROFILES["xeon"]) >= 600 * MiB
    assert ex10.large_shape(PROFILES["epyc"]) == (4096, 16384)
    assert ex10.large_shape(PROFILES["xeon"])[1] > 16384
    assert m4.scale_elements(PROFILES["xeon"]) > m4.scale_elements(PROFILES["epyc"]) >= 1 << 24
    assert m1.copy_bytes(PROFILES["apple"]) % (16 * KiB) == 0


@pytest.mark.parametrize("name", [*sorted(PROFILES), "unknown"])
def test_the_overhead_curve_keeps_its_last_two_points_in_one_level(name: str) -> None:
    memory = PROFILES.get(name, UNKNOWN)
    sizes = m5.overhead_sizes(memory)
    *small, low, high = sizes
    assert tuple(small) == m5.SMALL_SIZES and high == 4 * low
    b = m5.ADD_BYTES_PER_ELEMENT
    in_llc = b * high <= memory.llc_bytes // 2 and b * low >= 2 * memory.level_bytes(2)
    in_dram = b * low >= 4 * memory.llc_bytes
    assert in_llc or in_dram
    expected = {
        "epyc": "llc",
        "xeon": "llc",
        "xeon-480": "llc",
        "laptop": "dram",
        "apple": "dram",
        "unknown": "dram",
    }
    assert ("llc" if in_llc else "dram") == expected[name]


@pytest.mark.parametrize("name", [*sorted(PROFILES), "unknown"])
def test_every_drawn_overhead_curve_keeps_its_pair_in_the_level_of_the_machines_curve(name: str) -> None:
    """m5b's sizes are drawn (issue 29): the small ones flat, the pair four times apart in the level
    overhead_sizes chose, and within the memory the check asks for."""
    memory = PROFILES.get(name, UNKNOWN)
    *_, low, high = m5.overhead_sizes(memory)
    b = m5.ADD_BYTES_PER_ELEMENT
    llc_level = b * high <= memory.llc_bytes // 2
    rng = random.Random(name)
    pairs = set()
    for i in range(40):
        *small, p_low, p_high = m5.curve_input((i + rng.random()) / 40, rng, memory)["sizes"]
        assert all(16 <= s <= 4096 and s % 16 == 0 for s in small) and small == sorted(small)
        assert p_high == 4 * p_low and b * p_high <= m5.curve_bytes(memory)
        if llc_level:
            assert b * p_high <= memory.llc_bytes // 2 and b * p_low >= 2 * memory.level_bytes(2)
        else:
            assert b * p_low >= 4 * memory.llc_bytes
        pairs.add(p_low)
    assert len(pairs) > 10  # drawn, not one fixed pair


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_m1s_graded_copy_is_drawn_from_dram_sizes(name: str) -> None:
    memory = PROFILES[name]
    low, high = m1.graded_range(memory)
    assert low == m1.copy_bytes(memory) and high > low
    assert unmet_reason(Requirements(caches=True, memory_bytes=2 * high), "en", memory=memory) is None


def test_where_the_caches_cannot_be_read_every_sized_check_is_deferred(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Through the real requirements of the registered checks: Memory.here() reads no cache."""
    monkeypatch.setattr(grader.specs.sizes, "cache_levels", lambda: ((), "none readable"))
    sized = [
        (e.id, c)
        for e in load_exercises().values()
        for c in e.checks
        if c.requires.caches or c.requires.min_llc_bytes
    ]
    assert {f"{e}::{c.id}" for e, c in sized} >= {
        "m1::copy_bandwidth",
        "ex10::10_small_w",
        "ex10::10_large_w",
        "m4::k8_passes",
        "m4::k8_one_pass",
        "m5::overhead_curve",
    }
    for _, check in sized:
        reason = unmet_reason(
            Requirements(caches=check.requires.caches, min_llc_bytes=check.requires.min_llc_bytes), "en"
        )
        assert reason is not None and ("cannot be read" in reason or "unknown" in reason), reason


def test_a_working_set_that_does_not_fit_twice_in_free_memory_is_deferred() -> None:
    for name, memory in PROFILES.items():
        need = 2 * 2 * m1.copy_bytes(memory) + MEMORY_HEADROOM
        short = Memory(memory.caches, need - 1, memory.page_bytes)
        reason = unmet_reason(_m1_requires(memory), "en", memory=short)
        assert reason is not None and "available memory" in reason, name
        assert unmet_reason(_m1_requires(memory), "en", memory=Memory(memory.caches, need)) is None


def test_the_live_checks_carry_their_working_sets() -> None:
    """The registered checks' requirements name the memory their sizes need here."""
    exercises = load_exercises()
    copy = exercises["m1"].check("copy_bandwidth")
    assert copy.requires.caches and copy.kwargs["n_bytes"] == m1.copy_bytes(Memory.here())
    assert copy.requires.memory_bytes == 2 * m1.graded_range(Memory.here())[1]  # the largest graded draw
    large = exercises["ex10"].check("10_large_w")
    rows, cols = large.kwargs["rows"], large.kwargs["cols"]  # drawn up to 5/4 of these columns
    assert large.requires.memory_bytes >= rows * (cols + cols // 4) * 4
    assert exercises["m4"].check("k8_passes").kwargs["n_elements"] == m4.scale_elements(Memory.here())


def test_available_memory_is_read_from_meminfo(tmp_path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       24000000 kB\nMemAvailable:    1000000 kB\n", encoding="utf-8")
    assert available_memory_bytes(str(meminfo)) == (1000000 * 1024, "/proc/meminfo MemAvailable")
    value, source = available_memory_bytes(str(tmp_path / "absent"))
    assert (value is None) == (source == "no memory figure readable")
