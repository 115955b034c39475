# 你的练习：由课程的参考解答去掉答案生成。
# 在每个 YOUR CODE HERE 处作答，函数名和参数别改；用 pytest exercises/ 打分。
# Your exercise, made from the course's worked solutions with the answers taken out.
# Answer where it says YOUR CODE HERE, keep each function's name and arguments; grade: pytest exercises/
"""练习 8（MFU）· Exercise 8 (MFU)

假设用 2048 块 H100（BF16 989 TFLOP/s）花 30 天在 15T token 上训练完一个 8B（8.03e9 参数）模型。MFU 是多少？
如果实际 MFU 是 40%，需要多少天？

Suppose 2048 H100s (BF16 989 TFLOP/s) train an 8B model (8.03e9 parameters) on 15T tokens in 30 days.
What is the MFU? At an MFU of 40%, how many days would it take?

单位 Units: FLOP, FLOP/s, seconds, days (86400 s). 训练算力 C = 6ND (training compute C = 6ND).

评分时你的代码在单独的进程里运行：`perfcore` 和 `grader` 不能导入（它们算参考答案；除非课程另有设置），
同一文件夹里你自己的模块可以导入。When graded, your code runs in a process of its own: `perfcore` and
`grader` cannot be imported there (they compute the answers; unless your course allows it); your own
modules in the same folder can.
"""

N_PARAMS = 8.03e9
N_TOKENS = 15e12
N_GPUS = 2048
H100_BF16_FLOPS = 989e12
SECONDS_PER_DAY = 86400


def training_flops(n_params, n_tokens):
    """训练算力 C = 6ND（FLOP）。Training compute C = 6ND, in FLOP."""
    # YOUR CODE HERE
    raise NotImplementedError()


def mfu(model_flops, n_gpus, peak_flops, seconds):
    """MFU = 有用运算 / (GPU 数 × 峰值 × 时间)。MFU = useful FLOPs / (GPUs x peak x seconds)."""
    # YOUR CODE HERE
    raise NotImplementedError()


def training_days(model_flops, n_gpus, peak_flops, utilization):
    """在给定 MFU 下需要的天数。Days needed at MFU ``utilization``."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_8_mfu():
    """30 天训练完时的 MFU（0 到 1 之间的小数）。The MFU of the 30-day run, a fraction in (0, 1]."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_8_days_at_40():
    """MFU 40% 时需要的天数。The days needed at an MFU of 40%."""
    # YOUR CODE HERE
    raise NotImplementedError()
