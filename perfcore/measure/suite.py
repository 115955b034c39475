"""All the lecture's CPU experiments in one run (``python -m perfcore measure``), as JSON and as tables.

A :class:`Plan` holds every size; ``Plan.full()`` is the lecture's sizes (DRAM working sets raised to 4 x
the last-level cache), ``Plan.quick()`` fewer points and rounds, ``Plan.tiny()`` sizes for tests. The
report is a plain dict, the same whether it comes from :func:`run_all` or from a JSON file, so the tables
(:func:`format_report`) and the plots (perfcore.plots) read either.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .core import MeasurementError, as_dict, make_bounds, release_workspace
from .machine import describe, machine_info

SCHEMA = 1
MiB = 1024**2


@dataclass(frozen=True)
class Plan:
    """Sizes and repeats of every experiment. ``None`` sizes follow the machine (4 x LLC for DRAM sets)."""

    name: str = "full"
    dram_bytes: int | None = None
    profile_copy_bytes: int | None = None
    profile_matmul_n: int = 2048
    profile_repeats: int = 7
    profile_duration_s: float = 6.0
    bandwidth_repeats: int = 5
    matvec_shape: tuple[int, int] = (4096, 8192)
    matmul_sizes: tuple[int, ...] = (64, 128, 256, 512, 1024, 2048, 4096)
    elementwise_elements: int | None = None
    matmul_repeats: int = 3
    roofline_ms: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
    roofline_k: int = 4096
    roofline_n: int = 8192
    roofline_repeats: int = 3
    ex10_small: tuple[int, int] = (1024, 1024)
    ex10_rounds: int = 5
    transpose_n: int = 4096
    transpose_tile: int = 64
    transpose_repeats: int = 3
    transpose_methods: tuple[str, ...] = ("naive", "tiled", "copy", "torch")
    fusion_ks: tuple[int, ...] = (1, 2, 4, 8)
    fusion_elements: int | None = None
    fusion_rounds: int = 2
    fusion_chunked: bool = True  # time the cache-blocked variant at the largest k too
    gelu_elements: int | None = None
    gelu_rounds: int = 2
    overhead_sizes: tuple[int, ...] = (16, 256, 4096, 65536, 1 << 20, 1 << 24)
    overhead_dram_point: bool = True
    overhead_repeats: int = 7
    numerics_n: int = 256
    numerics_dtypes: tuple[str, ...] = ("float32", "float64")
    gpu: bool = True

    @classmethod
    def full(cls) -> Plan:
        return cls()

    @classmethod
    def quick(cls) -> Plan:
        return cls(
            name="quick",
            bandwidth_repeats=3,
            matmul_sizes=(64, 256, 1024),
            roofline_ms=(1, 2, 4, 8, 16, 32, 64, 128, 256),
            roofline_repeats=3,
            ex10_rounds=3,
            transpose_repeats=3,
            transpose_methods=("naive", "tiled", "copy"),
            fusion_ks=(1, 8),
            fusion_rounds=2,
            fusion_chunked=False,
            gelu_rounds=2,
            overhead_sizes=(16, 4096, 1 << 20, 1 << 24),
            overhead_repeats=5,
            numerics_dtypes=("float32",),
        )

    @classmethod
    def tiny(cls) -> Plan:
        """Sizes for tests: everything in a second or two, nothing DRAM-sized."""
        return cls(
            name="tiny",
            dram_bytes=8 * MiB,
            profile_copy_bytes=2 * MiB,
            profile_matmul_n=256,
            profile_repeats=7,
            profile_duration_s=1.0,
            bandwidth_repeats=3,
            matvec_shape=(256, 512),
            matmul_sizes=(32, 64),
            elementwise_elements=1 << 18,
            matmul_repeats=3,
            roofline_ms=(1, 4, 64),
            roofline_k=256,
            roofline_n=512,
            roofline_repeats=3,
            ex10_small=(128, 128),
            ex10_rounds=3,
            transpose_n=256,
            transpose_tile=32,
            transpose_repeats=3,
            fusion_ks=(1, 8),
            fusion_elements=1 << 18,
            fusion_rounds=3,
            gelu_elements=1 << 16,
            gelu_rounds=3,
            overhead_sizes=(16, 4096),
            overhead_dram_point=False,
            overhead_repeats=3,
            numerics_n=64,
            numerics_dtypes=("float32",),
            gpu=False,
        )


#: The experiments, in the order of the lecture: key, heading.
EXPERIMENTS: dict[str, str] = {
    "bandwidth": "§3.5 / 02 演示 4 · 单核内存带宽 · Memory bandwidth on one core",
    "matmul": "02 演示 4 · 矩阵乘法与逐元素运算对照 roofline · Matmul and elementwise ops vs the roofline",
    "roofline": "§3.5 在 CPU 上实测一条 roofline · An empirical roofline",
    "exercise10": "练习 10 · 放进缓存的 W 与 DRAM 里的 W · Exercise 10: W in cache vs W in DRAM",
    "tiling_numerics": "§4.3 分块不改变结果（只改变舍入）· Tiling changes only the rounding",
    "transpose": "§4.4 CPU 上的转置 · Transposing on a CPU",
    "fusion": "§5.2 实验 A · 融合：k 遍 vs 一遍 · Fusion: k passes vs one",
    "gelu": "§5.2 实验 B · GELU：9 个运算 vs F.gelu · GELU: nine ops vs F.gelu",
    "overhead": "§5.3 固定开销 · Fixed overhead: torch.add(a, b, out=c)",
    "gpu": "GPU · 同样的实验在 GPU 上 · The same experiments on a GPU",
}


def _thunks(plan: Plan, profile: Any, bounds: Any) -> dict[str, Callable[[], Any]]:
    from . import bandwidth, fusion, gpu, matmul, numerics, overhead, transpose

    dram = plan.dram_bytes
    return {
        "bandwidth": lambda: bandwidth.memory_bandwidth(
            dram, plan.matvec_shape, plan.bandwidth_repeats, bounds
        ),
        "matmul": lambda: matmul.matmul_sweep(
            plan.matmul_sizes,
            plan.elementwise_elements if plan.elementwise_elements else (dram // 8 if dram else None),
            plan.matmul_repeats,
            profile,
            bounds,
        ),
        "roofline": lambda: matmul.roofline_sweep(
            plan.roofline_ms, plan.roofline_k, plan.roofline_n, dram, plan.roofline_repeats, profile, bounds
        ),
        "exercise10": lambda: bandwidth.cache_vs_dram(
            plan.ex10_small, (plan.roofline_k, plan.roofline_n), 1, plan.ex10_rounds, dram, bounds
        ),
        "tiling_numerics": lambda: numerics.tiling_numerics_measured(
            plan.numerics_n, 64 if plan.numerics_n >= 128 else 16, plan.numerics_dtypes
        ),
        "transpose": lambda: transpose.transpose_experiment(
            plan.transpose_n,
            plan.transpose_tile,
            plan.transpose_methods,
            plan.transpose_repeats,
            dram,
            bounds,
        ),
        "fusion": lambda: fusion.fusion_experiment(
            plan.fusion_ks,
            plan.fusion_elements,
            plan.fusion_rounds,
            (max(plan.fusion_ks),) if plan.fusion_chunked else (),
            bounds,
        ),
        "gelu": lambda: fusion.gelu_experiment(plan.gelu_elements, plan.gelu_rounds, bounds),
        "overhead": lambda: overhead.add_overhead(
            plan.overhead_sizes, plan.overhead_dram_point, plan.overhead_repeats, 0.01, bounds
        ),
        "gpu": lambda: (
            gpu.gpu_experiments(quick=plan.name != "full")
            if plan.gpu
            else gpu.GpuSkipped("GPU experiments not asked for (--no-gpu or a test plan)")
        ),
    }


def stderr_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_all(
    plan: Plan | None = None,
    refresh: bool = False,
    progress: Callable[[str], None] | None = stderr_progress,
    only: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Run the experiments of ``plan`` (all, or those named in ``only``) and return the report dict.

    A MeasurementError in one experiment, or a RuntimeError or MemoryError (a GPU out of memory, a cuBLAS
    error), is recorded under ``errors`` with its reason (and its entry left out); the others still run.
    The machine profile comes from the cache unless ``refresh``.
    """
    from .profile import machine_profile
    from .timing import require_torch

    require_torch()
    plan = plan or Plan.full()
    unknown = [name for name in only if name not in EXPERIMENTS]
    if unknown:
        raise ValueError(f"only must name experiments among {', '.join(EXPERIMENTS)}; got {unknown}")
    say = progress or (lambda _m: None)
    started = time.perf_counter()
    machine = machine_info()
    say(f"machine: {describe(machine)}")
    t0 = time.perf_counter()
    profile = machine_profile(
        refresh=refresh,
        progress=lambda m: say(f"  profile: {m}"),
        copy_bytes=plan.profile_copy_bytes
        if plan.profile_copy_bytes
        else (plan.dram_bytes // 2 if plan.dram_bytes else None),
        matmul_n=plan.profile_matmul_n,
        repeats=plan.profile_repeats,
        duration_s=plan.profile_duration_s,
    )
    say(
        f"profile ({'cached: ' + profile.path if profile.from_cache else 'measured'}, "
        f"{time.perf_counter() - t0:.1f} s): bandwidth {profile.bandwidth_bytes_per_s / 1e9:.1f} GB/s "
        f"({profile.bandwidth_path}), compute {profile.peak_flops / 1e9:.1f} GFLOP/s ({profile.peak_path})"
    )
    bounds = make_bounds(machine, profile)
    thunks = _thunks(plan, profile, bounds)
    names = [n for n in EXPERIMENTS if not only or n in only]
    experiments: dict[str, Any] = {}
    errors: dict[str, str] = {}
    elapsed: dict[str, float] = {}
    for i, name in enumerate(names, 1):
        say(f"[{i}/{len(names)}] {EXPERIMENTS[name]} ...")
        t0 = time.perf_counter()
        try:
            experiments[name] = as_dict(thunks[name]())
        except MeasurementError as exc:
            errors[name] = str(exc)
            say(f"      measurement error: {exc}")
        except (RuntimeError, MemoryError) as exc:
            # torch's out-of-memory and cuBLAS/CUDA errors are RuntimeErrors: one experiment that fails
            # (the GPU one, which runs last, most of all) must not discard the figures of the others.
            errors[name] = f"failed: {type(exc).__name__}: {exc}"
            say(f"      failed: {type(exc).__name__}: {exc}")
        elapsed[name] = time.perf_counter() - t0
        say(f"      {elapsed[name]:.1f} s")
    release_workspace()
    from .. import __version__

    return {
        "perfkit": {"version": __version__, "schema": SCHEMA},
        "plan": as_dict(dataclasses.asdict(plan)),
        "machine": machine.to_dict(),
        "ceilings": profile.ceilings(),
        "bounds": bounds.to_dict(),
        "experiments": experiments,
        "errors": errors,
        "elapsed_s": elapsed,
        "total_s": time.perf_counter() - started,
    }


# --------------------------------------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------------------------------------


def _g(value: float | None, scale: float = 1e9, digits: int = 1) -> str:
    return "-" if value is None else f"{value / scale:.{digits}f}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    line = "  ".join(
        h.rjust(w) if i else h.ljust(w) for i, (h, w) in enumerate(zip(headers, widths, strict=True))
    )
    out = ["  " + line]
    for r in rows:
        out.append(
            "  "
            + "  ".join(
                c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
            )
        )
    return "\n".join(out)


