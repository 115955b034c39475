"""Tiling (§4): HBM traffic of a tiled matmul, the largest tile an SRAM holds, and what tiling does to
rounding.

The closed form and the block-by-block counter are two independent computations of the same traffic;
the tests hold them equal for every n and T.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .validation import positive_int, positive_number


class Traffic(NamedTuple):
    """HBM traffic of an n x n x n matmul tiled T x T."""

    n: int
    tile: int
    elements: int  # numbers moved between HBM and SRAM
    bytes: float
    flops: int

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes


def tiled_matmul_traffic(n: int, tile: int, bytes_per: float = 2) -> Traffic:
    """Closed form: each of the ceil(n/T)^2 output tiles loads a T x T tile of A and of B for each of the
    ceil(n/T) steps along k, and writes itself once: 2 n^2 ceil(n/T) + n^2 numbers (= 2n^3/T + n^2 when T
    divides n). T = 1 is the naive triple loop that reads every A[i,k] and B[k,j] for every product."""
    n = positive_int("n", n)
    tile = positive_int("tile", tile)
    bytes_per = positive_number("bytes_per", bytes_per)
    elements = 2 * n * n * math.ceil(n / tile) + n * n
    return Traffic(n, tile, elements, elements * bytes_per, 2 * n**3)


def count_tiled_matmul_traffic(n: int, tile: int, bytes_per: float = 2) -> Traffic:
    """The same traffic counted block by block, as 03 part 1 does: loop over output tiles and k-steps and
    add up the sizes of the tiles actually loaded (edge tiles are smaller)."""
    n = positive_int("n", n)
    tile = positive_int("tile", tile)
    bytes_per = positive_number("bytes_per", bytes_per)
    edges = [min(tile, n - start) for start in range(0, n, tile)]  # tile sizes along one dimension
    loaded = 0
    for rows in edges:  # output tile row extent
        for cols in edges:  # output tile column extent
            for depth in edges:  # one step along k
                loaded += rows * depth  # tile of A
                loaded += depth * cols  # tile of B
            loaded += rows * cols  # write the output tile once
    return Traffic(n, tile, loaded, loaded * bytes_per, 2 * n**3)


def max_square_tile(sram_bytes: float, bytes_per: float = 2, n_tiles: int = 3) -> int:
    """The largest T such that ``n_tiles`` T x T tiles fit in ``sram_bytes``: H100's 228 KiB -> 197 (BF16)."""
    sram_bytes = positive_number("sram_bytes", sram_bytes)
    bytes_per = positive_number("bytes_per", bytes_per)
    n_tiles = positive_int("n_tiles", n_tiles)
    tile = math.isqrt(int(sram_bytes // (n_tiles * bytes_per)))
    while n_tiles * (tile + 1) ** 2 * bytes_per <= sram_bytes:  # guard against the floor above
        tile += 1
    if tile < 1:
        raise ValueError(
            f"sram_bytes={sram_bytes} cannot hold {n_tiles} tiles of even 1 x 1 at bytes_per={bytes_per}"
        )
    return tile


def tiled_intensity(tile: int, bytes_per: float = 2) -> float:
    """Approximate intensity of a large tiled matmul: 2n^3 / (2n^3/T x bytes_per) = T / bytes_per."""
    return positive_int("tile", tile) / positive_number("bytes_per", bytes_per)


# --------------------------------------------------------------------------------------------------------
# §4.3 numerics
# --------------------------------------------------------------------------------------------------------


def tiled_matmul(a: np.ndarray, b: np.ndarray, tile: int) -> np.ndarray:
    """C = A @ B computed tile by tile, accumulating the k-steps in the inputs' dtype as a kernel would."""
    tile = positive_int("tile", tile)
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(
            f"a and b must be matrices with a.shape[1] == b.shape[0], got {a.shape} and {b.shape}"
        )
    m, k = a.shape
    n = b.shape[1]
    dtype = np.result_type(a, b)
    c = np.zeros((m, n), dtype=dtype)
    for i in range(0, m, tile):
        for j in range(0, n, tile):
            acc = np.zeros((min(tile, m - i), min(tile, n - j)), dtype=dtype)
            for p in range(0, k, tile):
                acc += a[i : i + tile, p : p + tile] @ b[p : p + tile, j : j + tile]
            c[i : i + tile, j : j + tile] = acc
    return c


class TilingNumerics(NamedTuple):
    """Max absolute differences: tiled vs direct, and each against the exact product."""

    dtype: str
    n: int
    tile: int
    tiled_vs_direct: float
    tiled_error: float
    direct_error: float


def tiling_numerics(n: int = 256, tile: int = 64, dtype: str = "float32", seed: int = 0) -> TilingNumerics:
    """03 part 2: tiling changes only the order of additions, so only the rounding.

    The exact reference is ``exact_matmul`` of the same inputs.
    """
    n = positive_int("n", n)
    tile = positive_int("tile", tile)
    if dtype not in ("float32", "float64"):
        raise ValueError(f"dtype must be 'float32' or 'float64', got {dtype!r}")
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n)).astype(dtype)
    b = rng.standard_normal((n, n)).astype(dtype)
    direct = a @ b
    tiled = tiled_matmul(a, b, tile)
    exact = exact_matmul(a, b)
    return TilingNumerics(
        dtype=dtype,
        n=n,
        tile=tile,
        tiled_vs_direct=float(np.max(np.abs(tiled.astype(np.float64) - direct))),
        tiled_error=float(np.max(np.abs(tiled - exact))),
        direct_error=float(np.max(np.abs(direct - exact))),
    )


def exact_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A @ B far more precisely than the inputs' own dtype can hold.

    float32 inputs: float64 arithmetic (each product of two float32 numbers is exact in float64, and the
    sum's rounding, ~1e-16 relative, is eight orders below float32's). float64 inputs: np.longdouble
    where it is wider than float64 (x86: 64-bit mantissa), else error-free products summed with math.fsum.
    """
    if a.dtype == np.float32 and b.dtype == np.float32:
        return a.astype(np.float64) @ b.astype(np.float64)
    if np.finfo(np.longdouble).eps < np.finfo(np.float64).eps:
        return (a.astype(np.longdouble) @ b.astype(np.longdouble)).astype(np.float64)
    a64 = a.astype(np.float64)
    b64 = b.astype(np.float64)
    out = np.empty((a.shape[0], b.shape[1]))
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            out[i, j] = math.fsum(_two_products(a64[i, :], b64[:, j]))
    return out


def _two_products(x: np.ndarray, y: np.ndarray) -> list[float]:
    """Error-free products: x*y = p + e exactly (Dekker's split), returned as the list [p..., e...]."""
    split = 134217729.0  # 2**27 + 1
    p = x * y

    def halves(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t = split * v
        hi = t - (t - v)
        return hi, v - hi

    xh, xl = halves(x)
    yh, yl = halves(y)
    e = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl
    return list(p) + list(e)
