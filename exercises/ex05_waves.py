# 你的练习：由课程的参考解答去掉答案生成。
# 在每个 YOUR CODE HERE 处作答，函数名和参数别改；用 pytest exercises/ 打分。
# Your exercise, made from the course's worked solutions with the answers taken out.
# Answer where it says YOUR CODE HERE, keep each function's name and arguments; grade: pytest exercises/
"""练习 5（波次量化）· Exercise 5 (wave quantization)

H100 有 132 个 SM，一个 8192×8192 的输出按 128×128 分块，有多少个线程块、要几波、利用率多少？
如果改成 256×128 的块呢？（简化：每个 SM 一次跑一个块。）

The H100 has 132 SMs. An 8192 x 8192 output tiled 128 x 128: how many thread blocks, how many waves, what
utilization? And with 256 x 128 tiles? (Simplification: one block per SM at a time.)

评分时你的代码在单独的进程里运行：`perfcore` 和 `grader` 不能导入（它们算参考答案；除非课程另有设置），
同一文件夹里你自己的模块可以导入。When graded, your code runs in a process of its own: `perfcore` and
`grader` cannot be imported there (they compute the answers; unless your course allows it); your own
modules in the same folder can.
"""

H100_SMS = 132


def num_blocks(m, n, tile_m, tile_n):
    """m×n 输出按 tile_m×tile_n 分块的线程块数（边缘不满的块也算一个）。
    Thread blocks of an m x n output in tile_m x tile_n tiles (a partial edge tile counts as one)."""
    # YOUR CODE HERE
    raise NotImplementedError()


def num_waves(blocks, num_sms):
    """要跑几波。The number of waves."""
    # YOUR CODE HERE
    raise NotImplementedError()


def wave_efficiency(blocks, num_sms):
    """利用率：块数 / (波数 × SM 数)。Utilization: blocks / (waves x SMs)."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_5_square():
    """128×128 的块：返回 (块数, 波数, 利用率)。128 x 128 tiles: return (blocks, waves, utilization)."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_5_wide():
    """256×128 的块：返回 (块数, 波数, 利用率)。256 x 128 tiles: return (blocks, waves, utilization)."""
    # YOUR CODE HERE
    raise NotImplementedError()
