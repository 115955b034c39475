"""How steady are this machine's ceilings? Measure the profile N times (never from the cache) and report the
spread of each ceiling: mean, standard deviation, coefficient of variation (goal: CV <= 5%), min and max.

    .venv/bin/python benchmarks/bench_profile.py [--runs 10] [--json FILE]

Not part of the test suite: it takes about 40 s. Each run is a fresh measure_profile() (the workspace stays
allocated between runs, as it does within one `python -m perfcore measure`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from perfcore.measure.machine import describe, machine_info  # noqa: E402
from perfcore.measure.profile import measure_profile  # noqa: E402

#: A run counts as quiet when other processes used less than this many CPUs on average during it.
QUIET = 0.25


def spread(values: list[float]) -> dict[str, float]:
    mean = statistics.fmean(values)
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return {"mean": mean, "std": std, "cv": std / mean, "min": min(values), "max": max(values)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks/bench_profile.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="profile measurements (default 10)")
    parser.add_argument("--json", metavar="FILE", help="also write the runs and the spreads as JSON")
    args = parser.parse_args(argv)
    if args.runs < 2:
        parser.error("--runs must be at least 2 to give a spread")
    print(describe(machine_info()))
    series: dict[str, list[float]] = {}
    paths: dict[str, list[str]] = {"bandwidth": [], "compute": []}
    others: list[float | None] = []
    started = time.perf_counter()
    for i in range(args.runs):
        t0 = time.perf_counter()
        p = measure_profile()
        series.setdefault("bandwidth ceiling (bytes/s)", []).append(p.bandwidth_bytes_per_s)
        series.setdefault("compute ceiling (FLOP/s)", []).append(p.peak_flops)
        for name, cand in p.candidates.items():
            series.setdefault(
                f"  {name} best-of ({'bytes' if cand['unit'] == 'byte' else 'FLOP'}/s)", []
            ).append(cand["best_rate"])
            series.setdefault(
                f"  {name} median ({'bytes' if cand['unit'] == 'byte' else 'FLOP'}/s)", []
            ).append(cand["rate"])
        paths["bandwidth"].append(p.bandwidth_path)
        paths["compute"].append(p.peak_path)
        busy = p.machine.get("contention", {}).get("other_cpus")
        others.append(busy)
        print(
            f"run {i + 1:2d}: bandwidth {p.bandwidth_bytes_per_s / 1e9:6.2f} GB/s ({p.bandwidth_path}), "
            f"compute {p.peak_flops / 1e9:6.1f} GFLOP/s ({p.peak_path}); other processes "
            f"{'?' if busy is None else f'{busy:.2f}'} CPUs busy  [{time.perf_counter() - t0:.1f} s]",
            flush=True,
        )
    spreads = {name: spread(values) for name, values in series.items()}
    print(f"\n{args.runs} runs in {time.perf_counter() - started:.0f} s (GB = 1e9 bytes)")
    print(f"{'quantity':44s} {'mean':>9s} {'std':>8s} {'CV':>6s} {'min':>9s} {'max':>9s}")
    for name, s in spreads.items():
        scale = 1e9
        print(
            f"{name:44s} {s['mean'] / scale:9.2f} {s['std'] / scale:8.2f} {100 * s['cv']:5.1f}% "
            f"{s['min'] / scale:9.2f} {s['max'] / scale:9.2f}"
        )
    for kind, names in paths.items():
        counts = {n: names.count(n) for n in sorted(set(names))}
        print(f"{kind} ceiling path: " + ", ".join(f"{n} x{c}" for n, c in counts.items()))
    quiet = [i for i, busy in enumerate(others) if busy is not None and busy < QUIET]
    if 1 < len(quiet) < args.runs:
        print(f"runs with other processes using < {QUIET} CPU ({len(quiet)} of {args.runs}):")
        for name in ("bandwidth ceiling (bytes/s)", "compute ceiling (FLOP/s)"):
            s = spread([series[name][i] for i in quiet])
            print(f"  {name:42s} {s['mean'] / 1e9:9.2f} {s['std'] / 1e9:8.2f} {100 * s['cv']:5.1f}%")
    worst = max(spreads["bandwidth ceiling (bytes/s)"]["cv"], spreads["compute ceiling (FLOP/s)"]["cv"])
    print(
        f"goal CV <= 5% for both ceilings: {'met' if worst <= 0.05 else 'NOT met'} (worst {100 * worst:.1f}%)"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {"machine": machine_info().to_dict(), "runs": series, "paths": paths, "spreads": spreads},
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
