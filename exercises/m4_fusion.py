# 你的练习：由课程的参考解答去掉答案生成。
# 在每个 YOUR CODE HERE 处作答，函数名和参数别改；用 pytest exercises/ 打分。
# Your exercise, made from the course's worked solutions with the answers taken out.
# Answer where it says YOUR CODE HERE, keep each function's name and arguments; grade: pytest exercises/
"""测量 4（融合只对访存受限的运算有效）· Measurement 4 (fusion helps memory-bound ops only)

§5.2 实验 A：n 个 FP32 元素连乘 k 次常数 c = 1.01。分开做是 k 遍，每遍读写一次整个数组
（`torch.mul(x, c, out=y)` 然后 k−1 次 `y.mul_(c)`）；合成一遍是乘以 c**k 一次（`torch.mul(x, c**k, out=y)`，
一个融合核函数的访存量）。写 `scale_time(x, y, k, fused)`：x、y 是评分器交给你的同样大小的一维 FP32 张量，返回一次的
时间（秒）；返回时 y 必须是按所说的方式算出的 x·c^k（k 遍时与 k 次 FP32 乘法逐位相同：评分器会检查）。
§5.2 实验 B：tanh 近似的 GELU 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))。写 `gelu_nine_ops(x)`：x 是一个
FP32 的 numpy 数组，用 9 个独立的 torch 逐元素运算算出 GELU，返回 numpy 数组；结果要和 `F.gelu(x,
approximate="tanh")` 在舍入误差内一致。

§5.2 experiment A: multiply n FP32 elements by c = 1.01, k times. Unfused it is k passes, each reading and
writing the whole array (`torch.mul(x, c, out=y)` then k-1 times `y.mul_(c)`); fused it is one
multiplication by c**k (`torch.mul(x, c**k, out=y)`: the traffic of one fused kernel). Write
`scale_time(x, y, k, fused)`: x and y are 1-D FP32 tensors of the same size the grader hands you; return
the seconds of one run. When it returns, y must hold x c^k made the way named (k passes: the rounding of
the k FP32 multiplications, bit for bit; the grader checks it).
§5.2 experiment B: GELU, tanh form. Write `gelu_nine_ops(x)`: x is an FP32 numpy array; compute GELU with
nine separate torch elementwise ops and return a numpy array that agrees with `F.gelu(x,
approximate="tanh")` to rounding.

评分器选择输入：x 的元素个数 n_elements 按本机的缓存大小选，x 和 y 加起来至少是最后一级缓存的 4 倍（32 MiB 的 L3 上约 2^25 个
元素），这样每一遍都真的走内存；k 和 n_elements 每次评分都从一个范围里抽取，评分用的和检查用的输入出自同一个分布，
函数要对任何 k 和 n_elements 都真的测量。The grader chooses the inputs: x's number of elements ``n_elements`` for this machine's
caches, x and y together at least 4x its last-level cache (about 2^25 elements on a 32 MiB L3), so that
every pass really goes to DRAM; k and n_elements are drawn from a range for each submission, the graded
call and the check calls alike, so the function must really measure at any k and n_elements.

评分时你的代码在单独的进程里运行：`perfcore` 和 `grader` 不能导入（它们算参考答案；除非课程另有设置），
同一文件夹里你自己的模块可以导入。When graded, your code runs in a process of its own: `perfcore` and
`grader` cannot be imported there (they compute the answers; unless your course allows it); your own
modules in the same folder can.
"""

import math

import torch
from torch.utils.benchmark import Timer

C = 1.01


def scale_time(x, y, k, fused):
    """把 x 乘以常数 k 次、写进 y 的时间（秒）：fused 为 False 时 k 遍（在 y 上一遍接一遍，每遍走完整个 y），
    为 True 时一遍。
    Seconds of multiplying x by a constant k times into y: k passes when ``fused`` is False (over y, one
    after another, each over the whole of it), one pass when True."""
    # YOUR CODE HERE
    raise NotImplementedError()


def gelu_nine_ops(x):
    """用 9 个独立的 torch 运算算 GELU（tanh 近似），返回 numpy 数组。
    GELU (tanh form) in nine separate torch ops; return a numpy array."""
    # YOUR CODE HERE
    raise NotImplementedError()