def _bandwidth(e: dict[str, Any]) -> str:
    rows = [
        [f["name"], _g(f["rate"]), _pct(f["noise"]), f["counting"]]
        for f in (e["copy"], e["sum"], e["matvec"])
    ]
    return (
        _table(["op", "GB/s", "noise", "bytes counted"], rows)
        + f"\n  working set {e['working_set_bytes'] / MiB:.0f} MiB = "
        f"{e['working_set_bytes'] / e['llc_bytes']:.1f} x the last-level cache ({e['llc_bytes'] / MiB:.0f} MiB); "
        f"matvec over {e['matvec_buffers']} weights used in turn. {e['counting']}"
    )


def _matmul(e: dict[str, Any]) -> str:
    rows = [
        [
            f"matmul {p['n']}x{p['n']}",
            f"{p['intensity']:.1f}",
            _g(p["figure"]["rate"]),
            _g(p["predicted_flops"]),
            _pct(p["fraction_of_prediction"]),
            _pct(p["figure"]["noise"]),
        ]
        for p in e["points"]
    ]
    rows += [
        [
            f"{p['op']} ({p['passes']} pass{'es' if p['passes'] > 1 else ''})",
            f"{p['intensity']:.3f}",
            _g(p["figure"]["rate"], digits=2),
            _g(p["predicted_flops"], digits=2),
            _pct(p["fraction_of_prediction"]),
            _pct(p["figure"]["noise"]),
        ]
        for p in e["elementwise"]
    ]
    return (
        _table(["op", "FLOP/byte", "GFLOP/s", "roofline GFLOP/s", "of roofline", "noise"], rows)
        + f"\n  roofline from {e['ceilings_from']}. x*2+1 runs as two passes in eager PyTorch: its intensity"
        " is 2/16, not the 2/8 written, so it reaches about half its prediction."
    )


