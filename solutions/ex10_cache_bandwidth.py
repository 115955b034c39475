"""练习 10（自己测一测）· Exercise 10 (measure it yourself)

§3.5 在一个 CPU 核心上测 y = W @ x 的有效带宽（m = 1，FP32）。把 W 从 4096×8192（128 MiB）改小到
1024×1024（4 MiB），再测 m = 1 的有效带宽。和 128 MiB 的 W 相比有什么不同？为什么？

§3.5 measures the effective bandwidth of y = W @ x (m = 1, FP32) on one CPU core. Shrink W from
4096 x 8192 (128 MiB) to 1024 x 1024 (4 MiB) and measure again at m = 1. How does it compare with the
128 MiB W, and why?

评分器按本机的缓存大小选大的 W：4096 行，总大小至少是最后一级缓存的 4 倍（32 MiB 的 L3 上是 4096×16384，
256 MiB），这样它一定在内存里；小的 W 最大是 1024×1024。两者的形状都由评分器为每份提交从一个范围里抽取（评分用的
和检查用的调用出自同一个分布）。The grader sizes the large W for this machine: 4096 rows and at least 4x its
last-level cache in all (4096 x 16384, 256 MiB, on a 32 MiB L3), so that it surely lives in DRAM; the small
W is at most 1024 x 1024. Both shapes are drawn by the grader from a range for each submission (the graded
call and the check calls alike).

写 `matvec_bandwidth(w, x, y)`：w（rows×cols）、x（cols）、y（rows）是评分器交给你的 FP32 张量；返回时 y 必须等于
w @ x（评分器会检查）。Write `matvec_bandwidth(w, x, y)`: w (rows x cols), x (cols) and y (rows) are FP32
tensors the grader hands you; when it returns, y must equal w @ x (the grader checks it).

测量要求 How to measure: 一个线程（`torch.set_num_threads(1)`）；用 `torch.mv(w, x, out=y)`；
先热身，再重复计时取中位数（推荐 `torch.utils.benchmark.Timer`）；有效带宽 = (w + x + y 的字节数) / 时间。
One thread; call `torch.mv(w, x, out=y)`; warm up, then time repeatedly and take the median
(`torch.utils.benchmark.Timer` is recommended); effective bandwidth = bytes of w + x + y / time.

评分时你的代码在单独的进程里运行：`perfcore` 和 `grader` 不能导入（它们算参考答案；除非课程另有设置），
同一文件夹里你自己的模块可以导入。When graded, your code runs in a process of its own: `perfcore` and
`grader` cannot be imported there (they compute the answers; unless your course allows it); your own
modules in the same folder can.
"""

#: 选项 The choices.
CHOICES_10 = {
    "A": "小的 W 放得进 CPU 缓存，重复测量时从缓存而不是内存读取，有效带宽更高；带宽要用数据实际所在那一层的。"
    " The small W fits in the CPU's cache, so repeated runs read it from cache, not DRAM: a higher effective "
    "bandwidth. Use the bandwidth of the level the data lives in.",
    "B": "小矩阵的计算更少，所以变成了计算受限。 The small matrix does less work, so it becomes compute-bound.",
    "C": "两者一样：带宽是硬件常数，与数据大小无关。 They are the same: bandwidth is a constant of the hardware.",
    "D": "小的 W 更慢，因为固定开销占比更大。 The small W is slower because fixed overhead dominates.",
}


def matvec_bandwidth(w, x, y):
    """测 y = w @ x（w 为 rows×cols 的 FP32，m = 1）在一个核心上的有效带宽，返回字节/秒；返回时 y 等于 w @ x。
    Measure the effective bandwidth of y = w @ x (w FP32 rows x cols, m = 1) on one core, in bytes/s; y
    holds w @ x when it returns."""
    import torch  # here, not at the top: answer_10_why needs no torch
    from torch.utils.benchmark import Timer

    ### BEGIN SOLUTION
    torch.set_num_threads(1)
    torch.mv(w, x, out=y)  # warm up and touch every page
    seconds = (
        Timer("torch.mv(w, x, out=y)", globals={"torch": torch, "w": w, "x": x, "y": y})
        .blocked_autorange(min_run_time=0.05)
        .median
    )
    return (w.nbytes + x.nbytes + y.nbytes) / seconds
    ### END SOLUTION


def answer_10_why():
    """从 CHOICES_10 里选一个，返回它的字母。Pick one of CHOICES_10 and return its letter."""
    ### BEGIN SOLUTION
    return "A"
    ### END SOLUTION
