"""GPU specifications: the hardware numbers every other model in perfcore starts from.

All figures are vendor peak figures, dense (no 2:4 sparsity), SXM parts. Units are SI: FLOP/s, bytes/s,
bytes. HBM capacity is in GB (1e9 bytes) as vendors state it; SRAM and L2 are in KiB/MiB (powers of two)
as the lecture states them. ``sources`` says where each number comes from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from .validation import choice

KiB = 1024
MiB = 1024**2
GiB = 1024**3

#: The dtypes a spec may list, and what each means for the hardware unit that runs it.
DTYPES = {
    "fp64": "FP64 on the tensor cores where the chip has them",
    "fp32": "FP32 on the ordinary (non-tensor) CUDA cores",
    "tf32": "TF32 on the tensor cores",
    "bf16": "BF16 on the tensor cores",
    "fp16": "FP16 on the tensor cores",
    "fp8": "FP8 on the tensor cores",
    "int8": "INT8 on the tensor cores",
}


@dataclass(frozen=True)
class GPUSpec:
    """One GPU's public specification (dense peaks, SXM form factor)."""

    name: str
    sms: int
    peak_flops: Mapping[str, float]
    hbm_bytes_per_s: float
    hbm_bytes: float
    sram_bytes_per_sm: int
    l2_bytes: int
    register_bytes_per_sm: int = 256 * KiB
    warp_size: int = 32
    max_warps_per_sm: int = 64
    sources: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "peak_flops", MappingProxyType(dict(self.peak_flops)))
        object.__setattr__(self, "sources", MappingProxyType(dict(self.sources)))

    def peak(self, dtype: str = "bf16") -> float:
        """Dense peak FLOP/s for ``dtype``; a ValueError lists the dtypes this chip has."""
        if not isinstance(dtype, str):
            raise TypeError(f"dtype must be a string such as 'bf16', got {dtype!r}")
        choice(f"dtype (for {self.name})", dtype.lower(), self.peak_flops)
        return self.peak_flops[dtype.lower()]

    @property
    def dtypes(self) -> tuple[str, ...]:
        return tuple(self.peak_flops)


_NVIDIA_A100 = "NVIDIA A100 Tensor Core GPU datasheet (80GB SXM), dense figures"
_NVIDIA_H100 = "NVIDIA H100 Tensor Core GPU datasheet (SXM), dense figures (half the sparse ones)"
_NVIDIA_H100_ARCH = "NVIDIA H100 Tensor Core GPU Architecture whitepaper"
_NVIDIA_A100_ARCH = "NVIDIA A100 Tensor Core GPU Architecture whitepaper"

A100 = GPUSpec(
    name="A100",
    sms=108,
    peak_flops={
        "fp64": 19.5e12,
        "fp32": 19.5e12,
        "tf32": 156e12,
        "bf16": 312e12,
        "fp16": 312e12,
        "int8": 624e12,
    },
    # Seed 002 writes 2.0e12; the lecture (seed 000) uses the datasheet's 2.039 TB/s, and so do we.
    hbm_bytes_per_s=2.039e12,
    hbm_bytes=80e9,
    sram_bytes_per_sm=164 * KiB,
    l2_bytes=40 * MiB,
    sources={
        "sms": _NVIDIA_A100_ARCH,
        "peak_flops": _NVIDIA_A100,
        "hbm_bytes_per_s": _NVIDIA_A100 + " (2,039 GB/s; the 40 GB part has 1,555 GB/s); "
        "seed 002 rounds it to 2.0e12, seed 000 uses 2.039e12",
        "hbm_bytes": _NVIDIA_A100,
        "sram_bytes_per_sm": _NVIDIA_A100_ARCH + ": up to 164 KiB shared memory per SM",
        "l2_bytes": _NVIDIA_A100_ARCH,
    },
)

