"""The cache levels' copy bandwidths (perfcore.measure.levels): which levels are measured and with what
working sets, read from the machine's own cache sizes (never assumed), timed as the DRAM ceiling is."""

from __future__ import annotations

import dataclasses
import math

import pytest

torch = pytest.importorskip("torch", reason="perfcore.measure needs torch (pip install perfkit[torch])")
import numpy as np  # noqa: E402

from perfcore.measure import levels  # noqa: E402
from perfcore.measure.core import MeasurementError, make_bounds  # noqa: E402
from perfcore.measure.levels import LevelCopy, level_plan, measure_levels  # noqa: E402
from perfcore.measure.machine import CacheLevel, machine_info  # noqa: E402
from perfcore.measure.timing import Timing  # noqa: E402

KiB, MiB = 1024, 1024**2


def caches(*entries: tuple[int, str, int]) -> tuple[CacheLevel, ...]:
    return tuple(CacheLevel(level, kind, size) for level, kind, size in entries)


L1 = ((1, "Data", 32 * KiB), (1, "Instruction", 32 * KiB))
#: Other machines, as sysfs would report them: (caches, {level: (cache bytes, working set bytes)}).
MACHINES = {
    # the project's 2-vCPU EPYC: 512 KiB L2, 32 MiB L3
    "epyc-32MiB-L3": (
        caches(*L1, (2, "Unified", 512 * KiB), (3, "Unified", 32 * MiB)),
        {"L2": (512 * KiB, 256 * KiB), "L3": (32 * MiB, 16 * MiB)},
    ),
    # a Xeon with a 300 MiB L3
    "xeon-300MiB-L3": (
        caches(
            (1, "Data", 48 * KiB),
            (1, "Instruction", 32 * KiB),
            (2, "Unified", 2 * MiB),
            (3, "Unified", 300 * MiB),
        ),
        {"L2": (2 * MiB, 1 * MiB), "L3": (300 * MiB, 150 * MiB)},
    ),
    # a Xeon VM reporting a 480 MiB L3 (seen 2026-12-06): 48 KiB L1d and 2 MiB L2 per vCPU
    "xeon-480MiB-L3": (
        caches(
            (1, "Data", 48 * KiB),
            (1, "Instruction", 64 * KiB),
            (2, "Unified", 2 * MiB),
            (3, "Unified", 480 * MiB),
        ),
        {"L2": (2 * MiB, 1 * MiB), "L3": (480 * MiB, 240 * MiB)},
    ),
    # the L2's entry unreadable: the L3 alone, no L2 assumed
    "no-readable-L2": (
        caches(*L1, (3, "Unified", 32 * MiB)),
        {"L3": (32 * MiB, 16 * MiB)},
    ),
    # no L3 (the L2 is the last level, as on Apple silicon's performance cores)
    "L2-last": (
        caches((1, "Data", 128 * KiB), (2, "Unified", 16 * MiB)),
        {"L2": (16 * MiB, 8 * MiB)},
    ),
    # nothing readable: nothing measured (MachineInfo.llc_bytes assumes 32 MiB for DRAM's sizes; not here)
    "none-readable": ((), {}),
}


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_the_levels_and_their_sizes_are_the_machines_own(name):
    found, expected = MACHINES[name]
    plan = level_plan(found)
    assert {c.level: (c.cache_bytes, c.working_set_bytes) for c in plan} == expected
    assert [c.level for c in plan] == sorted(expected)  # smallest level first
    assert level_plan([dataclasses.asdict(c) for c in found]) == plan  # the profile's JSON record reads alike


def test_odd_entries_are_left_out_and_the_largest_of_a_level_counts():
    entries = [
        {"level": 2, "type": "Unified", "size_bytes": 0},  # no size
        {"level": 2, "type": "Unified", "size_bytes": "1M"},  # not read as a number
        {"level": True, "type": "Unified", "size_bytes": MiB},  # not a level
        {"level": 3, "type": "Instruction", "size_bytes": 64 * MiB},  # not data
        {"level": 3, "type": "Unified", "size_bytes": 8},  # too small for one FP32 number per array
        {"type": "Unified", "size_bytes": MiB},  # no level
        {"level": 4, "type": "Data", "size_bytes": 64 * MiB},
        {"level": 4, "type": "Unified", "size_bytes": 96 * MiB},
    ]
    assert level_plan(entries) == (LevelCopy("L4", 96 * MiB, 24 * MiB),)
    assert level_plan(None) == ()


