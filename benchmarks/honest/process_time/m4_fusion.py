"""m4 (fusion helps memory-bound ops only), timed with a plain ``time.process_time`` loop: the CPU time of the
whole process, which is the call's time because its work runs on one thread and nothing else of the process
runs meanwhile; see benchmarks/honest/README.md. The task: the seconds of k multiplications of the FP32 tensor
x the grader hands in by c = 1.01 into y, as k passes (``torch.mul(x, c, out=y)`` then k - 1 ``y.mul_(c)``) or
one (``torch.mul(x, c**k, out=y)``), one thread. Only the measured function."""

import statistics
import time

import torch

C = 1.01


def _seconds(run, min_run_time=0.05):
    """Seconds per call of ``run``: one warm-up call, then blocks of as many calls as make a block last at
    least 1 ms (the clock's resolution is then negligible), until ``min_run_time`` has passed and five
    blocks are in; the median block, per call."""
    run()
    number = 1
    while True:
        t0 = time.process_time()
        for _ in range(number):
            run()
        elapsed = time.process_time() - t0
        if elapsed >= 1e-3:
            break
        number *= 10
    blocks, spent = [elapsed / number], elapsed
    while spent < min_run_time or len(blocks) < 5:
        t0 = time.process_time()
        for _ in range(number):
            run()
        elapsed = time.process_time() - t0
        blocks.append(elapsed / number)
        spent += elapsed
    return statistics.median(blocks)


def scale_time(x, y, k, fused):
    torch.set_num_threads(1)

    def unfused():
        torch.mul(x, C, out=y)
        for _ in range(k - 1):
            y.mul_(C)

    def one_pass():
        torch.mul(x, C**k, out=y)

    return _seconds(one_pass if fused else unfused)