def _roofline(e: dict[str, Any], ceilings: dict[str, Any]) -> str:
    rows = [
        [
            str(p["m"]),
            f"{p['intensity']:.1f}",
            _g(p["figure"]["rate"]),
            _g(p["bandwidth"]),
            _pct(p["figure"]["noise"]),
        ]
        for p in e["points"]
    ]
    return (
        _table(["m", "FLOP/byte", "GFLOP/s", "effective GB/s", "noise"], rows)
        + f"\n  W {e['k']}x{e['n']} FP32 ({e['w_bytes'] / MiB:.0f} MiB), {e['w_buffers']} copies used in turn "
        f"({e['working_set_bytes'] / MiB:.0f} MiB)."
        f"\n  ceilings from the sweep: bandwidth {_g(e['bandwidth_ceiling'])} GB/s (m = {e['bandwidth_at_m']}), "
        f"compute {_g(e['compute_ceiling'])} GFLOP/s (m = {e['compute_at_m']}); ridge {e['ridge']:.1f} FLOP/byte."
        f"\n  profile ceilings: {_g(ceilings['bandwidth_bytes_per_s'])} GB/s ({ceilings['bandwidth_path']}), "
        f"{_g(ceilings['peak_flops'])} GFLOP/s ({ceilings['peak_path']}); ridge "
        f"{ceilings['ridge_flop_per_byte']:.1f} FLOP/byte (H100 bf16: 295)."
    )


