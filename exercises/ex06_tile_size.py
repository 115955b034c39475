# 你的练习：由课程的参考解答去掉答案生成。
# 在每个 YOUR CODE HERE 处作答，函数名和参数别改；用 pytest exercises/ 打分。
# Your exercise, made from the course's worked solutions with the answers taken out.
# Answer where it says YOUR CODE HERE, keep each function's name and arguments; grade: pytest exercises/
"""练习 6（SRAM 与块大小）· Exercise 6 (SRAM and tile size)

如果用 FP32 做分块矩阵乘法，H100 每个 SM 的 228 KiB SRAM 最多能放下边长多少的三个块？此时的算术强度大约是
多少？和 BF16 比呢？

For a tiled FP32 matmul, what is the largest side T such that three T x T tiles fit in one H100 SM's
228 KiB of SRAM? About what intensity does that give? And in BF16?

单位 Units: bytes (1 KiB = 1024 bytes), FLOP/byte. 大矩阵分块乘法的强度约为 T / 每个数的字节数
(a large tiled matmul's intensity is about T / bytes per number).

评分时你的代码在单独的进程里运行：`perfcore` 和 `grader` 不能导入（它们算参考答案；除非课程另有设置），
同一文件夹里你自己的模块可以导入。When graded, your code runs in a process of its own: `perfcore` and
`grader` cannot be imported there (they compute the answers; unless your course allows it); your own
modules in the same folder can.
"""

H100_SRAM_BYTES_PER_SM = 228 * 1024


def max_square_tile(sram_bytes, bytes_per, n_tiles=3):
    """n_tiles 个 T×T 的块放得进 sram_bytes 的最大整数 T。
    The largest integer T such that ``n_tiles`` T x T tiles of ``bytes_per``-byte numbers fit."""
    # YOUR CODE HERE
    raise NotImplementedError()


def tiled_intensity(tile, bytes_per):
    """大矩阵 T×T 分块乘法的近似算术强度（FLOP/字节）：T / bytes_per。
    The approximate intensity of a large matmul tiled T x T, in FLOP/byte: T / bytes_per."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_6_fp32_tile():
    """FP32 的最大边长 T。The largest T in FP32."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_6_fp32_intensity():
    """FP32 时的算术强度。The FP32 intensity."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_6_bf16_tile():
    """BF16 的最大边长 T。The largest T in BF16."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_6_bf16_intensity():
    """BF16 时的算术强度。The BF16 intensity."""
    # YOUR CODE HERE
    raise NotImplementedError()
