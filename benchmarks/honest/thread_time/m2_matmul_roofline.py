"""m2 (matmul FLOP/s and the roofline), timed with a plain ``time.thread_time`` loop: the CPU time of the
calling thread, which is the call's time because its work runs on this one thread (one torch thread, no thread
pool); see benchmarks/honest/README.md. The task: the FLOP/s of the n x n FP32 matmul of the a, b and c the
grader hands in (``torch.mm(a, b, out=c)``), and of X @ W for each m of a sweep, on one thread with
preallocated outputs."""

import statistics
import time

import torch


def _seconds(run, min_run_time=0.05):
    """Seconds per call of ``run``: one warm-up call, then blocks of as many calls as make a block last at
    least 1 ms (the clock's resolution is then negligible), until ``min_run_time`` has passed and five
    blocks are in; the median block, per call."""
    run()
    number = 1
    while True:
        t0 = time.thread_time()
        for _ in range(number):
            run()
        elapsed = time.thread_time() - t0
        if elapsed >= 1e-3:
            break
        number *= 10
    blocks, spent = [elapsed / number], elapsed
    while spent < min_run_time or len(blocks) < 5:
        t0 = time.thread_time()
        for _ in range(number):
            run()
        elapsed = time.thread_time() - t0
        blocks.append(elapsed / number)
        spent += elapsed
    return statistics.median(blocks)


def matmul_flops(a, b, c):
    torch.set_num_threads(1)
    n = a.shape[0]
    return 2 * n**3 / _seconds(lambda: torch.mm(a, b, out=c))


def roofline_sweep(rows, cols, ms):
    torch.set_num_threads(1)
    w = torch.randn(rows, cols)
    points = []
    for m in ms:
        x, y = torch.randn(m, rows), torch.empty(m, cols)
        flops = 2 * m * rows * cols
        intensity = flops / ((m * rows + rows * cols + m * cols) * 4)
        points.append((intensity, flops / _seconds(lambda x=x, y=y: torch.mm(x, w, out=y))))
    return points
