"""The same experiments on a GPU, where there is one: CUDA (timed with CUDA events) or Apple's MPS.

GPU work is asynchronous: a Python call returns once the kernel is queued, so a host clock read right
after measures the queueing, not the kernel, and yields impossible rates. On CUDA each block is bracketed
by two ``torch.cuda.Event(enable_timing=True)`` recorded on the stream, and the end event is synchronized
before its time is read; on MPS the device is synchronized (``torch.mps.synchronize``) before the clock is
read at both ends. The measured HBM bandwidth and BF16 matmul rate are set beside the detected GPU's entry
in perfcore.specs (H100, H200, A100, B200), and a rate above its spec by more than SPEC_SLACK is reported
as a MeasurementError. Where neither CUDA nor MPS is available, :func:`gpu_experiments` returns a
:class:`GpuSkipped` that says so.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..specs import GPUS, GPUSpec
from ..validation import positive_int
from .core import Figure, MeasurementError
from .timing import Timing, require_torch

#: A measured GPU rate may exceed its spec by this factor before it counts as an error (boost clocks).
SPEC_SLACK = 1.2


@dataclass(frozen=True)
class GpuSkipped:
    reason: str
    skipped: bool = True


@dataclass(frozen=True)
class GpuResult:
    backend: str  # "cuda" or "mps"
    device_name: str
    spec: str | None  # the perfcore.specs entry matched, if any
    copy: Figure  # bytes, STREAM copy
    sum: Figure  # bytes, read once
    matmul: tuple[Figure, ...]  # FLOP, bf16 (fp16 on MPS), one per size
    fusion_unfused: Figure  # bytes, 8 passes
    fusion_fused: Figure  # bytes, one pass
    add_small: Figure  # seconds of torch.add on 16 elements (launch overhead)
    spec_bandwidth: float | None
    spec_peak_flops: float | None
    bandwidth_fraction_of_spec: float | None
    flops_fraction_of_spec: float | None
    timing: str
    skipped: bool = False


def gpu_backend() -> str | None:
    """ "cuda", "mps", or None (also when torch is missing)."""
    try:
        torch = require_torch()
    except ImportError:
        return None
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return None


def skip_reason() -> str:
    try:
        torch = require_torch()
    except ImportError as exc:
        return f"GPU experiments skipped: {exc}"
    return (
        "GPU experiments skipped: no CUDA device (torch.cuda.is_available() is False"
        f"{'; this torch is a CPU build' if torch.version.cuda is None else ''}) and no Apple MPS device"
    )


def match_spec(device_name: str) -> GPUSpec | None:
    """The perfcore.specs entry whose name appears in ``device_name`` ("NVIDIA H100 80GB HBM3" -> H100)."""
    upper = device_name.upper()
    for name in sorted(GPUS, key=len, reverse=True):
        if name.upper() in upper:
            return GPUS[name]
    return None


def cuda_event_timer(
    repeats: int = 10, warmup: int = 3, block_s: float = 0.002
) -> Callable[[Callable[[], Any]], Timing]:
    """A timer that brackets each block with CUDA events (the stream's own clock)."""
    torch = require_torch()

    def timer(fn: Callable[[], Any]) -> Timing:
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

        def block(number: int) -> float:
            start.record()
            for _ in range(number):
                fn()
            end.record()
            end.synchronize()
            return start.elapsed_time(end) / 1e3  # ms -> s

        one = block(1)
        number = max(1, int(block_s / one)) if one > 0 else 1000
        return Timing.from_samples([block(number) / number for _ in range(repeats)], number)

    return timer


def sync_timer(
    sync: Callable[[], Any], repeats: int = 10, warmup: int = 3, block_s: float = 0.002
) -> Callable[[Callable[[], Any]], Timing]:
    """A timer that synchronizes the device (``sync``) before reading the host clock at both ends (MPS)."""

    def timer(fn: Callable[[], Any]) -> Timing:
        for _ in range(warmup):
            fn()
        sync()

        def block(number: int) -> float:
            sync()
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            sync()
            return time.perf_counter() - t0

        one = block(1)
        number = max(1, int(block_s / one)) if one > 0 else 1000
        return Timing.from_samples([block(number) / number for _ in range(repeats)], number)

    return timer


def device_experiments(
    device: str,
    timer: Callable[[Callable[[], Any]], Timing],
    copy_bytes: int,
    matmul_sizes: Sequence[int],
    dtype: Any = None,
    fusion_elements: int | None = None,
) -> dict[str, Any]:
    """The experiments on ``device`` with ``timer``: copy, sum, matmul in ``dtype``, fusion k = 8, a tiny add.

    Device-agnostic, so that the CPU can run it in tests; :func:`gpu_experiments` gives it a GPU.
    """
    torch = require_torch()
    dtype = dtype or torch.bfloat16
    n = positive_int("copy_bytes", copy_bytes) // 4
    src = torch.ones(n, device=device)
    dst = torch.zeros(n, device=device)
    total = torch.zeros((), device=device)
    copy = Figure.from_timing("copy", timer(lambda: dst.copy_(src)), 8 * n, "byte", "read + write")
    summed = Figure.from_timing(
        "sum", timer(lambda: torch.sum(src, dim=0, out=total)), 4 * n, "byte", "read once"
    )
    mats = []
    for size in matmul_sizes:
        size = positive_int("matmul size", size)
        a = torch.randn(size, size, device=device).to(dtype)
        b = torch.randn(size, size, device=device).to(dtype)
        c = torch.empty(size, size, device=device, dtype=dtype)
        t = timer(functools.partial(torch.mm, a, b, out=c))
        mats.append(
            Figure.from_timing(f"matmul {size} {str(dtype).replace('torch.', '')}", t, 2 * size**3, "FLOP")
        )
        del a, b, c
    fe = positive_int("fusion_elements", fusion_elements or n)
    x, y = src[:fe], dst[:fe]
    c8 = 1.01**8

    def unfused() -> None:
        torch.mul(x, 1.01, out=y)
        for _ in range(7):
            y.mul_(1.01)

    fusion_unfused = Figure.from_timing(
        "k=8 unfused", timer(unfused), 8 * 8 * fe, "byte", "8 x (read + write)"
    )
    fusion_fused = Figure.from_timing(
        "k=8 fused", timer(lambda: torch.mul(x, c8, out=y)), 8 * fe, "byte", "read + write once"
    )
    a16, b16, c16 = (torch.ones(16, device=device) for _ in range(3))
    add_small = Figure.from_timing("add 16", timer(lambda: torch.add(a16, b16, out=c16)), 12 * 16, "byte")
    return {
        "copy": copy,
        "sum": summed,
        "matmul": tuple(mats),
        "fusion_unfused": fusion_unfused,
        "fusion_fused": fusion_fused,
        "add_small": add_small,
    }


def gpu_experiments(quick: bool = False) -> GpuResult | GpuSkipped:
    """Run the GPU experiments on CUDA or MPS, or say why they are skipped."""
    backend = gpu_backend()
    if backend is None:
        return GpuSkipped(skip_reason())
    torch = require_torch()
    if backend == "cuda":
        name = torch.cuda.get_device_name()
        l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 64 * 2**20)
        timer = cuda_event_timer()
        copy_bytes = max(4 * l2, 2**30 if not quick else 2**29)
        sizes: Sequence[int] = (2048, 4096, 8192) if not quick else (4096, 8192)
        dtype, timing = torch.bfloat16, "CUDA events around each block; end event synchronized"
    else:
        name = "Apple MPS"
        timer = sync_timer(torch.mps.synchronize)
        copy_bytes = 2**28
        sizes = (1024, 2048, 4096) if not quick else (2048,)
        dtype, timing = torch.float16, "torch.mps.synchronize() before both clock reads"
    figures = device_experiments(backend, timer, copy_bytes, sizes, dtype)
    spec = match_spec(name)
    best_bw = max(figures["copy"].rate, figures["sum"].rate)
    best_fl = max(f.rate for f in figures["matmul"])
    spec_bw = spec.hbm_bytes_per_s if spec else None
    spec_fl = spec.peak("bf16") if spec else None
    if spec_bw and best_bw > SPEC_SLACK * spec_bw:
        raise MeasurementError(
            f"{name}: measured {best_bw:.3g} bytes/s, above {SPEC_SLACK} x its spec {spec_bw:.3g}"
        )
    if spec_fl and best_fl > SPEC_SLACK * spec_fl:
        raise MeasurementError(
            f"{name}: measured {best_fl:.3g} FLOP/s, above {SPEC_SLACK} x its spec {spec_fl:.3g}"
        )
    return GpuResult(
        backend=backend,
        device_name=name,
        spec=spec.name if spec else None,
        spec_bandwidth=spec_bw,
        spec_peak_flops=spec_fl,
        bandwidth_fraction_of_spec=best_bw / spec_bw if spec_bw else None,
        flops_fraction_of_spec=best_fl / spec_fl if spec_fl else None,
        timing=timing,
        **figures,
    )


