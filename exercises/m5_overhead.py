# 你的练习：由课程的参考解答去掉答案生成。
# 在每个 YOUR CODE HERE 处作答，函数名和参数别改；用 pytest exercises/ 打分。
# Your exercise, made from the course's worked solutions with the answers taken out.
# Answer where it says YOUR CODE HERE, keep each function's name and arguments; grade: pytest exercises/
"""测量 5（固定开销）· Measurement 5 (fixed overhead)

§5.3：测 `torch.add(a, b, out=c)` 在不同大小下的耗时。
(a) 写 `add_time(a, b, c)`：a、b、c 是评分器交给你的同样大小的一维 FP32 张量，返回一次 `torch.add(a, b, out=c)`
    的时间（秒）；返回时 c 必须等于 a + b（评分器会检查）。
(b) 写 `overhead_curve(a, b, c, sizes)`：a、b、c 各有 sum(sizes) 个元素，每个大小 n 用自己的那一段
    （`a.split(sizes)` 的第 i 段，b、c 同理）；对每个大小返回 (元素数, 秒)。小的时候耗时几乎不变（固定开销），
    大的时候随元素数线性增长（带宽）。返回时 c 必须处处等于 a + b。

§5.3: time `torch.add(a, b, out=c)` at several sizes.
(a) Write `add_time(a, b, c)`: a, b and c are 1-D FP32 tensors of one size the grader hands you; return the
    seconds of one `torch.add(a, b, out=c)`. When it returns, c must equal a + b (the grader checks it).
(b) Write `overhead_curve(a, b, c, sizes)`: a, b and c hold sum(sizes) elements each, and size n works on
    its own piece (the i-th piece of `a.split(sizes)`, and of b and c); for each size return (elements,
    seconds). Small sizes take about the same time (fixed overhead); large ones grow linearly with the
    elements (bandwidth). When it returns, c must equal a + b everywhere.

评分器按本机的缓存大小为每份提交抽取 sizes（三个小的，最后两个落在同一级存储里：都在最后一级缓存的一半以内，
或者都至少是它的 4 倍），并在同一个分布抽出的、你没见过的大小上再调用 `overhead_curve`。`add_time` 的元素个数由评分器从一个范围（约 2^10 到
2^21）里为每份提交抽取，评分用的和检查用的调用出自同一个分布：函数要对任何大小都真的测量。评分器在调用期间看着
c 的每一段：每个点的时间必须来自只做这个点的运行的计时。The grader draws ``sizes`` for each submission, for this
machine's caches (three small ones, the last two in one level of the memory hierarchy: both within half the
last-level cache, or both at least 4x it), and calls `overhead_curve` again at other sizes from the same
distribution, which you have not seen. `add_time`'s size is drawn by the grader from a range (about 2^10 to
2^21) for each submission, the graded call and the check calls alike: the function must really measure at
any size. The grader watches each piece of c during the call: each point's time must come from timing that
point's own runs.

要点 Points that matter: 微秒级的调用要成批计时（一次计时里调用很多次），否则计时器的分辨率和抖动会淹没结果。
Time µs-scale calls in batches (many calls per timed block), or the timer's resolution and jitter drown
the result.

评分时你的代码在单独的进程里运行：`perfcore` 和 `grader` 不能导入（它们算参考答案；除非课程另有设置），
同一文件夹里你自己的模块可以导入。When graded, your code runs in a process of its own: `perfcore` and
`grader` cannot be imported there (they compute the answers; unless your course allows it); your own
modules in the same folder can.
"""

import torch
from torch.utils.benchmark import Timer


def add_time(a, b, c):
    """一次 torch.add(a, b, out=c) 的时间（秒）；返回时 c 等于 a + b。
    Seconds of one torch.add(a, b, out=c); c holds a + b when it returns."""
    # YOUR CODE HERE
    raise NotImplementedError()


def overhead_curve(a, b, c, sizes):
    """[(元素数, 秒), ...]，按 sizes 的顺序，每个大小用 a、b、c 里自己的那一段。
    [(elements, seconds), ...] in the order of ``sizes``, each size on its own piece of a, b and c."""
    # YOUR CODE HERE
    raise NotImplementedError()
