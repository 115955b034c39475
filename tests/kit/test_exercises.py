"""The exercises end to end: solutions earn every available point, stubs earn none and say why, and a
solution wrong in one part loses exactly that part's points."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import grader
from grader.registry import load_exercises
from grader.specs.requirements import unmet_reason

from .graded import failures_and_tail

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"
FORMULA = [e for e in load_exercises().values() if e.id.startswith("ex") and e.id != "ex10"]


def run_pytest(target: Path, tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    report = tmp_path / "results.json"
    env = {**os.environ, "PERFKIT_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(target),
            "-p",
            "no:cacheprovider",
            f"--grader-json={report}",
            *extra,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=2400,  # a guard against a hang, not a limit on speed: ~5 min idle, far more on a busy machine
    )
    return done, json.loads(report.read_text(encoding="utf-8"))


def test_every_exercise_has_a_solution_and_a_stub():
    modules = {e.module for e in load_exercises().values()}
    assert modules == {p.stem for p in SOLUTIONS.glob("*.py")} == {p.stem for p in EXERCISES.glob("*.py")}
    assert {f"ex{i:02d}" for i in range(1, 11)} <= set(load_exercises())


def test_solutions_earn_every_available_point(tmp_path):
    done, results = run_pytest(SOLUTIONS, tmp_path)
    assert done.returncode == 0, failures_and_tail(done.stdout)
    assert results["score"] == results["max_score"] > 0
    deferred = {t["name"].split(" ")[0]: t["output"] for t in results["tests"] if t["max_score"] == 0}
    # Deferred are exactly the checks whose requirement this machine lacks (here: the GPU task), plus any
    # measurement the grader found the machine too noisy or too busy to judge (its specified skip, named as
    # such, with the machine's reason): on a loaded machine a right answer is deferred, never wrong.
    unmet = {
        f"{e.id}::{c.id}"
        for e in load_exercises().values()
        for c in e.checks
        if unmet_reason(c.requires) is not None
    }
    assert unmet <= set(deferred)
    # Beyond those, only a measuring check (a measurement or a curve) may be deferred: on a busy or noisy
    # machine a right answer is deferred, never wrong, with the machine's reason (too noisy, too busy, no
    # room for the shape, out of time); a deferred check is still skipped, not passed, and worth no points.
    machines = ("噪声太大", "太忙", "测不出这个形状", "机器空闲些时再测")
    measuring = {
        f"{e.id}::{c.id}"
        for e in load_exercises().values()
        for c in e.checks
        if c.check_kind in ("measurement", "shape")
    }
    for name in set(deferred) - unmet:
        assert name in measuring and any(m in deferred[name] for m in machines), (name, deferred[name])
    states = {t["name"].split(" ")[0]: t["tags"][-1] for t in results["tests"]}
    assert all(states[name] == "skipped" for name in deferred), {n: states[n] for n in deferred}
    assert all(t["score"] == 0 for t in results["tests"] if t["max_score"] == 0)
    # every graded check passed; a deferred one was not graded, and Gradescope reads it as failed (never passed)
    assert set(results["extra_data"]["deferred"]) == set(deferred)
    assert all(
        t["status"] == ("failed" if t["name"].split(" ")[0] in deferred else "passed")
        for t in results["tests"]
    )


def test_stubs_earn_zero_and_every_check_is_not_attempted(tmp_path):
    done, results = run_pytest(EXERCISES, tmp_path, "--grader-lang=en")
    assert done.returncode == pytest.ExitCode.TESTS_FAILED
    assert results["score"] == 0
    graded = [t for t in results["tests"] if t["max_score"] > 0]
    assert graded and all("not attempted" in t["output"] for t in graded)
    assert "Traceback" not in done.stdout
    # the table is the report: a check not attempted is one line of it, not a FAILURES block (issue 21)
    assert "FAILURES" not in done.stdout and len(done.stdout.splitlines()) <= 150, done.stdout[-3000:]
    total = next(line for line in reversed(done.stdout.splitlines()) if line.startswith("total"))
    assert total.split()[-3:] == ["0", "/", f"{results['max_score']:g}"], total


def _points(exercise_id: str) -> dict[str, float]:
    return {c.id: c.points for c in load_exercises()[exercise_id].checks}


# (exercise, function, its body's faulty replacement, the checks that must fail and no others)
MUTATIONS = [
    ("ex01", "ridge_point", "return bandwidth / peak_flops", {"1a_ridge_formula", "1a_ridge_a100_fp32"}),
    ("ex02", "answer_saved_time", "return answer_unfused_time()", {"saved_time"}),
    ("ex04", "warps_needed", "return (compute_per_load + mem_latency) // compute_per_load", {"warps_needed"}),
    ("ex05", "answer_5_wide", "return answer_5_square()", {"5_wide"}),
    ("ex06", "answer_6_fp32_tile", "return 140", {"6_fp32_tile"}),
    (
        "ex07",
        "kv_cache_bytes_per_token",
        "return layers * kv_heads * head_dim * bytes_per",
        {"kv_cache_bytes_per_token", "7_batch1", "7_batch32"},
    ),
    ("ex08", "training_flops", "return 2 * n_params * n_tokens", {"training_flops", "8_mfu", "8_days_at_40"}),
    (
        "ex09",
        "busy_fraction",
        "return 1 - total_compute_s / forward_time(num_kernels, total_compute_s, launch_s)",
        {"busy_fraction", "9a_busy"},
    ),
    ("ex03", "answer_3c", "return 'B'", {"3c_why"}),
]


def _mutated(module: str, function: str, body: str) -> str:
    lines = (SOLUTIONS / f"{module}.py").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"def {function}("))
    begin = next(i for i in range(start, len(lines)) if "### BEGIN SOLUTION" in lines[i])
    end = next(i for i in range(begin, len(lines)) if "### END SOLUTION" in lines[i])
    return "\n".join(lines[: begin + 1] + [f"    {body}"] + lines[end:]) + "\n"


@pytest.mark.parametrize(
    ("exercise_id", "function", "body", "failing"), MUTATIONS, ids=[m[1] for m in MUTATIONS]
)
def test_a_wrong_part_loses_exactly_its_points(tmp_path, exercise_id, function, body, failing):
    exercise = load_exercises()[exercise_id]
    path = tmp_path / f"{exercise.module}.py"
    path.write_text(_mutated(exercise.module, function, body), encoding="utf-8")
    result = grader.grade(path, exercise_id, lang="en")
    lost = {o.check_id for o in result.outcomes if not o.passed}
    assert lost == failing, {o.check_id: o.message for o in result.outcomes if not o.passed}
    points = _points(exercise_id)
    assert result.score == pytest.approx(sum(points.values()) - sum(points[c] for c in failing))
    assert all(o.state == "wrong" for o in result.outcomes if o.check_id in failing)


@pytest.mark.parametrize("exercise", FORMULA, ids=lambda e: e.id)
def test_formula_solutions_full_marks_in_process(exercise):
    result = grader.grade(SOLUTIONS / f"{exercise.module}.py", exercise.id)
    assert result.score == result.max_score == sum(c.points for c in exercise.checks)


def test_stub_docstrings_are_bilingual_and_never_hold_the_answer():
    import ast

    for path in sorted(EXERCISES.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        doc = ast.get_docstring(tree) or ""
        assert any("\u4e00" <= ch <= "\u9fff" for ch in doc) and any(
            ch.isascii() and ch.isalpha() for ch in doc
        )
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                fdoc = ast.get_docstring(node) or ""
                assert any("\u4e00" <= ch <= "\u9fff" for ch in fdoc), (
                    f"{path.name}:{node.name} has no Chinese"
                )
                assert any(ch.isascii() and ch.isalpha() for ch in fdoc), (
                    f"{path.name}:{node.name} has no English"
                )


def test_patching_a_measurement_reference_first_imported_by_the_student_changes_nothing(tmp_path):
    """The student's file runs in the worker, where perfcore cannot be imported: the patch fails at import
    (an error, no points), and the reference, measured in a process of its own, is untouched either way."""
    pytest.importorskip("torch", reason="the measurement task needs torch")
    path = tmp_path / "m1_copy_bandwidth.py"
    path.write_text(
        "import perfcore.measure\n"
        "import perfcore.measure.bandwidth as bw\n"
        "perfcore.measure.copy_bandwidth = lambda *a, **k: 1e9\n"
        "bw.copy_bandwidth = lambda *a, **k: 1e9\n"
        "def copy_bandwidth(src, dst):\n    return 1e9\n",
        encoding="utf-8",
    )
    code = (
        "import sys, grader\n"
        f"r = grader.grade({str(path)!r}, 'm1', lang='en')\n"
        "o = r.outcomes[0]\n"
        "print(o.state, o.points)\n"
    )
    done = subprocess.run(  # the timeout guards against a hang: m1's reference is slow on a busy machine
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=1200, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-2000:]
    state, points = done.stdout.split()[-2:]
    assert float(points) == 0 and state in ("error", "wrong", "skipped"), done.stdout
