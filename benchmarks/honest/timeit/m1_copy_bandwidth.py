"""m1 (memory bandwidth of one core), timed with ``timeit``; see benchmarks/honest/README.md. The task: copy
the FP32 tensor src the grader hands in into dst, allocated apart, with ``dst.copy_(src)`` on one thread, and
return 2 x src.nbytes / time."""

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


def copy_bandwidth(src, dst):
    torch.set_num_threads(1)
    dst.copy_(src)  # touch the output: page faults happen here, not in the timing
    return 2 * src.nbytes / _seconds("dst.copy_(src)", dst=dst, src=src)
