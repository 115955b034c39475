"""m3 (a tiled transpose), timed with a plain ``time.process_time`` loop: the CPU time of the whole process,
which is the call's time because its work runs on one thread and nothing else of the process runs meanwhile;
see benchmarks/honest/README.md. The solution's own timing (one warm-up, the median of five single transposes)
with ``time.process_time`` for ``time.perf_counter``. The task: the seconds of transposing the n x n FP32
array src the grader hands in into its dst, naively (``np.copyto(dst, src.T)``) or tile by tile in a Python
loop; and naive time / tiled time, both on src -> dst."""

import time

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


def transpose_time(src, dst, tile, method):
    if method == "naive":
        run = lambda: np.copyto(dst, src.T)  # noqa: E731
    else:
        run = lambda: _tiled_into(src, dst, tile)  # noqa: E731
    run()  # warm up, touch dst
    times = []
    for _ in range(5):
        t0 = time.process_time()
        run()
        times.append(time.process_time() - t0)
    return float(np.median(times))


def transpose_speedup(src, dst, tile):
    return transpose_time(src, dst, tile, "naive") / transpose_time(src, dst, tile, "tiled")
