# 你的练习：由课程的参考解答去掉答案生成。
# 在每个 YOUR CODE HERE 处作答，函数名和参数别改；用 pytest exercises/ 打分。
# Your exercise, made from the course's worked solutions with the answers taken out.
# Answer where it says YOUR CODE HERE, keep each function's name and arguments; grade: pytest exercises/
"""练习 1（平衡点）· Exercise 1 (the ridge point)

(a) A100 的 FP32（非张量核心）峰值 19.5 TFLOP/s、带宽 2.039 TB/s，它的 FP32 平衡点是多少？
(b) 一个 FP32 的 4096³ 矩阵乘法在 A100 上用 FP32 通用单元算，是计算受限还是访存受限？理想耗时多少？
    换成 BF16 张量核心（312 TFLOP/s，每个数 2 字节）呢？

(a) The A100's FP32 (non-tensor) peak is 19.5 TFLOP/s and its bandwidth 2.039 TB/s: what is its FP32
    ridge point? (b) Is an FP32 4096^3 matmul on the A100's FP32 units compute- or memory-bound, and what
    is its ideal time? And on the BF16 tensor cores (312 TFLOP/s, 2 bytes per number)?

单位 Units: FLOP/s, bytes/s, seconds, FLOP/byte.

评分时你的代码在单独的进程里运行：`perfcore` 和 `grader` 不能导入（它们算参考答案；除非课程另有设置），
同一文件夹里你自己的模块可以导入。When graded, your code runs in a process of its own: `perfcore` and
`grader` cannot be imported there (they compute the answers; unless your course allows it); your own
modules in the same folder can.
"""

A100_FP32_FLOPS = 19.5e12
A100_BF16_FLOPS = 312e12
A100_BYTES_PER_S = 2.039e12


def ridge_point(peak_flops, bandwidth):
    """平衡点：峰值算力 / 带宽（FLOP/字节）。
    The ridge point: peak FLOP/s divided by bandwidth in bytes/s, in FLOP/byte."""
    # YOUR CODE HERE
    raise NotImplementedError()


def matmul_intensity(m, n, k, bytes_per):
    """C[m,n] = A[m,k] @ B[k,n] 的算术强度：2mnk FLOP 除以读 A、B 写 C 的字节数。
    Arithmetic intensity of C[m,n] = A[m,k] @ B[k,n]: 2mnk FLOP over the bytes of reading A and B and
    writing C once, each number ``bytes_per`` bytes."""
    # YOUR CODE HERE
    raise NotImplementedError()


def roofline_time(flops, n_bytes, peak_flops, bandwidth):
    """roofline 的理想耗时（秒）：计算时间和访存时间中较大的那个。
    The roofline's ideal time in seconds: the larger of FLOPs / peak and bytes / bandwidth."""
    # YOUR CODE HERE
    raise NotImplementedError()


def is_compute_bound(intensity, ridge):
    """算术强度不低于平衡点时返回 True（计算受限）。
    True when the intensity is at least the ridge point (compute-bound), False otherwise."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_1a():
    """(a) A100 FP32 的平衡点（FLOP/字节）。The A100's FP32 ridge point, in FLOP/byte."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_1b_fp32_bound():
    """(b) FP32 的 4096³ 矩阵乘法：返回 "compute" 或 "memory"。
    The FP32 4096^3 matmul on the FP32 units: return "compute" or "memory"."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_1b_fp32_time():
    """(b) FP32 通用单元上的理想耗时（秒）。Its ideal time on the FP32 units, in seconds."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_1b_bf16_bound():
    """(b) 换成 BF16 张量核心：返回 "compute" 或 "memory"。
    On the BF16 tensor cores: return "compute" or "memory"."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_1b_bf16_time():
    """(b) BF16 张量核心上的理想耗时（秒）。Its ideal time on the BF16 tensor cores, in seconds."""
    # YOUR CODE HERE
    raise NotImplementedError()
