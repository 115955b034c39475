"""GPU specifications: the hardware numbers every other model in perfcore starts from, where each one comes
from (``GPUSpec.sources``), and how much of the HBM a process can fill (``GPUSpec.usable_hbm_bytes``).

The lecture's four GPUs (``GPUS``) are the SXM parts; ``PARTS`` adds the other forms of the H100 (PCIe,
NVL), which the measurements need to tell apart from the SXM5 by name (their bandwidth and peaks are
lower). Compute peaks are dense (no 2:4 sparsity). The unit of every field:

- ``sms``, ``warp_size``, ``max_warps_per_sm``: counts.
- ``peak_flops``: FLOP/s, SI (989.4 TFLOP/s is 989.4e12).
- ``hbm_bytes_per_s``: bytes/s, SI (the vendors' 3.35 TB/s is 3.35e12 bytes/s).
- ``hbm_bytes``: bytes, from the vendors' "GB" read as GiB (2**30 bytes). HBM is built from DRAM dies whose
  sizes are powers of two, stacked into 16 GiB (HBM2e, HBM3) or 24 GiB (HBM3e, 8-high) stacks, and every
  part reports to CUDA a little less than its GiB figure but far more than the same figure in 1e9 bytes:
  an "80 GB" A100 or H100 reports 79.1-79.4 GiB (80e9 bytes would be 74.5 GiB), the "141 GB" H200
  139.8 GiB (141e9 bytes: 131.3 GiB), the "180 GB" B200 178.35 GiB (180e9 bytes: 167.6 GiB).
- ``sram_bytes_per_sm``, ``l2_bytes``, ``register_bytes_per_sm``: bytes, from KiB/MiB (powers of two), as
  NVIDIA's documents state them and a device query (``cudaDeviceProp``) reports them.

``sources`` names, for every field in ``SOURCED_FIELDS``, the document the number comes from with its
version or year (the year alone where the document carries no version), or, where no NVIDIA document
gives the number (the B200's SM count), the device query that reports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from .validation import choice

KiB = 1024
MiB = 1024**2
GiB = 1024**3

#: HBM a process cannot fill with its own tensors, whatever the part: the driver keeps 0.6-1.7 GiB of the
#: nominal capacity for itself (CUDA reports 79.1-79.4 GiB of an 80 GiB A100 or H100, 139.8 of the H200's
#: 141 GiB, 178.35 of the B200's 180 GiB) and the process's CUDA context takes a few hundred MiB more:
#: about 1.2-2.2 GiB in all. One round figure near the top of that range serves every part, since "it
#: fits" should not promise bytes an allocator cannot hand out.
HBM_RESERVED_BYTES = 2 * GiB

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

#: The fields that hold a hardware number; ``sources`` has an entry for each.
SOURCED_FIELDS = (
    "sms",
    "peak_flops",
    "hbm_bytes_per_s",
    "hbm_bytes",
    "sram_bytes_per_sm",
    "l2_bytes",
    "register_bytes_per_sm",
    "warp_size",
    "max_warps_per_sm",
)


@dataclass(frozen=True)
class GPUSpec:
    """One GPU's public specification (dense peaks, SXM form factor); the module docstring gives the units."""

    name: str
    sms: int  # streaming multiprocessors enabled on this product (a count)
    peak_flops: Mapping[str, float]  # dense peak by dtype, FLOP/s (SI)
    hbm_bytes_per_s: float  # HBM bandwidth, bytes/s (SI: TB/s x 1e12)
    hbm_bytes: int  # HBM capacity, bytes: the vendors' "GB" x 2**30 (GiB; see the module docstring)
    sram_bytes_per_sm: int  # the largest shared-memory carve-out of one SM, bytes (KiB x 1024)
    l2_bytes: int  # L2 cache of the whole chip, bytes (MiB x 1024**2)
    register_bytes_per_sm: int = 256 * KiB  # register file of one SM, bytes (64 Ki 32-bit registers)
    warp_size: int = 32  # threads per warp (a count)
    max_warps_per_sm: int = 64  # resident warps per SM at most (a count)
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

    @property
    def usable_hbm_bytes(self) -> int:
        """Bytes of HBM one process can fill with tensors: the capacity less ``HBM_RESERVED_BYTES``."""
        return self.hbm_bytes - HBM_RESERVED_BYTES


