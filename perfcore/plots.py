"""Plots: this machine's measured roofline beside the H100's, latency hiding, transpose, fusion, overhead.

Every plot function takes a measurement report (the dict ``perfcore.measure.suite.run_all`` returns, or
the JSON ``python -m perfcore measure --json`` writes) and a file to write; matplotlib is imported lazily
with the Agg backend, so nothing here needs a display and ``import perfcore`` never needs matplotlib.

``python -m perfcore plot roofline --out roofline.png`` measures (the quick plan) unless ``--from FILE``
names a saved report.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .costs import common_ops
from .execution import latency_hiding_closed_form, simulate_latency_hiding
from .roofline import roofline
from .specs import as_gpu

PROG = "python -m perfcore plot"
PLOTS = ("roofline", "latency", "transpose", "fusion", "overhead")
#: The experiments each plot needs from a report.
NEEDS: dict[str, tuple[str, ...]] = {
    "roofline": ("bandwidth", "matmul", "roofline", "exercise10", "fusion", "overhead"),
    "latency": (),
    "transpose": ("transpose",),
    "fusion": ("fusion", "gelu"),
    "overhead": ("overhead",),
}


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as exc:
        raise ImportError(
            "perfcore.plots needs matplotlib: pip install matplotlib (or perfkit[plot])"
        ) from exc
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, out: str | Path) -> Path:
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path


def _experiment(report: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    return report.get("experiments", {}).get(name)


def _machine_title(report: Mapping[str, Any]) -> str:
    m = report.get("machine", {})
    return f"{m.get('cpu_model', 'this CPU')}, 1 core, FP32"


# --------------------------------------------------------------------------------------------------------
# roofline
# --------------------------------------------------------------------------------------------------------


def measured_points(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every measured op that does arithmetic: series, label, intensity (FLOP/byte), FLOP/s, quiet (no label)."""
    pts: list[dict[str, Any]] = []

    def add(series: str, label: str, flops: float, nbytes: float, rate_flops: float) -> None:
        if flops > 0 and nbytes > 0 and rate_flops > 0:
            pts.append({"series": series, "label": label, "intensity": flops / nbytes, "flops": rate_flops})

    if (e := _experiment(report, "roofline")) is not None:
        ms = [p["m"] for p in e["points"]]
        shown = {ms[0], ms[-1], *ms[2::3]}
        for p in e["points"]:
            pts.append(
                {
                    "series": "§3.5 X[m] @ W (128 MiB)",
                    "label": f"m={p['m']}",
                    "intensity": p["intensity"],
                    "flops": p["figure"]["rate"],
                    "quiet": p["m"] not in shown,
                }
            )
    if (e := _experiment(report, "matmul")) is not None:
        ns = [p["n"] for p in e["points"]]
        for p in e["points"]:
            pts.append(
                {
                    "series": "matmul n x n",
                    "label": f"n={p['n']}",
                    "intensity": p["intensity"],
                    "flops": p["figure"]["rate"],
                    "quiet": p["n"] not in (ns[0], ns[-1]),
                }
            )
        for p in e["elementwise"]:
            pts.append(
                {
                    "series": "elementwise (seed 002)",
                    "label": p["op"],
                    "intensity": p["effective_intensity"],
                    "flops": p["figure"]["rate"],
                }
            )
    if (e := _experiment(report, "bandwidth")) is not None:
        s = e["sum"]
        add("bandwidth", "sum", s["work"] / 4, s["work"], s["rate"] / 4)
        rows, cols = e["matvec_shape"]
        mv = e["matvec"]
        add("bandwidth", "matvec", 2 * rows * cols, mv["work"], 2 * rows * cols / mv["time_s"])
    if (e := _experiment(report, "exercise10")) is not None:
        for key in ("small", "large"):
            f = e[key]
            k, n = e[f"{key}_shape"]
            add(
                "exercise 10 (m = 1)",
                "W in cache" if key == "small" else "W in DRAM",
                2 * k * n,
                f["work"],
                2 * k * n / f["time_s"],
            )
    if (e := _experiment(report, "fusion")) is not None:
        p = max(e["points"], key=lambda q: q["k"])
        n, k = e["n_elements"], p["k"]
        add(
            "fusion (§5.2)", f"k={k}, {k} passes", k * n, p["unfused"]["work"], k * n / p["unfused"]["time_s"]
        )
        add("fusion (§5.2)", f"k={k}, one pass", k * n, p["fused"]["work"], k * n / p["fused"]["time_s"])
    if (e := _experiment(report, "overhead")) is not None:
        for p in (e["points"][0], e["points"][-1]):
            n = p["n_elements"]
            add("add (§5.3)", f"add {n:,}", n, p["figure"]["work"], n / p["figure"]["time_s"])
    return pts


