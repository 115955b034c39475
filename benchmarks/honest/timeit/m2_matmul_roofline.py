"""m2 (matmul FLOP/s and the roofline), timed with ``timeit``; see benchmarks/honest/README.md. The task: the
FLOP/s of the n x n FP32 matmul of the a, b and c the grader hands in (``torch.mm(a, b, out=c)``), and, for
each m of a sweep, of the handed x's block of m rows times the handed w into the same rows of the handed y
(``torch.mm(xi, w, out=yi)``, the blocks ``x.split(ms)``, ``y.split(ms)``), on one thread with the outputs
written in place."""

import timeit

import torch


def _seconds(stmt, **names):
    """Seconds per run of ``stmt``, as the timeit documentation advises: one warm-up run, as many runs per
    block as ``autorange`` finds make a block of at least 0.2 s, then the best of five blocks (the slower
    ones are other work on the machine, not the statement's cost)."""
    timer = timeit.Timer(stmt, globals=names)
    timer.timeit(number=1)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=5, number=number)) / number


def matmul_flops(a, b, c):
    torch.set_num_threads(1)
    n = a.shape[0]
    return 2 * n**3 / _seconds("torch.mm(a, b, out=c)", torch=torch, a=a, b=b, c=c)


def roofline_sweep(w, x, y, ms):
    torch.set_num_threads(1)
    rows, cols = w.shape
    parts = list(ms)  # point i on the i-th row blocks of x and y (views: the product lands in y)
    points = []
    for m, xi, yi in zip(parts, x.split(parts), y.split(parts), strict=True):
        flops = 2 * m * rows * cols
        intensity = flops / ((m * rows + rows * cols + m * cols) * 4)
        points.append((intensity, flops / _seconds("torch.mm(x, w, out=y)", torch=torch, x=xi, w=w, y=yi)))
    return points
