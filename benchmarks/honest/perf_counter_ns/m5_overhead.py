"""m5 (fixed overhead), timed with a plain ``time.perf_counter_ns`` loop (the same clock in integer
nanoseconds, turned into seconds per call); see benchmarks/honest/README.md. The task: the seconds of one
``torch.add(a, b, out=c)`` with a, b and c preallocated, microsecond calls timed in batches; and the curve of
them over the sizes given."""

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
        t0 = time.perf_counter_ns()
        for _ in range(number):
            torch.add(a, b, out=c)
        elapsed = (time.perf_counter_ns() - t0) / 1e9
        if elapsed >= 1e-3:
            break
        number *= 10
    blocks, spent = [], 0.0
    while spent < 0.05 or len(blocks) < 5:
        t0 = time.perf_counter_ns()
        for _ in range(number):
            torch.add(a, b, out=c)
        elapsed = (time.perf_counter_ns() - t0) / 1e9
        blocks.append(elapsed / number)
        spent += elapsed
    return statistics.median(blocks)


def overhead_curve(sizes):
    return [(n, add_time(n)) for n in sizes]
