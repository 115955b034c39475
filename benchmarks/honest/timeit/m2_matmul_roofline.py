"""m2 (matmul FLOP/s and the roofline), timed with ``timeit``; see benchmarks/honest/README.md. The task:
the FLOP/s of the n x n FP32 matmul of the a, b and c the grader hands in (``torch.mm(a, b, out=c)``), and
of X @ W for each m of a sweep, on one thread with preallocated outputs."""

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


def roofline_sweep(rows, cols, ms):
    torch.set_num_threads(1)
    w = torch.randn(rows, cols)
    points = []
    for m in ms:
        x, y = torch.randn(m, rows), torch.empty(m, cols)
        flops = 2 * m * rows * cols
        intensity = flops / ((m * rows + rows * cols + m * cols) * 4)
        points.append((intensity, flops / _seconds("torch.mm(x, w, out=y)", torch=torch, x=x, w=w, y=y)))
    return points
