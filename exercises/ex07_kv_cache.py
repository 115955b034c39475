# 你的练习：由课程的参考解答去掉答案生成。
# 在每个 YOUR CODE HERE 处作答，函数名和参数别改；用 pytest exercises/ 打分。
# Your exercise, made from the course's worked solutions with the answers taken out.
# Answer where it says YOUR CODE HERE, keep each function's name and arguments; grade: pytest exercises/
"""练习 7（长上下文的转折点）· Exercise 7 (where long context takes over)

Llama-3 8B（32 层、8 个 KV 头、head_dim 128、BF16），批大小为 1 的解码。上下文多长时，每一步读 KV 缓存的
字节数等于读权重的字节数（除嵌入表外约 14.0 GiB）？批大小为 32 时呢？

Llama-3 8B (32 layers, 8 KV heads, head_dim 128, BF16) decoding at batch 1. At what context length does a
step read as many KV-cache bytes as weight bytes (about 14.0 GiB without the embedding table)? And at
batch 32?

单位 Units: bytes (1 GiB = 2**30 bytes), tokens.

评分时你的代码在单独的进程里运行：`perfcore` 和 `grader` 不能导入（它们算参考答案；除非课程另有设置），
同一文件夹里你自己的模块可以导入。When graded, your code runs in a process of its own: `perfcore` and
`grader` cannot be imported there (they compute the answers; unless your course allows it); your own
modules in the same folder can.
"""

LAYERS = 32
KV_HEADS = 8
HEAD_DIM = 128
BYTES_PER = 2
WEIGHT_BYTES = 14.0 * 2**30


def kv_cache_bytes_per_token(layers, kv_heads, head_dim, bytes_per):
    """一个 token 在所有层的 K 和 V 的字节数。The bytes of K and V for one token across all layers."""
    # YOUR CODE HERE
    raise NotImplementedError()


def kv_weight_crossover(weight_bytes, kv_bytes_per_token, batch):
    """每一步读的 KV 缓存字节数等于权重字节数时的上下文长度（token 数，可以是小数）。
    The context (in tokens, may be fractional) at which the KV bytes read per step, over ``batch``
    sequences, equal ``weight_bytes``."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_7_batch1():
    """批大小 1 时的转折点（token 数）。The crossover context at batch 1, in tokens."""
    # YOUR CODE HERE
    raise NotImplementedError()


def answer_7_batch32():
    """批大小 32 时的转折点（token 数）。The crossover context at batch 32, in tokens."""
    # YOUR CODE HERE
    raise NotImplementedError()