__all__ = [
    "GpuResult",
    "GpuSkipped",
    "cuda_event_timer",
    "device_experiments",
    "gpu_backend",
    "gpu_experiments",
    "match_spec",
    "skip_reason",
    "sync_timer",
]


# --------------------------------------------------------------------------------------------------------
# single-shot references, for a grader to interleave with a student's measurement
# --------------------------------------------------------------------------------------------------------

_BUFFERS: dict[tuple[Any, ...], Any] = {}


def _gpu() -> tuple[Any, str, Callable[[Callable[[], Any]], Timing]]:
    torch = require_torch()
    backend = gpu_backend()
    if backend is None:
        raise RuntimeError(skip_reason())
    timer = cuda_event_timer(repeats=5) if backend == "cuda" else sync_timer(torch.mps.synchronize, repeats=5)
    return torch, backend, timer


def gpu_copy_bandwidth(n_bytes: int = 1 << 30) -> float:
    """STREAM copy rate (read + write, bytes/s) of ``n_bytes`` on the GPU, timed on the device's clock."""
    torch, device, timer = _gpu()
    n = positive_int("n_bytes", n_bytes) // 4
    key = ("copy", device, n)
    if key not in _BUFFERS:
        _BUFFERS[key] = (torch.ones(n, device=device), torch.zeros(n, device=device))
    src, dst = _BUFFERS[key]
    return 8 * n / timer(lambda: dst.copy_(src)).median_s


def gpu_matmul_flops(n: int = 8192, dtype: str = "bf16") -> float:
    """FLOP/s of an n x n x n matmul in ``dtype`` ("bf16", "fp16", "fp32") on the GPU."""
    torch, device, timer = _gpu()
    n = positive_int("n", n)
    types = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
    if dtype not in types:
        raise ValueError(f"dtype must be one of {', '.join(types)}, got {dtype!r}")
    key = ("mm", device, n, dtype)
    if key not in _BUFFERS:
        a = torch.randn(n, n, device=device).to(types[dtype])
        _BUFFERS[key] = (a, a.clone(), torch.empty_like(a))
    a, b, c = _BUFFERS[key]
    return 2 * n**3 / timer(functools.partial(torch.mm, a, b, out=c)).median_s


def detected_gpu_spec() -> GPUSpec | None:
    """The perfcore.specs entry of the GPU torch sees, or None (no GPU, or one perfcore has no spec for)."""
    if gpu_backend() != "cuda":
        return None
    return match_spec(require_torch().cuda.get_device_name())
