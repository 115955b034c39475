"""The same experiments on a GPU, where there is one: CUDA (timed with CUDA events) or Apple's MPS.

GPU work is asynchronous: a Python call returns once the kernel is queued, so a host clock read right
after measures the queueing, not the kernel, and yields impossible rates. On CUDA each block is bracketed
by two ``torch.cuda.Event(enable_timing=True)`` recorded on the stream, and the end event is synchronized
before its time is read; on MPS the device is synchronized (``torch.mps.synchronize``) before the clock is
read at both ends. The measured HBM bandwidth and BF16 matmul rate are set beside the detected GPU's entry
in perfcore.specs (``PARTS``: A100, H100 SXM/PCIe/NVL, H200, B200, matched by whole names, see
:func:`spec_match`), and a rate above its spec by more than SPEC_SLACK is reported as a MeasurementError.
A GPU without a spec still has a bandwidth bound where torch reports its memory clock and bus width
(:attr:`CudaDevice.bandwidth_bound`). Everything comes from the *current* device (``CUDA_VISIBLE_DEVICES``
and ``torch.cuda.set_device`` choose it), and the sizes from its free memory (:func:`cuda_sizes`): a MIG
slice or a GPU others are using gets smaller working sets, or a :class:`GpuSkipped` that says why. Where
neither CUDA nor MPS is available, :func:`gpu_experiments` returns a :class:`GpuSkipped` that says so.

An fp32 matmul runs with TF32 off (:func:`fp32_matmul_state`), set for the call and restored after, so
that no global state of the caller's changes the figure; its name says so.
"""

from __future__ import annotations

import contextlib
import functools
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..specs import PARTS, GPUSpec
from ..validation import positive_int
from .core import Figure, MeasurementError
from .timing import Timing, require_torch

#: A measured GPU rate may exceed its spec by this factor before it counts as an error (boost clocks).
SPEC_SLACK = 1.2
MiB = 1 << 20
GiB = 1 << 30
#: GPU memory a process needs beyond its tensors: the CUDA context, cuBLAS's workspace, the allocator's
#: rounding.
GPU_HEADROOM_BYTES = 768 * MiB
#: Bytes an n x n matmul of :func:`device_experiments` holds at once: three bf16 matrices and the fp32
#: matrix ``randn`` draws before the cast.
MATMUL_BYTES_PER_ELEMENT = 3 * 2 + 4


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
    spec_note: str = ""  # why no spec matched ("MIG slice: no spec"), or ""
    matmul_dtype: str = "bf16"  # "fp16" on MPS
    device_index: int | None = None  # the CUDA device measured
    bandwidth_bound: float | None = None  # from the memory clock and bus width, where torch reports them
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


#: Words of a device name that make it another form of a chip than the one a spec describes.
_FORM_WORDS = ("PCIE", "NVL")
#: Words that name a smaller-memory variant a spec does not describe (the A100 40GB: 1,555 GB/s).
_VARIANT_WORDS = {"A100": ("40GB",)}


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[^A-Z0-9.]+", name.upper()) if w]


def spec_match(device_name: str) -> tuple[GPUSpec | None, str]:
    """``(spec, "")`` for the perfcore.specs part ``device_name`` names, by whole words ("NVIDIA H100 80GB
    HBM3" -> H100, "NVIDIA H100 PCIe" -> H100 PCIe), or ``(None, why not)``.

    Whole words: "NVIDIA RTX A1000 Laptop GPU" is no A100 and "NVIDIA GH200 480GB" no H200. A MIG slice
    ("NVIDIA A100-SXM4-40GB MIG 1g.5gb") has a share of the chip's SMs and memory: no spec.
    """
    if not isinstance(device_name, str):
        raise TypeError(f"device_name must be a string such as 'NVIDIA H100 80GB HBM3', got {device_name!r}")
    words = _words(device_name)
    if "MIG" in words:
        return None, "MIG slice: no spec (a slice has a share of the SMs and of the memory bandwidth)"
    for spec in sorted(PARTS.values(), key=lambda g: len(_words(g.name)), reverse=True):
        chip, *form = _words(spec.name)
        if chip not in words or any(w in words for w in _VARIANT_WORDS.get(chip, ())):
            continue
        if all(w in words for w in form) and not any(w in words for w in _FORM_WORDS if w not in form):
            return spec, ""
    return None, f"no spec in perfcore.specs for {device_name!r}"


