"""Tiled vs direct matmul numerics (§4.3) with real arrays, in torch.

Tiling changes only the order of the additions, hence only the rounding: the tiled product (T x T tiles,
k-steps accumulated in the inputs' dtype, as a kernel does) and torch's direct ``mm`` differ at rounding
level (FP64 about 1e-13, FP32 about 1e-5 for n = 256), and each is about as far from the exact product as
the other. The exact reference is perfcore.tiling.exact_matmul (float64 for FP32 inputs, extended
precision or error-free sums for FP64 ones).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..tiling import exact_matmul
from ..validation import choice, positive_int
from .timing import require_torch, single_thread


@dataclass(frozen=True)
class NumericsRow:
    dtype: str
    n: int
    tile: int
    tiled_vs_direct: float  # max |tiled - direct|
    tiled_error: float  # max |tiled - exact|
    direct_error: float  # max |direct - exact|


def tiled_mm(a: Any, b: Any, tile: int) -> Any:
    """A @ B tile by tile in torch, accumulating the k-steps in the inputs' dtype."""
    torch = require_torch()
    m, k = a.shape
    n = b.shape[1]
    c = torch.zeros(m, n, dtype=a.dtype)
    for i in range(0, m, tile):
        for j in range(0, n, tile):
            acc = torch.zeros(min(tile, m - i), min(tile, n - j), dtype=a.dtype)
            for p in range(0, k, tile):
                acc += a[i : i + tile, p : p + tile] @ b[p : p + tile, j : j + tile]
            c[i : i + tile, j : j + tile] = acc
    return c


def tiling_numerics_measured(
    n: int = 256, tile: int = 64, dtypes: Sequence[str] = ("float32", "float64"), seed: int = 0
) -> tuple[NumericsRow, ...]:
    """§4.3 with torch arrays: for each dtype, tiled vs direct vs exact (max absolute differences)."""
    torch = require_torch()
    n = positive_int("n", n)
    tile = positive_int("tile", tile)
    rows = []
    with single_thread():
        for dtype in dtypes:
            choice("dtype", dtype, ("float32", "float64"))
            gen = torch.Generator().manual_seed(seed)
            a = torch.randn(n, n, generator=gen, dtype=torch.float64).to(getattr(torch, dtype))
            b = torch.randn(n, n, generator=gen, dtype=torch.float64).to(getattr(torch, dtype))
            direct = torch.mm(a, b)
            tiled = tiled_mm(a, b, tile)
            exact = torch.from_numpy(exact_matmul(a.numpy(), b.numpy()).astype("float64"))
            rows.append(
                NumericsRow(
                    dtype=dtype,
                    n=n,
                    tile=tile,
                    tiled_vs_direct=float((tiled.double() - direct.double()).abs().max()),
                    tiled_error=float((tiled.double() - exact).abs().max()),
                    direct_error=float((direct.double() - exact).abs().max()),
                )
            )
    return tuple(rows)


__all__ = ["NumericsRow", "tiled_mm", "tiling_numerics_measured"]
