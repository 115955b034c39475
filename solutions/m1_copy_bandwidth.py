"""测量 1（单核的内存带宽）· Measurement 1 (memory bandwidth of one core)

§3.5 / 02 演示 4：在一个 CPU 核心上测复制的带宽。写 `copy_bandwidth(src, dst)`：src 和 dst 是评分器交给你的两个
同样大小、各自分配的一维 FP32 张量；用 `dst.copy_(src)` 把 src 复制到 dst，返回按 STREAM 计数的带宽（读 + 写，
即 2 × src.nbytes / 时间），单位字节/秒。函数返回时 dst 必须是 src 的副本：评分器会检查。

§3.5 / seed 002 demo 4: measure the copy bandwidth of one CPU core. Write `copy_bandwidth(src, dst)`: src and
dst are two 1-D FP32 tensors of the same size, allocated apart, that the grader hands you; copy src into dst
with `dst.copy_(src)` and return the bandwidth counted as STREAM does (read + write: 2 x src.nbytes / time),
in bytes/s. When the function returns, dst must hold the copy of src: the grader checks it.

评分器按本机的缓存大小为每份提交抽取大小（n_bytes = src.nbytes）：源和目标加起来至少是最后一级缓存的 4 倍（32 MiB 的 L3 上是各
128 MiB 到 192 MiB），这样复制真的走内存；它还会在一个你没见过的、放得进缓存的大小上再调用一次，两次的先后也是抽的。The grader draws ``n_bytes`` for
each submission, for this machine's caches: source and destination together at least 4x its last-level
cache (128 to 192 MiB each on a 32 MiB L3), so that the copy really goes to DRAM; it also calls at an
in-cache size you have not seen, in an order that is drawn too.

要点 Points that matter: 就用评分器给的 src 和 dst（每次调用都是新的、内容随机的缓冲区，不要自己另外分配）；一个线程；
计时前先复制一遍（热身，也把 dst 的每一页都写过，否则测到的是缺页）；重复计时取中位数。
Use the src and dst the grader hands you (new buffers of random contents at every call: do not allocate
your own); one thread; copy once before timing (a warm-up, which also touches every page of dst, else you
time page faults); time repeatedly and take the median. 评分器把你的结果和 perfcore 的参考测量交替运行，
看每一轮两者之比：比值的置信区间整个落在允许范围内才通过，整个落在外面才算错，跨着边界就多测几轮，仍定不下来
则暂缓计分并说明原因。The grader runs yours and perfcore's reference alternately and looks at the ratio in
each round: it passes when the ratio's confidence interval lies inside the band, is wrong when the whole
interval lies outside, and takes more rounds while it straddles an edge (deferred, with the reason, if it
still does).

评分时你的代码在单独的进程里运行：`perfcore` 和 `grader` 不能导入（它们算参考答案；除非课程另有设置），
同一文件夹里你自己的模块可以导入。When graded, your code runs in a process of its own: `perfcore` and
`grader` cannot be imported there (they compute the answers; unless your course allows it); your own
modules in the same folder can.
"""

import torch
from torch.utils.benchmark import Timer


def copy_bandwidth(src, dst):
    """把 src 复制到 dst 的带宽（STREAM 计数：读 + 写），字节/秒；返回时 dst 是 src 的副本。
    The bandwidth of copying src into dst (STREAM counting: read + write), in bytes/s; dst holds the copy
    when it returns."""
    ### BEGIN SOLUTION
    torch.set_num_threads(1)
    dst.copy_(src)  # warm up and touch the output: page faults happen here, not in the timing
    timer = Timer("dst.copy_(src)", globals={"dst": dst, "src": src})
    seconds = timer.blocked_autorange(min_run_time=0.05).median
    return 2 * src.nbytes / seconds
    ### END SOLUTION
