"""Exercise 10 (measure it yourself), timed with a plain ``time.thread_time`` loop: the CPU time of the
calling thread, which is the call's time because its work runs on this one thread (one torch thread, no thread
pool); see benchmarks/honest/README.md. The task: the effective bandwidth of ``torch.mv(w, x, out=y)`` on the
FP32 w (rows x cols), x and y the grader hands in, on one thread, (bytes of w + x + y) / time. Only the
measured function."""

import statistics
import time


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


def matvec_bandwidth(w, x, y):
    import torch

    torch.set_num_threads(1)
    torch.mv(w, x, out=y)  # warm up: every page touched before the timing
    return (w.nbytes + x.nbytes + y.nbytes) / _seconds(lambda: torch.mv(w, x, out=y))
