"""The roofline model (Williams, Waterman & Patterson 2009): time = max(FLOPs / peak, bytes / bandwidth).

``roofline`` takes FLOPs and bytes (scalars or numpy arrays, which broadcast, so a whole sweep is one call)
and a GPU; ``roofline_from_peaks`` takes the two ceilings directly, for a measured machine such as this
computer's CPU core.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .specs import GPUSpec, as_gpu
from .validation import positive_number


@dataclass(frozen=True)
class RooflineResult:
    """An op on the roofline. Arrays when the inputs were arrays, floats (and a str ``bound``) otherwise."""

    flops: Any
    bytes: Any
    time_s: Any
    compute_time_s: Any
    memory_time_s: Any
    intensity: Any
    bound: Any
    achieved_flops: Any
    fraction_of_peak: Any
    ridge: float
    peak_flops: float
    bytes_per_s: float


def ridge_point(gpu: GPUSpec | str, dtype: str = "bf16") -> float:
    """The intensity (FLOP/byte) at which an op turns from memory-bound to compute-bound: peak / bandwidth."""
    spec = as_gpu(gpu)
    return spec.peak(dtype) / spec.hbm_bytes_per_s


def attainable_flops(intensity: Any, peak_flops: float, bytes_per_s: float) -> Any:
    """min(peak, intensity x bandwidth): the roof itself, in FLOP/s."""
    intensity = positive_number("intensity", intensity)
    peak_flops = positive_number("peak_flops", peak_flops)
    bytes_per_s = positive_number("bytes_per_s", bytes_per_s)
    roof = np.minimum(peak_flops, np.multiply(intensity, bytes_per_s))
    return float(roof) if np.ndim(roof) == 0 else roof


def roofline_from_peaks(flops: Any, bytes: Any, peak_flops: float, bytes_per_s: float) -> RooflineResult:
    """The roofline estimate of an op with ``flops`` FLOP moving ``bytes`` bytes, under the two ceilings."""
    flops = positive_number("flops", flops, allow_zero=True)
    nbytes = positive_number("bytes", bytes)
    peak_flops = positive_number("peak_flops", peak_flops)
    bytes_per_s = positive_number("bytes_per_s", bytes_per_s)
    ridge = peak_flops / bytes_per_s
    flops_a, bytes_a = np.broadcast_arrays(np.asarray(flops, dtype=float), np.asarray(nbytes, dtype=float))
    compute_time = flops_a / peak_flops
    memory_time = bytes_a / bytes_per_s
    time = np.maximum(compute_time, memory_time)
    intensity = flops_a / bytes_a
    bound = np.where(intensity >= ridge, "compute", "memory")
    achieved = flops_a / time
    if time.ndim == 0:
        return RooflineResult(
            float(flops_a),
            float(bytes_a),
            float(time),
            float(compute_time),
            float(memory_time),
            float(intensity),
            str(bound),
            float(achieved),
            float(achieved / peak_flops),
            ridge,
            peak_flops,
            bytes_per_s,
        )
    return RooflineResult(
        flops_a.copy(),
        bytes_a.copy(),
        time,
        compute_time,
        memory_time,
        intensity,
        bound,
        achieved,
        achieved / peak_flops,
        ridge,
        peak_flops,
        bytes_per_s,
    )


def roofline(flops: Any, bytes: Any, gpu: GPUSpec | str, dtype: str = "bf16") -> RooflineResult:
    """The roofline estimate of an op on ``gpu`` computing in ``dtype``.

    >>> from perfcore import A100, matmul_cost
    >>> r = roofline(*matmul_cost(4096, 4096, 4096, bytes_per=4), A100, dtype="fp32")
    >>> r.bound, round(r.time_s * 1e3, 1)
    ('compute', 7.0)
    """
    spec = as_gpu(gpu)
    return roofline_from_peaks(flops, bytes, spec.peak(dtype), spec.hbm_bytes_per_s)
