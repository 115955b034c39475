"""One maximum for one kit: a student's maximum does not depend on which files the folder holds, a deferred
check is an empty cell in grades.csv (never 0), a deferred check is not a failed test in Gradescope's
results.json, and each student's ``execution_time`` is their own."""

from __future__ import annotations

import csv
import shutil

import pytest

from grader.batch.engine import BatchConfig, file_outcome, grade_batch, selected_exercises
from grader.batch.output import write_outputs
from grader.judge import Judge, prepare_exercise
from grader.registry import find_exercise
from grader.results.outcome import State
from grader.sandbox.confinement import GiB, Limits
from grader.specs.requirements import unmet_reason
from tests.grader.batch.helpers import EXERCISES, SOLUTIONS, _json


def _rows(path) -> dict[str, dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        return {r["student"]: r for r in csv.DictReader(fh)}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """ex01 and m6 (a CUDA exercise: deferred on a machine without CUDA, graded on one with it) for a
    folder with the stubs, one without m6_gpu.py, one whose m6_gpu.py is a link, and one with ex01 right."""
    base = tmp_path_factory.mktemp("maximum")
    subs = base / "subs"
    for name in ("stub", "no_m6", "linked", "right"):
        (subs / name).mkdir(parents=True)
    for name in ("stub", "linked"):
        shutil.copy(EXERCISES / "ex01_ridge_point.py", subs / name)
    shutil.copy(EXERCISES / "m6_gpu.py", subs / "stub")
    (subs / "linked" / "m6_gpu.py").symlink_to(EXERCISES / "m6_gpu.py")
    shutil.copy(EXERCISES / "ex01_ridge_point.py", subs / "no_m6")
    shutil.copy(SOLUTIONS / "ex01_ridge_point.py", subs / "right")
    results = {}
    for policy in ("defer", "zero"):
        config = BatchConfig(
            exercises=("ex01", "m6"), lang="en", deferred=policy, limits=Limits(grace_s=3.0), progress=False
        )
        result = grade_batch(subs, config)
        write_outputs(result, base / policy, gradescope=True)
        results[policy] = (result, base / policy)
    return results


def test_the_maximum_is_the_kits_whatever_files_a_folder_lacks(graded):
    result, out = graded["defer"]
    exercises = selected_exercises(BatchConfig(exercises=("ex01", "m6"), progress=False))
    # the kit's maximum on this machine: every check but those whose requirement it does not meet
    kit = sum(c.points for e in exercises for c in e.checks if unmet_reason(c.requires, "en") is None)
    data = _json(out / "grades.json")["students"]
    assert {name: s["max_score"] for name, s in data.items()} == dict.fromkeys(data, float(kit))
    rows = _rows(out / "grades.csv")
    assert {name: float(r["max_score"]) for name, r in rows.items()} == dict.fromkeys(rows, float(kit))
    # the same outcome for m6's checks whether the file is the stub, missing, or a link
    m6 = {
        s.name: [(o.deferred, o.state == State.SKIPPED) for o in s.outcomes if o.exercise == "m6"]
        for s in result.students
    }
    assert m6["stub"] == m6["no_m6"] == m6["linked"] == m6["right"]
    assert float(rows["right"]["score"]) == 10.0 and float(rows["stub"]["score"]) == 0.0
    under_zero = _rows(graded["zero"][1] / "grades.csv")
    full = float(sum(c.points for e in exercises for c in e.checks))
    assert {float(r["max_score"]) for r in under_zero.values()} == {full}


def test_a_deferred_check_is_an_empty_cell_never_zero(graded):
    for policy in ("defer", "zero"):
        result, out = graded[policy]
        rows = _rows(out / "grades.csv")
        for student in result.students:
            for o in student.outcomes:
                cell = rows[student.name][o.name]
                assert cell == ("" if o.deferred else f"{o.points:g}"), (policy, student.name, o.name, cell)
    # on this machine m6 defers unless it has CUDA: then the cells are the stub's zeros
    result, out = graded["defer"]
    deferred = [o for s in result.students for o in s.outcomes if o.deferred]
    rows = _rows(out / "grades.csv")
    if unmet_reason(find_exercise("m6").checks[0].requires, "en") is not None:
        assert deferred and rows["stub"]["m6::gpu_copy_bandwidth"] == ""
        assert float(rows["stub"]["deferred_points"]) == 6.0


def test_gradescope_shows_a_deferred_check_as_deferred_not_failed(graded):
    for policy in ("defer", "zero"):
        result, out = graded[policy]
        for student in result.students:
            data = _json(out / "gradescope" / student.name / "results.json")
            tests = {t["name"].split(" ")[0]: t for t in data["tests"]}
            assert data["max_score"] == sum(t["max_score"] for t in data["tests"])
            for o in student.outcomes:
                test = tests[o.name]
                if not o.deferred:
                    assert "[deferred]" not in test["name"] and test["visibility"] == o.visibility
                    continue
                assert test["name"].endswith("[deferred]") and test["status"] == "failed"
                if policy == "defer":  # out of the score and out of the student's sight; told in the output
                    assert test["visibility"] == "hidden" and test["max_score"] == test["score"] == 0
                    assert o.name in data["output"]
                else:  # counted as zero: a failed test the student sees, named as deferred
                    assert test["visibility"] == "visible" and test["max_score"] == o.max_points


def test_execution_time_is_each_students_own(graded):
    result, out = graded["defer"]
    times = {
        s.name: _json(out / "gradescope" / s.name / "results.json")["execution_time"] for s in result.students
    }
    assert times == {s.name: round(s.elapsed_s, 3) for s in result.students}
    assert all(t > 0 for t in times.values())  # each had a file graded: its own judge, its own time
    # within the batch's own time, not the batch's time copied (or shared out) into every file
    assert all(s.elapsed_s <= result.elapsed_s for s in result.students)


def test_a_missing_file_is_deferred_exactly_where_the_stub_is():
    """The batch's outcome for a missing file follows the judge's own deferral for the stub, check by check,
    for the requirement and for the memory limit (here 1 GiB: every check that needs memory defers)."""
    exercise = find_exercise("ex10")
    config = BatchConfig(exercises=("ex10",), lang="en", limits=Limits(memory_bytes=GiB), progress=False)
    judge = Judge("en", limits=config.limits)
    try:
        for p in prepare_exercise(exercise, "en"):
            stub = judge.run_check(p, EXERCISES / f"{exercise.module}.py", source="s/ex10.py")
            missing = file_outcome(p, State.NOT_ATTEMPTED, "no file", config, "s/ex10.py")
            assert missing.deferred == stub.deferred, p.check.id
            if stub.deferred:
                assert missing.message == stub.message and missing.state == State.SKIPPED
            else:
                assert missing.state == State.NOT_ATTEMPTED
        assert any(c.requires.memory_bytes for c in exercise.checks)
    finally:
        judge.close()
