"""m1 (memory bandwidth of one core), timed with a plain ``time.process_time`` loop: the CPU time of the whole
process, which is the call's time because its work runs on one thread and nothing else of the process runs
meanwhile; see benchmarks/honest/README.md. The task: copy the FP32 tensor src the grader hands in into dst,
allocated apart, with ``dst.copy_(src)`` on one thread, and return 2 x src.nbytes / time."""

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


def copy_bandwidth(src, dst):
    torch.set_num_threads(1)
    dst.copy_(src)  # touch the output: page faults happen here, not in the timing
    return 2 * src.nbytes / _seconds(lambda: dst.copy_(src))
