"""m4 (fusion helps memory-bound ops only) with numpy's kernels, timed with a plain ``time.perf_counter`` loop;
see benchmarks/honest/README.md. The same k passes as the task's torch calls, as ``np.multiply(xn, c,
out=yn)`` then k - 1 ``np.multiply(yn, c, out=yn)``, or one pass, in FP32 on one thread, on numpy views of
the torch tensors x and y the grader hands in (``Tensor.numpy()`` shares their memory): each FP32
multiplication by c is rounded as torch's is, so y ends as the k passes leave it, bit for bit. Only the
measured function."""

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


def scale_time(x, y, k, fused):
    with threadpool_limits(1):
        xn, yn = x.numpy(), y.numpy()  # views: the passes write into y itself
        c = np.float32(C)

        def unfused():
            np.multiply(xn, c, out=yn)
            for _ in range(k - 1):
                np.multiply(yn, c, out=yn)

        def one_pass():
            np.multiply(xn, np.float32(C**k), out=yn)

        return _seconds(one_pass if fused else unfused)