# The documents, by name and version (or year where the document carries no version number).
_A100_WHITEPAPER = "NVIDIA A100 Tensor Core GPU Architecture whitepaper, V1.0 (2020)"
_A100_DATASHEET = "NVIDIA A100 Tensor Core GPU datasheet, 80GB SXM column (2021)"
_H100_WHITEPAPER = "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022)"
_H100_DATASHEET = "NVIDIA H100 Tensor Core GPU datasheet, H100 SXM column (2023)"
_H100_DATASHEET_PCIE = "NVIDIA H100 Tensor Core GPU datasheet, H100 PCIe column (2023)"
_H100_DATASHEET_NVL = "NVIDIA H100 Tensor Core GPU datasheet, H100 NVL column (2023)"
_HOPPER_TUNING = "NVIDIA Hopper Tuning Guide (2022)"
_H200_DATASHEET = "NVIDIA H200 Tensor Core GPU datasheet, H200 SXM column (2024)"
_BLACKWELL_TUNING = "NVIDIA Blackwell Tuning Guide, CUDA 12.8 (2025)"
_HGX_B200_DATASHEET = "NVIDIA HGX B200 datasheet (2024)"
_DGX_B200_DATASHEET = "NVIDIA DGX B200 datasheet (2024)"
_CUDA_GUIDE_128 = "CUDA C++ Programming Guide, CUDA 12.8 (2025), compute capability 10.0"

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
    # Five active HBM2e stacks of 16 GiB (the package has six sites): 80 GiB.
    hbm_bytes=80 * GiB,
    sram_bytes_per_sm=164 * KiB,
    l2_bytes=40 * MiB,
    sources={
        "sms": _A100_WHITEPAPER + ": 108 SMs in the A100 product",
        "peak_flops": _A100_DATASHEET + ": dense figures (half the sparse ones)",
        "hbm_bytes_per_s": _A100_DATASHEET + ": 2,039 GB/s (the 40GB part has 1,555 GB/s); "
        "seed 002 rounds it to 2.0e12, seed 000 uses 2.039e12",
        "hbm_bytes": _A100_DATASHEET + ": 80GB HBM2e, read as 80 GiB (five 16 GiB stacks)",
        "sram_bytes_per_sm": _A100_WHITEPAPER + ": up to 164 KB shared memory per SM",
        "l2_bytes": _A100_WHITEPAPER + ": 40 MB L2",
        "register_bytes_per_sm": _A100_WHITEPAPER + ": 256 KB register file per SM",
        "warp_size": _A100_WHITEPAPER + ": 32 threads per warp",
        "max_warps_per_sm": _A100_WHITEPAPER + ": 64 warps per SM at most",
    },
)

H100 = GPUSpec(
    name="H100",
    sms=132,
    # The whitepaper's H100 SXM5 figures; the datasheet rounds them (989 BF16, 1,979 with sparsity).
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
    # Five active HBM3 stacks of 16 GiB (the sixth site is disabled on this part): 80 GiB.
    hbm_bytes=80 * GiB,
    sram_bytes_per_sm=228 * KiB,
    # The full GH100 has 60 MB of L2; the H100 SXM5 enables 50 of it, with five of the six memory stacks.
    l2_bytes=50 * MiB,
    sources={
        "sms": _H100_WHITEPAPER + ": 132 SMs in the H100 SXM5",
        "peak_flops": _H100_WHITEPAPER
        + ", H100 SXM5 column, dense figures; "
        + _H100_DATASHEET
        + " rounds them; the lecture rounds bf16 to 989 TFLOP/s, seed 002 writes 989.5",
        "hbm_bytes_per_s": _H100_DATASHEET + ": 3.35 TB/s",
        "hbm_bytes": _H100_DATASHEET + ": 80GB HBM3, read as 80 GiB (five 16 GiB stacks; "
        "CUDA reports 79.1 GiB)",
        "sram_bytes_per_sm": _H100_WHITEPAPER
        + " and "
        + _HOPPER_TUNING
        + ": up to 228 KB shared memory per SM",
        "l2_bytes": _H100_WHITEPAPER + ": 50 MB L2 in the H100 SXM5 (60 MB in the full GH100)",
        "register_bytes_per_sm": _H100_WHITEPAPER + ": 256 KB register file per SM",
        "warp_size": _H100_WHITEPAPER + ": 32 threads per warp",
        "max_warps_per_sm": _H100_WHITEPAPER + " and " + _HOPPER_TUNING + ": 64 warps per SM at most",
    },
)

