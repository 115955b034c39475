"""The student's loop: what a fresh kit's `pytest exercises/` prints and costs, beside the answered formula part.

    python benchmarks/bench_student_loop.py [--repeats 3] [--full] [--write-docs]

Runs `pytest exercises/` (the stubs: every check not attempted) and `pytest solutions/ex0*.py` (the formula
exercises answered) side by side, alternately, each in a fresh subprocess with pytest's default output (as a
student types it), and prints for each the lines printed, the checks deferred and the median wall time, then
the median of the rounds' paired ratios stubs / formula part. Targets (issue 21): at most 150 lines for the
stubs, and the stubs at most 1.3 times the answered formula part. A ratio measured side by side holds on a
loaded machine where seconds do not; the spread of the rounds says how much to trust it.

``--full`` adds one first run of the whole of `solutions/` (every exercise answered, the measurement tasks
included): no pytest cache, and a fresh machine-profile cache, so the profile is measured first, as on a
fresh machine.

Then the rerun (issue 30): a student's folder (the answered formula files, the measurement stubs) graded
once with pytest's cache, then, each round, one formula file edited (a comment appended) and the folder
graded again, beside `pytest` on that one file alone without a cache (its checks plus pytest's start).
Target: the rerun at most 1.5 times the one file.

``--write-docs`` (which runs ``--full`` too: every figure of one writing comes from one invocation) writes
the docs' figures (issue 39): the table and the ratios into docs/students.md, between its
``<!-- student-loop -->`` markers, with the date, the machine and its load; and each figure of the prose of
README.md and docs/students.md, between ``<!-- figure NAME -->`` and ``<!-- /figure -->`` (:data:`FIGURES`):
the guide's and README's line counts and times come from this command, never typed.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORMULA = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "solutions").glob("ex0*.py"))

#: The guide whose table :func:`docs_block` writes, and the markers around the table.
GUIDE = ROOT / "docs" / "students.md"
BEGIN, END = "<!-- student-loop -->", "<!-- /student-loop -->"
#: The documents whose prose holds figures between ``<!-- figure NAME -->`` and ``<!-- /figure -->``
DOCS = (ROOT / "README.md", GUIDE)
FIGURE = re.compile(r"<!-- figure ([\w-]+) -->(.*?)<!-- /figure -->", re.S)

RUNS = {
    "stubs": ["exercises/"],
    "formula": FORMULA,
}
TITLES = {
    "stubs": "pytest exercises/ (the stubs: all not attempted)",
    "formula": "pytest solutions/ex0*.py (the formula part, answered)",
    "full": "pytest solutions/ (every exercise answered, a first run: no cache, the machine profile measured)",
}
#: The figures of the documents' prose, each written from the rows: its name -> what it says
FIGURES = {
    # how many lines a fresh kit's first `pytest exercises/` prints
    "first-run-lines": lambda rows: f"{rows['stubs'].lines}",
    # what a first run of every exercise answered costs, the measurement tasks included
    "full-run-time": lambda rows: _minutes(statistics.median(rows["full"].seconds)),
}


@dataclass(frozen=True)
class Row:
    """One run's figures: the lines it printed, the checks it deferred, the seconds of each round."""

    lines: int
    deferred: int
    seconds: list[float]


def lines_printed(output: str) -> int:
    """The lines a pytest run printed (stdout and stderr together, as a terminal shows them)."""
    return len(output.splitlines())


def deferred_checks(output: str) -> int:
    """The checks a pytest run deferred, from its summary line (``2 deferred``, ``2 暂缓计分``)."""
    found = re.findall(r"(\d+) (?:deferred|暂缓计分)", output.splitlines()[-1] if output else "")
    return int(found[-1]) if found else 0


def student_env() -> dict[str, str]:
    """This environment as a student's shell has it: under CI the cache is not read, and an xdist worker's
    variables would defer the measurement tasks (they run serially)."""
    return {k: v for k, v in os.environ.items() if k != "CI" and not k.startswith("PYTEST_XDIST")}


