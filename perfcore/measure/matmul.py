"""Matmul on one core next to the roofline (seed 002 demo 4) and the empirical roofline of §3.5.

- :func:`matmul_sweep`: FP32 ``torch.mm`` of n x n matrices, n = 64 ... 4096, with the roofline's prediction
  from this machine's ceilings; and seed 002's two elementwise ops, ``x*2`` (one pass, intensity 1/8) and
  ``x*2+1``, which eager PyTorch runs as two passes (``x*2`` written out, then read back for ``+1``): its
  intensity is 2/16, not the 2/8 a single pass would give.
- :func:`roofline_sweep`: a fixed W of 4096 x 8192 FP32 (128 MiB) times inputs of m = 1 ... 1024 rows;
  intensity 2mkn / 4(mk + kn + mn), about m/2. Several copies of W are used in turn (4 x LLC in all) so
  that each call reads W from DRAM; the sweep's own ceilings are the best effective bandwidth and the best
  FLOP/s among its points, as the lecture takes them.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..costs import matmul_cost
from ..roofline import attainable_flops
from ..validation import positive_int
from .bandwidth import weight_buffers
from .core import (
    Bounds,
    Figure,
    check_bandwidth,
    check_flops,
    dram_bytes,
    make_bounds,
    round_seconds,
    split,
    time_blocks,
    workspace,
)
from .machine import machine_info
from .rotation import Rotation
from .timing import require_torch, single_thread

LECTURE_SIZES = (64, 128, 256, 512, 1024, 2048, 4096)
ROOFLINE_MS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


@dataclass(frozen=True)
class MatmulPoint:
    """n x n x n FP32 matmul: FLOP/s measured and predicted (None without ceilings)."""

    n: int
    intensity: float  # 2n^3 / (3 n^2 x 4)
    figure: Figure  # FLOP
    predicted_flops: float | None
    fraction_of_prediction: float | None


@dataclass(frozen=True)
class ElementwisePoint:
    """Seed 002's ``x*2`` and ``x*2+1``: FLOP/s, the intensity it writes, and the passes eager torch makes."""

    op: str
    n_elements: int
    flops_per_element: int
    passes: int
    intensity: float  # as seed 002 writes it: FLOP / (4 bytes read + 4 written)
    effective_intensity: float  # FLOP / (bytes of all the passes)
    figure: Figure  # FLOP
    bandwidth: float  # bytes/s, all the passes' traffic counted
    predicted_flops: float | None
    fraction_of_prediction: float | None


@dataclass(frozen=True)
class MatmulResult:
    points: tuple[MatmulPoint, ...]
    elementwise: tuple[ElementwisePoint, ...]
    peak_flops: float | None
    bandwidth_bytes_per_s: float | None
    ceilings_from: str


def _ceilings(ceilings: Any) -> tuple[float | None, float | None, str]:
    if ceilings is None:
        return None, None, "none given: no prediction"
    return (
        ceilings.peak_flops,
        ceilings.bandwidth_bytes_per_s,
        f"{ceilings.peak_path} / {ceilings.bandwidth_path}",
    )


