"""m5 (fixed overhead), timed with ``timeit``; see benchmarks/honest/README.md. The task: the seconds of one
``torch.add(a, b, out=c)`` on the a, b and c the grader hands in (c left holding their sum: every timed run
writes into it), microsecond calls timed in batches; and the curve of them over the sizes given, point i on
the i-th pieces of a, b and c (``a.split(sizes)``, ...)."""

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


def add_time(a, b, c):
    torch.set_num_threads(1)
    return _seconds("torch.add(a, b, out=c)", torch=torch, a=a, b=b, c=c)


def overhead_curve(a, b, c, sizes):
    parts = list(sizes)  # point i on the i-th pieces of a, b and c
    return [
        (n, add_time(ai, bi, ci))
        for n, ai, bi, ci in zip(parts, a.split(parts), b.split(parts), c.split(parts), strict=True)
    ]
