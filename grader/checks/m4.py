"""Checks of measurement 4 (fusion helps memory-bound ops only): solutions/m4_fusion.py.

Fusion pays where each pass goes to DRAM, so x and y together are a DRAM working set on this machine
(:mod:`grader.specs.sizes`): the lecture's 2^24 elements (128 MiB for both) on a 32 MiB L3 would stay partly
cached on a Xeon reporting 300 MiB, where the rate then swings with whatever else the machine does.
"""

import numpy as np

from grader.specs.check import Exercise, MeasurementCheck, ValueCheck
from grader.specs.requirements import Requirements
from grader.specs.sizes import Memory, dram_buffer_bytes
from perfcore.measure import scale_passes_time


def scale_elements(memory: Memory) -> int:
    """n_elements of the k-pass checks: x and y (FP32) together a DRAM working set of ``memory``."""
    return dram_buffer_bytes(memory, buffers=2) // 4


_N = scale_elements(Memory.here())
_REQUIRES = Requirements(torch=">=2.0", serial=True, caches=True, memory_bytes=8 * _N)
_X = (3 * np.random.default_rng(4).standard_normal(4096)).astype(np.float32)


def _scale(n_elements: int, k: int, fused: bool) -> float:
    return scale_passes_time(n_elements=n_elements, k=k, fused=fused)


def _gelu_reference() -> np.ndarray:
    import torch  # deferred on purpose: optional and heavy, only when the reference is computed
    import torch.nn.functional as F

    return F.gelu(torch.from_numpy(_X.copy()), approximate="tanh").numpy()


EXERCISE = Exercise(
    id="m4",
    module="m4_fusion",
    title_zh="融合只对访存受限的运算有效",
    title_en="Fusion helps memory-bound ops only",
    checks=(
        MeasurementCheck(
            id="k8_passes",
            part="m4a",
            points=2,
            func="scale_time",
            kwargs={"n_elements": _N, "k": 8, "fused": False},
            reference=_scale,
            kind="dram",
            requires=_REQUIRES,
            rounds=5,
            higher_is_better=False,
            unit="s",
            hint_zh="k 遍：每遍都把整个数组读一遍、写一遍；预先分配 y。",
            hint_en="k passes: each reads and writes the whole array; preallocate y.",
        ),
        MeasurementCheck(
            id="k8_one_pass",
            part="m4a",
            points=2,
            func="scale_time",
            kwargs={"n_elements": _N, "k": 8, "fused": True},
            reference=_scale,
            kind="dram",
            requires=_REQUIRES,
            rounds=5,
            higher_is_better=False,
            unit="s",
            hint_zh="一遍：乘以 c**k 一次，只读写一次。",
            hint_en="One pass: multiply by c**k once, one read and one write.",
        ),
        ValueCheck(
            id="gelu_values",
            part="m4b",
            points=2,
            func="gelu_nine_ops",
            args=(_X,),
            expected=_gelu_reference,
            rtol=1e-5,
            atol=1e-6,
            requires=Requirements(torch=">=2.0"),
            hint_zh="0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))；返回 numpy 数组。",
            hint_en="0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))); return a numpy array.",
        ),
    ),
)
