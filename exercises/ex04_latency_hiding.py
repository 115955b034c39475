# 你的练习：由课程的参考解答去掉答案生成。
# 在每个 YOUR CODE HERE 处作答，函数名和参数别改；用 pytest exercises/ 打分。
# Your exercise, made from the course's worked solutions with the answers taken out.
# Answer where it says YOUR CODE HERE, keep each function's name and arguments; grade: pytest exercises/
"""练习 4（隐藏延迟）· Exercise 4 (hiding latency)

用 §2.2 的模型：访存延迟 L = 400 周期，每次访存之间有 c = 8 条计算指令，要多少个线程束才能让利用率接近
100%？每个 SM 最多 64 个，够吗？怎样改写代码可以降低对线程束数的要求？

With the model of §2.2 (memory latency L = 400 cycles, c = 8 compute instructions between loads), how many
warps bring the utilization to 100%? An SM holds at most 64: is that enough? How could the code be
rewritten to need fewer warps?

模型 Model: 每个线程束反复做 c 条计算指令、然后等 L 个周期；调度器每个周期发射一条准备好的指令。
Each warp repeats c compute instructions then waits L cycles; the scheduler issues one ready instruction
per cycle.

评分时你的代码在单独的进程里运行：`perfcore` 和 `grader` 不能导入（它们算参考答案；除非课程另有设置），
同一文件夹里你自己的模块可以导入。When graded, your code runs in a process of its own: `perfcore` and
`grader` cannot be imported there (they compute the answers; unless your course allows it); your own
modules in the same folder can.
"""

MAX_WARPS_PER_SM = 64

#: 改写的选项 Ways to rewrite the code.
CHOICES_4_REWRITE = {
    "A": "提高每次访存之间的计算量（每个线程算多个输出、分块复用 SRAM 里的数据），即提高算术强度。"
    " Do more compute per load (several outputs per thread, tiles reused from SRAM): raise the intensity.",
    "B": "减少每个线程用的寄存器，让访存延迟变短。 Use fewer registers per thread so that loads return sooner.",
    "C": "把线程块变小，让 SM 上的线程束更少。 Use smaller thread blocks so fewer warps share an SM.",
    "D": "加入更多 if/else 分支，让线程束轮流执行。 Add branches so warps take turns.",
}


def utilization(num_warps, compute_per_load, mem_latency):
    """调度器的利用率 min(1, W·c / (c + L))。The scheduler's utilization, min(1, W c / (c + L))."""
    # YOUR CODE HERE
    raise NotImplementedError()


def warps_needed(compute_per_load, mem_latency):
    """让利用率达到 100% 的最少线程束数（整数）。The fewest warps for 100% utilization (an integer)."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_4_warps():
    """c = 8、L = 400 时需要的线程束数。The warps needed for c = 8, L = 400."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_4_enough():
    """每个 SM 最多 64 个线程束，够吗？返回 True 或 False。Are 64 warps per SM enough? True or False."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_4_rewrite():
    """从 CHOICES_4_REWRITE 里选一个，返回它的字母。Pick one of CHOICES_4_REWRITE; return its letter."""
    # YOUR CODE HERE
    raise NotImplementedError()