H200 = GPUSpec(
    name="H200",
    sms=132,
    peak_flops=dict(H100.peak_flops),
    hbm_bytes_per_s=4.8e12,
    # Six HBM3e stacks of 24 GiB are 144 GiB; NVIDIA sells 141 of them, and CUDA reports 139.8 GiB, more
    # than 141e9 bytes (131.3 GiB) could hold: the "141 GB" is GiB, as for the 80 GB parts.
    hbm_bytes=141 * GiB,
    sram_bytes_per_sm=228 * KiB,
    # All six memory stacks enabled, so all of GH100's L2: a device query reports 60 MiB (H100 SXM5: 50).
    l2_bytes=60 * MiB,
    sources={
        "sms": _H200_DATASHEET + ": the compute figures of H100 SXM, i.e. the same 132-SM GH100 "
        "configuration (" + _H100_WHITEPAPER + "); a device query reports 132",
        "peak_flops": _H200_DATASHEET + ": the same figures as H100 SXM (dense: half the sparse ones)",
        "hbm_bytes_per_s": _H200_DATASHEET + ": 4.8 TB/s HBM3e",
        "hbm_bytes": _H200_DATASHEET + ": 141GB HBM3e, read as 141 GiB (six 24 GiB stacks = 144 GiB, "
        "141 of them enabled; CUDA reports 139.8 GiB)",
        "sram_bytes_per_sm": _HOPPER_TUNING + ": up to 228 KB shared memory per SM (compute capability 9.0)",
        "l2_bytes": _H100_WHITEPAPER + ": 60 MB L2 in the full GH100, which the H200 enables with all six "
        "memory stacks; a device query (cudaDeviceProp.l2CacheSize) reports 60 MiB",
        "register_bytes_per_sm": _H100_WHITEPAPER + ": 256 KB register file per SM (the same Hopper SM)",
        "warp_size": _H100_WHITEPAPER + ": 32 threads per warp",
        "max_warps_per_sm": _HOPPER_TUNING + ": 64 warps per SM at most",
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
    # Eight HBM3e stacks of 24 GiB are 192 GiB (the "192 GB" of the launch); the DGX and HGX B200 expose
    # 180 of them per GPU, and CUDA reports 178.35 GiB, more than 180e9 bytes (167.6 GiB): GiB again.
    hbm_bytes=180 * GiB,
    sram_bytes_per_sm=228 * KiB,
    l2_bytes=126 * MiB,
    sources={
        "sms": "a device query (cudaDeviceProp.multiProcessorCount) reports 148 on a B200, as seed 002 "
        "writes; NVIDIA's B200 datasheets (" + _HGX_B200_DATASHEET + ") do not list SMs",
        "peak_flops": _HGX_B200_DATASHEET + ": per GPU (one eighth of the 8-GPU board), dense figures "
        "(half the sparse ones); bf16 2.25e15 as in seed 002",
        "hbm_bytes_per_s": _HGX_B200_DATASHEET + ": 64 TB/s over 8 GPUs, 8 TB/s each; seed 002 writes 8.0e12",
        "hbm_bytes": _DGX_B200_DATASHEET + ": 1,440GB over 8 GPUs, 180 GB each, read as 180 GiB (eight "
        "24 GiB stacks = 192 GiB, 180 of them exposed; CUDA reports 178.35 GiB)",
        "sram_bytes_per_sm": _BLACKWELL_TUNING
        + ": up to 228 KB shared memory per SM (compute capability 10.0)",
        "l2_bytes": _BLACKWELL_TUNING + ": 126 MB L2 (across the two dies); a device query reports 126.5 MiB",
        "register_bytes_per_sm": _CUDA_GUIDE_128 + ": 64K 32-bit registers per SM",
        "warp_size": _CUDA_GUIDE_128 + ": warp size 32",
        "max_warps_per_sm": _CUDA_GUIDE_128 + ": 64 resident warps per SM at most",
    },
)

H100_PCIE = GPUSpec(
    name="H100 PCIe",
    sms=114,
    # The whitepaper's H100 PCIe figures (dense); the datasheet's PCIe column rounds them (1,513 sparse).
    peak_flops={
        "fp64": 51.2e12,
        "fp32": 51.2e12,
        "tf32": 378e12,
        "bf16": 756e12,
        "fp16": 756e12,
        "fp8": 1513e12,
        "int8": 1513e12,
    },
    hbm_bytes_per_s=2.0e12,
    # Five HBM2e stacks of 16 GiB: 80 GiB.
    hbm_bytes=80 * GiB,
    sram_bytes_per_sm=228 * KiB,
    l2_bytes=50 * MiB,
    sources={
        "sms": _H100_WHITEPAPER + ": 114 SMs in the H100 PCIe",
        "peak_flops": _H100_WHITEPAPER
        + ", H100 PCIe column, dense figures; "
        + _H100_DATASHEET_PCIE
        + " rounds them (BF16 1,513 TFLOP/s with sparsity)",
        "hbm_bytes_per_s": _H100_DATASHEET_PCIE + ": 2 TB/s HBM2e",
        "hbm_bytes": _H100_DATASHEET_PCIE + ": 80GB, read as 80 GiB (five 16 GiB stacks)",
        "sram_bytes_per_sm": _H100_WHITEPAPER
        + " and "
        + _HOPPER_TUNING
        + ": up to 228 KB shared memory per SM",
        "l2_bytes": _H100_WHITEPAPER + ": 50 MB L2 in the H100 PCIe",
        "register_bytes_per_sm": _H100_WHITEPAPER + ": 256 KB register file per SM",
        "warp_size": _H100_WHITEPAPER + ": 32 threads per warp",
        "max_warps_per_sm": _HOPPER_TUNING + ": 64 warps per SM at most",
    },
)

H100_NVL = GPUSpec(
    name="H100 NVL",
    sms=132,
    # The datasheet's NVL column, halved where it gives sparse figures (BF16 1,671 -> 835.5 dense).
    peak_flops={
        "fp64": 60e12,
        "fp32": 60e12,
        "tf32": 417.5e12,
        "bf16": 835.5e12,
        "fp16": 835.5e12,
        "fp8": 1670.5e12,
        "int8": 1670.5e12,
    },
    hbm_bytes_per_s=3.9e12,
    # Six HBM3 stacks of 16 GiB are 96 GiB; 94 of them are sold.
    hbm_bytes=94 * GiB,
    sram_bytes_per_sm=228 * KiB,
    # As the H100 SXM5 (the NVL is the same GH100 configuration); no NVIDIA document gives the NVL's L2.
    l2_bytes=50 * MiB,
    sources={
        "sms": _H100_DATASHEET_NVL + " lists no SMs; the NVL is the H100 SXM5's 132-SM GH100 "
        "configuration at a lower clock (its FP64/FP32 60 TFLOP/s against the SXM5's 66.9)",
        "peak_flops": _H100_DATASHEET_NVL + ": dense figures (half the sparse ones: BF16 1,671 -> 835.5)",
        "hbm_bytes_per_s": _H100_DATASHEET_NVL + ": 3.9 TB/s HBM3",
        "hbm_bytes": _H100_DATASHEET_NVL + ": 94GB, read as 94 GiB (six 16 GiB stacks, 94 of 96 enabled)",
        "sram_bytes_per_sm": _HOPPER_TUNING + ": up to 228 KB shared memory per SM (compute capability 9.0)",
        "l2_bytes": _H100_WHITEPAPER + ": 50 MB L2 in the H100 SXM5, taken for the NVL, whose datasheet "
        "gives none; a device query would settle it",
        "register_bytes_per_sm": _H100_WHITEPAPER + ": 256 KB register file per SM (the same Hopper SM)",
        "warp_size": _H100_WHITEPAPER + ": 32 threads per warp",
        "max_warps_per_sm": _HOPPER_TUNING + ": 64 warps per SM at most",
    },
)

#: The GPUs the lecture discusses, by name.
GPUS: Mapping[str, GPUSpec] = MappingProxyType({g.name: g for g in (A100, H100, H200, B200)})
#: Every part with a spec, the lecture's and the other forms of the H100 (for naming a measured GPU).
PARTS: Mapping[str, GPUSpec] = MappingProxyType({**GPUS, H100_PCIE.name: H100_PCIE, H100_NVL.name: H100_NVL})


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
