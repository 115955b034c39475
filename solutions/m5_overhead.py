"""测量 5（固定开销）· Measurement 5 (fixed overhead)

§5.3：测 `torch.add(a, b, out=c)` 在不同大小下的耗时。
(a) 写 `add_time(n_elements)`：一次 torch.add 的时间（秒），a、b、c 预先分配好。
(b) 写 `overhead_curve(sizes)`：对每个大小返回 (元素数, 秒)。小的时候耗时几乎不变（固定开销），大的时候随元素数
    线性增长（带宽）。

§5.3: time `torch.add(a, b, out=c)` at several sizes.
(a) Write `add_time(n_elements)`: the seconds of one torch.add, with a, b and c preallocated.
(b) Write `overhead_curve(sizes)`: for each size return (elements, seconds). Small sizes take about the same
    time (fixed overhead); large ones grow linearly with the elements (bandwidth).

评分器按本机的缓存大小为每份提交抽取 sizes（三个小的，最后两个落在同一级存储里：都在最后一级缓存的一半以内，
或者都至少是它的 4 倍），并在同一个分布抽出的、你没见过的大小上再调用 `overhead_curve`。`add_time` 的 n_elements 由评分器从一个范围（约 2^10 到
2^21）里为每份提交抽取，评分用的和检查用的调用出自同一个分布：函数要对任何大小都真的测量。The grader draws
``sizes`` for each submission, for this machine's caches (three small ones, the last two in one level of the
memory hierarchy: both within half the last-level cache, or both at least 4x it), and calls
`overhead_curve` again at other sizes from the same distribution, which you have not seen.
`add_time`'s ``n_elements`` is drawn by the grader from a range (about 2^10 to 2^21) for each submission,
the graded call and the check calls alike: the function must really measure at any size.

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


def add_time(n_elements):
    """一次 torch.add(a, b, out=c) 的时间（秒）。Seconds of one torch.add(a, b, out=c)."""
    ### BEGIN SOLUTION
    torch.set_num_threads(1)
    a, b, c = torch.ones(n_elements), torch.ones(n_elements), torch.empty(n_elements)
    torch.add(a, b, out=c)
    timer = Timer("torch.add(a, b, out=c)", globals={"torch": torch, "a": a, "b": b, "c": c})
    return timer.blocked_autorange(min_run_time=0.05).median
    ### END SOLUTION


def overhead_curve(sizes):
    """[(元素数, 秒), ...]，按 sizes 的顺序。[(elements, seconds), ...] in the order of ``sizes``."""
    ### BEGIN SOLUTION
    return [(n, add_time(n)) for n in sizes]
    ### END SOLUTION
