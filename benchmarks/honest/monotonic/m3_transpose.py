"""m3 (a tiled transpose), timed with a plain ``time.monotonic`` loop (the clock ``time.sleep`` and timeouts
use); see benchmarks/honest/README.md. The solution's own timing (one warm-up, the median of five single runs)
with ``time.monotonic`` for ``time.perf_counter``. The task: the seconds of one run adding the transpose of
the n x n FP32 array src the grader hands in into its dst (dst handed all zeros, src powers of two; every run
adds src.T into dst, the warm-up too, and the grader counts them from it: dst is left holding r * src.T after
r runs), naively (``np.add(dst, src.T, out=dst)``, that is ``dst += src.T``) or tile by tile in a Python loop
(each block's transpose added into its place in dst); and naive time / tiled time, both adding into the same
dst."""

import time

import numpy as np


def _tiled_into(src, dst, tile):
    n, m = src.shape
    for i in range(0, n, tile):
        for j in range(0, m, tile):
            dst[j : j + tile, i : i + tile] = src[i : i + tile, j : j + tile].T


def _tiled_add(src, dst, tile):
    n, m = src.shape
    for i in range(0, n, tile):
        for j in range(0, m, tile):
            block = dst[j : j + tile, i : i + tile]
            block += src[i : i + tile, j : j + tile].T


def tiled_transpose(x, tile):
    out = np.empty((x.shape[1], x.shape[0]), dtype=x.dtype)
    _tiled_into(x, out, tile)
    return out


def transpose_time(src, dst, tile, method):
    if method == "naive":
        run = lambda: np.add(dst, src.T, out=dst)  # noqa: E731
    else:
        run = lambda: _tiled_add(src, dst, tile)  # noqa: E731
    run()  # warm up: a run too, each adds src.T into dst (r runs leave r * src.T there)
    times = []
    for _ in range(5):
        t0 = time.monotonic()
        run()
        times.append(time.monotonic() - t0)
    return float(np.median(times))


def transpose_speedup(src, dst, tile):
    return transpose_time(src, dst, tile, "naive") / transpose_time(src, dst, tile, "tiled")