H100 = GPUSpec(
    name="H100",
    sms=132,
    peak_flops={
        "fp64": 66.9e12,
        "fp32": 66.9e12,
        "tf32": 494.7e12,
        "bf16": 989.4e12,
        "fp16": 989.4e12,
        "fp8": 1978.9e12,
        "int8": 1978.9e12,
    },
    hbm_bytes_per_s=3.35e12,
    hbm_bytes=80e9,
    sram_bytes_per_sm=228 * KiB,
    l2_bytes=50 * MiB,
    sources={
        "sms": _NVIDIA_H100_ARCH,
        "peak_flops": _NVIDIA_H100 + "; the lecture rounds bf16 to 989 TFLOP/s, seed 002 writes 989.5",
        "hbm_bytes_per_s": _NVIDIA_H100,
        "hbm_bytes": _NVIDIA_H100,
        "sram_bytes_per_sm": _NVIDIA_H100_ARCH + ": up to 228 KiB shared memory per SM",
        "l2_bytes": _NVIDIA_H100_ARCH,
    },
)

H200 = GPUSpec(
    name="H200",
    sms=132,
    peak_flops=dict(H100.peak_flops),
    hbm_bytes_per_s=4.8e12,
    hbm_bytes=141e9,
    sram_bytes_per_sm=228 * KiB,
    l2_bytes=50 * MiB,
    sources={
        "sms": "same Hopper die as H100 SXM",
        "peak_flops": "NVIDIA H200 datasheet (SXM): compute as H100 SXM, dense figures",
        "hbm_bytes_per_s": "NVIDIA H200 datasheet: 4.8 TB/s HBM3e",
        "hbm_bytes": "NVIDIA H200 datasheet: 141 GB",
        "sram_bytes_per_sm": "same Hopper SM as H100",
        "l2_bytes": "same Hopper die as H100",
    },
)

B200 = GPUSpec(
    name="B200",
    sms=148,
    peak_flops={
        "fp64": 37e12,
        "fp32": 75e12,
        "tf32": 1.125e15,
        "bf16": 2.25e15,
        "fp16": 2.25e15,
        "fp8": 4.5e15,
        "int8": 4.5e15,
    },
    hbm_bytes_per_s=8.0e12,
    hbm_bytes=180e9,
    sram_bytes_per_sm=228 * KiB,
    l2_bytes=126 * MiB,
    sources={
        "sms": "seed 002; not in NVIDIA's own table (reported by third parties)",
        "peak_flops": "NVIDIA HGX B200 datasheet, per GPU (one eighth of the 8-GPU board), dense figures; "
        "bf16 2.25e15 as in seed 002",
        "hbm_bytes_per_s": "seed 002 and NVIDIA HGX B200 datasheet: 8 TB/s per GPU",
        "hbm_bytes": "seed 002: 180 GB usable per GPU in DGX B200",
        "sram_bytes_per_sm": "NVIDIA Blackwell tuning guide: 228 KiB shared memory per SM, as Hopper",
        "l2_bytes": "reported by third parties (126 MB across the two dies); not in NVIDIA's table",
    },
)

#: The GPUs the lecture discusses, by name.
GPUS: Mapping[str, GPUSpec] = MappingProxyType({g.name: g for g in (A100, H100, H200, B200)})


def get_gpu(name: str) -> GPUSpec:
    """The spec called ``name`` (case-insensitive); a ValueError lists the known names."""
    if isinstance(name, GPUSpec):
        return name
    if not isinstance(name, str):
        raise TypeError(f"name must be a GPU name such as 'H100', got {name!r}")
    by_lower = {key.lower(): spec for key, spec in GPUS.items()}
    key = name.strip().lower()
    if key not in by_lower:
        raise ValueError(f"name must be one of {', '.join(GPUS)} (any case); got {name!r}")
    return by_lower[key]


def as_gpu(gpu: GPUSpec | str) -> GPUSpec:
    """Accept a spec or a name wherever a GPU is asked for."""
    if isinstance(gpu, GPUSpec):
        return gpu
    if isinstance(gpu, str):
        return get_gpu(gpu)
    raise TypeError(f"gpu must be a GPUSpec (e.g. perfcore.H100) or a GPU name, got {gpu!r}")
