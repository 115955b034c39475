"""Measurement lanes side by side: students per hour and fairness of ``python -m grader grade
--measure-jobs N`` for each N given, in one run, on this machine.

    .venv/bin/python benchmarks/bench_lanes.py --lanes 1 2 --honest 4 --rounds 1 --json /tmp/lanes.json

What it grades, in each round and for each lane count (the lane counts take turns within a round, so
they see the same drift of the machine): a batch of ``--honest`` students who hand in ``solutions/``'
measurement files (m1 to m5 and ex10; never m6, which needs a GPU), and one student for each wrong
variant and cheat of ``benchmarks/fairness_variants.py`` (``--variants``, all by default): the solutions
with that variant's edits in one file. Each batch runs as a course runs it, ``python -m grader grade SUBS --exercises
m1,...,ex10 --measure-jobs N`` in a subprocess, and its ``grades.json`` is read.

What it reports, per lane count:

- **students per hour**: the batch's students over its wall time (the measurement part of a course's
  grading, on one node);
- **false fails**: outcomes of honest students that are neither passed nor deferred, by check (the target
  is none);
- **deferred**: honest outcomes deferred, by check (more lanes share the node's memory bandwidth; the
  DRAM-bound checks defer first);
- **caught**: for each variant, the state of the check it targets (wrong or error is caught, deferred is
  not caught but costs nothing, passed is a wrong method getting the points).

How long: one honest student takes about 40 s of measurement on the project's 2-core machine idle, a
variant student about as long; ``--honest 4`` with all the variants is roughly 15 students x 40 s per lane
count and round at one lane. Run it on an otherwise quiet machine.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script from anywhere: grader and perfcore of this tree

from grader.registry import load_exercises  # noqa: E402

SOLUTIONS = ROOT / "solutions"
EXERCISE_IDS = ("m1", "m2", "m3", "m4", "m5", "ex10")


def fairness() -> Any:
    """bench_fairness.py (a script, loaded from its file): its variants and how it applies them."""
    spec = importlib.util.spec_from_file_location("bench_fairness", ROOT / "benchmarks" / "bench_fairness.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_fairness"] = module
    spec.loader.exec_module(module)
    return module


def solution_files(ids: tuple[str, ...] = EXERCISE_IDS) -> dict[str, Path]:
    """{exercise id: the solution file} of the measurement exercises graded here."""
    exercises = load_exercises()
    return {e: SOLUTIONS / f"{exercises[e].module}.py" for e in ids}


def write_students(
    into: Path, honest: int, variants: tuple[Any, ...], ids: tuple[str, ...] = EXERCISE_IDS
) -> dict[str, str | None]:
    """The batch's folders: {student: the variant it hands in, None for an honest one}."""
    files = solution_files(ids)
    who: dict[str, str | None] = {}
    for i in range(honest):
        who[f"honest_{i + 1:02d}"] = None
    for variant in variants:
        who[f"variant_{variant.name}"] = variant.name
    by_name = {v.name: v for v in variants}
    exercises = load_exercises()
    bench = fairness()
    for student, variant_name in who.items():
        folder = into / student
        folder.mkdir(parents=True)
        for exercise, path in files.items():
            variant = by_name.get(variant_name or "")
            if variant is not None and variant.exercise == exercise:
                text = bench.variant_source(variant, exercises[exercise])  # edits and replaced functions
            else:
                text = path.read_text(encoding="utf-8")
            (folder / path.name).write_text(text, encoding="utf-8")
    return who


def grade(
    subs: Path, out: Path, lanes: int, ids: tuple[str, ...] = EXERCISE_IDS
) -> tuple[float, dict[str, Any]]:
    """Grade ``subs`` with ``--measure-jobs lanes``; its wall time and grades.json."""
    cmd = [
        sys.executable, "-m", "grader", "grade", str(subs), "--out", str(out), "--quiet", "--lang", "en",
        "--exercises", ",".join(ids), "--measure-jobs", str(lanes),
    ]  # fmt: skip
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    took = time.monotonic() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"grading failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return took, json.loads((out / "grades.json").read_text(encoding="utf-8"))


