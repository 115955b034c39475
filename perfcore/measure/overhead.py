"""Fixed overhead on one core (§5.3): ``torch.add(a, b, out=c)`` from 16 to 16M elements.

A tiny add costs about as much as one of 4096 elements: the time goes to Python, the dispatcher and the
choice of kernel, not to arithmetic or memory. Only with many elements does the time grow with the size
and the effective bandwidth (a and b read, c written: 12 bytes per element) approach the memory's. The
lecture's sizes stop at 16M (192 MiB in all); one more point whose three arrays fill 4 x the last-level
cache shows the DRAM end where 16M is still partly cached.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from ..validation import positive_int
from .core import (
    Bounds,
    Figure,
    check_bandwidth,
    dram_bytes,
    make_bounds,
    round_seconds,
    split,
    time_blocks,
    workspace,
)
from .machine import machine_info
from .timing import require_torch, single_thread

LECTURE_SIZES = (16, 256, 4096, 65536, 1 << 20, 1 << 24)


@dataclass(frozen=True)
class OverheadPoint:
    n_elements: int
    figure: Figure  # bytes: 12 per element (read a, b; write c)
    working_set_bytes: int


@dataclass(frozen=True)
class OverheadResult:
    points: tuple[OverheadPoint, ...]
    fixed_cost_s: float  # the median time of the smallest add: the overhead floor
    _derived = ("overhead_bound_up_to",)

    @property
    def overhead_bound_up_to(self) -> int:
        """The largest size whose add takes less than twice the smallest's: below it, overhead rules."""
        small = [p.n_elements for p in self.points if p.figure.time_s < 2 * self.fixed_cost_s]
        return max(small) if small else 0


def _operands(n: int, dram: bool = False) -> tuple:
    """a, b, c of n elements: fresh small tensors, or views of the shared workspace for large n."""
    import torch

    if n * 12 < 64 * 2**20 and not dram:
        a = torch.randn(n, generator=torch.Generator().manual_seed(4))
        return a, a.flip(0).contiguous(), torch.zeros(n)
    a, b, c = split(workspace(3 * n * 4), 3, n)
    return a, b, c


def add_overhead(
    sizes: Sequence[int] = LECTURE_SIZES,
    dram_point: bool = True,
    repeats: int = 7,
    block_s: float = 0.01,
    bounds: Bounds | None = None,
) -> OverheadResult:
    """§5.3: time ``torch.add(a, b, out=c)`` for each size (and one DRAM-sized point when ``dram_point``)."""
    torch = require_torch()
    machine = machine_info()
    sizes = [positive_int(f"sizes[{i}]", n) for i, n in enumerate(sizes)]
    repeats = positive_int("repeats", repeats)
    bounds = bounds or make_bounds(machine)
    dram_n = dram_bytes(machine) // 12
    if dram_point and dram_n > max(sizes, default=0):
        sizes.append(dram_n)
    if not sizes:
        raise ValueError("sizes must name at least one size (or dram_point must be True)")
    points = []
    with single_thread():
        for n in sorted(sizes):
            a, b, c = _operands(n, dram=n == dram_n)
            t = time_blocks(functools.partial(torch.add, a, b, out=c), repeats, block_s)
            fig = Figure.from_timing(f"add {n}", t, 12 * n, "byte", "read a and b, write c")
            check_bandwidth(fig, bounds, 12 * n)
            points.append(OverheadPoint(n, fig, 12 * n))
    return OverheadResult(tuple(points), points[0].figure.time_s)


def add_time(n_elements: int = 16, block_s: float = 0.01) -> float:
    """Seconds per call of one round of ``torch.add(a, b, out=c)`` on ``n_elements`` FP32 numbers."""
    torch = require_torch()
    n = positive_int("n_elements", n_elements)
    with single_thread():
        a, b, c = _operands(n)
        return round_seconds(lambda: torch.add(a, b, out=c), block_s)


def accumulate_time(n_elements: int = 16, block_s: float = 0.01) -> float:
    """Seconds per call of one round of ``torch.add(out, x, out=out)`` (``out += x``) on ``n_elements`` FP32
    numbers: the add the measurement tasks hand, whose output counts its runs. Its traffic is the same 12
    bytes an element (x and out read, out written), without the third array."""
    torch = require_torch()
    n = positive_int("n_elements", n_elements)
    with single_thread():
        x, _, out = _operands(n)
        return round_seconds(lambda: torch.add(out, x, out=out), block_s)


__all__ = ["LECTURE_SIZES", "OverheadPoint", "OverheadResult", "accumulate_time", "add_overhead", "add_time"]
