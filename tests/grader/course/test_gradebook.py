"""grader.course.gradebook with real nbgrader: nbgrader autogrades one notebook of the course, the batch grader
grades the other exercise from the same student's answers, ``python -m grader gradebook`` writes the batch
points into the gradebook, and ``nbgrader export`` shows one total (issue 38 item 4)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip(
    "nbformat", reason="the nbgrader extra is not installed: pip install -e '.[nbgrader]'"
)
pytest.importorskip("nbgrader", reason="the nbgrader extra is not installed: pip install -e '.[nbgrader]'")

from nbgrader.api import Gradebook  # noqa: E402

from grader.course.gradebook import GradebookImportError, import_grades, read_grades  # noqa: E402
from grader.course.notebooks import grade_id  # noqa: E402
from tests.grader.course.helpers import ASSIGNMENT, EXERCISES, SOLUTIONS  # noqa: E402
from tests.grader.course.test_autograde_class import answered, course_api  # noqa: E402
from tests.grader.course.test_nbgrader import nbgrader_env  # noqa: E402

#: nbgrader autogrades ex01's notebook; the batch grader grades ex05 (both fast formula exercises: what is
#: tested is where the points land, which does not depend on the kind of check).
BY_NBGRADER, BY_BATCH = "ex01", "ex05"


def _batch(tmp_path: Path, students: tuple[str, ...]) -> Path:
    """grades.json of a real batch run over ``students``' answers to :data:`BY_BATCH` (the solution's file)."""
    subs = tmp_path / "subs"
    module = EXERCISES[BY_BATCH].module
    for student in students:
        (subs / student).mkdir(parents=True)
        (subs / student / f"{module}.py").write_text(
            (SOLUTIONS / f"{module}.py").read_text(encoding="utf-8"), encoding="utf-8"
        )
    out = tmp_path / "measured"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "grade",
            str(subs),
            "--exercises",
            BY_BATCH,
            "--out",
            str(out),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return out


def _course(tmp_path, monkeypatch, students=("alice",), autograde=True):
    """The course of :data:`BY_NBGRADER` and :data:`BY_BATCH`, and (``autograde``) nbgrader's autograde of the
    first notebook only for each student."""
    course, api = course_api(tmp_path, monkeypatch, {student: answered for student in students})
    api.coursedir.notebook_id = EXERCISES[BY_NBGRADER].module
    for student in students if autograde else ():
        done = api.autograde(ASSIGNMENT, student)
        assert done["success"], done.get("error", "") + done.get("log", "")[-3000:]
    return course


def _maximum(exercise_id: str) -> float:
    return float(sum(c.points for c in EXERCISES[exercise_id].checks))


@pytest.mark.filterwarnings("ignore:Object of type:Warning")  # nbgrader's own add_submission says it
def test_batch_points_land_in_the_gradebook_and_export_shows_one_total(tmp_path, monkeypatch):
    course = _course(tmp_path, monkeypatch)
    db = course / "gradebook.db"
    with Gradebook(f"sqlite:///{db}") as gb:  # before: only nbgrader's notebook is scored
        assert gb.find_submission(ASSIGNMENT, "alice").score == _maximum(BY_NBGRADER)
    out = _batch(tmp_path, ("alice",))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "gradebook",
            str(out),
            "--course",
            str(course),
            "--assignment",
            ASSIGNMENT,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    checks = EXERCISES[BY_BATCH].checks
    assert f"wrote {len(checks)} grade cells for 1 students" in done.stdout
    notebook = EXERCISES[BY_BATCH].module
    graded_at = read_grades(out)["students"]["alice"]["graded_at"]
    with Gradebook(f"sqlite:///{db}") as gb:
        assert gb.find_submission(ASSIGNMENT, "alice").score == _maximum(BY_NBGRADER) + _maximum(BY_BATCH)
        for check in checks:
            grade = gb.find_grade(grade_id(BY_BATCH, check.id), notebook, ASSIGNMENT, "alice")
            assert (grade.auto_score, grade.needs_manual_grade) == (check.points, False)
        comment = gb.find_comment(grade_id(BY_BATCH, "solution"), notebook, ASSIGNMENT, "alice").comment
        assert graded_at in comment and "batch grader" in comment and "批量评分器" in comment
        assert f"{BY_BATCH}::{checks[0].id}: passed" in comment
    # nbgrader's own export: one line for alice with the whole total
    exported = subprocess.run(
        [sys.executable, "-m", "nbgrader", "export", "--to", str(tmp_path / "export.csv")],
        cwd=course,
        capture_output=True,
        text=True,
        timeout=300,
        env=None,
    )
    assert exported.returncode == 0, exported.stderr
    rows = list(csv.DictReader((tmp_path / "export.csv").open(encoding="utf-8")))
    (row,) = [r for r in rows if r["student_id"] == "alice"]
    assert float(row["score"]) == _maximum(BY_NBGRADER) + _maximum(BY_BATCH)


@pytest.mark.parametrize("policy", ["defer", "zero"])
@pytest.mark.filterwarnings("ignore:Object of type:Warning")
def test_a_deferred_check_follows_the_courses_policy_and_a_manual_grade_stands(tmp_path, monkeypatch, policy):
    course = _course(tmp_path, monkeypatch, autograde=False)  # the import makes the submission itself
    grades = read_grades(_batch(tmp_path, ("alice",)))
    grades["deferred_policy"] = policy
    first, second = grades["students"]["alice"]["outcomes"][:2]
    first.update(state="skipped", deferred=True, points=0.0)  # as a run on a busy machine leaves it
    db_url = f"sqlite:///{course / 'gradebook.db'}"
    notebook = EXERCISES[BY_BATCH].module
    import_grades(
        read_grades(tmp_path / "measured"), db_url, ASSIGNMENT
    )  # the submission, as batch graded it
    with Gradebook(db_url) as gb:  # the instructor already graded the second cell by hand
        gb.find_grade(
            grade_id(BY_BATCH, second["check_id"]), notebook, ASSIGNMENT, "alice"
        ).manual_score = 0.5
        gb.db.commit()
    done = import_grades(grades, db_url, ASSIGNMENT)
    assert done.deferred == ({"alice": 1} if policy == "defer" else {})
    with Gradebook(db_url) as gb:
        deferred = gb.find_grade(grade_id(BY_BATCH, first["check_id"]), notebook, ASSIGNMENT, "alice")
        if policy == "defer":
            assert (deferred.auto_score, deferred.needs_manual_grade) == (None, True)
        else:
            assert (deferred.auto_score, deferred.needs_manual_grade) == (0.0, False)
        kept = gb.find_grade(grade_id(BY_BATCH, second["check_id"]), notebook, ASSIGNMENT, "alice")
        assert (kept.score, kept.auto_score) == (0.5, second["points"])


@pytest.mark.filterwarnings("ignore:Object of type:Warning")
def test_students_and_cells_the_gradebook_lacks_are_named_not_invented(tmp_path, monkeypatch):
    course = _course(tmp_path, monkeypatch, autograde=False)
    out = _batch(tmp_path, ("alice", "zoe"))  # zoe handed in to the batch grader but is not in the gradebook
    grades = read_grades(out)
    grades["students"]["alice"]["outcomes"].append(
        {**grades["students"]["alice"]["outcomes"][0], "check_id": "no_such_check"}
    )
    (out / "grades.json").write_text(json.dumps(grades), encoding="utf-8")
    cmd = [sys.executable, "-m", "grader", "gradebook", str(out), "--course", str(course)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert "not in the gradebook (add them, or --create): zoe" in done.stderr
    assert f"{EXERCISES[BY_BATCH].module}/{grade_id(BY_BATCH, 'no_such_check')}" in done.stderr
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        assert [s.id for s in gb.students] == ["alice"]
    created = subprocess.run([*cmd, "--create"], capture_output=True, text=True, timeout=300)
    assert "zoe" not in created.stderr
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        assert gb.find_submission(ASSIGNMENT, "zoe").score == _maximum(BY_BATCH)


def test_bad_arguments_are_named(tmp_path, monkeypatch):
    for key, value in nbgrader_env(tmp_path).items():  # nbgrader runs alembic to make a gradebook
        monkeypatch.setenv(key, value)
    cmd = [sys.executable, "-m", "grader", "gradebook"]
    no_db = subprocess.run([*cmd, str(tmp_path), "--course", str(tmp_path)], capture_output=True, text=True)
    assert no_db.returncode == 2 and "holds no gradebook.db" in no_db.stderr
    with pytest.raises(GradebookImportError, match="no grades.json"):
        read_grades(tmp_path)
    (tmp_path / "grades.json").write_text("[]", encoding="utf-8")
    with pytest.raises(GradebookImportError, match="no 'students' table"):
        read_grades(tmp_path)
    db_url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with pytest.raises(GradebookImportError, match="no assignment 'p3'"):
        import_grades({"students": {}}, db_url, "p3")
