"""m4 (fusion helps memory-bound ops only) with numpy's kernels, timed with a plain ``time.perf_counter`` loop;
see benchmarks/honest/README.md. The same k passes as the task's torch calls, as ``np.multiply(x, c,
out=y)`` then k - 1 ``np.multiply(y, c, out=y)``, or one pass, in FP32 on one thread. Only the measured
function."""

import statistics
import time

import numpy as np
from threadpoolctl import threadpool_limits

C = 1.01


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


def scale_time(n_elements, k, fused):
    with threadpool_limits(1):
        x = np.random.default_rng(0).random(n_elements, dtype=np.float32)
        y = np.empty(n_elements, dtype=np.float32)
        c = np.float32(C)

        def unfused():
            np.multiply(x, c, out=y)
            for _ in range(k - 1):
                np.multiply(y, c, out=y)

        def one_pass():
            np.multiply(x, np.float32(C**k), out=y)

        return _seconds(one_pass if fused else unfused)