#: Label offsets (points) tried in turn, so that labels of nearby points do not sit on each other.
_OFFSETS = ((5, 5), (5, -11), (-5, 8), (-5, -13), (8, 14), (8, -20), (-8, 18), (-8, -24))


def _label(ax: Any, text: str, x: float, y: float, placed: list[tuple[float, float]]) -> None:
    """Annotate (x, y) at the first offset whose spot (in decades) is clear of the labels placed so far."""
    lx, ly = np.log10(x), np.log10(y)
    for dx, dy in _OFFSETS:
        spot = (lx + dx / 60, ly + dy / 60)
        if all(abs(spot[0] - px) > 0.45 or abs(spot[1] - py) > 0.12 for px, py in placed):
            break
    placed.append(spot)
    ha = "left" if dx > 0 else "right"
    ax.annotate(
        text,
        (x, y),
        textcoords="offset points",
        xytext=(dx, dy),
        fontsize=7,
        ha=ha,
        arrowprops={"arrowstyle": "-", "lw": 0.4, "color": "gray"} if abs(dy) > 11 else None,
    )


def _roof(ax: Any, peak: float, bw: float, label: str, style: str = "-", color: str = "black") -> None:
    x = np.logspace(-2.3, 3.5, 300)
    ax.plot(x, np.minimum(peak, x * bw), style, color=color, lw=1.8, label=label)
    ax.axvline(peak / bw, color=color, ls=":", lw=0.8)


def plot_roofline(report: Mapping[str, Any], out: str | Path, gpu: str = "H100") -> Path:
    """This machine's measured roofline with every experiment as a point, beside ``gpu``'s with §3.3's ops."""
    plt = _pyplot()
    c = report["ceilings"]
    peak, bw = c["peak_flops"], c["bandwidth_bytes_per_s"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(15, 7.5))
    _roof(
        left,
        peak,
        bw,
        f"measured roof: {peak / 1e9:.0f} GFLOP/s ({c['peak_path']}), "
        f"{bw / 1e9:.1f} GB/s ({c['bandwidth_path']}); ridge {peak / bw:.1f}",
    )
    if (e := _experiment(report, "roofline")) is not None:
        _roof(
            left,
            e["compute_ceiling"],
            e["bandwidth_ceiling"],
            f"the sweep's own ceilings (§3.5); ridge {e['ridge']:.1f}",
            "--",
            "tab:gray",
        )
    markers = ["o", "s", "^", "D", "v", "P", "X", "*"]
    series: dict[str, list[dict[str, Any]]] = {}
    for p in measured_points(report):
        series.setdefault(p["series"], []).append(p)
    placed: list[tuple[float, float]] = []
    for i, (name, pts) in enumerate(series.items()):
        xs = [p["intensity"] for p in pts]
        ys = [p["flops"] for p in pts]
        left.scatter(xs, ys, marker=markers[i % len(markers)], s=42, label=name, zorder=3)
        for p in pts:
            if p.get("quiet"):
                continue
            _label(left, p["label"], p["intensity"], p["flops"], placed)
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel("arithmetic intensity (FLOP/byte)")
    left.set_ylabel("attained FLOP/s")
    left.set_title(f"This machine, measured: {_machine_title(report)}", fontsize=10)
    left.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.12), ncol=2, frameon=False)

    spec = as_gpu(gpu)
    gpeak, gbw = spec.peak("bf16"), spec.hbm_bytes_per_s
    _roof(
        right,
        gpeak,
        gbw,
        f"{spec.name} bf16: {gpeak / 1e12:.0f} TFLOP/s, {gbw / 1e12:.2f} TB/s; ridge {gpeak / gbw:.0f}",
    )
    placed = []
    for op in sorted(common_ops(), key=lambda o: o.flops / o.bytes):
        r = roofline(op.flops, op.bytes, spec)
        right.scatter(
            [r.intensity],
            [r.achieved_flops],
            s=42,
            zorder=3,
            color="tab:red" if r.bound == "memory" else "tab:blue",
        )
        _label(right, f"{op.name} ({r.bound}-bound)", r.intensity, r.achieved_flops, placed)
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("arithmetic intensity (FLOP/byte)")
    right.set_ylabel("attainable FLOP/s (roofline model)")
    right.set_title(f"{spec.name}, the lecture's ops at n = 4096, bf16 (model, §3.3)", fontsize=10)
    right.grid(True, which="both", alpha=0.3)
    right.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.12), frameon=False)
    fig.suptitle("Roofline: measured on this CPU core vs the H100 model (log-log)")
    return _save(fig, out)


