"""Batch grading (``python -m grader grade``) of one class with hostile submissions.

One batch of students is graded once (module fixture) on exercises 1 and 2: a full solution, the stubs, a
file linked to the kit's solution, and every case of ``tests/hostile/cases.py``. Each must get exactly the
points it earned, with a clear state, and nothing they do may change another student's grade. The cases
that only bubblewrap can stop (writing outside the folder, reading the instructor's files) are left out,
with a reason, where bwrap is missing. The cheats aimed at the grader itself, graded by the pytest plugin,
the batch grader and ``grader.grade()`` alike, are in tests/hostile/test_hostile.py.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from grader.batch.engine import BatchConfig, grade_batch
from grader.batch.output import write_outputs
from grader.sandbox.confinement import Limits
from tests.grader.batch.helpers import (
    BWRAP,
    EX01_POINTS,
    EX02_POINTS,
    EXERCISES,
    ROOT,
    SOLUTIONS,
    WHY_NO_BWRAP,
    _ex01_text,
    _points,
    _remove_tree,
    _sleepers,
    _write_deep,
)
from tests.hostile.cases import CASES

CONFTEST_MARKER = Path("/tmp/perfkit-hostile-conftest-ran")


CONFIG = BatchConfig(exercises=("ex01", "ex02"), lang="en", limits=Limits(grace_s=3.0), progress=False)


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    base = tmp_path_factory.mktemp("batch")
    subs = base / "submissions"
    shutil.copytree(SOLUTIONS, subs / "alice")
    shutil.copytree(EXERCISES, subs / "bob")
    linker = subs / "linker"
    linker.mkdir()
    (linker / "ex01_ridge_point.py").symlink_to(SOLUTIONS / "ex01_ridge_point.py")
    shutil.copy(SOLUTIONS / "ex02_memory_bound.py", linker)
    victim = base / "victim.txt"
    victim.write_text("intact")
    fill = {
        "kit": str(ROOT),
        "victim": str(victim),
        "other": str(subs / "alice" / "ex02_memory_bound.py"),
        "solutions_copy": str(subs / "alice" / "ex01_ridge_point.py"),
    }
    cases = [c for c in CASES if BWRAP or not c.needs_bwrap]
    for case in cases:
        folder = subs / case.name
        folder.mkdir()
        (folder / "ex01_ridge_point.py").write_text(_ex01_text(case, fill), encoding="utf-8")
        shutil.copy(SOLUTIONS / "ex02_memory_bound.py", folder)
        for name, text in case.extra_files:
            _write_deep(folder, name, text)
    CONFTEST_MARKER.unlink(missing_ok=True)
    alice_before = (subs / "alice" / "ex02_memory_bound.py").read_text()
    result = grade_batch(subs, CONFIG, out=base / "grades")
    write_outputs(result, base / "grades", gradescope=True)
    for case in cases:
        if any(name.count("/") > 100 for name, _ in case.extra_files):
            _remove_tree(subs / case.name)  # graded: gone, before pytest's recursive cleanup meets it
    return {
        "result": result,
        "by_name": {s.name: s for s in result.students},
        "out": base / "grades",
        "victim": victim,
        "alice_file": subs / "alice" / "ex02_memory_bound.py",
        "alice_before": alice_before,
        "cases": cases,
    }


def test_reference_students_get_full_and_zero(batch):
    alice, bob = batch["by_name"]["alice"], batch["by_name"]["bob"]
    assert _points(alice, "ex01") == EX01_POINTS and _points(alice, "ex02") == EX02_POINTS
    assert all(o.state == "passed" for o in alice.outcomes)
    assert _points(bob, "ex01") == 0 and _points(bob, "ex02") == 0
    assert {o.state for o in bob.outcomes} == {"not_attempted"}


def test_a_linked_file_is_not_followed(batch):
    linker = batch["by_name"]["linker"]
    ex01 = [o for o in linker.outcomes if o.exercise == "ex01"]
    assert ex01 and all(o.state == "error" and "symbolic link" in o.message for o in ex01)
    assert _points(linker, "ex02") == EX02_POINTS


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_submission_gets_what_it_earned(batch, case):
    if case.needs_bwrap and BWRAP is None:
        pytest.skip(f"only bubblewrap can stop this, and {WHY_NO_BWRAP}")
    student = batch["by_name"][case.name]
    assert _points(student, "ex01") == case.ex01_points, [
        (o.check_id, o.state, o.message[:200]) for o in student.outcomes
    ]
    assert _points(student, "ex02") == EX02_POINTS, "another exercise of the same student was affected"
    states = {o.check_id: o for o in student.outcomes if o.exercise == "ex01"}
    for check_id, state in case.states:
        assert states[check_id].state == state, states[check_id].message
        assert states[check_id].message.strip()
    notes = " ".join(student.notes)
    assert all(words in notes for words in case.notes) and bool(notes) == bool(case.notes), notes


def test_messages_say_what_happened(batch):
    by_name = batch["by_name"]

    def message(name: str, check_id: str) -> str:
        return next(o.message for o in by_name[name].outcomes if o.check_id == check_id)

    assert "SystemExit" in message("sys_exit_at_import", "1a_ridge_formula")
    assert "os._exit" in message("os_exit_at_import", "1a_ridge_formula")
    assert "import of ex01_ridge_point.py" in message("os_exit_at_import", "1a_ridge_formula")
    assert "MemoryError" in message("huge_allocation_at_import", "1a_ridge_formula")
    assert "exceeded the time limit of 10 s" in message("infinite_loop", "1b_bf16_time")
    assert "os._exit" in message("os_exit_in_a_call", "1b_bf16_bound")
    assert "ran out of memory" in message("huge_allocation_in_a_call", "1b_bf16_time") or "MemoryError" in (
        message("huge_allocation_in_a_call", "1b_bf16_time")
    )


def test_nothing_is_left_running_and_no_conftest_ran(batch):
    assert _sleepers() == []
    assert not CONFTEST_MARKER.exists()


def test_files_outside_the_folder_are_untouched(batch):
    if BWRAP is None:
        pytest.skip(f"only bubblewrap can stop this, and {WHY_NO_BWRAP}")
    assert batch["victim"].read_text() == "intact"
    assert batch["alice_file"].read_text() == batch["alice_before"]
    assert not (ROOT / "grader" / "_hostile_marker.py").exists()


def test_outputs_csv_json_and_gradescope(batch):
    out, result = batch["out"], batch["result"]
    rows = list(csv.reader(open(out / "grades.csv", encoding="utf-8")))
    header = rows[0]
    assert header[:4] == ["student", "score", "max_score", "deferred_points"]
    assert "ex01::1a_ridge_formula" in header and "ex02::saved_time" in header
    alice = next(r for r in rows if r[0] == "alice")
    assert float(alice[1]) == float(alice[2]) == EX01_POINTS + EX02_POINTS
    data = json.loads((out / "grades.json").read_text(encoding="utf-8"))
    assert data["sandbox"] == result.sandbox
    assert set(data["students"]) == {s.name for s in result.students}
    fake = data["students"]["fake_results_and_lines"]
    assert fake["score"] == 7 + EX02_POINTS
    gs = json.loads((out / "gradescope" / "alice" / "results.json").read_text(encoding="utf-8"))
    assert gs["score"] == gs["max_score"] == EX01_POINTS + EX02_POINTS
    # what the copy of a folder left out is said to the student, in grades.json and on Gradescope
    assert data["students"]["alice"]["notes"] == []
    (deep,) = data["students"]["folder_nested_1200_deep"]["notes"]
    assert deep.startswith("folders deeper than 16 levels")
    gs = json.loads((out / "gradescope" / "folder_nested_1200_deep" / "results.json").read_text("utf-8"))
    assert gs["output"].startswith(deep)
