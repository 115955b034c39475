"""Exercise 10 (measure it yourself), timed with ``timeit``; see benchmarks/honest/README.md. The task: the
effective bandwidth of ``torch.mv(W, x, out=y)`` (W FP32 rows x cols) on one thread, W, x and y
preallocated, (bytes of W + x + y) / time. Only the measured function."""

import timeit


def _seconds(stmt, **names):
    """Seconds per run of ``stmt``, as the timeit documentation advises: one warm-up run, as many runs per
    block as ``autorange`` finds make a block of at least 0.2 s, then the best of five blocks (the slower
    ones are other work on the machine, not the statement's cost)."""
    timer = timeit.Timer(stmt, globals=names)
    timer.timeit(number=1)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=5, number=number)) / number


def matvec_bandwidth(rows, cols):
    import torch

    torch.set_num_threads(1)
    w = torch.randn(rows, cols)
    x = torch.randn(cols)
    y = torch.empty(rows)
    torch.mv(w, x, out=y)  # touch every page before the timing
    return (rows * cols + cols + rows) * 4 / _seconds("torch.mv(w, x, out=y)", torch=torch, w=w, x=x, y=y)
