# 你的练习：由课程的参考解答去掉答案生成。
# 在每个 YOUR CODE HERE 处作答，函数名和参数别改；用 pytest exercises/ 打分。
# Your exercise, made from the course's worked solutions with the answers taken out.
# Answer where it says YOUR CODE HERE, keep each function's name and arguments; grade: pytest exercises/
"""测量 5（固定开销）· Measurement 5 (fixed overhead)

§5.3：测一次 FP32 加法在不同大小下的耗时。这里的加法是累加 `out += x`（`torch.add(out, x, out=out)`），
和 `torch.add(a, b, out=c)` 一样每个元素读两个数、写一个数（12 字节）。
(a) 写 `add_time(x, out)`：x、out 是评分器交给你的同样大小的一维 FP32 张量，out 交给你时全是 0，x 里是 2 的幂；
    返回一次 `torch.add(out, x, out=out)` 的时间（秒）。每一次加法都算数：返回时 out 必须等于 r·x，r 是你一共做过的
    加法次数（预热也算，至少一次）；评分器在调用期间从 out 数出你做了几次。
(b) 写 `overhead_curve(x, out, sizes)`：x、out 各有 sum(sizes) 个元素，每个大小 n 用自己的那一段
    （`x.split(sizes)` 的第 i 段，out 同理）；对每个大小返回 (元素数, 秒)。小的时候耗时几乎不变（固定开销），
    大的时候随元素数线性增长（带宽）。返回时 out 的每一段必须等于 r·x（每段自己的 r，至少一次）。

§5.3: time one FP32 add at several sizes. The add accumulates, `out += x` (`torch.add(out, x, out=out)`),
which reads two numbers and writes one an element (12 bytes), as `torch.add(a, b, out=c)` does.
(a) Write `add_time(x, out)`: x and out are 1-D FP32 tensors of one size the grader hands you, out all
    zeros and x powers of two; return the seconds of one `torch.add(out, x, out=out)`. Every add counts:
    when it returns, out must equal r·x, r the adds you ran in all (warm-up included, at least one); the
    grader counts them from out while the call runs.
(b) Write `overhead_curve(x, out, sizes)`: x and out hold sum(sizes) elements each, and size n works on its
    own piece (the i-th piece of `x.split(sizes)`, and of out); for each size return (elements, seconds).
    Small sizes take about the same time (fixed overhead); large ones grow linearly with the elements
    (bandwidth). When it returns, every piece of out must equal r·x (each piece its own r, at least one).

评分器按本机的缓存大小为每份提交抽取 sizes（三个小的，最后两个落在同一级存储里：都在最后一级缓存的一半以内，
或者都至少是它的 4 倍），并在同一个分布抽出的、你没见过的大小上再调用 `overhead_curve`。`add_time` 的元素个数由评分器从一个范围（约 2^10 到
2^21）里为每份提交抽取，评分用的和检查用的调用出自同一个分布：函数要对任何大小都真的测量。评分器在调用期间数着
out 的每一段：每个点的时间必须来自只做这个点的运行的计时。The grader draws ``sizes`` for each submission, for this
machine's caches (three small ones, the last two in one level of the memory hierarchy: both within half the
last-level cache, or both at least 4x it), and calls `overhead_curve` again at other sizes from the same
distribution, which you have not seen. `add_time`'s size is drawn by the grader from a range (about 2^10 to
2^21) for each submission, the graded call and the check calls alike: the function must really measure at
any size. The grader counts the adds on each piece of out during the call: each point's time must come from timing
that point's own runs.

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


def add_time(x, out):
    """一次 torch.add(out, x, out=out)（out += x）的时间（秒）；返回时 out 等于 r·x，r 是做过的加法次数。
    Seconds of one torch.add(out, x, out=out) (out += x); out holds r·x when it returns, r the adds run."""
    # YOUR CODE HERE
    raise NotImplementedError()


def overhead_curve(x, out, sizes):
    """[(元素数, 秒), ...]，按 sizes 的顺序，每个大小用 x、out 里自己的那一段。
    [(elements, seconds), ...] in the order of ``sizes``, each size on its own piece of x and out."""
    # YOUR CODE HERE
    raise NotImplementedError()
