"""perfcore.measure: the lecture's CPU experiments (and GPU ones where a GPU is present), measured so the
numbers can be trusted on a shared, noisy machine. Needs torch (``pip install perfkit[torch]``).

Importing this package does not import torch; the names below are loaded from their modules on first use:

- the machine and its bounds: ``machine_info``, ``make_bounds``, ``MeasurementError`` (machine.py, core.py);
- the cached profile: ``machine_profile(refresh=False)``, ``measure_profile`` (profile.py);
- the experiments (each returns a frozen dataclass): ``memory_bandwidth``, ``cache_vs_dram``,
  ``matmul_sweep``, ``roofline_sweep``, ``transpose_experiment``, ``fusion_experiment``,
  ``gelu_experiment``, ``add_overhead``, ``tiling_numerics_measured``, ``gpu_experiments``;
- single-shot references (one float each, for a grader to interleave with a student's function):
  ``copy_bandwidth``, ``sum_bandwidth``, ``matvec_bandwidth``, ``matmul_flops``, ``weight_matmul_flops``,
  ``elementwise_flops``, ``transpose_time``, ``scale_passes_time`` (and ``scale_passes_time_numpy``), ``gelu_time``, ``add_time``,
  ``accumulate_time``;
- the whole run: ``run_all``, ``format_report``, ``Plan`` (suite.py); the command line: ``cli.main``;
- the clock the CPU measurements read: ``cpu_clock()`` (the thread's CPU time within it, wall time
  otherwise) and ``clock_in_force()`` (timing.py).
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "machine_info": "machine",
    "MachineInfo": "machine",
    "describe": "machine",
    "MeasurementError": "core",
    "Figure": "core",
    "Bounds": "core",
    "make_bounds": "core",
    "dram_bytes": "core",
    "check_rate": "core",
    "time_blocks": "core",
    "compare": "core",
    "release_workspace": "core",
    "cpu_clock": "timing",
    "clock_in_force": "timing",
    "MachineProfile": "profile",
    "Ceilings": "profile",
    "machine_profile": "profile",
    "measure_profile": "profile",
    "cache_dir": "profile",
    "memory_bandwidth": "bandwidth",
    "cache_vs_dram": "bandwidth",
    "copy_bandwidth": "bandwidth",
    "sum_bandwidth": "bandwidth",
    "matvec_bandwidth": "bandwidth",
    "matmul_sweep": "matmul",
    "roofline_sweep": "matmul",
    "matmul_flops": "matmul",
    "weight_matmul_flops": "matmul",
    "elementwise_flops": "matmul",
    "transpose_experiment": "transpose",
    "transpose_time": "transpose",
    "fusion_experiment": "fusion",
    "gelu_experiment": "fusion",
    "scale_passes_time": "fusion",
    "scale_passes_time_numpy": "fusion",
    "gelu_time": "fusion",
    "add_overhead": "overhead",
    "add_time": "overhead",
    "accumulate_time": "overhead",
    "tiling_numerics_measured": "numerics",
    "torch_layer_flops": "flops",
    "gpu_experiments": "gpu",
    "gpu_backend": "gpu",
    "gpu_copy_bandwidth": "gpu",
    "gpu_matmul_flops": "gpu",
    "detected_gpu_spec": "gpu",
    "run_all": "suite",
    "format_report": "suite",
    "Plan": "suite",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])