def tally(data: dict[str, Any], who: dict[str, str | None], variants: tuple[Any, ...]) -> dict[str, Any]:
    """False fails and deferrals of the honest students, by check; each variant's targeted state."""
    false_fails: Counter[str] = Counter()
    deferred: Counter[str] = Counter()
    honest_outcomes = 0
    caught: dict[str, str] = {}
    targets = {v.name: f"{v.exercise}::{v.check}" for v in variants}
    for student, record in data["students"].items():
        for o in record["outcomes"]:
            name = f"{o['exercise']}::{o['check_id']}"
            if who.get(student) is None:
                honest_outcomes += 1
                if o["deferred"]:
                    deferred[name] += 1
                elif o["state"] != "passed":
                    false_fails[name] += 1
            elif targets.get(who[student] or "") == name:
                caught[who[student] or ""] = "deferred" if o["deferred"] else o["state"]
    return {
        "honest_outcomes": honest_outcomes,
        "false_fails": dict(false_fails),
        "deferred": dict(deferred),
        "caught": caught,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lanes", type=int, nargs="+", default=[1, 2], help="lane counts (default 1 2)")
    parser.add_argument("--honest", type=int, default=4, help="honest students per batch (default 4)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds, the lane counts taking turns")
    parser.add_argument("--variants", nargs="*", default=None, help="variant names (default: all)")
    parser.add_argument(
        "--exercises",
        default=",".join(EXERCISE_IDS),
        help="measurement exercises graded (default: all on the CPU)",
    )
    parser.add_argument("--json", type=Path, help="also write the results as JSON")
    args = parser.parse_args(argv)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    for lanes in args.lanes:
        if lanes < 1 or lanes > cores:
            parser.error(f"--lanes {lanes}: must be 1 to the {cores} cores this process may use")
    if args.honest < 0 or args.rounds < 1:
        parser.error("--honest must be >= 0 and --rounds >= 1")
    ids = tuple(e for e in args.exercises.split(",") if e)
    if not ids or set(ids) - set(EXERCISE_IDS):
        parser.error(f"--exercises: choose among {','.join(EXERCISE_IDS)}")
    variants = tuple(v for v in fairness().ALL_VARIANTS if v.exercise in ids)
    if args.variants is not None:
        unknown = set(args.variants) - {v.name for v in variants}
        if unknown:
            parser.error(f"unknown variants {sorted(unknown)}; known: {[v.name for v in variants]}")
        variants = tuple(v for v in variants if v.name in args.variants)
    work = Path(tempfile.mkdtemp(prefix="perfkit-lanes-"))
    results: dict[int, list[dict[str, Any]]] = {n: [] for n in args.lanes}
    try:
        subs = work / "subs"
        who = write_students(subs, args.honest, variants, ids)
        for r in range(args.rounds):
            for lanes in args.lanes:
                took, data = grade(subs, work / f"out-{r}-{lanes}", lanes, ids)
                row = {"seconds": round(took, 1), "students": len(who), **tally(data, who, variants)}
                results[lanes].append(row)
                per_hour = 3600 * len(who) / took
                print(
                    f"round {r + 1}/{args.rounds}, {lanes} lane(s): {took:.0f} s, {per_hour:.0f} students/h, "
                    f"false fails {sum(row['false_fails'].values())}, deferred {sum(row['deferred'].values())}",
                    file=sys.stderr,
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(
        f"machine: {platform.processor() or platform.machine()}, {cores} cores; {datetime.datetime.now():%Y-%m-%d %H:%M}"
    )
    print(f"{'lanes':>5}  {'students/h':>10}  {'false fails':>11}  {'deferred':>8}  caught (variant: state)")
    for lanes, rows in results.items():
        seconds = sum(r["seconds"] for r in rows)
        students = sum(r["students"] for r in rows)
        fails = sum(sum(r["false_fails"].values()) for r in rows)
        deferred = sum(sum(r["deferred"].values()) for r in rows)
        honest = sum(r["honest_outcomes"] for r in rows)
        states: dict[str, Counter[str]] = {}
        for r in rows:
            for name, state in r["caught"].items():
                states.setdefault(name, Counter())[state] += 1
        caught = "; ".join(f"{n}: {dict(c)}" for n, c in sorted(states.items()))
        print(
            f"{lanes:>5}  {3600 * students / seconds:>10.0f}  {fails:>5} of {honest:<3}  {deferred:>8}  {caught}"
        )
    if args.json:
        args.json.write_text(json.dumps({str(k): v for k, v in results.items()}, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
