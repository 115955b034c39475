"""m5 (fixed overhead), timed with ``timeit``; see benchmarks/honest/README.md. The task: the seconds of one
``torch.add(a, b, out=c)`` with a, b and c preallocated, microsecond calls timed in batches; and the curve
of them over the sizes given."""

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


def add_time(n_elements):
    torch.set_num_threads(1)
    a, b, c = torch.ones(n_elements), torch.ones(n_elements), torch.empty(n_elements)
    return _seconds("torch.add(a, b, out=c)", torch=torch, a=a, b=b, c=c)


def overhead_curve(sizes):
    return [(n, add_time(n)) for n in sizes]
