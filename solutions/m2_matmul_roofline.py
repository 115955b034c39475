"""测量 2（矩阵乘法的算力与 roofline）· Measurement 2 (matmul FLOP/s and the roofline)

(a) 02 演示 4：测一个 n×n 的 FP32 矩阵乘法在一个核心上的 FLOP/s（2n³ 次运算 / 时间）：`matmul_flops(a, b, c)`，
    a、b、c 是评分器交给你的 n×n 张量，用 `torch.mm(a, b, out=c)`；返回时 c 必须等于 a @ b（评分器会检查）。
(b) §3.5：`roofline_sweep(w, x, y, ms)`：W（rows×cols，FP32）固定，输入 X 有 m 行，测 Y = X @ W 在每个 m 下
    达到的 FLOP/s，返回 [(算术强度, FLOP/s), ...]，算术强度 = 2·m·rows·cols / ((m·rows + rows·cols + m·cols) × 4)。
    w、x、y 是评分器交给你的：x 有 sum(ms) 行、y 也是，每个 m 用自己的那一块行（`x.split(ms)` 和 `y.split(ms)`
    的第 i 块），用 `torch.mm(xi, w, out=yi)`；返回时 y 必须等于 x @ w。
    画出来应该是 roofline 的两段式：强度低时上升，强度高时变平。

(a) Seed 002 demo 4: measure the FLOP/s (2n^3 / time) of an n x n FP32 matmul on one core:
    `matmul_flops(a, b, c)`, where a, b and c are n x n tensors the grader hands you; use
    `torch.mm(a, b, out=c)`. When it returns, c must equal a @ b (the grader checks it).
(b) §3.5: `roofline_sweep(w, x, y, ms)`: with W (rows x cols, FP32) fixed and an input X of m rows, measure
    the FLOP/s of Y = X @ W for each m and return [(intensity, FLOP/s), ...], intensity = 2 m rows cols /
    ((m rows + rows cols + m cols) x 4). The grader hands you w, x and y: x and y have sum(ms) rows, and
    each m works on its own block of rows (the i-th block of `x.split(ms)` and of `y.split(ms)`), with
    `torch.mm(xi, w, out=yi)`. When it returns, y must equal x @ w.
    Plotted, it has the roofline's two parts: rising at low intensity, flat at high intensity.

要点 Points that matter: 一个线程；预先分配输出（`torch.mm(a, b, out=c)`）；热身；取中位数。
One thread; preallocated outputs (`torch.mm(a, b, out=c)`); warm up; take the median.

(a) 的 n 由评分器为每份提交从一个范围（几千）里抽取，评分用的和检查用的调用出自同一个分布，每次调用的 a、b 都是新的
随机矩阵：函数要对任何 n 都真的测 n×n 的矩阵乘法。The grader chooses (a)'s n, drawn from a range (a few
thousand) for each submission, the graded call and the check calls alike, and every call's a and b are
new random matrices: the function must really time the n x n matmul at any n. 评分器在调用期间看着 (b) 的 y
的每一块：每个点的 FLOP/s 必须来自只做这个点的矩阵乘法的计时。The grader watches each block of (b)'s y during
the call: each point's FLOP/s must come from timing that point's own products.

评分时你的代码在单独的进程里运行：`perfcore` 和 `grader` 不能导入（它们算参考答案；除非课程另有设置），
同一文件夹里你自己的模块可以导入。When graded, your code runs in a process of its own: `perfcore` and
`grader` cannot be imported there (they compute the answers; unless your course allows it); your own
modules in the same folder can.
"""

import torch
from torch.utils.benchmark import Timer


def _seconds(stmt, **names):
    return Timer(stmt, globals={"torch": torch, **names}).blocked_autorange(min_run_time=0.05).median


def matmul_flops(a, b, c):
    """c = a @ b（n×n×n，FP32）的 FLOP/s；返回时 c 等于 a @ b。
    The FLOP/s of c = a @ b (n x n x n, FP32); c holds a @ b when it returns."""
    ### BEGIN SOLUTION
    torch.set_num_threads(1)
    n = a.shape[0]
    torch.mm(a, b, out=c)
    return 2 * n**3 / _seconds("torch.mm(a, b, out=c)", a=a, b=b, c=c)
    ### END SOLUTION


def roofline_sweep(w, x, y, ms):
    """对每个 m 返回 (算术强度 FLOP/字节, FLOP/s)，按 ms 的顺序，每个 m 用 x、y 里自己的那一块行。
    For each m of ``ms``, in order, return (intensity in FLOP/byte, FLOP/s), each m on its own block of rows
    of x and y."""
    ### BEGIN SOLUTION
    torch.set_num_threads(1)
    rows, cols = w.shape
    points = []
    for m, xi, yi in zip(ms, x.split(list(ms)), y.split(list(ms)), strict=True):
        torch.mm(xi, w, out=yi)
        flops = 2 * m * rows * cols
        intensity = flops / ((m * rows + rows * cols + m * cols) * 4)
        points.append((intensity, flops / _seconds("torch.mm(xi, w, out=yi)", xi=xi, w=w, yi=yi)))
    return points
    ### END SOLUTION
