"""m3 (a tiled transpose), timed with ``timeit``; see benchmarks/honest/README.md. The task: the seconds of
one run adding the transpose of the n x n FP32 array src the grader hands in into its dst (dst handed all
zeros, src powers of two; every run adds src.T into dst, the warm-up too, and the grader counts them from it:
dst is left holding r * src.T after r runs), naively (``np.add(dst, src.T, out=dst)``, that is
``dst += src.T``) or tile by tile in a Python loop (each block's transpose added into its place in dst); and
naive time / tiled time, both adding into the same dst."""

import timeit

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


def _seconds(stmt, **names):
    """Seconds per run of ``stmt``, as the timeit documentation advises: one warm-up run, as many runs per
    block as ``autorange`` finds make a block of at least 0.2 s, then the best of five blocks (the slower
    ones are other work on the machine, not the statement's cost)."""
    timer = timeit.Timer(stmt, globals=names)
    timer.timeit(number=1)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=5, number=number)) / number


def transpose_time(src, dst, tile, method):
    if method == "naive":
        return _seconds("np.add(dst, src.T, out=dst)", np=np, dst=dst, src=src)
    return _seconds("tiled(src, dst, tile)", tiled=_tiled_add, src=src, dst=dst, tile=tile)


def transpose_speedup(src, dst, tile):
    return transpose_time(src, dst, tile, "naive") / transpose_time(src, dst, tile, "tiled")
