"""Where a first full `pytest solutions/` spends its time, and what a rerun after one formula change costs.

    python benchmarks/bench_overhead.py [--repeats 2] [--json FILE]

Three runs, each a fresh pytest process with this file loaded as a plugin (``-p bench_overhead``), on a copy
of ``solutions/`` and a pytest cache of their own:

- ``first``: the whole of ``solutions/`` with an empty cache. Per measurement check, the judge's wall time
  for the check (``Judge.run_check``) over the time spent inside the student's own calls (``Judge.call`` and
  ``call_many``, round trips included): the overhead ratio. perfcore's side is measured as long as the
  student's, so about 2 is the floor (issue 21's target: at most 2.5 per check).
- ``formula``: ``solutions/ex0*.py`` alone (the formula part answered).
- ``rerun``: the copy again, after one formula file (ex01) changed, with the cache ``first`` left: the
  measurements of unchanged files are shown from it. Issue 21's target: at most 1.5 x ``formula``.

The times are medians over ``--repeats`` rounds, formula and rerun paired within a round, so the ratio holds
on a loaded machine where the seconds do not.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: Where the plugin half of this file writes what it recorded (set by the bench for its pytest runs).
RECORD_ENV = "PERFKIT_BENCH_OVERHEAD_JSON"


# ---- the plugin half: loaded into the pytest runs by -p bench_overhead ----------------------------------


def pytest_configure(config: Any) -> None:
    """Wrap the judge's entry points to add up, per check, its wall time and the time in the student's calls."""
    path = os.environ.get(RECORD_ENV)
    if not path:
        return
    from grader.judge import Judge

    record: dict[str, dict[str, float]] = {}

    def timed(name: str, kind: str) -> None:
        real = getattr(Judge, name)

        def wrapper(self: Any, p: Any, *args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return real(self, p, *args, **kwargs)
            finally:
                one = record.setdefault(f"{p.exercise.id}::{p.check.id}", {"judge": 0.0, "student": 0.0})
                one[kind] += time.perf_counter() - started

        setattr(Judge, name, wrapper)

    timed("run_check", "judge")
    timed("call", "student")
    timed("call_many", "student")
    config._bench_overhead = (path, record)


def pytest_unconfigure(config: Any) -> None:
    held = getattr(config, "_bench_overhead", None)
    if held is not None:
        path, record = held
        Path(path).write_text(json.dumps(record), encoding="utf-8")


# ---- the bench half -------------------------------------------------------------------------------------


def timed_pytest(targets: list[str], cache: Path, record: Path) -> tuple[float, dict[str, Any]]:
    """Wall seconds of one pytest run of ``targets`` with its cache in ``cache``, and what the plugin half
    recorded."""
    env = {
        **os.environ,
        RECORD_ENV: str(record),
        "PYTHONPATH": os.pathsep.join([str(ROOT / "benchmarks"), os.environ.get("PYTHONPATH", "")]),
    }
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "bench_overhead", "-o", f"cache_dir={cache}", *targets],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    took = time.perf_counter() - started
    if done.returncode not in (0, 1) or not record.exists():
        sys.exit(
            f"bench_overhead: pytest {' '.join(targets)} failed:\n{done.stdout[-3000:]}{done.stderr[-2000:]}"
        )
    return took, json.loads(record.read_text(encoding="utf-8"))


def measurement_checks() -> list[str]:
    """``exercise::check`` of every check that measures (a measurement or a curve against perfcore's)."""
    from grader.registry import load_exercises
    from grader.specs.check import MeasurementCheck, ShapeCheck

    return sorted(
        f"{e.id}::{c.id}"
        for e in load_exercises().values()
        for c in e.checks
        if isinstance(c, (MeasurementCheck, ShapeCheck)) and c.reference is not None
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2, help="rounds (default 2)")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {args.repeats}")
    formula = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "solutions").glob("ex0*.py"))
    rounds: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix=".bench-overhead-", dir=ROOT) as scratch:
        work = Path(scratch)
        for i in range(args.repeats):
            copy = work / f"solutions-{i}"
            shutil.copytree(ROOT / "solutions", copy)
            cache = work / f"cache-{i}"
            first, record = timed_pytest([str(copy)], cache, work / "first.json")
            formula_s, _ = timed_pytest(formula, work / f"cache-formula-{i}", work / "formula.json")
            ex01 = next(copy.glob("ex01_*.py"))
            ex01.write_text(ex01.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
            rerun, rerun_record = timed_pytest([str(copy)], cache, work / "rerun.json")
            rounds.append(
                {
                    "first_s": first,
                    "formula_s": formula_s,
                    "rerun_s": rerun,
                    "checks": record,
                    "rerun_checks": sorted(rerun_record),
                }
            )
            print(
                f"round {i + 1}/{args.repeats}: first {first:.1f} s, formula {formula_s:.1f} s, rerun {rerun:.1f} s"
            )

    measured = measurement_checks()
    print(f"\n{'check':34} {'judge s':>8} {'student s':>9} {'ratio':>6}  target <= 2.5")
    ratios = {}
    for name in measured:
        judge = statistics.median(r["checks"].get(name, {}).get("judge", 0.0) for r in rounds)
        student = statistics.median(r["checks"].get(name, {}).get("student", 0.0) for r in rounds)
        if student <= 0:  # deferred here (a GPU check without a GPU): no call was made
            print(f"{name:34} {judge:8.2f} {'-':>9} {'-':>6}  not run here")
            continue
        ratio = judge / student
        ratios[name] = {"judge_s": judge, "student_s": student, "ratio": ratio}
        print(f"{name:34} {judge:8.2f} {student:9.2f} {ratio:6.2f}  {'ok' if ratio <= 2.5 else 'NO'}")
    paired = statistics.median(r["rerun_s"] / r["formula_s"] for r in rounds)
    first = statistics.median(r["first_s"] for r in rounds)
    print(f"\nfirst full run: median {first:.1f} s")
    print(f"rerun after one formula change / formula part: {paired:.2f} (target <= 1.5)")
    rerun_measured = sorted({n for r in rounds for n in r["rerun_checks"] if n in measured})
    print(f"measurement checks run again in the rerun: {rerun_measured or 'none'}")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"rounds": rounds, "ratios": ratios, "rerun_over_formula": paired}, indent=1),
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
