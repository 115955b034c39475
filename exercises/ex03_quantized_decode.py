# 你的练习：由课程的参考解答去掉答案生成。
# 在每个 YOUR CODE HERE 处作答，函数名和参数别改；用 pytest exercises/ 打分。
# Your exercise, made from the course's worked solutions with the answers taken out.
# Answer where it says YOUR CODE HERE, keep each function's name and arguments; grade: pytest exercises/
"""练习 3（量化让解码变快）· Exercise 3 (quantization speeds up decoding)

Llama-3 70B（约 70.6e9 个参数）在一块 H100（80 GB，3.35 TB/s）上做批大小为 1 的解码。
(a) BF16 权重放得下吗？(b) 量化成 INT4（每个参数 0.5 字节）后，每一步的理想耗时和每秒 token 数上限是多少？
(c) 为什么量化对解码的加速几乎和压缩比成正比，对 prefill 却没那么明显？

Llama-3 70B (about 70.6e9 parameters) decodes at batch 1 on one H100 (80 GB, 3.35 TB/s).
(a) Do its BF16 weights fit? (b) Quantized to INT4 (0.5 bytes per parameter), what is the ideal time of a
step and the most tokens per second? (c) Why does quantization speed decoding up almost in proportion to
the compression, but prefill much less?

单位 Units: bytes (the H100's "80 GB" is 80 GiB, 2^30 bytes each), seconds, tokens/s. 每一步把全部权重读一遍 (each step reads every
weight once; ignore the KV cache).

评分时你的代码在单独的进程里运行：`perfcore` 和 `grader` 不能导入（它们算参考答案；除非课程另有设置），
同一文件夹里你自己的模块可以导入。When graded, your code runs in a process of its own: `perfcore` and
`grader` cannot be imported there (they compute the answers; unless your course allows it); your own
modules in the same folder can.
"""

LLAMA3_70B_PARAMS = 70.6e9
H100_HBM_BYTES = 80 * 2**30
H100_BYTES_PER_S = 3.35e12

#: (c) 的选项 The choices of (c).
CHOICES_3C = {
    "A": "解码访存受限，耗时 ≈ 权重字节数 / 带宽；prefill 计算受限，读权重本来就不是瓶颈。"
    " Decoding is memory-bound (time = weight bytes / bandwidth); prefill is compute-bound, so reading "
    "the weights was never its bottleneck.",
    "B": "INT4 的张量核心算力是 BF16 的 4 倍。 INT4 tensor cores compute 4x faster than BF16 ones.",
    "C": "量化减少了 KV 缓存。 Quantizing the weights shrinks the KV cache.",
    "D": "prefill 的 token 更多，解量化的开销更大，抵消了收益。 Prefill has more tokens, so dequantization costs more.",
}


def weight_bytes(n_params, bytes_per_param):
    """权重的字节数。The bytes of the weights."""
    # YOUR CODE HERE
    raise NotImplementedError()


def decode_step_time(n_params, bytes_per_param, bandwidth):
    """批大小 1 时每一步的理想耗时（秒）：读一遍全部权重。
    The ideal time of one batch-1 decode step, in seconds: one read of every weight."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_3a_fits():
    """(a) BF16 权重放得进 80 GB 吗？返回 True 或 False。Do the BF16 weights fit in 80 GB? True or False."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_3b_step_time():
    """(b) INT4 时每一步的理想耗时（秒）。The INT4 step time, in seconds."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_3b_tokens_per_s():
    """(b) INT4 时每秒 token 数的上限。The most tokens per second with INT4 weights."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_3c():
    """(c) 从 CHOICES_3C 里选一个，返回它的字母。Pick one of CHOICES_3C and return its letter."""
    # YOUR CODE HERE
    raise NotImplementedError()
