"""Exercise 10 (measure it yourself), timed with a plain ``time.perf_counter`` loop; see
benchmarks/honest/README.md. The task: the effective bandwidth of ``torch.mv(W, x, out=y)`` (W FP32 rows x
cols) on one thread, W, x and y preallocated, (bytes of W + x + y) / time. Only the measured function."""

import statistics
import time


def _seconds(run, min_run_time=0.05):
    """Seconds per call of ``run``: one warm-up call, then blocks of as many calls as make a block last at
    least 1 ms (the clock's resolution is then negligible), until ``min_run_time`` has passed and five
    blocks are in; the median block, per call."""
    run()
    number = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            run()
        elapsed = time.perf_counter() - t0
        if elapsed >= 1e-3:
            break
        number *= 10
    blocks, spent = [elapsed / number], elapsed
    while spent < min_run_time or len(blocks) < 5:
        t0 = time.perf_counter()
        for _ in range(number):
            run()
        elapsed = time.perf_counter() - t0
        blocks.append(elapsed / number)
        spent += elapsed
    return statistics.median(blocks)


def matvec_bandwidth(rows, cols):
    import torch

    torch.set_num_threads(1)
    w = torch.randn(rows, cols)
    x = torch.randn(cols)
    y = torch.empty(rows)
    torch.mv(w, x, out=y)  # touch every page before the timing
    return (rows * cols + cols + rows) * 4 / _seconds(lambda: torch.mv(w, x, out=y))
