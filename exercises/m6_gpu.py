# 你的练习：由课程的参考解答去掉答案生成。
# 在每个 YOUR CODE HERE 处作答，函数名和参数别改；用 pytest exercises/ 打分。
# Your exercise, made from the course's worked solutions with the answers taken out.
# Answer where it says YOUR CODE HERE, keep each function's name and arguments; grade: pytest exercises/
"""测量 6（GPU 上的带宽与算力）· Measurement 6 (bandwidth and matmul rate on a GPU)

只在有 CUDA 的机器上评分。 Graded only where CUDA is available.

(a) 写 `gpu_copy_bandwidth(n_bytes)`：在 GPU 上把 n_bytes 字节的 FP32 张量复制到另一个，返回 STREAM 计数的带宽
    （读 + 写），字节/秒。(b) 写 `gpu_bf16_matmul_flops(n)`：n×n×n 的 BF16 矩阵乘法的 FLOP/s。
和这块 GPU 的规格（HBM 带宽、BF16 峰值）比一比。

(a) Write `gpu_copy_bandwidth(n_bytes)`: copy an FP32 tensor of n_bytes bytes into another on the GPU and
return the STREAM bandwidth (read + write) in bytes/s. (b) Write `gpu_bf16_matmul_flops(n)`: the FLOP/s of
an n x n x n BF16 matmul. Compare both with the GPU's spec (HBM bandwidth, BF16 peak).

要点 Points that matter: GPU 是异步的：Python 调用在核函数排进队列后就返回。用 CUDA 事件
（`torch.cuda.Event(enable_timing=True)`）计时，并在读时间前同步。 GPU work is asynchronous: time with CUDA
events and synchronize before reading them.

评分时你的代码在单独的进程里运行：`perfcore` 和 `grader` 不能导入（它们算参考答案；除非课程另有设置），
同一文件夹里你自己的模块可以导入。When graded, your code runs in a process of its own: `perfcore` and
`grader` cannot be imported there (they compute the answers; unless your course allows it); your own
modules in the same folder can.
"""

import torch


def _seconds(fn, repeats=10):
    for _ in range(3):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(repeats):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    times.sort()
    return times[len(times) // 2]


def gpu_copy_bandwidth(n_bytes):
    """GPU 上复制 n_bytes 字节的带宽（读 + 写），字节/秒。GPU copy bandwidth (read + write), bytes/s."""
    # YOUR CODE HERE
    raise NotImplementedError()


def gpu_bf16_matmul_flops(n):
    """n×n×n BF16 矩阵乘法的 FLOP/s。The FLOP/s of an n x n x n BF16 matmul."""
    # YOUR CODE HERE
    raise NotImplementedError()
