"""Training compute (§6.4): C = 6ND, MFU, and what they mean in days and GPU-hours."""

from __future__ import annotations

from typing import NamedTuple

from .specs import GPUSpec, as_gpu
from .validation import fraction, positive_number

SECONDS_PER_DAY = 86400.0

#: A GPU for these functions: a spec, a name, or simply its peak FLOP/s as a number.
GPU = GPUSpec | str | float


def _peak(gpu: GPU, dtype: str) -> float:
    if isinstance(gpu, (GPUSpec, str)):
        return as_gpu(gpu).peak(dtype)
    return positive_number("gpu (a GPUSpec, a name or a peak FLOP/s)", gpu)


def training_flops(n_params: float, n_tokens: float, recompute: bool = False) -> float:
    """C = 6ND: 2 FLOP per parameter per token forward, 4 backward. With activation recomputation the
    forward runs twice: 8ND. The attention's s^2 term is left out, as the lecture does."""
    n = positive_number("n_params", n_params)
    d = positive_number("n_tokens", n_tokens)
    return (8.0 if recompute else 6.0) * n * d


def mfu(model_flops: float, n_gpus: float, seconds: float, gpu: GPU = "H100", dtype: str = "bf16") -> float:
    """Model FLOPs utilization: useful FLOPs / (GPUs x peak x time)."""
    model_flops = positive_number("model_flops", model_flops)
    n_gpus = positive_number("n_gpus", n_gpus)
    seconds = positive_number("seconds", seconds)
    return model_flops / (n_gpus * _peak(gpu, dtype) * seconds)


def training_seconds(
    model_flops: float, n_gpus: float, mfu: float, gpu: GPU = "H100", dtype: str = "bf16"
) -> float:
    """Wall-clock seconds to do ``model_flops`` on ``n_gpus`` at utilization ``mfu``."""
    model_flops = positive_number("model_flops", model_flops)
    n_gpus = positive_number("n_gpus", n_gpus)
    mfu = fraction("mfu", mfu)
    return model_flops / (n_gpus * _peak(gpu, dtype) * mfu)


def training_days(
    model_flops: float, n_gpus: float, mfu: float, gpu: GPU = "H100", dtype: str = "bf16"
) -> float:
    """Wall-clock days: ``training_seconds`` / 86400."""
    return training_seconds(model_flops, n_gpus, mfu, gpu, dtype) / SECONDS_PER_DAY


def gpu_hours(model_flops: float, mfu: float, gpu: GPU = "H100", dtype: str = "bf16") -> float:
    """GPU-hours: the same whatever the number of GPUs."""
    return training_seconds(model_flops, 1, mfu, gpu, dtype) / 3600.0


class TrainingRow(NamedTuple):
    mfu: float
    gpu_hours: float
    days: float  # on ``n_gpus``


def training_table(
    n_params: float,
    n_tokens: float,
    n_gpus: int = 1000,
    mfus: tuple[float, ...] = (0.3, 0.4, 0.5),
    gpu: GPU = "H100",
) -> list[TrainingRow]:
    """05 part 4: GPU-hours and days on ``n_gpus`` for a range of MFU."""
    flops = training_flops(n_params, n_tokens)
    return [TrainingRow(m, gpu_hours(flops, m, gpu), training_days(flops, n_gpus, m, gpu)) for m in mfus]
