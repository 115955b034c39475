"""Exercise 10 (measure it yourself), timed with ``timeit``; see benchmarks/honest/README.md. The task: the
effective bandwidth of ``torch.mv(w, x, out=y)`` on the FP32 w (rows x cols), x and y the grader hands in,
on one thread, (bytes of w + x + y) / time. Only the measured function."""

import timeit


def _seconds(stmt, **names):
    """Seconds per run of ``stmt``, as the timeit documentation advises: one warm-up run, as many runs per
    block as ``autorange`` finds make a block of at least 0.2 s, then the best of five blocks (the slower
    ones are other work on the machine, not the statement's cost)."""
    timer = timeit.Timer(stmt, globals=names)
    timer.timeit(number=1)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=5, number=number)) / number


def matvec_bandwidth(w, x, y):
    import torch

    torch.set_num_threads(1)
    torch.mv(w, x, out=y)  # warm up: every page touched before the timing
    return (w.nbytes + x.nbytes + y.nbytes) / _seconds("torch.mv(w, x, out=y)", torch=torch, w=w, x=x, y=y)
