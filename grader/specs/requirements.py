"""What a check needs from the machine it runs on, and why a check is skipped when the machine lacks it.

``Requirements`` only states needs; :func:`unmet_reason` reads the machine and returns the (localized)
reason a check cannot run here, or ``None``. A check whose requirements are unmet is *skipped* and its
points are *deferred* (left out of the maximum, listed as such), never counted as a failure.

Serial runs and pytest-xdist: a check that needs a serial run (every measurement by default) is unmet in a
pytest-xdist worker when more than one worker runs (``PYTEST_XDIST_WORKER_COUNT`` > 1), because the other
workers' tests share the cores and the memory bus and make the measurement unfair. We chose this over an
``xdist_group`` marker with ``--dist loadgroup``: grouping only puts the serial checks on one worker, while
the other workers keep loading the machine. Run ``pytest exercises/`` without ``-n`` to grade measurements.
"""

from __future__ import annotations

import importlib.metadata
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from perfcore.measure.gpu import cuda_device

from ..text.catalogue import render
from .sizes import Memory

if TYPE_CHECKING:
    from .sizes import Memory

#: Memory left over beyond two working sets: the interpreters, torch, and the rest of the machine.
MEMORY_HEADROOM = 1 << 30
#: GPU memory left over beyond two GPU working sets: the CUDA contexts of the worker, the reference
#: process and the judge (which reads the free memory), and cuBLAS's workspaces.
GPU_HEADROOM = 3 << 29


@dataclass(frozen=True)
class Requirements:
    """Needs of a check. ``torch`` is a PEP 440 specifier (``">=2.0"``; ``""`` means any version).

    ``caches``: the cache sizes must be readable (the check's sizes come from them, see
    :mod:`grader.specs.sizes`); ``memory_bytes``: the working set one process needs (the student's and perfcore's
    each hold one, so twice this, plus :data:`MEMORY_HEADROOM`, must be available); ``gpu_memory_bytes``:
    the same on the current CUDA device, against its free memory (twice this plus
    :data:`GPU_HEADROOM`: a MIG slice or a GPU others are using can have too little).
    """

    torch: str | None = None
    cuda: bool = False
    mps: bool = False
    min_llc_bytes: int = 0
    serial: bool = False
    caches: bool = False
    memory_bytes: int = 0
    gpu_memory_bytes: int = 0

    def __post_init__(self) -> None:
        if self.torch is not None:
            if not isinstance(self.torch, str):
                raise TypeError(f"Requirements.torch must be a PEP 440 specifier string, got {self.torch!r}")
            _specifier(self.torch)
        for name in ("cuda", "mps", "serial", "caches"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"Requirements.{name} must be a bool, got {getattr(self, name)!r}")
        if isinstance(self.min_llc_bytes, bool) or not isinstance(self.min_llc_bytes, int):
            raise TypeError(f"Requirements.min_llc_bytes must be an int, got {self.min_llc_bytes!r}")
        if self.min_llc_bytes < 0:
            raise ValueError(f"Requirements.min_llc_bytes must be >= 0, got {self.min_llc_bytes}")
        if isinstance(self.memory_bytes, bool) or not isinstance(self.memory_bytes, int):
            raise TypeError(f"Requirements.memory_bytes must be an int, got {self.memory_bytes!r}")
        if self.memory_bytes < 0:
            raise ValueError(f"Requirements.memory_bytes must be >= 0, got {self.memory_bytes}")
        if isinstance(self.gpu_memory_bytes, bool) or not isinstance(self.gpu_memory_bytes, int):
            raise TypeError(f"Requirements.gpu_memory_bytes must be an int, got {self.gpu_memory_bytes!r}")
        if self.gpu_memory_bytes < 0:
            raise ValueError(f"Requirements.gpu_memory_bytes must be >= 0, got {self.gpu_memory_bytes}")
        if self.gpu_memory_bytes and not self.cuda:
            raise ValueError("Requirements.gpu_memory_bytes needs cuda=True (it is CUDA device memory)")

    @property
    def needs_torch(self) -> bool:
        return self.torch is not None or self.cuda or self.mps


def _specifier(text: str):  # -> packaging.specifiers.SpecifierSet

    try:
        return SpecifierSet(text)
    except InvalidSpecifier:
        raise ValueError(
            f"Requirements.torch must be a PEP 440 specifier such as '>=2.0', got {text!r}"
        ) from None


def installed_torch_version() -> str | None:
    """The installed torch version (without importing torch), or None when torch is not installed."""
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None