def match_spec(device_name: str) -> GPUSpec | None:
    """The perfcore.specs part ``device_name`` names, or None (see :func:`spec_match`)."""
    return spec_match(device_name)[0]


@dataclass(frozen=True)
class CudaDevice:
    """What torch says of the current CUDA device: its index, name, L2, free and total memory (bytes), and
    the memory clock (kHz) and bus width (bits) where this torch reports them (None where not)."""

    index: int
    name: str
    l2_bytes: int | None
    free_bytes: int | None
    total_bytes: int | None
    memory_clock_khz: int | None
    bus_width_bits: int | None

    @property
    def bandwidth_bound(self) -> float | None:
        """The DRAM's peak bytes/s from its clock and bus (two transfers a clock, as the DDR, GDDR and HBM
        of NVIDIA's GPUs report them: an H100 SXM's 2.619 GHz x 5120 bits gives its 3.35 TB/s, a T4's
        5.001 GHz x 256 bits its 320 GB/s); None where torch does not report them."""
        if not self.memory_clock_khz or not self.bus_width_bits:
            return None
        return 2 * self.memory_clock_khz * 1e3 * self.bus_width_bits / 8


def cuda_device() -> CudaDevice:
    """The current CUDA device, as :class:`CudaDevice` (CUDA must be available)."""
    torch = require_torch()
    index = int(torch.cuda.current_device())
    props = torch.cuda.get_device_properties(index)
    free: int | None
    total: int | None
    try:
        free, total = (int(v) for v in torch.cuda.mem_get_info(index))
    except (RuntimeError, AttributeError):  # an old torch, or a driver that will not say
        free, total = None, getattr(props, "total_memory", None)

    def prop(name: str) -> int | None:
        value = getattr(props, name, None)
        return int(value) if isinstance(value, (int, float)) and value > 0 else None

    return CudaDevice(
        index=index,
        name=str(torch.cuda.get_device_name(index)),
        l2_bytes=prop("L2_cache_size"),
        free_bytes=free,
        total_bytes=total,
        memory_clock_khz=prop("memory_clock_rate"),
        bus_width_bits=prop("memory_bus_width"),
    )


