"""The student's loop: what a fresh kit's `pytest exercises/` prints and costs, beside the answered formula part.

    python benchmarks/bench_student_loop.py [--repeats 3]

Runs `pytest exercises/` (the stubs: every check not attempted) and `pytest solutions/ex0*.py` (the formula
exercises answered) side by side, alternately, each in a fresh subprocess with pytest's default output (as a
student types it), and prints for each the lines printed and the median wall time, then the median of the
rounds' paired ratios stubs / formula part. Targets (issue 21): at most 150 lines for the stubs, and the
stubs at most 1.3 times the answered formula part. A ratio measured side by side holds on a loaded machine
where seconds do not; the spread of the rounds says how much to trust it.
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
    "stubs": ["exercises/"],
    "formula": FORMULA,
}
TITLES = {
    "stubs": "pytest exercises/ (the stubs: all not attempted)",
    "formula": "pytest solutions/ex0*.py (the formula part, answered)",
}


def run(args: list[str]) -> tuple[float, int]:
    """The wall time of one pytest run in a fresh process, and the lines it printed."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    return seconds, len((done.stdout + done.stderr).splitlines())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    repeats = parser.parse_args().repeats
    times: dict[str, list[float]] = {name: [] for name in RUNS}
    lines: dict[str, list[int]] = {name: [] for name in RUNS}
    ratios = []
    for _ in range(repeats):  # alternately, so that both see the same drift of the machine
        for name, args in RUNS.items():
            seconds, count = run(args)
            times[name].append(seconds)
            lines[name].append(count)
        ratios.append(times["stubs"][-1] / times["formula"][-1])
    print(f"{'run':<56} {'lines':>6} {'median s':>9} {'min s':>7} {'max s':>7}")
    for name, values in times.items():
        print(
            f"{TITLES[name]:<56} {max(lines[name]):>6} {statistics.median(values):>9.1f}"
            f" {min(values):>7.1f} {max(values):>7.1f}"
        )
    print(
        f"stubs / formula part, paired by round: median {statistics.median(ratios):.2f}"
        f" (min {min(ratios):.2f}, max {max(ratios):.2f}, {repeats} rounds; target at most 1.3)"
    )


if __name__ == "__main__":
    main()
