"""m5 (fixed overhead), timed with ``timeit``; see benchmarks/honest/README.md. The task: the seconds of one
``torch.add(out, x, out=out)`` (``out += x``) on the x and out the grader hands in (out handed all zeros; every
run adds x into it, the warm-up too, and the grader counts them from it: out is left holding r * x after r
runs), microsecond calls timed in batches; and the curve of them over the sizes given, point i on the i-th
pieces of x and out (``x.split(sizes)``, ``out.split(sizes)``)."""

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


def add_time(x, out):
    torch.set_num_threads(1)
    return _seconds("torch.add(out, x, out=out)", torch=torch, x=x, out=out)


def overhead_curve(x, out, sizes):
    parts = list(sizes)  # point i on the i-th pieces of x and out
    return [(n, add_time(xi, oi)) for n, xi, oi in zip(parts, x.split(parts), out.split(parts), strict=True)]