class FakeTiming:
    """levels.compare, replaced: records what each timed call copies and answers a fixed time per call that
    gives ``rates[level]`` (numpy's path 10% faster than torch's)."""

    def __init__(self, rates):
        self.rates = rates
        self.copied: dict[str, tuple[int, int]] = {}  # name -> (source bytes, destination bytes)
        self.rounds: list[int] = []

    def __call__(self, calls, rounds=3, **_):
        self.rounds.append(rounds)
        out = {}
        for name, fn in calls.items():
            if fn.func is torch.Tensor.copy_:
                dst, src = fn.args
                assert src.data_ptr() != dst.data_ptr() and src.dtype == dst.dtype == torch.float32
                nbytes = (src.numel() * 4, dst.numel() * 4)
            else:
                assert fn.func is np.copyto
                dst, src = fn.args
                assert not np.shares_memory(dst, src)
                nbytes = (src.nbytes, dst.nbytes)
            self.copied[name] = nbytes
            level = name.split()[0]
            rate = self.rates[level] * (1.1 if fn.func is np.copyto else 1.0)
            seconds = sum(nbytes) / rate
            out[name] = Timing.from_samples([seconds * 1.2, seconds, seconds * 1.1], 1)
        return out


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_each_level_is_copied_at_half_its_size(monkeypatch, name):
    found, expected = MACHINES[name]
    fake = FakeTiming({"L2": 8e10, "L3": 4e10})
    monkeypatch.setattr(levels, "compare", fake)
    result = measure_levels(level_plan(found), 5, make_bounds(machine_info()))
    assert set(result) == set(expected)
    for level, (cache_bytes, working_set) in expected.items():
        # both paths copy a source and a destination of a quarter of the level each
        for path in levels.PATHS:
            assert fake.copied[f"{level} {path}"] == (working_set // 2, working_set // 2)
        figures = result[level]
        assert figures["cache_bytes"] == cache_bytes and figures["working_set_bytes"] == working_set
        assert figures["path"] == "np.copyto"
        assert figures["bytes_per_s"] == pytest.approx(fake.rates[level] * 1.1)
        assert figures["candidates"]["torch copy_"]["best_rate"] == pytest.approx(fake.rates[level])
        # the median block is 1.1x the best
        assert figures["candidates"]["np.copyto"]["rate"] == pytest.approx(fake.rates[level])
    assert fake.rounds == ([5] if expected else [])  # all levels A B A B in one comparison, none for none


def test_a_rate_above_the_cores_physical_bound_is_an_error(monkeypatch):
    bounds = make_bounds(machine_info())
    monkeypatch.setattr(levels, "compare", FakeTiming({"L2": 2 * bounds.bandwidth}))
    with pytest.raises(MeasurementError, match="L2 .*physical load/store bound"):
        measure_levels(level_plan(MACHINES["epyc-32MiB-L3"][0][:3]), 3, bounds)


def test_bad_repeats_are_named():
    with pytest.raises(ValueError, match="repeats"):
        measure_levels(level_plan(MACHINES["epyc-32MiB-L3"][0]), 0, make_bounds(machine_info()))


def test_measured_here():
    """One real measurement, this machine's own levels (a 1 MiB L2 where it reports none, so that the
    timing is exercised everywhere)."""
    plan = level_plan(machine_info().caches) or level_plan(caches((2, "Unified", MiB)))
    result = measure_levels(plan, 3, make_bounds(machine_info()))
    assert [c.level for c in plan] == list(result)
    for level, figures in result.items():
        assert math.isfinite(figures["bytes_per_s"]) and figures["bytes_per_s"] > 0, level
        assert figures["bytes_per_s"] == max(c["best_rate"] for c in figures["candidates"].values())
        assert figures["path"] in levels.PATHS