def _ex10(e: dict[str, Any]) -> str:
    rows = [[f["name"], _g(f["rate"]), _pct(f["noise"])] for f in (e["small"], e["large"])]
    return _table(["W", "effective GB/s", "noise"], rows) + (
        f"\n  cache / DRAM = {e['ratio']:.2f}x. {e['explanation']}"
    )


def _numerics(e: list[dict[str, Any]]) -> str:
    rows = [
        [
            r["dtype"],
            str(r["n"]),
            str(r["tile"]),
            f"{r['tiled_vs_direct']:.1e}",
            f"{r['tiled_error']:.1e}",
            f"{r['direct_error']:.1e}",
        ]
        for r in e
    ]
    return _table(["dtype", "n", "tile", "|tiled - direct|", "|tiled - exact|", "|direct - exact|"], rows)


def _transpose(e: dict[str, Any]) -> str:
    rows = [
        [
            m,
            f"{f['time_s'] * 1e3:.1f}",
            _g(f["rate"]),
            f"{e['slowdown_vs_copy'][m]:.1f}x",
            _pct(f["noise"]),
            "yes" if e["exact"][m] else "NO",
            e["descriptions"][m],
        ]
        for m, f in e["figures"].items()
    ]
    return (
        _table(["method", "ms", "GB/s", "vs copy", "noise", "exact", "how"], rows)
        + f"\n  {e['n']}x{e['n']} FP32, tile {e['tile']}; tiled is {e['tiled_speedup']:.1f}x faster than naive"
        f" (lecture: 2.7x); {e['pairs']} source/destination pairs used in turn."
    )


def _fusion(e: dict[str, Any]) -> str:
    rows = []
    for p in e["points"]:
        rows.append(
            [
                str(p["k"]),
                f"{p['unfused']['time_s'] * 1e3:.1f}",
                f"{p['fused']['time_s'] * 1e3:.1f}",
                f"{p['speedup']:.2f}x",
                "-" if p["chunked"] is None else f"{p['chunked']['time_s'] * 1e3:.1f}",
                "-" if p["chunked_speedup"] is None else f"{p['chunked_speedup']:.2f}x",
                f"{p['max_rel_diff']:.1e}",
                _pct(max(p["unfused"]["noise"], p["fused"]["noise"])),
            ]
        )
    return (
        _table(
            ["k", "k passes ms", "one pass ms", "speedup", "chunked ms", "speedup", "rel. diff", "noise"],
            rows,
        )
        + f"\n  {e['n_elements']:,} FP32 elements x {e['constant']} k times. one pass = x * c^k (a fused kernel's"
        " traffic); chunked = the k eager ops on L2-sized chunks (bit-identical to k passes)."
    )


