"""m2 (matmul FLOP/s and the roofline) in numpy: ``np.matmul(a, b, out=c)`` on one BLAS thread, timed with
``time.perf_counter`` in blocks; see benchmarks/honest/README.md. The task asks for the FLOP/s of the n x n
FP32 matmul of the torch tensors a, b and c the grader hands in, and, for each m of a sweep, of the handed x's
block of m rows times the handed w into the same rows of the handed y, on one core with the outputs written in
place; it names ``torch.mm`` among its points, numpy's BLAS does the same work, on numpy views of the same
memory (``Tensor.numpy()`` shares it, and a block of rows of a view is a view), so each product lands in the c
or the rows of y handed in."""

import statistics
import time

import numpy as np


def _one_thread():
    """One BLAS thread, as the task prescribes: threadpoolctl where installed (the grader also sets
    OPENBLAS_NUM_THREADS=1, which a plain run of this file would not have)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return None
    return threadpool_limits(limits=1)


def _seconds(run, min_run_time=0.05):
    """Seconds per call of ``run``: one warm-up call, then blocks of as many calls as make a block last at
    least 1 ms, until ``min_run_time`` has passed and five blocks are in; the median block, per call."""
    run()
    number = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            run()
        elapsed = time.perf_counter() - t0
        if elapsed >= 1e-3:
            break
        number *= 10
    blocks, spent = [elapsed / number], elapsed
    while spent < min_run_time or len(blocks) < 5:
        t0 = time.perf_counter()
        for _ in range(number):
            run()
        elapsed = time.perf_counter() - t0
        blocks.append(elapsed / number)
        spent += elapsed
    return statistics.median(blocks)


def matmul_flops(a, b, c):
    _one_thread()
    an, bn, cn = a.numpy(), b.numpy(), c.numpy()  # views: the product is written into c itself
    n = an.shape[0]
    return 2 * n**3 / _seconds(lambda: np.matmul(an, bn, out=cn))


def roofline_sweep(w, x, y, ms):
    _one_thread()
    wn, xn, yn = w.numpy(), x.numpy(), y.numpy()  # views: the products are written into y itself
    rows, cols = wn.shape
    points, at = [], 0
    for m in ms:
        xi, yi = xn[at : at + m], yn[at : at + m]  # point i's row blocks of x and y, views again
        at += m
        flops = 2 * m * rows * cols
        intensity = flops / ((m * rows + rows * cols + m * cols) * 4)
        points.append((intensity, flops / _seconds(lambda xi=xi, yi=yi: np.matmul(xi, wn, out=yi))))
    return points
