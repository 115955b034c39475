"""Transposing a 4096 x 4096 FP32 matrix on one core (§4.4): naive, tiled with a Python loop, a plain copy.

A transpose moves exactly the bytes a copy moves, yet the naive one reads a row-major matrix down its
columns: every number it reads costs a whole cache line of which it uses 4 bytes. The tiled one copies
T x T tiles (T = 64: source and destination tile, 32 KiB, sit in L1), so each line it brings in is used
whole, even with the Python loop's overhead per tile. numpy does the copying (as the lecture's script);
torch's own ``copy_`` of a transposed view is shown beside them as what a library does.

The matrices are taken from the shared DRAM workspace: as many source/destination pairs as fill 4 x the
last-level cache, used in turn, so each call reads from and writes to DRAM. Every method is checked exact.

The measurement task (m3b, m3c) times runs that add the transpose into dst instead (``add``: ``dst +=
src.T``, naive or tiled), so that its output counts them; :func:`transpose_time` times those for the grader.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..validation import choice, positive_int
from .core import (
    Bounds,
    Figure,
    MeasurementError,
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

METHODS = ("naive", "tiled", "copy", "torch")
#: The methods that can add the transpose into dst (:func:`transpose_fn`'s ``add``).
ADDING = ("naive", "tiled")
DESCRIPTIONS = {
    "naive": "np.copyto(dst, src.T): reads src down its columns",
    "tiled": "Python loop over T x T tiles, each tile copied transposed",
    "copy": "np.copyto(dst, src): the same bytes, in order",
    "torch": "dst.copy_(src.t()): torch's own transposed copy",
}


def transpose_fn(method: str, src: Any, dst: Any, tile: int = 64, add: bool = False) -> Callable[[], Any]:
    """The call that transposes (or, for "copy", copies) numpy matrix ``src`` into ``dst``. ``add``: the call
    adds the transpose into ``dst`` instead (``dst += src.T``; "naive" and "tiled" only), the run the
    measurement task hands, whose output counts its runs: the same strided or tiled reads of ``src``, and
    ``dst`` read besides."""
    import numpy as np

    choice("method", method, METHODS if not add else ADDING)
    if method == "naive":
        return (lambda: np.add(dst, src.T, out=dst)) if add else (lambda: np.copyto(dst, src.T))
    if method == "copy":
        return lambda: np.copyto(dst, src)
    if method == "torch":
        import torch

        s, d = torch.from_numpy(src), torch.from_numpy(dst)
        return lambda: d.copy_(s.t())
    tile = positive_int("tile", tile)
    rows, cols = src.shape

    def tiled() -> None:
        for i in range(0, rows, tile):
            for j in range(0, cols, tile):
                dst[j : j + tile, i : i + tile] = src[i : i + tile, j : j + tile].T

    def tiled_add() -> None:
        for i in range(0, rows, tile):
            for j in range(0, cols, tile):
                block = dst[j : j + tile, i : i + tile]
                block += src[i : i + tile, j : j + tile].T

    return tiled_add if add else tiled


@dataclass(frozen=True)
class TransposeResult:
    """Seconds per n x n transpose and the effective bandwidth (read + write, 2 n^2 x 4 bytes)."""

    n: int
    tile: int
    pairs: int
    working_set_bytes: int
    figures: dict[str, Figure]  # method -> figure (work in bytes: read + write)
    exact: dict[str, bool]
    descriptions: dict[str, str]
    _derived = ("slowdown_vs_copy", "tiled_speedup")

    @property
    def slowdown_vs_copy(self) -> dict[str, float]:
        copy = self.figures["copy"].time_s
        return {m: f.time_s / copy for m, f in self.figures.items()}

    @property
    def tiled_speedup(self) -> float:
        """naive time / tiled time (the lecture saw 2.7x)."""
        return self.figures["naive"].time_s / self.figures["tiled"].time_s


class _Pairs:
    def __init__(self, method: str, pairs: list[tuple[Any, Any]], tile: int, add: bool = False) -> None:
        self.calls = [transpose_fn(method, s, d, tile, add) for s, d in pairs]
        self.i = 0

    def __call__(self) -> Any:
        self.i = (self.i + 1) % len(self.calls)
        return self.calls[self.i]()


def _pairs(n: int, n_bytes: int | None) -> list[tuple[Any, Any]]:
    count = max(1, (n_bytes if n_bytes is not None else dram_bytes()) // (2 * n * n * 4))
    flat = workspace(2 * count * n * n * 4)
    views = [v.numpy().reshape(n, n) for v in split(flat, 2 * count, n * n)]
    return [(views[i], views[count + i]) for i in range(count)]


def transpose_experiment(
    n: int = 4096,
    tile: int = 64,
    methods: tuple[str, ...] = METHODS,
    repeats: int = 5,
    n_bytes: int | None = None,
    bounds: Bounds | None = None,
) -> TransposeResult:
    """§4.4: time each of ``methods`` on n x n FP32 matrices, and check that each transposes exactly."""
    import numpy as np

    require_torch()
    n = positive_int("n", n)
    tile = positive_int("tile", tile)
    repeats = positive_int("repeats", repeats)
    methods = tuple(choice("methods", m, METHODS) for m in methods)
    for needed in ("naive", "tiled", "copy"):
        if needed not in methods:
            methods = (*methods, needed)
    bounds = bounds or make_bounds(machine_info())
    figures: dict[str, Figure] = {}
    exact: dict[str, bool] = {}
    with single_thread():
        pairs = _pairs(n, n_bytes)
        working_set = len(pairs) * 2 * n * n * 4
        for method in methods:
            t = time_blocks(_Pairs(method, pairs, tile), repeats)
            fig = Figure.from_timing(method, t, 2 * n * n * 4, "byte", "read + write of the matrix")
            figures[method] = check_bandwidth(fig, bounds, working_set)
            src, dst = pairs[0]
            dst.fill(0.0)
            transpose_fn(method, src, dst, tile)()
            exact[method] = bool(np.array_equal(dst, src if method == "copy" else src.T))
    if not all(exact.values()):
        wrong = [m for m, ok in exact.items() if not ok]
        raise MeasurementError(f"transpose methods {wrong} did not produce the exact result")
    return TransposeResult(
        n=n,
        tile=tile,
        pairs=len(pairs),
        working_set_bytes=working_set,
        figures=figures,
        exact=exact,
        descriptions={m: DESCRIPTIONS[m] for m in methods},
    )


def transpose_time(
    n: int = 4096,
    method: str = "naive",
    tile: int = 64,
    block_s: float = 0.01,
    pairs: int | None = None,
    add: bool = False,
) -> float:
    """Seconds per call of one round of ``method`` ("naive", "tiled", "copy", "torch") on n x n FP32.

    ``pairs``: how many (src, dst) pairs the calls take in turn; by default enough to fill a DRAM working
    set, so that each call reads from DRAM. ``pairs=1`` reuses one pair allocated apart, as a student's
    function does (its data in cache wherever it fits): src and dst cut from one buffer lie a power of two
    apart for a power-of-two n, and their lines then contend for the same cache sets (at n = 512 the naive
    transpose ran 2.2x slower so than on two arrays of its own, on a 2-vCPU EPYC). ``add``: each call adds
    the transpose into dst (:func:`transpose_fn`), as the measurement task's runs do."""
    import numpy as np

    require_torch()
    n = positive_int("n", n)
    choice("method", method, METHODS if not add else ADDING)
    if pairs is not None and positive_int("pairs", pairs) == 1:
        src = np.random.default_rng(0).random((n, n), dtype=np.float32)  # only its pages matter
        dst = np.zeros_like(src)  # zeros: its pages touched before any timing
        chosen = [(src, dst)]
    else:
        chosen = _pairs(n, None if pairs is None else pairs * 2 * n * n * 4)
    with single_thread():
        return round_seconds(_Pairs(method, chosen, tile, add), block_s)


__all__ = ["METHODS", "TransposeResult", "transpose_experiment", "transpose_fn", "transpose_time"]
