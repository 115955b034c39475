"""m5 (fixed overhead), timed with a plain ``time.monotonic`` loop (the clock ``time.sleep`` and timeouts
use); see benchmarks/honest/README.md. The task: the seconds of one ``torch.add(a, b, out=c)`` on the a, b and
c the grader hands in (c left holding their sum: every timed run writes into it), microsecond calls timed in
batches; and the curve of them over the sizes given, point i on the i-th pieces of a, b and c
(``a.split(sizes)``, ...)."""

import statistics
import time

import torch


def add_time(a, b, c):
    torch.set_num_threads(1)
    torch.add(a, b, out=c)  # warm up: c holds a + b from here on, every timed run rewrites it
    # calls per block: enough that a block lasts at least 1 ms, so the clock's resolution and jitter are
    # negligible against a microsecond call; the statement in the loop itself, no function around it
    number = 1
    while True:
        t0 = time.monotonic()
        for _ in range(number):
            torch.add(a, b, out=c)
        elapsed = time.monotonic() - t0
        if elapsed >= 1e-3:
            break
        number *= 10
    blocks, spent = [], 0.0
    while spent < 0.05 or len(blocks) < 5:
        t0 = time.monotonic()
        for _ in range(number):
            torch.add(a, b, out=c)
        elapsed = time.monotonic() - t0
        blocks.append(elapsed / number)
        spent += elapsed
    return statistics.median(blocks)


def overhead_curve(a, b, c, sizes):
    parts = list(sizes)  # point i on the i-th pieces of a, b and c
    return [
        (n, add_time(ai, bi, ci))
        for n, ai, bi, ci in zip(parts, a.split(parts), b.split(parts), c.split(parts), strict=True)
    ]
