# 你的练习：由课程的参考解答去掉答案生成。
# 在每个 YOUR CODE HERE 处作答，函数名和参数别改；用 pytest exercises/ 打分。
# Your exercise, made from the course's worked solutions with the answers taken out.
# Answer where it says YOUR CODE HERE, keep each function's name and arguments; grade: pytest exercises/
"""练习 2（访存受限运算的耗时）· Exercise 2 (the time of a memory-bound op)

H100（3.35 TB/s）上，对一个 [16, 4096, 8192] 的 BF16 张量做 RMSNorm（读一遍、写一遍），理想耗时是多少？
如果把它和前面的残差相加融合成一个核函数（原本残差相加要读两个张量、写一个），能省多少时间？

On the H100 (3.35 TB/s), what is the ideal time of an RMSNorm (read once, write once) over a
[16, 4096, 8192] BF16 tensor? If it is fused with the residual add before it (which on its own reads two
tensors and writes one) into one kernel, how much time is saved?

单位 Units: bytes, bytes/s, seconds. 忽略 RMSNorm 的权重向量 (ignore the RMSNorm weight vector).

评分时你的代码在单独的进程里运行：`perfcore` 和 `grader` 不能导入（它们算参考答案；除非课程另有设置），
同一文件夹里你自己的模块可以导入。When graded, your code runs in a process of its own: `perfcore` and
`grader` cannot be imported there (they compute the answers; unless your course allows it); your own
modules in the same folder can.
"""

H100_BYTES_PER_S = 3.35e12
SHAPE = (16, 4096, 8192)


def elementwise_bytes(n_elements, n_inputs, n_outputs, bytes_per):
    """逐元素运算读 n_inputs 个、写 n_outputs 个张量的字节数。
    Bytes moved by an elementwise op over ``n_elements`` that reads ``n_inputs`` tensors and writes
    ``n_outputs``, each number ``bytes_per`` bytes."""
    # YOUR CODE HERE
    raise NotImplementedError()


def memory_time(n_bytes, bandwidth):
    """访存受限运算的理想耗时（秒）。The ideal time of a memory-bound op: bytes / bandwidth, in seconds."""
    # YOUR CODE HERE
    raise NotImplementedError()


def _elements():
    n = 1
    for d in SHAPE:
        n *= d
    return n


def answer_rmsnorm_time():
    """RMSNorm 单独做的耗时（秒）。The RMSNorm alone, in seconds."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_unfused_time():
    """残差相加 + RMSNorm 分开做的总耗时（秒）。Residual add then RMSNorm as two kernels, in seconds."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_fused_time():
    """融合成一个核函数后的耗时（秒）。The fused kernel (read two inputs, write one output), in seconds."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_saved_time():
    """融合省下的时间（秒）。The time fusion saves, in seconds."""
    # YOUR CODE HERE
    raise NotImplementedError()
