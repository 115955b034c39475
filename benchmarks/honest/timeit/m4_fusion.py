"""m4 (fusion helps memory-bound ops only), timed with ``timeit``; see benchmarks/honest/README.md. The
task: the seconds of k multiplications of the FP32 tensor x the grader hands in by c = 1.01 into y, as k
passes (``torch.mul(x, c, out=y)`` then k - 1 ``y.mul_(c)``) or one (``torch.mul(x, c**k, out=y)``), one
thread. Only the measured function."""

import timeit

import torch

C = 1.01


def _seconds(stmt, **names):
    """Seconds per run of ``stmt``, as the timeit documentation advises: one warm-up run, as many runs per
    block as ``autorange`` finds make a block of at least 0.2 s, then the best of five blocks (the slower
    ones are other work on the machine, not the statement's cost)."""
    timer = timeit.Timer(stmt, globals=names)
    timer.timeit(number=1)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=5, number=number)) / number


def scale_time(x, y, k, fused):
    torch.set_num_threads(1)

    def unfused():
        torch.mul(x, C, out=y)
        for _ in range(k - 1):
            y.mul_(C)

    def one_pass():
        torch.mul(x, C**k, out=y)

    return _seconds("run()", run=one_pass if fused else unfused)
