"""m5 (fixed overhead), timed with a plain ``time.monotonic`` loop (the clock ``time.sleep`` and timeouts
use); see benchmarks/honest/README.md. The task: the seconds of one ``torch.add(out, x, out=out)``
(``out += x``) on the x and out the grader hands in (out handed all zeros; every run adds x into it, the
warm-up too, and the grader counts them from it: out is left holding r * x after r runs), microsecond calls
timed in batches; and the curve of them over the sizes given, point i on the i-th pieces of x and out
(``x.split(sizes)``, ``out.split(sizes)``)."""

import statistics
import time

import torch


def add_time(x, out):
    torch.set_num_threads(1)
    torch.add(out, x, out=out)  # warm up: a run too, each adds x into out (r runs leave r * x there)
    # calls per block: enough that a block lasts at least 1 ms, so the clock's resolution and jitter are
    # negligible against a microsecond call; the statement in the loop itself, no function around it
    number = 1
    while True:
        t0 = time.monotonic()
        for _ in range(number):
            torch.add(out, x, out=out)
        elapsed = time.monotonic() - t0
        if elapsed >= 1e-3:
            break
        number *= 10
    blocks, spent = [], 0.0
    while spent < 0.05 or len(blocks) < 5:
        t0 = time.monotonic()
        for _ in range(number):
            torch.add(out, x, out=out)
        elapsed = time.monotonic() - t0
        blocks.append(elapsed / number)
        spent += elapsed
    return statistics.median(blocks)


def overhead_curve(x, out, sizes):
    parts = list(sizes)  # point i on the i-th pieces of x and out
    return [(n, add_time(xi, oi)) for n, xi, oi in zip(parts, x.split(parts), out.split(parts), strict=True)]
