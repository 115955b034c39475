"""Fusion on one core (§5.2): k passes vs one, and GELU as nine ops vs ``F.gelu``.

Experiment A multiplies every element of x by a constant c, k times.

- unfused: k eager ops, each a full pass over memory (read, write): ``y = x * c``, then ``y *= c``.
- fused: one pass over memory, as a fused kernel makes it: read x once, write y once. Eager PyTorch has no
  op that applies k multiplications in registers, so the pass multiplies by c^k: for a memory-bound chain
  the k multiplications in registers cost nothing beside the traffic, so this is the fused kernel's time,
  and its values agree with the unfused ones within rounding (checked: relative difference under 2e-6).
- chunked (optional): the k eager ops applied chunk by chunk, each chunk (half the L2) multiplied k times
  while it sits in cache: one pass over DRAM, but k passes over L2. It shows what fusion by cache blocking
  gains on a CPU where an eager op on L2-resident data is itself not free; its values equal the unfused
  ones bit for bit (same operations in the same order).

The lecture's size is 2^24 elements; it is raised where input + output would not fill 4 x the last-level
cache, so that the passes really go to DRAM.

Experiment B writes the tanh GELU, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), as nine separate ops
and compares it with ``F.gelu(x, approximate="tanh")``, in time and in value. On a CPU core, tanh is
expensive enough that GELU is compute-bound and fusion gains little; ``tanh_per_add`` measures how many
adds one tanh costs (both over an L2-resident array).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..validation import positive_int, positive_number
from .core import (
    Bounds,
    Figure,
    check_bandwidth,
    compare,
    dram_bytes,
    make_bounds,
    round_seconds,
    split,
    workspace,
)
from .machine import machine_info
from .timing import median_ratio, require_torch, single_thread

LECTURE_ELEMENTS = 1 << 24
KS = (1, 2, 4, 8)
SCALE = 1.01  # the constant; 1.01^8 keeps N(0, 1) numbers far from overflow
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def default_elements(machine: Any = None) -> int:
    """2^24 (the lecture's) or, where input + output would not fill 4 x LLC, as many as do."""
    return max(LECTURE_ELEMENTS, dram_bytes(machine) // 8)


def chunk_elements(machine: Any = None) -> int:
    """Elements per fused chunk: input and output chunks together fill half the L2 (at least 16 Ki)."""
    m = machine or machine_info()
    l2 = m.l2_bytes or 256 * 1024
    return max(16 * 1024, l2 // 4 // 4)


def scale_unfused(x: Any, y: Any, k: int, c: float = SCALE) -> Callable[[], Any]:
    """y = x * c^k as k eager passes: y = x * c, then y *= c (k - 1 times)."""
    import torch

    def run() -> None:
        torch.mul(x, c, out=y)
        for _ in range(k - 1):
            y.mul_(c)

    return run


def scale_fused(x: Any, y: Any, k: int, c: float = SCALE) -> Callable[[], Any]:
    """y = x * c^k in one pass over memory (the fused kernel's traffic; see the module docstring)."""
    import torch

    ck = c**k

    def run() -> None:
        torch.mul(x, ck, out=y)

    return run


def scale_chunked(x: Any, y: Any, k: int, c: float = SCALE, chunk: int | None = None) -> Callable[[], Any]:
    """y = x * c^k as the k eager ops applied to one cache-sized chunk after another."""
    import torch

    step = chunk or chunk_elements()
    n = x.numel()
    chunks = [(x[i : i + step], y[i : i + step]) for i in range(0, n, step)]

    def run() -> None:
        for xc, yc in chunks:
            torch.mul(xc, c, out=yc)
            for _ in range(k - 1):
                yc.mul_(c)

    return run


@dataclass(frozen=True)
class ScalePoint:
    k: int
    unfused: Figure  # bytes: k passes of read + write
    fused: Figure  # bytes: one pass of read + write
    speedup: float  # unfused / fused, medians of interleaved blocks
    max_rel_diff: float  # fused vs unfused values
    agree: bool  # max_rel_diff <= 2e-6
    chunked: Figure | None = None  # bytes: one pass of read + write over DRAM
    chunked_speedup: float | None = None  # unfused / chunked
    chunked_identical: bool | None = None


@dataclass(frozen=True)
class FusionResult:
    n_elements: int
    chunk_elements: int
    constant: float
    points: tuple[ScalePoint, ...]


def fusion_experiment(
    ks: Sequence[int] = KS,
    n_elements: int | None = None,
    rounds: int = 3,
    chunked_ks: Sequence[int] = (8,),
    bounds: Bounds | None = None,
) -> FusionResult:
    """§5.2 A: k passes vs one pass over ``n_elements`` FP32 numbers, for each k, timed A B A B.

    ``chunked_ks`` names the k for which the cache-blocked variant is timed too.
    """
    torch = require_torch()
    machine = machine_info()
    ks = tuple(positive_int(f"ks[{i}]", k) for i, k in enumerate(ks))
    if not ks:
        raise ValueError("ks must name at least one k")
    chunked_ks = tuple(positive_int(f"chunked_ks[{i}]", k) for i, k in enumerate(chunked_ks))
    n = positive_int("n_elements", n_elements if n_elements is not None else default_elements(machine))
    rounds = positive_int("rounds", rounds)
    bounds = bounds or make_bounds(machine)
    chunk = chunk_elements(machine)
    points = []
    with single_thread():
        x, y = split(workspace(2 * n * 4), 2, n)
        # Values are checked on a prefix (up to 4 chunks): the ops are elementwise, and a full-size copy
        # would cost another DRAM-sized allocation.
        probe = min(n, 4 * chunk)
        px = x[:probe]
        out = {name: torch.empty(probe) for name in ("unfused", "fused", "chunked")}
        for k in ks:
            calls = {"unfused": scale_unfused(x, y, k), "fused": scale_fused(x, y, k)}
            if k in chunked_ks:
                calls["chunked"] = scale_chunked(x, y, k, chunk=chunk)
            times = compare(calls, rounds=rounds)
            scale_unfused(px, out["unfused"], k)()
            scale_fused(px, out["fused"], k)()
            scale_chunked(px, out["chunked"], k, chunk=chunk)()
            rel = float(((out["fused"] - out["unfused"]).abs() / out["unfused"].abs().clamp_min(1e-30)).max())
            unfused = Figure.from_timing(
                f"k={k} unfused", times["unfused"], k * 8 * n, "byte", f"{k} x (read + write)"
            )
            fused = Figure.from_timing(f"k={k} fused", times["fused"], 8 * n, "byte", "read + write once")
            check_bandwidth(unfused, bounds, 8 * n)
            check_bandwidth(fused, bounds, 8 * n)
            chunked = chunked_speedup = identical = None
            if "chunked" in times:
                chunked = Figure.from_timing(
                    f"k={k} chunked", times["chunked"], 8 * n, "byte", "read + write once"
                )
                check_bandwidth(chunked, bounds, 8 * n)
                chunked_speedup = median_ratio(list(times["unfused"].samples), list(times["chunked"].samples))
                identical = bool(torch.equal(out["chunked"], out["unfused"]))
            points.append(
                ScalePoint(
                    k=k,
                    unfused=unfused,
                    fused=fused,
                    speedup=median_ratio(list(times["unfused"].samples), list(times["fused"].samples)),
                    max_rel_diff=rel,
                    agree=rel <= 2e-6,
                    chunked=chunked,
                    chunked_speedup=chunked_speedup,
                    chunked_identical=identical,
                )
            )
    return FusionResult(n, chunk, SCALE, tuple(points))


def gelu_unfused(x: Any, out: Any) -> Callable[[], Any]:
    """The tanh GELU as nine eager ops, each a pass over ``out``."""
    import torch

    def run() -> None:
        torch.mul(x, x, out=out)  # 1: x^2
        out.mul_(x)  # 2: x^3
        out.mul_(0.044715)  # 3
        out.add_(x)  # 4: x + 0.044715 x^3
        out.mul_(SQRT_2_OVER_PI)  # 5
        out.tanh_()  # 6
        out.add_(1.0)  # 7
        out.mul_(x)  # 8
        out.mul_(0.5)  # 9

    return run


def gelu_fused(x: Any, out: Any) -> Callable[[], Any]:
    """``F.gelu(x, approximate="tanh")`` written into ``out`` (aten's out= variant, no allocation)."""
    import torch

    op = getattr(getattr(torch.ops.aten, "gelu", None), "out", None)
    if op is not None:
        return lambda: op(x, approximate="tanh", out=out)
    import torch.nn.functional as F  # pragma: no cover - every torch >= 2.0 has aten::gelu.out

    return lambda: out.copy_(F.gelu(x, approximate="tanh"))


@dataclass(frozen=True)
class GeluResult:
    n_elements: int
    unfused: Figure  # bytes: nine passes (the traffic eager ops make), see counting
    fused: Figure  # bytes: read + write once
    speedup: float
    max_abs_diff: float
    allclose: bool  # rtol 1e-5, atol 1e-6
    tanh_per_add: float  # seconds of one tanh pass / one add pass, over an L2-resident array


def gelu_experiment(
    n_elements: int | None = None, rounds: int = 3, bounds: Bounds | None = None
) -> GeluResult:
    """§5.2 B: GELU (tanh) as nine ops vs ``F.gelu``; times A B A B, values compared."""
    torch = require_torch()
    machine = machine_info()
    n = positive_int("n_elements", n_elements if n_elements is not None else default_elements(machine))
    rounds = positive_int("rounds", rounds)
    bounds = bounds or make_bounds(machine)
    with single_thread():
        x, y = split(workspace(2 * n * 4), 2, n)
        times = compare({"unfused": gelu_unfused(x, y), "fused": gelu_fused(x, y)}, rounds=rounds)
        # Values: on a prefix of up to 2^20 elements (elementwise ops; no second DRAM-sized buffer).
        probe = min(n, 1 << 20)
        px, fused_out, unfused_out = x[:probe], torch.empty(probe), torch.empty(probe)
        gelu_fused(px, fused_out)()
        gelu_unfused(px, unfused_out)()
        diff = float((fused_out - unfused_out).abs().max())
        close = bool(torch.allclose(fused_out, unfused_out, rtol=1e-5, atol=1e-6))
        small = torch.randn(chunk_elements(machine) // 2, generator=torch.Generator().manual_seed(3))
        small_out = torch.empty_like(small)
        per = compare(
            {
                "tanh": lambda: torch.tanh(small, out=small_out),
                "add": lambda: torch.add(small, 1.0, out=small_out),
            },
            rounds=5,
        )
    # Unfused traffic: pass 1 reads x and writes out; passes 2, 4, 8 read x and out and write out; the other
    # five read and write out.
    unfused_bytes = (8 + 3 * 12 + 5 * 8) * n
    unfused = Figure.from_timing("GELU, nine ops", times["unfused"], unfused_bytes, "byte", "9 passes")
    fused = Figure.from_timing("F.gelu (tanh)", times["fused"], 8 * n, "byte", "read + write once")
    check_bandwidth(unfused, bounds, 8 * n)
    check_bandwidth(fused, bounds, 8 * n)
    return GeluResult(
        n_elements=n,
        unfused=unfused,
        fused=fused,
        speedup=median_ratio(list(times["unfused"].samples), list(times["fused"].samples)),
        max_abs_diff=diff,
        allclose=close,
        tanh_per_add=per["tanh"].median_s / per["add"].median_s,
    )


# --------------------------------------------------------------------------------------------------------
# single-shot reference measurements
# --------------------------------------------------------------------------------------------------------


def scale_passes_time(
    n_elements: int | None = None, k: int = 8, fused: bool = False, block_s: float = 0.01
) -> float:
    """Seconds per call of one round of x * c^k over ``n_elements``: k passes, or one (``fused``).

    ``n_elements`` defaults to 2^24 raised to fill 4 x LLC with input + output (see the module docstring).
    """
    n = positive_int("n_elements", n_elements if n_elements is not None else default_elements())
    k = positive_int("k", k)
    if not isinstance(fused, bool):
        raise TypeError(f"fused must be True or False, got {fused!r}")
    with single_thread():
        x, y = split(workspace(2 * n * 4), 2, n)
        fn = scale_fused(x, y, k) if fused else scale_unfused(x, y, k)
        return round_seconds(fn, block_s)


def scale_passes_time_numpy(
    n_elements: int | None = None, k: int = 8, fused: bool = False, block_s: float = 0.01
) -> float:
    """:func:`scale_passes_time` with numpy's kernels (``np.multiply(..., out=y)``) over numpy's own arrays,
    as a student who uses numpy has them: the other honest library a student may use for the same k
    passes. Where numpy's large arrays get transparent huge pages and torch's tensors do not, numpy's passes
    run faster (a 2-vCPU AMD EPYC read numpy's at 0.6-0.7x torch's time): a measurement check of this work
    accepts both (its ``also``)."""
    import numpy as np

    n = positive_int("n_elements", n_elements if n_elements is not None else default_elements())
    k = positive_int("k", k)
    if not isinstance(fused, bool):
        raise TypeError(f"fused must be True or False, got {fused!r}")
    with single_thread():
        x = np.empty(n, dtype=np.float32)
        np.copyto(x, workspace(n * 4)[:n].numpy())  # the reference's values, in numpy's own memory
        y = np.zeros(n, dtype=np.float32)  # touched: no page fault is timed
        c = np.float32(SCALE)

        def unfused() -> None:
            np.multiply(x, c, out=y)
            for _ in range(k - 1):
                np.multiply(y, c, out=y)

        def one_pass() -> None:
            np.multiply(x, np.float32(SCALE**k), out=y)

        return round_seconds(one_pass if fused else unfused, block_s)


def gelu_time(n_elements: int | None = None, fused: bool = True, block_s: float = 0.01) -> float:
    """Seconds per call of one round of the tanh GELU: ``F.gelu`` (``fused``) or nine eager ops."""
    n = positive_int("n_elements", n_elements if n_elements is not None else default_elements())
    if not isinstance(fused, bool):
        raise TypeError(f"fused must be True or False, got {fused!r}")
    positive_number("block_s", block_s)
    with single_thread():
        x, y = split(workspace(2 * n * 4), 2, n)
        return round_seconds(gelu_fused(x, y) if fused else gelu_unfused(x, y), block_s)


__all__ = [
    "FusionResult",
    "GeluResult",
    "ScalePoint",
    "fusion_experiment",
    "gelu_experiment",
    "gelu_fused",
    "gelu_time",
    "gelu_unfused",
    "scale_chunked",
    "scale_fused",
    "scale_passes_time",
    "scale_passes_time_numpy",
    "scale_unfused",
]
