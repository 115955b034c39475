"""The student's loop: what a fresh kit's `pytest exercises/` prints and costs, beside the answered formula part.

    python benchmarks/bench_student_loop.py [--repeats 3]

Runs `pytest exercises/` (the stubs: every check not attempted) and `pytest solutions/ex0*.py` (the formula
exercises answered) side by side, alternately, each in a fresh subprocess with pytest's default output (as a
student types it), and prints for each the lines printed and the median wall time, then the median of the
rounds' paired ratios stubs / formula part. Targets (issue 21): at most 150 lines for the stubs, and the
stubs at most 1.3 times the answered formula part. A ratio measured side by side holds on a loaded machine
where seconds do not; the spread of the rounds says how much to trust it.

Then the rerun (issue 30): a student's folder (the answered formula files, the measurement stubs) graded
once with pytest's cache, then, each round, one formula file edited (a comment appended) and the folder
graded again, beside `pytest` on that one file alone without a cache (its checks plus pytest's start).
Target: the rerun at most 1.5 times the one file.

``--write-docs`` writes the first table into docs/students.md, between its ``<!-- student-loop -->`` markers,
with the date, the machine and its load: the guide's line counts and times come from this command, never
typed (issue 39).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORMULA = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "solutions").glob("ex0*.py"))

#: The guide whose table :func:`docs_block` writes, and the markers around the table.
GUIDE = ROOT / "docs" / "students.md"
BEGIN, END = "<!-- student-loop -->", "<!-- /student-loop -->"

RUNS = {
    "stubs": ["exercises/"],
    "formula": FORMULA,
}
TITLES = {
    "stubs": "pytest exercises/ (the stubs: all not attempted)",
    "formula": "pytest solutions/ex0*.py (the formula part, answered)",
}


def run(args: list[str], cwd: Path = ROOT, cache: bool = False) -> tuple[float, int]:
    """The wall time of one pytest run in a fresh process, and the lines it printed."""
    env = {k: v for k, v in os.environ.items() if k != "CI"}  # under CI the cache is not read
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "cacheprovider" if cache else "no:cacheprovider", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    seconds = time.perf_counter() - started
    return seconds, len((done.stdout + done.stderr).splitlines())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--write-docs", action="store_true", help=f"write the table into {GUIDE.name}")
    options = parser.parse_args()
    if options.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {options.repeats}")
    repeats = options.repeats
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
    if options.write_docs:
        rows = {TITLES[name]: (max(lines[name]), values) for name, values in times.items()}
        GUIDE.write_text(
            docs_block(GUIDE.read_text(encoding="utf-8"), rows, repeats, machine()), encoding="utf-8"
        )
        print(f"wrote the table into {GUIDE}")
    rerun(repeats)


def machine() -> str:
    """The CPU and the load average, as the guide's table names them (from :func:`bench_judge.machine`, the
    benchmarks' one record of the machine; imported here, when asked: it sits beside this script)."""
    from bench_judge import machine as record

    found = record()
    load = found["load_average_at_start"]
    return f"{found['cpu']}, {found['cores']} CPUs, load average {load[0]:.1f}"  # type: ignore[index]


def docs_block(text: str, rows: dict[str, tuple[int, list[float]]], repeats: int, where: str) -> str:
    """``text`` (the guide) with the table between :data:`BEGIN` and :data:`END` written from ``rows``
    (title -> lines printed, seconds of each round); a ValueError where the markers are missing."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"{GUIDE.name} has no {BEGIN} ... {END} block to write the table into")
    table = [
        f"`benchmarks/bench_student_loop.py --repeats {repeats} --write-docs`, {date.today().isoformat()}, {where}:",
        "",
        "| run | lines | median | min | max |",
        "|---|---|---|---|---|",
    ]
    for title, (count, values) in rows.items():
        table.append(
            f"| `{title.split(' (')[0]}` ({title.split(' (', 1)[1]} | {count} | {statistics.median(values):.1f} s"
            f" | {min(values):.1f} s | {max(values):.1f} s |"
        )
    return text[: start + len(BEGIN)] + "\n" + "\n".join(table) + "\n" + text[end:]


def rerun(repeats: int) -> None:
    """The rerun after one formula file's edit against that file alone (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="perfkit-loop-") as tmp:
        folder = Path(tmp) / "kit"
        folder.mkdir()
        for path in ROOT.joinpath("solutions").glob("ex0*.py"):
            shutil.copy(path, folder / path.name)
        for path in ROOT.joinpath("exercises").glob("*.py"):
            if not (folder / path.name).exists():
                shutil.copy(path, folder / path.name)
        edited = folder / "ex01_ridge_point.py"
        run([str(folder)], cwd=folder, cache=True)  # the first run: every outcome kept
        again, alone = [], []
        for i in range(repeats):
            edited.write_text(edited.read_text(encoding="utf-8") + f"# edit {i}\n", encoding="utf-8")
            again.append(run([str(folder)], cwd=folder, cache=True)[0])
            alone.append(run([str(edited)], cwd=folder)[0])
    ratios = [a / b for a, b in zip(again, alone, strict=True)]
    print(
        f"rerun of the kit after editing ex01 {statistics.median(again):.1f} s, ex01 alone"
        f" {statistics.median(alone):.1f} s: paired median {statistics.median(ratios):.2f}"
        f" (min {min(ratios):.2f}, max {max(ratios):.2f}; target at most 1.5)"
    )


if __name__ == "__main__":
    main()
