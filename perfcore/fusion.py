"""Fusion and overhead (§5): the three bottlenecks, as models.

``fusion_estimate`` is 04 part 1 (a chain of elementwise ops on a GPU, each its own kernel vs one fused
kernel); ``launch_overhead`` is the launch-overhead model of §5.3 and exercise 9 (kernels launched one by
one, each launch a fixed cost, then the kernel's own work), with CUDA Graphs and fusion as its variants.
"""

from __future__ import annotations

from typing import NamedTuple

from .costs import elementwise_cost
from .roofline import roofline
from .specs import GPUSpec, as_gpu
from .validation import positive_int, positive_number


class FusionEstimate(NamedTuple):
    """``num_ops`` elementwise ops over one tensor, unfused (one HBM round trip each) vs fused (one)."""

    num_ops: int
    n_elements: int
    unfused_bytes: float
    fused_bytes: float
    unfused_time_s: float
    fused_time_s: float

    @property
    def speedup(self) -> float:
        return self.unfused_time_s / self.fused_time_s


def fusion_estimate(
    num_ops: int,
    n_elements: int = 8 * 2048 * 4096,
    gpu: GPUSpec | str = "H100",
    bytes_per: float = 2,
    flops_per_op: float = 1,
    dtype: str = "bf16",
) -> FusionEstimate:
    """A chain of ``num_ops`` unary elementwise ops over ``n_elements`` numbers on ``gpu`` (§5.1).

    Unfused, each op reads the tensor from HBM and writes it back; fused, the chain reads once and writes
    once and the intermediates stay in registers. The default is the lecture's [8, 2048, 4096] BF16
    activation (64 Mi elements) on the H100.
    """
    num_ops = positive_int("num_ops", num_ops)
    n_elements = positive_int("n_elements", n_elements)
    spec = as_gpu(gpu)
    one = elementwise_cost(n_elements, flops_per_element=flops_per_op, bytes_per=bytes_per)
    fused = elementwise_cost(n_elements, flops_per_element=flops_per_op * num_ops, bytes_per=bytes_per)
    one_time = roofline(one.flops, one.bytes, spec, dtype).time_s
    return FusionEstimate(
        num_ops=num_ops,
        n_elements=n_elements,
        unfused_bytes=num_ops * one.bytes,
        fused_bytes=fused.bytes,
        unfused_time_s=num_ops * one_time,
        fused_time_s=roofline(fused.flops, fused.bytes, spec, dtype).time_s,
    )


class Overhead(NamedTuple):
    """Kernels launched one after another: each launch costs ``launch_s`` before the kernel's work runs."""

    num_kernels: int
    launch_s: float
    compute_s: float  # total work of all kernels together
    time_s: float  # num_kernels x launch_s + compute_s
    busy_fraction: float  # compute_s / time_s: the share of the time the GPU computes


def launch_overhead(num_kernels: int, compute_s: float, launch_s: float) -> Overhead:
    """Time of ``num_kernels`` kernels whose work adds up to ``compute_s``, each launched for ``launch_s``.

    Exercise 9: 200 kernels of 1 us each with 5 us launches -> 1200 us, busy 17%. CUDA Graphs lower
    ``launch_s``; fusion lowers ``num_kernels`` with ``compute_s`` unchanged.
    """
    num_kernels = positive_int("num_kernels", num_kernels)
    compute_s = positive_number("compute_s", compute_s, allow_zero=True)
    launch_s = positive_number("launch_s", launch_s, allow_zero=True)
    time_s = num_kernels * launch_s + compute_s
    if time_s <= 0:
        raise ValueError("compute_s and launch_s cannot both be zero: the time would be zero")
    return Overhead(num_kernels, launch_s, compute_s, time_s, compute_s / time_s)


def overhead_remedies(
    num_kernels: int = 200,
    compute_s_per_kernel: float = 1e-6,
    launch_s: float = 5e-6,
    graph_launch_s: float = 0.5e-6,
    fused_kernels: int = 20,
) -> dict[str, Overhead]:
    """Exercise 9: the baseline, CUDA Graphs, fusion, and both, for the same total work."""
    num_kernels = positive_int("num_kernels", num_kernels)
    compute = num_kernels * positive_number("compute_s_per_kernel", compute_s_per_kernel)
    return {
        "baseline": launch_overhead(num_kernels, compute, launch_s),
        "cuda graphs": launch_overhead(num_kernels, compute, graph_launch_s),
        "fusion": launch_overhead(fused_kernels, compute, launch_s),
        "graphs + fusion": launch_overhead(fused_kernels, compute, graph_launch_s),
    }


def rmsnorm_residual_fusion(
    shape: tuple[int, ...] = (16, 4096, 8192), gpu: GPUSpec | str = "H100", bytes_per: float = 2
) -> dict[str, float]:
    """Exercise 2: a residual add (read 2, write 1) then an RMSNorm (read 1, write 1), apart and fused.

    Returns the times in seconds of ``rmsnorm``, ``residual_add``, ``unfused`` (both) and ``fused`` (read
    two inputs, write one output), and the ``speedup``. Memory-bound, so time = bytes / bandwidth.
    """
    n = 1
    for i, dim in enumerate(shape):
        n *= positive_int(f"shape[{i}]", dim)
    bw = as_gpu(gpu).hbm_bytes_per_s
    bytes_per = positive_number("bytes_per", bytes_per)
    rmsnorm = elementwise_cost(n, 1, 1, bytes_per=bytes_per).bytes / bw
    residual = elementwise_cost(n, 2, 1, bytes_per=bytes_per).bytes / bw
    fused = elementwise_cost(n, 2, 1, bytes_per=bytes_per).bytes / bw
    return {
        "n_elements": float(n),
        "rmsnorm": rmsnorm,
        "residual_add": residual,
        "unfused": rmsnorm + residual,
        "fused": fused,
        "saved": rmsnorm + residual - fused,
        "speedup": (rmsnorm + residual) / fused,
    }