def parallel_workers() -> int:
    """How many pytest-xdist workers share this machine now (1 outside xdist)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return 1
    try:
        return int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "2"))
    except ValueError:
        return 2


def unmet_reason(req: Requirements, lang: str = "zh", memory: Memory | None = None) -> str | None:
    """Why ``req`` is not met on this machine (in ``lang``), or None when it is met. ``memory`` is the
    machine's caches and free memory (read here when not given; tests inject other machines')."""
    if req.needs_torch:
        version = installed_torch_version()
        if version is None:
            # Name the device too: "needs torch" alone would hide that the check also needs a GPU.
            if req.cuda:
                return render("req_no_cuda", lang) + "; " + render("req_no_torch", lang)
            if req.mps:
                return render("req_no_mps", lang) + "; " + render("req_no_torch", lang)
            return render("req_no_torch", lang)
        if req.torch:
            try:
                ok = _specifier(req.torch).contains(Version(version), prereleases=True)
            except InvalidVersion:
                ok = False
            if not ok:
                return render("req_torch_version", lang, version=version, spec=req.torch)
    if req.cuda or req.mps:
        absent = no_gpu_here(req)
        if absent is not None:  # told without importing torch (seconds a fresh kit's run need not pay)
            return render(absent, lang)
        try:
            import torch  # deferred on purpose: optional and heavy, only for a check that needs a GPU
        except Exception as exc:  # a broken torch install is a reason, not a crash
            return render("req_no_torch", lang) + f" ({type(exc).__name__})"
        if req.cuda and not torch.cuda.is_available():
            return render("req_no_cuda", lang)
        if req.cuda and req.gpu_memory_bytes:
            short = gpu_memory_shortage(req.gpu_memory_bytes, lang)
            if short is not None:
                return short
        mps = getattr(getattr(torch, "backends", None), "mps", None)
        if req.mps and not (mps is not None and mps.is_available()):
            return render("req_no_mps", lang)
    if req.min_llc_bytes or req.caches or req.memory_bytes:
        if memory is None:
            memory = Memory.here()
        if req.caches and not memory.known:
            return render("req_caches_unknown", lang)
        if req.min_llc_bytes and not memory.known:
            return render("req_llc_unknown", lang, need=_mib(req.min_llc_bytes))
        if req.min_llc_bytes and memory.llc_bytes < req.min_llc_bytes:
            return render("req_llc_small", lang, have=_mib(memory.llc_bytes), need=_mib(req.min_llc_bytes))
        need = 2 * req.memory_bytes + MEMORY_HEADROOM
        if req.memory_bytes and memory.available_bytes is not None and memory.available_bytes < need:
            return render("req_memory", lang, need=_mib(need), have=_mib(memory.available_bytes))
    if req.serial and parallel_workers() > 1:
        return render("req_serial", lang, workers=parallel_workers())
    return None


#: Where Linux's NVIDIA driver shows itself: CUDA needs one of them.
NVIDIA_DRIVER_FILES = ("/proc/driver/nvidia/version", "/dev/nvidiactl", "/dev/nvidia0")


def no_gpu_here(req: Requirements) -> str | None:
    """The message key of a GPU the machine plainly lacks, read without importing torch: CUDA on a Linux
    without NVIDIA's driver, MPS anywhere but macOS; None where torch must be asked (or has been imported
    already, and is asked: a test's fake CUDA lives there)."""
    if "torch" in sys.modules:
        return None
    if (
        req.cuda
        and sys.platform.startswith("linux")
        and not any(os.path.exists(f) for f in NVIDIA_DRIVER_FILES)
    ):
        return "req_no_cuda"
    if req.mps and not req.cuda and sys.platform != "darwin":
        return "req_no_mps"
    return None


def gpu_memory_shortage(working_set: int, lang: str = "zh", device: object = None) -> str | None:
    """Why the current CUDA device cannot hold two working sets of ``working_set`` bytes (the student's and
    perfcore's) beside :data:`GPU_HEADROOM`, or None when it can (or its free memory is unknown).
    ``device``: a :class:`perfcore.measure.gpu.CudaDevice` (read here when not given; tests inject one)."""
    if device is None:
        device = cuda_device()
    free = getattr(device, "free_bytes", None)
    need = 2 * working_set + GPU_HEADROOM
    if free is None or free >= need:
        return None
    name = f"{getattr(device, 'name', 'GPU')} (cuda:{getattr(device, 'index', 0)})"
    return render("req_gpu_memory", lang, need=_mib(need), have=_mib(free), device=name)


def _mib(n_bytes: int) -> str:
    return f"{n_bytes / 1024**2:.1f} MiB"


__all__ = [
    "Requirements",
    "gpu_memory_shortage",
    "installed_torch_version",
    "parallel_workers",
    "unmet_reason",
]
