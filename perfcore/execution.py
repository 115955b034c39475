"""The GPU execution model of §2: latency hiding by many warps, warp divergence, wave quantization.

Seed 000's script 01 parts 2-4. The latency-hiding simulation is event-driven: it jumps from one issue
burst to the next instead of stepping every cycle, so the lecture's whole table runs in milliseconds.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from .specs import GPUSpec, as_gpu
from .validation import positive_int

# --------------------------------------------------------------------------------------------------------
# §2.2 latency hiding
# --------------------------------------------------------------------------------------------------------


class LatencyHiding(NamedTuple):
    """One SM scheduler with ``num_warps`` warps: simulated and closed-form utilization."""

    num_warps: int
    compute_per_load: int
    mem_latency: int
    utilization: float  # simulated: busy issue cycles / all cycles
    closed_form: float  # min(1, W c / (c + L))
    warps_needed: int  # ceil((c + L) / c)


def latency_hiding_closed_form(num_warps: Any, compute_per_load: Any = 4, mem_latency: Any = 400) -> Any:
    """min(1, W c / (c + L)); broadcasts over numpy arrays."""
    w = np.asarray(num_warps, dtype=float)
    c = np.asarray(compute_per_load, dtype=float)
    lat = np.asarray(mem_latency, dtype=float)
    value = np.minimum(1.0, w * c / (c + lat))
    return float(value) if value.ndim == 0 else value


def warps_needed(compute_per_load: int = 4, mem_latency: int = 400) -> int:
    """The fewest warps that keep the scheduler busy: ceil((c + L) / c)."""
    c = positive_int("compute_per_load", compute_per_load)
    lat = positive_int("mem_latency", mem_latency, allow_zero=True)
    return -(-(c + lat) // c)


def simulate_latency_hiding(
    num_warps: int, compute_per_load: int = 4, mem_latency: int = 400, rounds: int = 64
) -> LatencyHiding:
    """Simulate one scheduler that issues one ready instruction per cycle.

    Each warp repeats: ``compute_per_load`` compute instructions, then one load whose data arrives
    ``mem_latency`` cycles later; the warp is not ready until then. The scheduler is greedy-then-oldest:
    it keeps issuing from the warp it is on until that warp stalls, then takes the warp that has been
    ready longest. Utilization is measured over ``rounds`` load periods of one warp, (c + L) cycles each.
    """
    w = positive_int("num_warps", num_warps)
    c = positive_int("compute_per_load", compute_per_load)
    lat = positive_int("mem_latency", mem_latency, allow_zero=True)
    rounds = positive_int("rounds", rounds)
    horizon = rounds * (c + lat)

    ready = [(0, i) for i in range(w)]  # (cycle the warp is ready, warp id); a heap: oldest-ready first
    heapq.heapify(ready)
    now = 0
    busy = 0
    while now < horizon:
        ready_at, warp = heapq.heappop(ready)
        start = max(now, ready_at)  # jump over idle cycles when no warp is ready
        end = start + c  # one instruction per cycle, c of them back to back
        busy += max(0, min(end, horizon) - start)
        now = end
        heapq.heappush(ready, (end + lat, warp))
    return LatencyHiding(
        num_warps=w,
        compute_per_load=c,
        mem_latency=lat,
        utilization=busy / horizon,
        closed_form=latency_hiding_closed_form(w, c, lat),
        warps_needed=warps_needed(c, lat),
    )


def latency_hiding_table(
    warps: Sequence[int] = (1, 2, 4, 8, 16, 32, 64),
    compute_per_load: Sequence[int] = (4, 16, 64),
    mem_latency: int = 400,
) -> dict[int, list[LatencyHiding]]:
    """The table of §2.2 (01 part 2): simulated utilization for each c (keys) and each W (rows)."""
    return {c: [simulate_latency_hiding(w, c, mem_latency) for w in warps] for c in compute_per_load}


# --------------------------------------------------------------------------------------------------------
# §2.3 warp divergence
# --------------------------------------------------------------------------------------------------------


class Divergence(NamedTuple):
    """A warp that runs every branch some thread takes, one after the other (SIMT)."""

    cycles: int  # cycles the warp spends
    ideal_cycles: int  # cycles had every thread taken the slowest branch any thread took, together
    efficiency: float  # useful thread-cycles / (threads x cycles)
    branches: int  # distinct branches taken


def warp_divergence(
    branches: Iterable[Hashable], cycles_per_branch: int | Mapping[Hashable, int] = 10, warp_size: int = 32
) -> Divergence:
    """Cycles and efficiency of one warp whose threads take ``branches`` (one label per thread).

    ``cycles_per_branch`` is one number for every branch, or a mapping from label to cycles.
    Two branches of 10 cycles each: all threads alike take 10 cycles; a single odd thread makes it 20.
    """
    labels = list(branches)
    warp_size = positive_int("warp_size", warp_size)
    if not labels or len(labels) > warp_size:
        raise ValueError(
            f"branches must hold one label per thread, 1 to {warp_size} of them; got {len(labels)}"
        )
    if isinstance(cycles_per_branch, Mapping):
        missing = [lab for lab in set(labels) if lab not in cycles_per_branch]
        if missing:
            raise ValueError(f"cycles_per_branch has no entry for branch label(s) {missing!r}")
        cost = {
            lab: positive_int(f"cycles_per_branch[{lab!r}]", cycles_per_branch[lab]) for lab in set(labels)
        }
    else:
        each = positive_int("cycles_per_branch", cycles_per_branch)
        cost = {lab: each for lab in set(labels)}
    cycles = sum(cost.values())  # each distinct branch runs once, the other threads masked off
    useful = sum(cost[lab] for lab in labels)
    return Divergence(
        cycles=cycles,
        ideal_cycles=max(cost.values()),
        efficiency=useful / (len(labels) * cycles),
        branches=len(cost),
    )


def divergence_table(cycles_per_branch: int = 10, warp_size: int = 32) -> dict[str, Divergence]:
    """01 part 3: branch patterns inside one warp and what they cost."""
    tid = range(warp_size)
    patterns = {
        "all threads take if": ["if"] * warp_size,
        "one thread takes else": ["else"] + ["if"] * (warp_size - 1),
        "half and half (tid < 16)": ["if" if t < warp_size // 2 else "else" for t in tid],
        "even/odd (tid % 2)": ["if" if t % 2 == 0 else "else" for t in tid],
        "by warp (warp id % 2): no split": ["if"] * warp_size,
    }
    return {name: warp_divergence(p, cycles_per_branch, warp_size) for name, p in patterns.items()}


# --------------------------------------------------------------------------------------------------------
# §2.4 waves
# --------------------------------------------------------------------------------------------------------


class Waves(NamedTuple):
    """Thread blocks run in waves of one block per SM (the lecture's simplification)."""

    num_blocks: int
    num_sms: int
    waves: int
    efficiency: float  # num_blocks / (waves x num_sms)


def wave_efficiency(num_blocks: int, num_sms: int | GPUSpec | str = 132) -> Waves:
    """Waves = ceil(blocks / SMs); efficiency = blocks / (waves x SMs). ``num_sms`` may be a GPU."""
    blocks = positive_int("num_blocks", num_blocks)
    if isinstance(num_sms, (GPUSpec, str)):
        num_sms = as_gpu(num_sms).sms
    sms = positive_int("num_sms", num_sms)
    waves = -(-blocks // sms)
    return Waves(blocks, sms, waves, blocks / (waves * sms))


def output_blocks(m: int, n: int, tile_m: int = 128, tile_n: int = 128) -> int:
    """Thread blocks for an m x n output tiled tile_m x tile_n (edge blocks count whole)."""
    m = positive_int("m", m)
    n = positive_int("n", n)
    tile_m = positive_int("tile_m", tile_m)
    tile_n = positive_int("tile_n", tile_n)
    return math.ceil(m / tile_m) * math.ceil(n / tile_n)


class WaveRow(NamedTuple):
    n: int
    blocks: int
    waves: int
    efficiency: float
    work_ratio: float  # output elements relative to the first row
    time_ratio: float  # waves relative to the first row


def wave_table(
    sizes: Sequence[int] = (4096, 4224), tile: int = 128, gpu: GPUSpec | str = "H100"
) -> list[WaveRow]:
    """§2.4 (01 part 4): n x n outputs in tile x tile blocks on ``gpu``; 4096 -> 8 waves, 4224 -> 9."""
    spec = as_gpu(gpu)
    rows = []
    for n in sizes:
        w = wave_efficiency(output_blocks(n, n, tile, tile), spec.sms)
        rows.append((n, w))
    n0, w0 = rows[0]
    return [
        WaveRow(n, w.num_blocks, w.waves, w.efficiency, (n * n) / (n0 * n0), w.waves / w0.waves)
        for n, w in rows
    ]
