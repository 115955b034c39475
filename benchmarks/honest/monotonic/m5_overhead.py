"""m5 (fixed overhead), timed with a plain ``time.monotonic`` loop (the clock ``time.sleep`` and timeouts
use); see benchmarks/honest/README.md. The task: the seconds of one ``torch.add(a, b, out=c)`` with a, b and c
preallocated, microsecond calls timed in batches; and the curve of them over the sizes given."""

import statistics
import time

import torch


def add_time(n_elements):
    torch.set_num_threads(1)
    a, b, c = torch.ones(n_elements), torch.ones(n_elements), torch.empty(n_elements)
    torch.add(a, b, out=c)  # warm up, touch c
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


def overhead_curve(sizes):
    return [(n, add_time(n)) for n in sizes]
