"""m2 (matmul FLOP/s and the roofline), timed with a plain ``time.thread_time`` loop: the CPU time of the
calling thread, which is the call's time because its work runs on this one thread (one torch thread, no thread
pool); see benchmarks/honest/README.md. The task: the FLOP/s of the n x n FP32 matmul of the a, b and c the
grader hands in (``torch.mm(a, b, out=c)``), and, for each m of a sweep, of the handed x's block of m rows
times the handed w into the same rows of the handed y (``torch.mm(xi, w, out=yi)``, the blocks
``x.split(ms)``, ``y.split(ms)``), on one thread with the outputs written in place."""

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


def roofline_sweep(w, x, y, ms):
    torch.set_num_threads(1)
    rows, cols = w.shape
    parts = list(ms)  # point i on the i-th row blocks of x and y (views: the product lands in y)
    points = []
    for m, xi, yi in zip(parts, x.split(parts), y.split(parts), strict=True):
        flops = 2 * m * rows * cols
        intensity = flops / ((m * rows + rows * cols + m * cols) * 4)
        points.append((intensity, flops / _seconds(lambda xi=xi, yi=yi: torch.mm(xi, w, out=yi))))
    return points
