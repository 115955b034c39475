"""How long grading takes: `pytest solutions/` whole, its formula part alone, and `pytest exercises/`.

    python benchmarks/bench_grading.py [--repeats 3]

Runs each in a fresh subprocess (as a student would), side by side in one run of this script, and prints
the median and spread of the wall-clock times. Targets (issue 5): the whole solutions run near 20 s on the
project's 2-core machine, the formula part (exercises 1-9) under 3 s.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORMULA = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "solutions").glob("ex0*.py"))

RUNS = {
    "pytest solutions/ (everything, measurements included)": ["solutions/"],
    "pytest solutions/ex01..ex09 (the formula part)": FORMULA,
    "pytest exercises/ (the stubs: all not attempted)": ["exercises/"],
}


def wall_time(args: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    repeats = parser.parse_args().repeats
    times: dict[str, list[float]] = {name: [] for name in RUNS}
    for _ in range(repeats):  # interleaved, so that all three see the same drift of the machine
        for name, args in RUNS.items():
            times[name].append(wall_time(args))
    print(f"{'run':<58} {'median s':>9} {'min s':>7} {'max s':>7}")
    for name, values in times.items():
        print(f"{name:<58} {statistics.median(values):>9.1f} {min(values):>7.1f} {max(values):>7.1f}")


if __name__ == "__main__":
    main()
