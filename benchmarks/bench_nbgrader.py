"""What nbgrader costs per student: one honest student's ``nbgrader autograde`` of the default course, notebook
by notebook, beside the batch grader on the same answers.

    .venv/bin/python benchmarks/bench_nbgrader.py [--exercises ex01,m1] [--json /tmp/nbgrader.json]

It writes the default course (``python -m grader notebooks``: every exercise, the CUDA/MPS checks left out
as on a machine without a GPU), generates the assignment, submits for one student the released notebooks
with ``solutions/``' answers in the answer cells, and autogrades them one notebook at a time
(``nbgrader autograde p3 --student honest --notebook NAME``), timing each run. Each run is the whole of
autograde for that notebook: nbgrader's start, the student's kernel running every cell (the check cells
call ``grader.check`` there, the student's feedback: a measurement check measures in the kernel), and the
kit's step deciding the check cells with the judge in nbgrader's own process (it measures again). Then
``python -m grader grade`` grades the same answers as ``.py`` files, formula and measurement exercises
apart, as a course that grades the measurement part by batch would.

What it reports: each notebook's seconds and score out of its maximum, the sum (one student's cost), the
batch grader's seconds for the formula part and the measurement part, the machine (CPU, cores, load at
start and end) and the date. One run: on a 2-core machine it takes about half an hour. Run it on an idle
machine; on a shared one the figures are upper bounds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script from anywhere: grader and perfcore of this tree

import nbformat  # noqa: E402

# the machine's record, as the judge benchmark writes it (benchmarks/ is on the path of a script run here)
from bench_judge import machine  # noqa: E402

from grader.course.notebooks import for_machine  # noqa: E402
from grader.course.stubs import BEGIN, END  # noqa: E402
from grader.registry import find_exercise, load_exercises  # noqa: E402

ASSIGNMENT = "p3"
STUDENT = "honest"
#: The exercises that measure (graded by batch with measurement lanes, in the course that splits).
MEASURED = ("m1", "m2", "m3", "m4", "m5", "m6", "ex10")


def nbgrader_env(base: Path) -> dict[str, str]:
    """nbgrader's kernels are this interpreter; no user-level jupyter config applies."""
    kernels = base / "jupyter_data" / "kernels" / "python3"
    kernels.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    (kernels / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    (base / "jupyter_config").mkdir()
    return {
        **os.environ,
        # nbgrader runs `alembic` from PATH when it creates a gradebook
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        "JUPYTER_PATH": str(base / "jupyter_data"),
        "JUPYTER_CONFIG_DIR": str(base / "jupyter_config"),
        "JUPYTER_RUNTIME_DIR": str(base / "jupyter_runtime"),
        "PYTHONPATH": str(ROOT),
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    }


def run(cmd: list[str], cwd: Path, env: dict[str, str], timeout_s: float = 7200) -> float:
    """Seconds ``cmd`` took; SystemExit with its output's tail when it fails."""
    started = time.monotonic()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout_s)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(
            f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-4000:]}"
        )
    return seconds


def answered(source_cell: str) -> str:
    return "\n".join(line for line in source_cell.splitlines() if line.strip() not in (BEGIN, END))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--exercises", default="", help="only these exercise ids, comma-separated (default: all)"
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = parser.parse_args(argv)
    info: dict[str, Any] = {"machine": machine()}
    chosen = [find_exercise(e) for e in args.exercises.split(",") if e] or list(load_exercises().values())
    chosen = [kept for e in chosen if (kept := for_machine(e, ())[0]) is not None]
    base = Path(tempfile.mkdtemp(prefix="perfkit-bench-nbgrader-"))
    try:
        env = nbgrader_env(base)
        course = base / "course"
        ids = ",".join(e.id for e in chosen)
        run([sys.executable, "-m", "grader", "notebooks", str(course), "--exercises", ids], ROOT, env)
        nbgrader = [sys.executable, "-m", "nbgrader"]
        run([*nbgrader, "db", "assignment", "add", ASSIGNMENT], course, env)
        run([*nbgrader, "db", "student", "add", STUDENT], course, env)
        run([*nbgrader, "generate_assignment", ASSIGNMENT, "--force"], course, env)
        submitted = course / "submitted" / STUDENT / ASSIGNMENT
        submitted.mkdir(parents=True)
        py = base / "py" / STUDENT
        py.mkdir(parents=True)
        for exercise in chosen:
            name = f"{exercise.module}.ipynb"
            source = nbformat.read(course / "source" / ASSIGNMENT / name, as_version=4)
            released = nbformat.read(course / "release" / ASSIGNMENT / name, as_version=4)
            for mine, theirs in zip(released.cells, source.cells, strict=True):
                if mine.metadata["nbgrader"]["solution"]:
                    mine.source = answered(theirs.source)
                    (py / f"{exercise.module}.py").write_text(mine.source + "\n", encoding="utf-8")
            nbformat.write(released, str(submitted / name))

        rows = []
        for exercise in chosen:
            seconds = run(
                [
                    *nbgrader,
                    "autograde",
                    ASSIGNMENT,
                    "--student",
                    STUDENT,
                    "--notebook",
                    exercise.module,
                    "--force",
                ],
                course,
                env,
            )
            rows.append({"exercise": exercise.id, "notebook": exercise.module, "seconds": round(seconds, 1)})
            print(f"autograde {exercise.module}: {seconds:.1f} s", flush=True)
        from nbgrader.api import Gradebook

        with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
            for row in rows:
                nb = gb.find_submission_notebook(row["notebook"], ASSIGNMENT, STUDENT)
                row["score"], row["max_score"] = nb.score, nb.max_score
                row["needs_manual_grade"] = nb.needs_manual_grade
        info["notebooks"] = rows
        info["autograde_seconds"] = round(sum(r["seconds"] for r in rows), 1)

        batch: dict[str, float] = {}
        for part, ids_in in (("formula", False), ("measurement", True)):
            part_ids = [e.id for e in chosen if (e.id in MEASURED) == ids_in]
            if not part_ids:
                continue
            out = base / f"batch-{part}"
            cmd = [sys.executable, "-m", "grader", "grade", str(py.parent), "--exercises", ",".join(part_ids)]
            batch[part] = round(run([*cmd, "--out", str(out), "--quiet"], ROOT, env), 1)
            print(f"python -m grader grade ({part}: {', '.join(part_ids)}): {batch[part]:.1f} s", flush=True)
        info["batch_seconds"] = batch
    finally:
        shutil.rmtree(base, ignore_errors=True)
    info["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]

    print(f"\nmachine: {info['machine']}")
    print(f"{'notebook':28} {'seconds':>8} {'score':>12}")
    for row in info["notebooks"]:
        manual = " (by hand: some)" if row["needs_manual_grade"] else ""
        print(
            f"{row['notebook']:28} {row['seconds']:8.1f} {row['score']:>5g} / {row['max_score']:<5g}{manual}"
        )
    print(f"{'one student, autograde':28} {info['autograde_seconds']:8.1f}")
    for part, seconds in info["batch_seconds"].items():
        print(f"{'batch, ' + part:28} {seconds:8.1f}")
    if args.json is not None:
        args.json.write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
