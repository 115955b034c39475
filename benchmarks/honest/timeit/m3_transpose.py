"""m3 (a tiled transpose), timed with ``timeit``; see benchmarks/honest/README.md. The task: the seconds of
transposing the n x n FP32 array src the grader hands in into its dst, naively (``np.copyto(dst, src.T)``)
or tile by tile in a Python loop; and naive time / tiled time, both on src -> dst."""

import timeit

import numpy as np


def _tiled_into(src, dst, tile):
    n, m = src.shape
    for i in range(0, n, tile):
        for j in range(0, m, tile):
            dst[j : j + tile, i : i + tile] = src[i : i + tile, j : j + tile].T


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
        return _seconds("np.copyto(dst, src.T)", np=np, dst=dst, src=src)
    return _seconds("tiled(src, dst, tile)", tiled=_tiled_into, src=src, dst=dst, tile=tile)


def transpose_speedup(src, dst, tile):
    return transpose_time(src, dst, tile, "naive") / transpose_time(src, dst, tile, "tiled")
