"""How much of the measurement part a loaded machine still decides: the share of measurement points
*decided* (passed or wrong) for the reference solutions and the honest methods, quiet and under load, and
the honest answers called wrong (the target: none, under every load).

    .venv/bin/python benchmarks/bench_decided.py --runs 3 --json /tmp/decided.json
    .venv/bin/python benchmarks/bench_decided.py --short      # m5 of the solutions, one run each: minutes

Three conditions (issue 38, item 3), each graded the way a student's run is (a fresh
:class:`grader.judge.Judge`, sandboxed, on a fresh folder holding only the graded file; see
``benchmarks/bench_fairness.py``, whose grading, honest files and busy processes this uses):

- ``quiet``: nothing else started (the machine as it is: its load average is in the report);
- ``per-core``: one busy-looping process per core while the run grades;
- ``two-gradings``: two gradings of the same submission at once, in two processes, beside two busy loops
  (as two students graded on one machine that also runs other work);
- ``two-busy``: two busy loops beside the run (on a 2-core machine, ``per-core`` again; on a larger one,
  fewer than its cores);
- ``streamer``: one process streaming memory beside the run (a 64 MiB copy, over and over): the contention
  for the caches and DRAM that no clock undoes (issue 45).

What is graded: every ``MeasurementCheck`` and ``ShapeCheck`` of m1-m5 and ex10 (never m6, which needs a
GPU), for ``solutions`` (the solution files themselves) and for each honest method of ``--methods``
(``benchmarks/honest/<method>/``, see its README.md; a method with no file for an exercise does not
apply to it). A check's points count as decided where it passed or was wrong, as deferred where it was
deferred; anything else an honest answer got (wrong, error, timeout) is a false fail, and the report
lists each with its message.

The share depends on the machine and on what else runs on it: on the project's 2-vCPU VM, busy with other
work, say so beside any figure quoted (the report prints the machine, the load averages and the commit).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_fairness beside this file
from bench_fairness import (  # noqa: E402
    EXERCISE_IDS,
    METHODS,
    SOLUTIONS,
    busy_processes,
    git_state,
    graded_run,
    machine,
    measurement_checks,
    method_file,
    one_line,
)

from grader.registry import load_exercises  # noqa: E402
from grader.specs.check import Exercise  # noqa: E402

#: The load conditions: (busy loops beside the run, memory streamers beside it, gradings at once);
#: ``None``: one busy loop per core.
CONDITIONS: dict[str, tuple[int | None, int, int]] = {
    "quiet": (0, 0, 1),
    "per-core": (None, 0, 1),
    "two-gradings": (2, 0, 2),
    "two-busy": (2, 0, 1),
    "streamer": (0, 1, 1),
}
#: What the report counts a graded check as, by its outcome.
DECIDED, DEFERRED, FALSE_FAIL = "decided", "deferred", "false fail"
#: ``--short``: what runs here on a busy shared machine in a few minutes.
SHORT = {"exercises": "m5", "methods": "solutions", "runs": 1}


@dataclass
class Point:
    """One graded check of one grading: its points, what became of them, and why (the message)."""

    submission: str  # "solutions" or an honest method
    condition: str
    run: int
    check: str
    points: float
    state: str
    deferred: bool
    message: str

    @property
    def kind(self) -> str:
        if self.state in ("passed", "wrong") and not self.deferred:
            return DECIDED if self.state == "passed" else FALSE_FAIL
        return DEFERRED if self.deferred else FALSE_FAIL


def files_of(submission: str, exercise: Exercise) -> dict[str, str] | None:
    """The graded file of ``submission`` for ``exercise`` ({name: source}), or None where it does not
    apply (an honest method with no file for that exercise)."""
    path = (
        SOLUTIONS / f"{exercise.module}.py"
        if submission == "solutions"
        else method_file(submission, exercise)
    )
    if path is None:
        return None
    return {f"{exercise.module}.py": path.read_text(encoding="utf-8")}


def grade(submission: str, exercise_ids: Sequence[str]) -> list[dict[str, Any]]:
    """One grading of ``submission``'s measurement checks (in this process, or a pool's): as dicts."""
    exercises = load_exercises()
    results = []
    for exercise_id in exercise_ids:
        exercise = exercises[exercise_id]
        files = files_of(submission, exercise)
        if files is None:
            continue
        checks = measurement_checks(exercise)
        points = {f"{exercise.id}::{c.id}": float(c.points) for c in checks}
        for g in graded_run(files, [(exercise, [c.id for c in checks])]):
            results.append(
                {
                    "check": g.check,
                    "points": points.get(g.check, 0.0),
                    "state": str(getattr(g.state, "value", g.state)),
                    "deferred": g.deferred,
                    "message": g.message,
                }
            )
    return results


def condition_run(
    submission: str, condition: str, run: int, exercise_ids: Sequence[str], pool: ProcessPoolExecutor
) -> list[Point]:
    """Grade ``submission`` under ``condition``: its busy loops running, its gradings at once."""
    loops, streams, gradings = CONDITIONS[condition]
    loops = (os.cpu_count() or 1) if loops is None else loops
    with busy_processes((loops, streams)):
        futures = [pool.submit(grade, submission, list(exercise_ids)) for _ in range(gradings)]
        graded = [r for f in futures for r in f.result()]
    return [Point(submission, condition, run, **r) for r in graded]


def share(points: Sequence[Point]) -> tuple[float, float, float]:
    """(decided points, all points, false-fail points) of ``points``."""
    total = sum(p.points for p in points)
    decided = sum(p.points for p in points if p.kind == DECIDED)
    return decided, total, sum(p.points for p in points if p.kind == FALSE_FAIL)


def report(points: Sequence[Point], submissions: Sequence[str], conditions: Sequence[str]) -> list[str]:
    """The table: per submission and condition, the share of points decided, and the false fails."""
    lines = ["| submission | " + " | ".join(conditions) + " |", "|---|" + "---|" * len(conditions)]
    for submission in [*submissions, "all"]:
        cells = []
        for condition in conditions:
            chosen = [p for p in points if p.condition == condition and submission in ("all", p.submission)]
            decided, total, fails = share(chosen)
            cell = f"{decided / total:.0%} of {total:g}" if total else "-"
            cells.append(cell + (f", {fails:g} FALSE FAIL" if fails else ""))
        lines.append(f"| {submission} | " + " | ".join(cells) + " |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="gradings per submission and condition")
    parser.add_argument(
        "--methods",
        default="solutions," + ",".join(METHODS),
        help="solutions and/or honest methods, comma-separated (default: all of them)",
    )
    parser.add_argument("--exercises", default=",".join(EXERCISE_IDS), help="exercise ids, comma-separated")
    parser.add_argument("--conditions", default=",".join(CONDITIONS), help="of " + ", ".join(CONDITIONS))
    parser.add_argument("--short", action="store_true", help="m5 of the solutions, one run per condition")
    parser.add_argument("--json", metavar="FILE", help="also write every graded point as JSON")
    args = parser.parse_args()
    if args.short:
        args.exercises, args.methods, args.runs = SHORT["exercises"], SHORT["methods"], SHORT["runs"]
    submissions = [m for m in args.methods.split(",") if m]
    exercise_ids = [e for e in args.exercises.split(",") if e]
    conditions = [c for c in args.conditions.split(",") if c]
    for name, values, known in (
        ("--methods", submissions, ("solutions", *METHODS)),
        ("--exercises", exercise_ids, EXERCISE_IDS),
        ("--conditions", conditions, tuple(CONDITIONS)),
    ):
        unknown = [v for v in values if v not in known]
        if unknown or not values:
            parser.error(f"{name} takes names of {', '.join(known)}, got {', '.join(unknown) or 'none'}")
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, got {args.runs}")
    started, points = time.monotonic(), []
    info: dict[str, Any] = {"machine": machine(), "commit": git_state()}
    context = multiprocessing.get_context("spawn")  # a fresh interpreter per grading process, as a run's
    with ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
        for run in range(1, args.runs + 1):
            for submission in submissions:
                for condition in conditions:  # the conditions take turns: each sees the same drift
                    before = os.getloadavg()[0]
                    t0 = time.monotonic()
                    got = condition_run(submission, condition, run, exercise_ids, pool)
                    points.extend(got)
                    counts = Counter(p.kind for p in got)
                    print(
                        f"[{run}/{args.runs}] {submission} {condition}: "
                        + ", ".join(f"{n} {k}" for k, n in counts.items())
                        + f"; {time.monotonic() - t0:.0f} s (load average {before:.1f} before)",
                        file=sys.stderr,
                        flush=True,
                    )
                    for p in got:
                        if p.kind != DECIDED:
                            print(f"    {p.check} {p.kind}: {one_line(p.message, 300)}", file=sys.stderr)
    info["seconds"] = round(time.monotonic() - started)
    info["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    commit = info["commit"] or "not a git checkout"
    print(f"# measurement points decided (passed or wrong), {commit}, {info['seconds']} s")
    print(f"# {info['machine']['cpu']}, {info['machine']['cores']} cores; load average", end=" ")
    print(
        f"{info['machine']['load_average_at_start']} at start, {info['machine']['load_average_at_end']} at end"
    )
    print("\n".join(report(points, submissions, conditions)))
    fails = [p for p in points if p.kind == FALSE_FAIL]
    for p in fails:
        print(f"FALSE FAIL {p.submission} {p.condition} {p.check}: {one_line(p.message, 400)}")
    if args.json:
        Path(args.json).write_text(
            json.dumps({**info, "points": [asdict(p) for p in points]}, indent=1), encoding="utf-8"
        )
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