def _gelu(e: dict[str, Any]) -> str:
    rows = [[f["name"], f"{f['time_s'] * 1e3:.1f}", _pct(f["noise"])] for f in (e["unfused"], e["fused"])]
    return _table(["GELU (tanh)", "ms", "noise"], rows) + (
        f"\n  {e['n_elements']:,} elements; fused is {e['speedup']:.2f}x faster (lecture: 1.1x); values agree: "
        f"{'yes' if e['allclose'] else 'NO'} (max |diff| {e['max_abs_diff']:.1e}); one tanh costs "
        f"{e['tanh_per_add']:.1f} adds here."
    )


def _overhead(e: dict[str, Any]) -> str:
    rows = [
        [
            f"{p['n_elements']:,}",
            f"{p['figure']['time_s'] * 1e6:.1f}",
            _g(p["figure"]["rate"], digits=2),
            _pct(p["figure"]["noise"]),
        ]
        for p in e["points"]
    ]
    return _table(["elements", "µs", "effective GB/s", "noise"], rows) + (
        f"\n  the smallest add takes {e['fixed_cost_s'] * 1e6:.1f} µs; up to {e['overhead_bound_up_to']:,} "
        "elements the time stays within 2x of it: overhead, not work."
    )


def _gpu(e: dict[str, Any]) -> str:
    if e.get("skipped"):
        return f"  {e['reason']}"
    rows = [
        [
            f["name"],
            _g(f["rate"], 1e9 if f["unit"] == "byte" else 1e12, 2),
            "GB/s" if f["unit"] == "byte" else "TFLOP/s",
            _pct(f["noise"]),
        ]
        for f in (e["copy"], e["sum"], *e["matmul"])
    ]
    dtype = e.get("matmul_dtype", "bf16")  # fp16 on MPS
    bound = e.get("bandwidth_bound")
    unbound = (
        f"; no spec: bandwidth bound {_g(bound, 1e9)} GB/s from the memory clock and bus width"
        if bound and not e["spec"]
        else ""
    )
    return _table(["op", "rate", "unit", "noise"], rows) + (
        f"\n  {e['device_name']} (spec: {e['spec'] or e.get('spec_note') or 'none matched'}{unbound}); "
        f"bandwidth {_pct(e['bandwidth_fraction_of_spec'])} of spec, {dtype} matmul "
        f"{_pct(e['flops_fraction_of_spec'])} of spec; k=8 fusion "
        f"{e['fusion_unfused']['time_s'] / e['fusion_fused']['time_s']:.1f}x; add of 16 elements "
        f"{e['add_small']['time_s'] * 1e6:.1f} µs. Timing: {e['timing']}."
    )


def format_report(report: dict[str, Any]) -> str:
    """The lecture's tables with this machine's numbers (from a run_all report or its JSON)."""
    m = report["machine"]
    c = report["ceilings"]
    lines = [
        f"perfcore measure ({report['plan']['name']}): {m['cpu_model']}, L2 {m['l2_bytes'] / MiB:.0f} MiB, "
        f"last level {m['llc_bytes'] / MiB:.0f} MiB; torch {m['torch_version']}, numpy {m['numpy_version']}; "
        f"{m['threads']} thread",
        f"ceilings: bandwidth {_g(c['bandwidth_bytes_per_s'])} GB/s ({c['bandwidth_path']}), compute "
        f"{_g(c['peak_flops'])} GFLOP/s ({c['peak_path']}), ridge {c['ridge_flop_per_byte']:.1f} FLOP/byte "
        f"({'cached' if c['from_cache'] else 'measured now'}). GB = 1e9 bytes; noise = IQR / median.",
    ]
    formatters: dict[str, Callable[[Any], str]] = {
        "bandwidth": _bandwidth,
        "matmul": _matmul,
        "roofline": lambda e: _roofline(e, c),
        "exercise10": _ex10,
        "tiling_numerics": _numerics,
        "transpose": _transpose,
        "fusion": _fusion,
        "gelu": _gelu,
        "overhead": _overhead,
        "gpu": _gpu,
    }
    for name, title in EXPERIMENTS.items():
        if name in report["experiments"]:
            lines += ["", title, formatters[name](report["experiments"][name])]
        elif name in report.get("errors", {}):
            lines += ["", title, f"  MEASUREMENT ERROR (no figure reported): {report['errors'][name]}"]
    return "\n".join(lines)