def matmul_sweep(
    sizes: Sequence[int] = LECTURE_SIZES,
    n_elements: int | None = None,
    repeats: int = 3,
    ceilings: Any = None,
    bounds: Bounds | None = None,
) -> MatmulResult:
    """Seed 002 demo 4 on one core: matmul FLOP/s over ``sizes``, and x*2, x*2+1 over ``n_elements``.

    ``ceilings`` (a MachineProfile or Ceilings) gives the predictions; ``n_elements`` defaults to half the
    DRAM working set (input and output together 4 x LLC).
    """
    torch = require_torch()
    machine = machine_info()
    sizes = tuple(positive_int(f"sizes[{i}]", n) for i, n in enumerate(sizes))
    if not sizes:
        raise ValueError("sizes must name at least one matrix side")
    n_el = positive_int("n_elements", n_elements if n_elements is not None else dram_bytes(machine) // 8)
    repeats = positive_int("repeats", repeats)
    bounds = bounds or make_bounds(machine)
    peak, bw, source = _ceilings(ceilings)
    points = []
    with single_thread():
        gen = torch.Generator().manual_seed(0)
        for n in sizes:
            a, b = torch.randn(n, n, generator=gen), torch.randn(n, n, generator=gen)
            c = torch.zeros(n, n)
            t = time_blocks(functools.partial(torch.mm, a, b, out=c), repeats)
            fig = check_flops(Figure.from_timing(f"matmul {n}", t, 2 * n**3, "FLOP", "2 n^3"), bounds)
            cost = matmul_cost(n, n, n, bytes_per=4)
            pred = attainable_flops(cost.intensity, peak, bw) if peak and bw else None
            points.append(MatmulPoint(n, float(cost.intensity), fig, pred, fig.rate / pred if pred else None))
        x, y = split(workspace(2 * n_el * 4), 2, n_el)
        ops = {
            "x*2": (1, 1, lambda: torch.mul(x, 2.0, out=y)),
            "x*2+1": (2, 2, lambda: torch.add(torch.mul(x, 2.0, out=y), 1.0, out=y)),
        }
        elementwise = []
        for name, (flops, passes, fn) in ops.items():
            t = time_blocks(fn, repeats)
            fig = check_flops(
                Figure.from_timing(name, t, flops * n_el, "FLOP", f"{flops} FLOP per element"), bounds
            )
            traffic = passes * 8 * n_el
            check_bandwidth(Figure.from_timing(name, t, traffic, "byte"), bounds, 2 * n_el * 4)
            intensity = flops / 8
            pred = attainable_flops(intensity, peak, bw) if peak and bw else None
            elementwise.append(
                ElementwisePoint(
                    op=name,
                    n_elements=n_el,
                    flops_per_element=flops,
                    passes=passes,
                    intensity=intensity,
                    effective_intensity=flops / (8 * passes),
                    figure=fig,
                    bandwidth=traffic / t.median_s,
                    predicted_flops=pred,
                    fraction_of_prediction=fig.rate / pred if pred else None,
                )
            )
    return MatmulResult(tuple(points), tuple(elementwise), peak, bw, source)


def _mm_into(x: Any, weights: list[Any], ys: list[Any], i: int) -> Any:
    """X @ W_i into Y_i: the sweep's call on the i-th weight."""
    import torch

    return torch.mm(x, weights[i], out=ys[i])


def _np_mm_into(x: Any, weights: list[Any], ys: list[Any], i: int) -> Any:
    """The same call with numpy's BLAS, on numpy views of the same arrays."""
    import numpy as np

    return np.matmul(x, weights[i], out=ys[i])


@dataclass(frozen=True)
class RooflinePoint:
    m: int
    intensity: float  # FLOP / byte, 2mkn / 4(mk + kn + mn)
    figure: Figure  # FLOP
    bandwidth: float  # effective bytes/s: (mk + kn + mn) x 4 / median time


@dataclass(frozen=True)
class RooflineSweep:
    """§3.5: X[m, k] @ W[k, n] for each m, W fixed, and the two ceilings read off the sweep."""

    k: int
    n: int
    w_bytes: int
    w_buffers: int
    working_set_bytes: int
    points: tuple[RooflinePoint, ...]
    bandwidth_ceiling: float  # best effective bandwidth among the points
    bandwidth_at_m: int
    compute_ceiling: float  # best FLOP/s among the points
    compute_at_m: int
    profile_ridge: float | None
    _derived = ("ridge",)

    @property
    def ridge(self) -> float:
        """This machine's ridge from the sweep's own two ceilings (FLOP/byte)."""
        return self.compute_ceiling / self.bandwidth_ceiling


def roofline_sweep(
    ms: Sequence[int] = ROOFLINE_MS,
    k: int = 4096,
    n: int = 8192,
    n_bytes: int | None = None,
    repeats: int = 3,
    ceilings: Any = None,
    bounds: Bounds | None = None,
    path: str = "torch",
) -> RooflineSweep:
    """§3.5 on one core: W of k x n FP32 fixed, m from 1 to 1024; ``n_bytes`` of weights used in turn.
    ``path``: torch's matmul, or numpy's (its own BLAS: an honest student's other library, whose skinny
    products run at 0.4-0.5x torch's at m of 2-8 on one Xeon and 1.3-1.7x on one EPYC)."""
    torch = require_torch()
    if path not in ("torch", "numpy"):
        raise ValueError(f"path must be 'torch' or 'numpy', got {path!r}")
    machine = machine_info()
    ms = tuple(positive_int(f"ms[{i}]", m) for i, m in enumerate(ms))
    if not ms:
        raise ValueError("ms must name at least one row count")
    k, n = positive_int("k", k), positive_int("n", n)
    repeats = positive_int("repeats", repeats)
    bounds = bounds or make_bounds(machine)
    points = []
    with single_thread():
        weights = weight_buffers(k, n, n_bytes)
        working_set = len(weights) * k * n * 4
        gen = torch.Generator().manual_seed(2)
        for m in ms:
            x = torch.randn(m, k, generator=gen)
            ys = [torch.zeros(m, n) for _ in weights]
            if path == "numpy":
                into = functools.partial(
                    _np_mm_into, x.numpy(), [w.numpy() for w in weights], [y.numpy() for y in ys]
                )
            else:
                into = functools.partial(_mm_into, x, weights, ys)
            call = Rotation(into, len(weights))
            t = time_blocks(call, repeats)
            flops, nbytes = 2 * m * k * n, (m * k + k * n + m * n) * 4
            fig = check_flops(Figure.from_timing(f"X[{m}] @ W", t, flops, "FLOP", "2 m k n"), bounds)
            bw_fig = Figure.from_timing(f"X[{m}] @ W", t, nbytes, "byte", "X + W + Y")
            check_bandwidth(bw_fig, bounds, working_set)
            points.append(RooflinePoint(m, flops / nbytes, fig, bw_fig.rate))
    best_bw = max(points, key=lambda p: p.bandwidth)
    best_fl = max(points, key=lambda p: p.figure.rate)
    return RooflineSweep(
        k=k,
        n=n,
        w_bytes=k * n * 4,
        w_buffers=len(weights),
        working_set_bytes=working_set,
        points=tuple(points),
        bandwidth_ceiling=best_bw.bandwidth,
        bandwidth_at_m=best_bw.m,
        compute_ceiling=best_fl.figure.rate,
        compute_at_m=best_fl.m,
        profile_ridge=ceilings.ridge if ceilings is not None else None,
    )


# --------------------------------------------------------------------------------------------------------
# single-shot reference measurements
# --------------------------------------------------------------------------------------------------------

_MATMUL_INPUTS: dict[tuple[int, str], Any] = {}


def matmul_flops(n: int = 4096, path: str = "torch", block_s: float = 0.01) -> float:
    """FLOP/s (2n^3 per call) of one round of an FP32 n x n matmul on one core; path torch or numpy."""
    torch = require_torch()
    import numpy as np

    n = positive_int("n", n)
    if path not in ("torch", "numpy"):
        raise ValueError(f"path must be 'torch' or 'numpy', got {path!r}")
    key = (n, path)
    if key not in _MATMUL_INPUTS:
        _MATMUL_INPUTS.clear()  # keep one set: a 4096 set is 192 MiB
        gen = torch.Generator().manual_seed(0)
        _MATMUL_INPUTS[key] = (
            torch.randn(n, n, generator=gen),
            torch.randn(n, n, generator=gen),
            torch.zeros(n, n),
        )
    a, b, c = _MATMUL_INPUTS[key]
    with single_thread():
        if path == "torch":
            seconds = round_seconds(lambda: torch.mm(a, b, out=c), block_s)
        else:
            an, bn, cn = a.numpy(), b.numpy(), c.numpy()
            seconds = round_seconds(lambda: np.matmul(an, bn, out=cn), block_s)
    return 2 * n**3 / seconds


def weight_matmul_flops(m: int, k: int = 4096, n: int = 8192, block_s: float = 0.01) -> float:
    """FLOP/s (2mkn) of one round of X[m, k] @ W[k, n], W read from DRAM (the §3.5 sweep's point)."""
    torch = require_torch()
    m, k, n = positive_int("m", m), positive_int("k", k), positive_int("n", n)
    with single_thread():
        weights = weight_buffers(k, n)
        x = torch.ones(m, k)
        ys = [torch.zeros(m, n) for _ in weights]
        seconds = round_seconds(Rotation(lambda i: torch.mm(x, weights[i], out=ys[i]), len(weights)), block_s)
    return 2 * m * k * n / seconds


def elementwise_flops(op: str = "x*2", n_elements: int | None = None, block_s: float = 0.01) -> float:
    """FLOP/s of one round of seed 002's ``x*2`` (1 FLOP/element) or ``x*2+1`` (2, in two passes)."""
    torch = require_torch()
    if op not in ("x*2", "x*2+1"):
        raise ValueError(f"op must be 'x*2' or 'x*2+1', got {op!r}")
    n = positive_int("n_elements", n_elements if n_elements is not None else dram_bytes() // 8)
    with single_thread():
        x, y = split(workspace(2 * n * 4), 2, n)
        if op == "x*2":
            seconds = round_seconds(lambda: torch.mul(x, 2.0, out=y), block_s)
            return n / seconds
        seconds = round_seconds(lambda: torch.add(torch.mul(x, 2.0, out=y), 1.0, out=y), block_s)
    return 2 * n / seconds


__all__ = [
    "ElementwisePoint",
    "MatmulPoint",
    "MatmulResult",
    "RooflinePoint",
    "RooflineSweep",
    "elementwise_flops",
    "matmul_flops",
    "matmul_sweep",
    "roofline_sweep",
    "weight_matmul_flops",
]