def cuda_sizes(
    free_bytes: int | None, l2_bytes: int | None, quick: bool = False
) -> tuple[int, tuple[int, ...]] | str:
    """``(copy_bytes, matmul sizes)`` for :func:`device_experiments` on a CUDA device with ``free_bytes``
    of free memory (None: unknown, the full sizes), or why they cannot run there (a string).

    The copy holds two buffers of ``copy_bytes`` (at least 4 x the L2, so that they are DRAM; 1 GiB, or
    512 MiB quick, where they fit) beside the largest matmul; :data:`GPU_HEADROOM_BYTES` stay free.
    """
    l2 = l2_bytes or 64 * MiB
    least = 4 * l2
    copy_bytes = max(least, GiB if not quick else GiB // 2)
    sizes: tuple[int, ...] = (2048, 4096, 8192) if not quick else (4096, 8192)
    if free_bytes is None:
        return copy_bytes, sizes
    budget = free_bytes - GPU_HEADROOM_BYTES
    fits = tuple(s for s in sizes if MATMUL_BYTES_PER_ELEMENT * s * s + 2 * least <= budget)
    if not fits:
        return (
            f"GPU experiments skipped: the GPU has {free_bytes / GiB:.2f} GiB free, too little for two "
            f"DRAM buffers of {least / MiB:.0f} MiB (4 x its L2) and a {min(sizes)}^2 matmul beside "
            f"{GPU_HEADROOM_BYTES / MiB:.0f} MiB for CUDA itself (a MIG slice, or a GPU others are using)"
        )
    copy_bytes = max(least, min(copy_bytes, (budget - MATMUL_BYTES_PER_ELEMENT * max(fits) ** 2) // 2))
    return copy_bytes - copy_bytes % 4, fits


@contextlib.contextmanager
def fp32_matmul_state(tf32: bool = False) -> Iterator[str]:
    """Run the block with TF32 on or off for fp32 matmuls (cuBLAS's ``allow_tf32`` and torch's
    ``float32_matmul_precision``), restore both after, and yield the label the figure records."""
    torch = require_torch()
    matmul = torch.backends.cuda.matmul
    before = (matmul.allow_tf32, torch.get_float32_matmul_precision())
    matmul.allow_tf32 = tf32
    torch.set_float32_matmul_precision("high" if tf32 else "highest")
    try:
        yield "TF32 on" if tf32 else "TF32 off"
    finally:
        matmul.allow_tf32 = before[0]
        torch.set_float32_matmul_precision(before[1])


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
    fp32 = dtype == torch.float32
    for size in matmul_sizes:
        size = positive_int("matmul size", size)
        a = torch.randn(size, size, device=device).to(dtype)
        b = torch.randn(size, size, device=device).to(dtype)
        c = torch.empty(size, size, device=device, dtype=dtype)
        with fp32_matmul_state(False) if fp32 else contextlib.nullcontext("") as state:
            t = timer(functools.partial(torch.mm, a, b, out=c))
        label = f"matmul {size} {str(dtype).replace('torch.', '')}" + (f" ({state})" if state else "")
        mats.append(Figure.from_timing(label, t, 2 * size**3, "FLOP"))
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
    """Run the GPU experiments on CUDA (the current device) or MPS, or say why they are skipped. The GPU
    memory they took is handed back to the driver afterwards, also when one of them failed."""
    backend = gpu_backend()
    if backend is None:
        return GpuSkipped(skip_reason())
    torch = require_torch()
    bandwidth_bound: float | None = None
    index: int | None = None
    if backend == "cuda":
        cuda = cuda_device()
        sized = cuda_sizes(cuda.free_bytes, cuda.l2_bytes, quick)
        if isinstance(sized, str):
            return GpuSkipped(f"{sized} ({cuda.name}, device {cuda.index})")
        copy_bytes, sizes = sized
        name, index, bandwidth_bound = cuda.name, cuda.index, cuda.bandwidth_bound
        device, timer = f"cuda:{cuda.index}", cuda_event_timer()
        dtype, timing = torch.bfloat16, "CUDA events around each block; end event synchronized"
    else:
        name, device = "Apple MPS", "mps"
        timer = sync_timer(torch.mps.synchronize)
        copy_bytes = 2**28
        sizes = (1024, 2048, 4096) if not quick else (2048,)
        dtype, timing = torch.float16, "torch.mps.synchronize() before both clock reads"
    try:
        figures = device_experiments(device, timer, copy_bytes, sizes, dtype)
    finally:
        release_gpu_memory(backend)
    spec, note = spec_match(name) if backend == "cuda" else (None, "MPS: no spec")
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
    if not spec_bw and bandwidth_bound and best_bw > SPEC_SLACK * bandwidth_bound:
        raise MeasurementError(
            f"{name}: measured {best_bw:.3g} bytes/s, above {SPEC_SLACK} x the {bandwidth_bound:.3g} bytes/s "
            "its memory clock and bus width allow"
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
        spec_note=note,
        matmul_dtype="bf16" if dtype == torch.bfloat16 else "fp16",
        device_index=index,
        bandwidth_bound=bandwidth_bound,
        **figures,
    )


def release_gpu_memory(backend: str | None = None) -> None:
    """Drop the cached buffers of :func:`gpu_copy_bandwidth` and :func:`gpu_matmul_flops` and hand the
    allocator's free blocks back to the driver (``empty_cache``), so that another process (the student's,
    beside the reference) can have them."""
    _BUFFERS.clear()
    try:
        torch = require_torch()
    except ImportError:
        return
    backend = backend or gpu_backend()
    if backend == "cuda" and torch.cuda.is_initialized():
        torch.cuda.empty_cache()
    elif backend == "mps":
        torch.mps.empty_cache()


__all__ = [
    "CudaDevice",
    "GpuResult",
    "GpuSkipped",
    "cuda_device",
    "cuda_event_timer",
    "cuda_sizes",
    "device_experiments",
    "fp32_matmul_state",
    "gpu_backend",
    "gpu_bandwidth_bound",
    "gpu_experiments",
    "gpu_flops_bound",
    "match_spec",
    "release_gpu_memory",
    "skip_reason",
    "spec_match",
    "sync_timer",
]


# --------------------------------------------------------------------------------------------------------
# single-shot references, for a grader to interleave with a student's measurement
# --------------------------------------------------------------------------------------------------------

#: At most one set of buffers (the last size asked for), keyed by the device with its index: a 1 GiB copy
#: and an 8192^2 matmul are not held at once, nor buffers of device 0 used on device 1.
_BUFFERS: dict[tuple[Any, ...], Any] = {}


def _gpu() -> tuple[Any, str, Callable[[Callable[[], Any]], Timing]]:
    """torch, the device ("cuda:<current index>" or "mps") and its timer."""
    torch = require_torch()
    backend = gpu_backend()
    if backend is None:
        raise RuntimeError(skip_reason())
    if backend == "cuda":
        return torch, f"cuda:{int(torch.cuda.current_device())}", cuda_event_timer(repeats=5)
    return torch, "mps", sync_timer(torch.mps.synchronize, repeats=5)


def _buffers(key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
    if key not in _BUFFERS:
        if _BUFFERS:
            release_gpu_memory()
        _BUFFERS[key] = make()
    return _BUFFERS[key]


def gpu_copy_bandwidth(n_bytes: int = 1 << 30) -> float:
    """STREAM copy rate (read + write, bytes/s) of ``n_bytes`` on the GPU, timed on the device's clock."""
    torch, device, timer = _gpu()
    n = positive_int("n_bytes", n_bytes) // 4
    src, dst = _buffers(
        ("copy", device, n), lambda: (torch.ones(n, device=device), torch.zeros(n, device=device))
    )
    return 8 * n / timer(lambda: dst.copy_(src)).median_s


def gpu_matmul_flops(n: int = 8192, dtype: str = "bf16", tf32: bool = False) -> float:
    """FLOP/s of an n x n x n matmul in ``dtype`` ("bf16", "fp16", "fp32") on the GPU; an fp32 one with
    TF32 as ``tf32`` says (off: the CUDA cores' fp32), whatever the process had set."""
    torch, device, timer = _gpu()
    n = positive_int("n", n)
    types = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
    if dtype not in types:
        raise ValueError(f"dtype must be one of {', '.join(types)}, got {dtype!r}")
    if not isinstance(tf32, bool):
        raise TypeError(f"tf32 must be a bool, got {tf32!r}")

    def make() -> Any:
        a = torch.randn(n, n, device=device).to(types[dtype])
        return a, a.clone(), torch.empty_like(a)

    a, b, c = _buffers(("mm", device, n, dtype), make)
    with fp32_matmul_state(tf32) if dtype == "fp32" else contextlib.nullcontext():
        return 2 * n**3 / timer(functools.partial(torch.mm, a, b, out=c)).median_s


def detected_gpu_spec() -> GPUSpec | None:
    """The perfcore.specs part of the current CUDA device, or None (no GPU, or one without a spec)."""
    if gpu_backend() != "cuda":
        return None
    torch = require_torch()
    return match_spec(torch.cuda.get_device_name(torch.cuda.current_device()))


def gpu_bandwidth_bound() -> float:
    """The most bytes/s the current CUDA device's memory can move: its spec's, else what its memory clock
    and bus width allow (:attr:`CudaDevice.bandwidth_bound`), else infinity (nothing says)."""
    spec = detected_gpu_spec()
    if spec is not None:
        return spec.hbm_bytes_per_s
    if gpu_backend() != "cuda":
        return float("inf")
    return cuda_device().bandwidth_bound or float("inf")


def gpu_flops_bound(dtype: str = "bf16") -> float:
    """The current CUDA device's spec peak in ``dtype``, else infinity (no spec: nothing says)."""
    spec = detected_gpu_spec()
    return spec.peak(dtype) if spec is not None and dtype in spec.peak_flops else float("inf")