def run(
    args: list[str], cwd: Path = ROOT, cache: bool = False, env: dict[str, str] | None = None
) -> tuple[float, str]:
    """The wall time of one pytest run in a fresh process, and what it printed."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "cacheprovider" if cache else "no:cacheprovider", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env=env if env is not None else student_env(),
    )
    return time.perf_counter() - started, done.stdout + done.stderr


def full_run() -> Row:
    """One first run of `pytest solutions/`: no pytest cache, and the machine profile measured anew."""
    with tempfile.TemporaryDirectory(prefix="perfkit-loop-cache-") as cache:
        seconds, output = run(["solutions/"], env=student_env() | {"PERFKIT_CACHE_DIR": cache})
    return Row(lines_printed(output), deferred_checks(output), [seconds])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--full", action="store_true", help="add one first run of the whole of solutions/")
    parser.add_argument(
        "--write-docs",
        action="store_true",
        help=f"write the figures into {GUIDE.name} and README.md (runs --full)",
    )
    options = parser.parse_args()
    if options.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {options.repeats}")
    repeats = options.repeats
    times: dict[str, list[float]] = {name: [] for name in RUNS}
    outputs: dict[str, list[str]] = {name: [] for name in RUNS}
    ratios = []
    for _ in range(repeats):  # alternately, so that both see the same drift of the machine
        for name, args in RUNS.items():
            seconds, output = run(args)
            times[name].append(seconds)
            outputs[name].append(output)
        ratios.append(times["stubs"][-1] / times["formula"][-1])
    rows = {
        name: Row(
            max(lines_printed(o) for o in outputs[name]),
            max(deferred_checks(o) for o in outputs[name]),
            times[name],
        )
        for name in RUNS
    }
    if options.full or options.write_docs:
        rows["full"] = full_run()
    print(f"{'run':<56} {'lines':>6} {'deferred':>8} {'median s':>9} {'min s':>7} {'max s':>7}")
    for name, row in rows.items():
        print(
            f"{TITLES[name].split(' (')[0]:<56} {row.lines:>6} {row.deferred:>8} {statistics.median(row.seconds):>9.1f}"
            f" {min(row.seconds):>7.1f} {max(row.seconds):>7.1f}"
        )
    notes = [
        f"stubs / formula part, paired by round: median {statistics.median(ratios):.2f}"
        f" (min {min(ratios):.2f}, max {max(ratios):.2f}, {repeats} rounds; target at most 1.3)",
        rerun(repeats),
    ]
    print("\n".join(notes))
    if options.write_docs:
        where = machine()
        GUIDE.write_text(
            docs_block(GUIDE.read_text(encoding="utf-8"), rows, repeats, where, notes), encoding="utf-8"
        )
        for path in DOCS:
            path.write_text(figures(path.read_text(encoding="utf-8"), rows, path.name), encoding="utf-8")
        print(f"wrote the figures into {', '.join(p.name for p in DOCS)}")


def machine() -> str:
    """The CPU and the load average, as the guide's table names them (from :func:`bench_judge.machine`, the
    benchmarks' one record of the machine; imported here, when asked: it sits beside this script)."""
    from bench_judge import machine as record

    found = record()
    load = found["load_average_at_start"]
    return f"{found['cpu']}, {found['cores']} CPUs, load average {load[0]:.1f}"  # type: ignore[index]


def _minutes(seconds: float) -> str:
    """``6 min 47 s`` (``47 s`` under a minute), from the seconds as the table writes them (a tenth), so the
    prose and the table never round apart."""
    whole = round(float(f"{seconds:.1f}"))
    return f"{whole // 60} min {whole % 60} s" if whole >= 60 else f"{whole} s"


def docs_block(text: str, rows: dict[str, Row], repeats: int, where: str, notes: list[str]) -> str:
    """``text`` (the guide) with the table of ``rows`` (each run's figures, by :data:`TITLES`' names) and
    the ``notes`` (the ratios, a list item each) between :data:`BEGIN` and :data:`END`; a ValueError where
    the markers are missing."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"{GUIDE.name} has no {BEGIN} ... {END} block to write the table into")
    table = [
        f"`benchmarks/bench_student_loop.py --repeats {repeats} --write-docs`, {date.today().isoformat()}, {where}:",
        "",
        "| run | lines | deferred | median | min | max |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in rows.items():
        title = TITLES[name]
        table.append(
            f"| `{title.split(' (')[0]}` ({title.split(' (', 1)[1]} | {row.lines} | {row.deferred}"
            f" | {statistics.median(row.seconds):.1f} s | {min(row.seconds):.1f} s | {max(row.seconds):.1f} s |"
        )
    table += [""] + [f"- {note}" for note in notes]
    return text[: start + len(BEGIN)] + "\n" + "\n".join(table) + "\n" + text[end:]


def figures(text: str, rows: dict[str, Row], source: str = "the document") -> str:
    """``text`` with each ``<!-- figure NAME -->...<!-- /figure -->`` written from ``rows`` (:data:`FIGURES`);
    a ValueError naming a figure this command does not write."""

    def written(found: re.Match[str]) -> str:
        name = found.group(1)
        if name not in FIGURES:
            raise ValueError(f"{source} has a figure {name!r}; this command writes {', '.join(FIGURES)}")
        return f"<!-- figure {name} -->{FIGURES[name](rows)}<!-- /figure -->"

    return FIGURE.sub(written, text)


def rerun(repeats: int) -> str:
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
    return (
        "a folder of the answered formula files and the measurement stubs, graded once with pytest's cache,"
        f" then again after one comment added to `ex01`: {statistics.median(again):.1f} s, against"
        f" {statistics.median(alone):.1f} s for `ex01` alone without a cache (its checks and pytest's start):"
        f" paired median {statistics.median(ratios):.2f} (min {min(ratios):.2f}, max {max(ratios):.2f};"
        " target at most 1.5)"
    )


if __name__ == "__main__":
    main()