# --------------------------------------------------------------------------------------------------------
# latency hiding
# --------------------------------------------------------------------------------------------------------


def plot_latency_hiding(
    out: str | Path,
    compute_per_load: Sequence[int] = (4, 16, 64),
    mem_latency: int = 400,
    warps: Sequence[int] = (1, 2, 4, 8, 16, 32, 64),
) -> Path:
    """§2.2: utilization against resident warps, closed form (lines) and the simulation (points)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 5))
    dense = np.arange(1, max(warps) + 1)
    for c in compute_per_load:
        line = ax.plot(
            dense,
            latency_hiding_closed_form(dense, c, mem_latency),
            lw=1.5,
            label=f"c = {c}: min(1, W c / (c + L))",
        )[0]
        sim = [simulate_latency_hiding(w, c, mem_latency).utilization for w in warps]
        ax.scatter(warps, sim, color=line.get_color(), zorder=3, s=30)
    ax.scatter([], [], color="gray", label="simulated scheduler")
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(warps))
    ax.set_xticklabels([str(w) for w in warps])
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("resident warps W (per SM scheduler)")
    ax.set_ylabel("compute utilization")
    ax.set_title(f"§2.2 Hiding a {mem_latency}-cycle memory latency with many warps (c compute per load)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, out)


# --------------------------------------------------------------------------------------------------------
# transpose, fusion, overhead
# --------------------------------------------------------------------------------------------------------


def _need(report: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    e = _experiment(report, name)
    if e is None:
        raise ValueError(
            f"the report has no '{name}' experiment (run `python -m perfcore measure --only {name}`)"
        )
    return e


def plot_transpose(report: Mapping[str, Any], out: str | Path) -> Path:
    """§4.4: time and effective bandwidth of each transpose method and of the plain copy."""
    plt = _pyplot()
    e = _need(report, "transpose")
    methods = list(e["figures"])
    times = [e["figures"][m]["time_s"] * 1e3 for m in methods]
    noise = [e["figures"][m]["noise"] * e["figures"][m]["time_s"] * 1e3 for m in methods]
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    bars = ax.bar(
        methods,
        times,
        yerr=noise,
        capsize=4,
        color=["tab:red", "tab:green", "tab:blue", "tab:gray"][: len(methods)],
    )
    for bar, m, err in zip(bars, methods, noise, strict=True):
        f = e["figures"][m]
        ax.annotate(
            f"{f['time_s'] * 1e3:.0f} ms\n{f['rate'] / 1e9:.1f} GB/s",
            (bar.get_x() + bar.get_width() / 2, bar.get_height() + err),
            textcoords="offset points",
            xytext=(0, 3),
            ha="center",
            va="bottom",
            fontsize=8,
        )
    ax.set_ylabel("time per transpose (ms; error bar = IQR)")
    ax.set_title(
        f"§4.4 Transposing {e['n']}x{e['n']} FP32 on one core: naive is "
        f"{e['slowdown_vs_copy']['naive']:.0f}x a copy, tiles of {e['tile']} win {e['tiled_speedup']:.1f}x",
        fontsize=10,
    )
    ax.grid(True, axis="y", alpha=0.3)
    ax.margins(y=0.15)
    return _save(fig, out)


def plot_fusion(report: Mapping[str, Any], out: str | Path) -> Path:
    """§5.2: k passes vs one pass against k, and GELU as nine ops vs F.gelu."""
    plt = _pyplot()
    e = _need(report, "fusion")
    g = _experiment(report, "gelu")
    fig, axes = plt.subplots(1, 2 if g else 1, figsize=(13 if g else 7, 4.8), squeeze=False)
    ax = axes[0][0]
    ks = [p["k"] for p in e["points"]]
    ax.plot(ks, [p["unfused"]["time_s"] * 1e3 for p in e["points"]], "o-", label="k passes (unfused)")
    ax.plot(ks, [p["fused"]["time_s"] * 1e3 for p in e["points"]], "s-", label="one pass (fused)")
    chunked = [(p["k"], p["chunked"]["time_s"] * 1e3) for p in e["points"] if p.get("chunked")]
    if chunked:
        ax.scatter(
            *zip(*chunked, strict=True),
            marker="^",
            color="tab:green",
            zorder=3,
            label="k ops on L2-sized chunks",
        )
    for p in e["points"]:
        ax.annotate(
            f"{p['speedup']:.1f}x",
            (p["k"], p["unfused"]["time_s"] * 1e3),
            textcoords="offset points",
            xytext=(4, 4),
            fontsize=8,
        )
    ax.set_xscale("log", base=2)
    ax.set_xticks(ks)
    ax.set_xticklabels([str(k) for k in ks])
    ax.set_xlabel("k (multiplications per element)")
    ax.set_ylabel("time per call (ms)")
    ax.set_title(f"§5.2 A: {e['n_elements']:,} FP32 elements x c, k times", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    if g:
        ax = axes[0][1]
        names = ["nine ops", "F.gelu (tanh)"]
        vals = [g["unfused"]["time_s"] * 1e3, g["fused"]["time_s"] * 1e3]
        ax.bar(names, vals, color=["tab:orange", "tab:blue"])
        ax.set_ylabel("time per call (ms)")
        ax.set_title(
            f"§5.2 B: GELU on {g['n_elements']:,} elements: fused {g['speedup']:.2f}x faster; "
            f"max |diff| {g['max_abs_diff']:.1e}",
            fontsize=10,
        )
        ax.grid(True, axis="y", alpha=0.3)
    return _save(fig, out)


def plot_overhead(report: Mapping[str, Any], out: str | Path) -> Path:
    """§5.3: time and effective bandwidth of torch.add(a, b, out=c) against the number of elements."""
    plt = _pyplot()
    e = _need(report, "overhead")
    ns = [p["n_elements"] for p in e["points"]]
    times = [p["figure"]["time_s"] * 1e6 for p in e["points"]]
    bws = [p["figure"]["rate"] / 1e9 for p in e["points"]]
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    ax.plot(ns, times, "o-", color="tab:blue", label="time (µs)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("elements per tensor")
    ax.set_ylabel("time per add (µs)", color="tab:blue")
    twin = ax.twinx()
    twin.plot(ns, bws, "s--", color="tab:red", label="effective bandwidth (GB/s)")
    twin.set_ylabel("effective bandwidth, 12 bytes per element (GB/s)", color="tab:red")
    twin.set_xscale("log")
    ax.set_title(
        f"§5.3 torch.add(a, b, out=c) on one core: {e['fixed_cost_s'] * 1e6:.1f} µs of overhead", fontsize=10
    )
    ax.grid(True, which="both", alpha=0.3)
    return _save(fig, out)


def plot_all(report: Mapping[str, Any], folder: str | Path) -> list[Path]:
    folder = Path(folder)
    return [
        plot_roofline(report, folder / "roofline.png"),
        plot_latency_hiding(folder / "latency.png"),
        plot_transpose(report, folder / "transpose.png"),
        plot_fusion(report, folder / "fusion.png"),
        plot_overhead(report, folder / "overhead.png"),
    ]


# --------------------------------------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Draw the lecture's plots with this machine's measurements (PNG, log axes where the "
        "quantity spans decades).",
    )
    parser.add_argument(
        "what", choices=(*PLOTS, "all"), help="which plot ('all': every plot into the --out folder)"
    )
    parser.add_argument("--out", required=True, help="the PNG to write (a folder for 'all')")
    parser.add_argument(
        "--from",
        dest="source",
        metavar="REPORT.json",
        help="a report written by `python -m perfcore measure --json`; without it, measure now",
    )
    parser.add_argument(
        "--full", action="store_true", help="measure with the full plan (about 30 s) instead of quick"
    )
    parser.add_argument("--gpu", default="H100", help="the GPU whose roofline stands beside this machine's")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        _pyplot()
    except ImportError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    needs = set(NEEDS[args.what]) if args.what != "all" else {n for v in NEEDS.values() for n in v}
    report: Mapping[str, Any] = {}
    if needs:
        if args.source:
            report = json.loads(Path(args.source).read_text(encoding="utf-8"))
        else:
            try:
                from .measure.suite import Plan, run_all
            except ImportError as exc:  # pragma: no cover - the measure package itself imports lazily
                print(f"{PROG}: {exc}", file=sys.stderr)
                return 1
            try:
                report = run_all(Plan.full() if args.full else Plan.quick(), only=tuple(sorted(needs)))
            except ImportError as exc:
                print(f"{PROG}: cannot measure ({exc}); pass --from REPORT.json", file=sys.stderr)
                return 1
    try:
        if args.what == "all":
            paths = plot_all(report, args.out)
        elif args.what == "latency":
            paths = [plot_latency_hiding(args.out)]
        elif args.what == "roofline":
            paths = [plot_roofline(report, args.out, args.gpu)]
        else:
            paths = [
                {"transpose": plot_transpose, "fusion": plot_fusion, "overhead": plot_overhead}[args.what](
                    report, args.out
                )
            ]
    except (ValueError, KeyError) as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    for path in paths:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
