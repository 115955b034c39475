"""Benchmark of perfcore's simulator and estimators (not a test: run it by hand).

    python benchmarks/bench_models.py

Prints the median time of each call over several repeats (stdlib timeit, so it runs without torch) and
of each tour section, whose target is well under 2 s.
"""

from __future__ import annotations

import statistics
import timeit

import perfcore as pc
from perfcore.tour import TOUR

CALLS = {
    "latency_hiding_table() (W 1..64, c 4/16/64)": lambda: pc.latency_hiding_table(),
    "simulate_latency_hiding(64, 4, 400)": lambda: pc.simulate_latency_hiding(64, 4, 400),
    "count_tiled_matmul_traffic(256, 8)": lambda: pc.count_tiled_matmul_traffic(256, 8),
    "tiling_numerics(256, 64, float64)": lambda: pc.tiling_numerics(256, 64, "float64"),
    "step_estimate prefill 2048": lambda: pc.step_estimate(pc.LLAMA3_8B, pc.H100, 1, 2048, 2048),
    "step_estimate decode b=32": lambda: pc.step_estimate(pc.LLAMA3_8B, pc.H100, 32, 1, 2048),
    "roofline over 10^6 points": lambda: pc.roofline(
        pc.matmul_cost(__import__("numpy").arange(1, 10**6 + 1), 4096, 4096).flops, 1e9, pc.H100
    ),
}


def median_time(fn, repeats: int = 7) -> float:
    number = 1
    while timeit.timeit(fn, number=number) < 0.05 and number < 10**6:
        number *= 10
    return statistics.median(t / number for t in timeit.repeat(fn, number=number, repeat=repeats))


def main() -> None:
    print(f"{'call':<50} {'median':>12}")
    for name, fn in CALLS.items():
        print(f"{name:<50} {median_time(fn) * 1e3:>9.3f} ms")
    print()
    for name, (_, _, show) in TOUR.items():
        print(f"{'tour ' + name:<50} {median_time(show, repeats=3) * 1e3:>9.1f} ms")


if __name__ == "__main__":
    main()
