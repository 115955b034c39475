"""Checks of measurement 6 (bandwidth and BF16 matmul rate on a GPU): solutions/m6_gpu.py.

Runs only where CUDA is, and where the current CUDA device has the free memory for the student's working
set and perfcore's (a MIG slice or a busy GPU may not); elsewhere skipped, its points deferred. A rate
above the detected GPU's spec (perfcore.specs, with the slack of perfcore.measure.gpu) fails as a
measurement bug; on a GPU without a spec the bandwidth is bounded by its memory clock and bus width.

Each check names its work (a copy reads and writes its bytes; a product is 2n^3 FLOPs on three n x n bf16
matrices), so that a call must last at least half of one run at the rate it reports (the claimed-rate
rule: a figure typed in, or a spec's model, returned at once, passed here on an H100 before). The work
floor at the machine's bounds is the CPU's, and is not applied on a GPU.
"""

from grader.specs.check import Exercise, MeasurementCheck, Work
from grader.specs.requirements import Requirements
from perfcore.measure import gpu_copy_bandwidth, gpu_matmul_flops
from perfcore.measure.gpu import SPEC_SLACK, gpu_bandwidth_bound, gpu_flops_bound

COPY_BYTES = 1 << 30
MATMUL_N = 8192
#: The GPU memory one side holds: two fp32 buffers of COPY_BYTES; three bf16 n x n matrices and the fp32
#: one randn draws before the cast.
_COPY = Requirements(torch=">=2.0", cuda=True, serial=True, gpu_memory_bytes=2 * COPY_BYTES)
_MATMUL = Requirements(torch=">=2.0", cuda=True, serial=True, gpu_memory_bytes=(3 * 2 + 4) * MATMUL_N**2)


def _spec_bound(field: str) -> float:
    return SPEC_SLACK * (gpu_bandwidth_bound() if field == "bandwidth" else gpu_flops_bound("bf16"))


def _copy_work(n_bytes: int) -> Work:
    return Work(bytes=2 * n_bytes)  # read and written, as perfcore's rate counts them


def _matmul_work(n: int) -> Work:
    return Work(bytes=3 * 2 * n * n, flops=2 * n**3)


def _copy(n_bytes: int) -> float:
    return gpu_copy_bandwidth(n_bytes=n_bytes)


def _matmul(n: int) -> float:
    return gpu_matmul_flops(n=n, dtype="bf16")


EXERCISE = Exercise(
    id="m6",
    module="m6_gpu",
    title_zh="GPU 上的带宽与算力",
    title_en="Bandwidth and matmul rate on a GPU",
    checks=(
        MeasurementCheck(
            id="gpu_copy_bandwidth",
            part="m6a",
            points=3,
            func="gpu_copy_bandwidth",
            kwargs={"n_bytes": COPY_BYTES},
            reference=_copy,
            work=_copy_work,
            kind="dram",
            rounds=5,
            single_thread=False,
            physical_bound=lambda: _spec_bound("bandwidth"),
            requires=_COPY,
            hint_zh="GPU 是异步的：用 CUDA 事件计时，读时间前同步。",
            hint_en="GPU work is asynchronous: time with CUDA events and synchronize before reading them.",
        ),
        MeasurementCheck(
            id="gpu_bf16_matmul",
            part="m6b",
            points=3,
            func="gpu_bf16_matmul_flops",
            kwargs={"n": MATMUL_N},
            reference=_matmul,
            work=_matmul_work,
            kind="compute",
            rounds=5,
            single_thread=False,
            unit="FLOP/s",
            physical_bound=lambda: _spec_bound("flops"),
            requires=_MATMUL,
            hint_zh="2n³ 次运算；BF16 张量；先热身。",
            hint_en="2n^3 FLOP; BF16 tensors; warm up first.",
        ),
    ),
)
