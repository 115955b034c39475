# 你的练习：由课程的参考解答去掉答案生成。
# 在每个 YOUR CODE HERE 处作答，函数名和参数别改；用 pytest exercises/ 打分。
# Your exercise, made from the course's worked solutions with the answers taken out.
# Answer where it says YOUR CODE HERE, keep each function's name and arguments; grade: pytest exercises/
"""测量 3（分块转置）· Measurement 3 (a tiled transpose)

§4.4：转置一个 n×n 的 FP32 矩阵。朴素写法 `np.copyto(dst, src.T)` 按列读一个行优先的矩阵，每读一个数都跳过
一整行；分块写法把矩阵切成 tile×tile 的小块，一块一块地转置，每个读进缓存的小块都被用完。
(a) 写 `tiled_transpose(x, tile)`：用 Python 循环遍历小块，返回 x 的转置（一个新的数组，结果必须完全精确）。
(b) 写 `transpose_time(src, dst, tile, method)`：src、dst 是评分器交给你的 n×n FP32 numpy 数组，dst 交来时全为 0。
    每次运行把 src 的转置加到 dst 上：朴素写法 `np.add(dst, src.T, out=dst)`（即 dst += src.T），分块写法把每个
    小块的转置加到 dst 对应的位置上。测一次运行的时间（秒），method 为 "naive" 或 "tiled"（用你的分块写法）。
    src 里是 2 的幂，所以做过 r 次之后 dst 恰好等于 r·src.T：评分器在你每次读时钟时数出做过几次（预热也算），
    返回时检查 dst 等于 r·src.T（r 至少为 1）。
(c) 写 `transpose_speedup(src, dst, tile)`：在同样的 src、dst 上返回 朴素时间 / 分块时间（两种都加到 dst 上）。

§4.4: transpose an n x n FP32 matrix. The naive `np.copyto(dst, src.T)` reads a row-major matrix down its
columns, skipping a whole row for every number; the tiled one transposes tile x tile blocks one by one, so
every block brought into cache is used up.
(a) Write `tiled_transpose(x, tile)`: loop over the blocks in Python and return the transpose of x (a new
    array; the result must be exact).
(b) Write `transpose_time(src, dst, tile, method)`: src and dst are n x n FP32 numpy arrays the grader hands
    you, dst at zero. Each run adds the transpose of src into dst: naively `np.add(dst, src.T, out=dst)`
    (that is dst += src.T), tiled by adding each block's transpose into its place in dst. Return the seconds
    of one run, with method "naive" or "tiled" (your tiled version). src holds powers of two, so after r
    runs dst is exactly r·src.T: the grader counts the runs at every reading of your clock (the warm-up
    counts too) and checks that dst equals r·src.T, r at least 1, when it returns.
(c) Write `transpose_speedup(src, dst, tile)`: naive time / tiled time on the same src and dst (both add into
    dst).

(b) 和 (c) 的 n 和 tile 由评分器为每份提交抽取（评分用的和检查用的调用出自同一个分布，tile 可能很小）：函数要
对任何输入都真的测它说的那种转置。(c) 的加速比是本机的一个测量值，不是常数：tile 很小时 Python 循环的开销比省下的
缓存缺失还多，比值会小于 1；评分器在同样的输入上把它和 perfcore 测到的加速比比较。The grader chooses the n and
tile of (b) and (c), drawn for each submission (the graded call and the check calls alike; the tile may be
small): the function must really time the transpose it names at any input. (c)'s speedup is a measurement of
this machine, not a constant: with very small tiles the Python loop costs more than the cache misses it
saves and the ratio falls below 1; the grader compares it with perfcore's speedup at the same input.

评分时你的代码在单独的进程里运行：`perfcore` 和 `grader` 不能导入（它们算参考答案；除非课程另有设置），
同一文件夹里你自己的模块可以导入。When graded, your code runs in a process of its own: `perfcore` and
`grader` cannot be imported there (they compute the answers; unless your course allows it); your own
modules in the same folder can.
"""

import time

import numpy as np


def _tiled_into(src, dst, tile):
    n, m = src.shape
    for i in range(0, n, tile):
        for j in range(0, m, tile):
            dst[j : j + tile, i : i + tile] = src[i : i + tile, j : j + tile].T


def _tiled_add(src, dst, tile):
    n, m = src.shape
    for i in range(0, n, tile):
        for j in range(0, m, tile):
            block = dst[j : j + tile, i : i + tile]
            block += src[i : i + tile, j : j + tile].T


def tiled_transpose(x, tile):
    """x 的转置，按 tile×tile 的块复制。The transpose of x, copied tile x tile block by block."""
    # YOUR CODE HERE
    raise NotImplementedError()


def transpose_time(src, dst, tile, method):
    """把 src 的转置加到 dst 上一次的时间（秒），method 为 "naive" 或 "tiled"；返回时 dst 等于 r·src.T。
    Seconds per run adding src's transpose into dst, method "naive" or "tiled"; dst holds r·src.T after r
    runs."""
    # YOUR CODE HERE
    raise NotImplementedError()


def transpose_speedup(src, dst, tile):
    """朴素时间 / 分块时间（都加到同一个 dst 上）。Naive time over tiled time (both adding into dst)."""
    # YOUR CODE HERE
    raise NotImplementedError()
