# 你的练习：由课程的参考解答去掉答案生成。
# 在每个 YOUR CODE HERE 处作答，函数名和参数别改；用 pytest exercises/ 打分。
# Your exercise, made from the course's worked solutions with the answers taken out.
# Answer where it says YOUR CODE HERE, keep each function's name and arguments; grade: pytest exercises/
"""练习 9（开销）· Exercise 9 (overhead)

一个小模型每次前向要启动 200 个核函数，每个核函数的计算本身只要 1 µs，启动开销 5 µs。
(a) 每次前向至少要多久？GPU 的忙碌比例是多少？
(b) 用 CUDA Graphs 把启动开销降到每个 0.5 µs，或者把 200 个核函数融合成 20 个（计算总量不变），各能快多少？
两者结合呢？

A small model launches 200 kernels per forward pass; each computes for 1 µs and costs 5 µs to launch.
(a) How long does a forward pass take at least, and what fraction of it is the GPU busy?
(b) With CUDA Graphs the launch costs 0.5 µs; with fusion the 200 kernels become 20 (the same total
compute). How much faster is each? And both together?

单位 Units: seconds (1 µs = 1e-6 s). 模型 Model: 核函数一个接一个地启动，启动和计算不重叠
(kernels are launched one after another; a launch and a computation do not overlap).

评分时你的代码在单独的进程里运行：`perfcore` 和 `grader` 不能导入（它们算参考答案；除非课程另有设置），
同一文件夹里你自己的模块可以导入。When graded, your code runs in a process of its own: `perfcore` and
`grader` cannot be imported there (they compute the answers; unless your course allows it); your own
modules in the same folder can.
"""

NUM_KERNELS = 200
COMPUTE_S_PER_KERNEL = 1e-6
LAUNCH_S = 5e-6
GRAPH_LAUNCH_S = 0.5e-6
FUSED_KERNELS = 20


def forward_time(num_kernels, total_compute_s, launch_s):
    """一次前向的时间（秒）：每个核函数的启动开销加上全部计算。
    The time of one forward pass in seconds: every kernel's launch plus all the compute."""
    # YOUR CODE HERE
    raise NotImplementedError()


def busy_fraction(num_kernels, total_compute_s, launch_s):
    """GPU 在计算的时间比例。The fraction of the time the GPU computes."""
    # YOUR CODE HERE
    raise NotImplementedError()


def _compute():
    return NUM_KERNELS * COMPUTE_S_PER_KERNEL


def answer_9a_time():
    """(a) 一次前向的时间（秒）。The time of one forward pass, in seconds."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_9a_busy():
    """(a) GPU 的忙碌比例（0 到 1）。The GPU's busy fraction (0 to 1)."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_9b_graphs_speedup():
    """(b) CUDA Graphs 快多少倍。The speedup of CUDA Graphs."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_9b_fusion_speedup():
    """(b) 融合成 20 个核函数快多少倍。The speedup of fusing into 20 kernels."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_9b_both_time():
    """(b) 两者结合时一次前向的时间（秒）。The forward time with both, in seconds."""
    # YOUR CODE HERE
    raise NotImplementedError()
