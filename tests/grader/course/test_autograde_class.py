"""Real nbgrader autograding a class in one process, as ``nbgrader autograde`` does: one notebook after
another leaves no child of that process behind, ended or not; and a graded cell the gradebook does not know
(forged) is left to the instructor while every other cell is graded.

Each notebook's kernel runs the check cells (a judge per cell, in the kernel), and the course's
``JudgeCheckCells`` grades it again with a judge in nbgrader's own process; before the fix every worker that
ended by itself left bubblewrap's inner process unreaped here (about six per notebook), and a class of a few
hundred students ran the system out of process ids."""

from __future__ import annotations

import json
import os
import time

import pytest

nbformat = pytest.importorskip(
    "nbformat", reason="the nbgrader extra is not installed: pip install -e '.[nbgrader]'"
)
pytest.importorskip("nbgrader", reason="the nbgrader extra is not installed: pip install -e '.[nbgrader]'")
pytest.importorskip("ipykernel", reason="nbgrader runs the notebooks in an ipykernel: pip install ipykernel")

from nbgrader.api import Gradebook  # noqa: E402
from nbgrader.apps import NbGraderAPI  # noqa: E402
from traitlets.config.loader import PyFileConfigLoader  # noqa: E402

from grader.course import notebooks  # noqa: E402
from grader.sandbox import confinement, proctree, reaping  # noqa: E402
from tests.grader.course.helpers import ASSIGNMENT, EXERCISES, without_markers  # noqa: E402
from tests.grader.course.test_nbgrader import nbgrader_env  # noqa: E402

CHOSEN = ("ex01", "ex05")


def own_children() -> list[tuple[int, str]]:
    """This process's children, ended ones not yet collected (zombies) included, with their state."""
    pids = proctree.child_pids(os.getpid())
    return [(p, (proctree.stat_fields(p) or ["gone"])[0]) for p in pids]


def course_api(tmp_path, monkeypatch, answers):
    """A course of :data:`CHOSEN` with its assignment generated, each student of ``answers`` submitting the
    released notebooks as ``answers[student](exercise id, released, source)`` edits them, and nbgrader's
    API on that course, in this process."""
    for key, value in nbgrader_env(tmp_path).items():
        monkeypatch.setenv(key, value)
    course = tmp_path / "course"
    notebooks.write_course(course, exercises=[EXERCISES[e] for e in CHOSEN], assignment=ASSIGNMENT)
    monkeypatch.chdir(course)
    config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
    config.CourseDirectory.root = str(course)
    api = NbGraderAPI(config=config)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        gb.add_assignment(ASSIGNMENT)
        for student in answers:
            gb.add_student(student)
    done = api.generate_assignment(ASSIGNMENT, force=True)
    assert done["success"], done.get("error")
    for student, edit in answers.items():
        folder = course / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        for exercise_id in CHOSEN:
            module = EXERCISES[exercise_id].module
            source = nbformat.read(course / "source" / ASSIGNMENT / f"{module}.ipynb", as_version=4)
            released = nbformat.read(course / "release" / ASSIGNMENT / f"{module}.ipynb", as_version=4)
            edit(exercise_id, released, source)
            nbformat.write(released, str(folder / f"{module}.ipynb"))
    return course, api


def answered(exercise_id, released, source):
    """The answer cell as the solution has it (alice)."""
    for mine, theirs in zip(released.cells, source.cells, strict=True):
        if mine.metadata["nbgrader"]["solution"]:
            mine.source = without_markers(theirs.source)


def as_released(exercise_id, released, source):
    """The stub as released (dave)."""


@pytest.mark.filterwarnings("ignore:Object of type:Warning")  # nbgrader's own add_submission says it
def test_autograding_one_notebook_after_another_leaves_no_child(tmp_path, monkeypatch):
    if confinement.find_bwrap()[0] is None:
        pytest.skip("bubblewrap does not work here: the leak was bwrap's own process")
    course, api = course_api(tmp_path, monkeypatch, {"alice": answered, "dave": as_released})
    before = own_children()
    counts = []
    for student in ("alice", "dave"):  # one student after another, as nbgrader autograde goes through a class
        done = api.autograde(ASSIGNMENT, student)
        assert done["success"], done.get("error", "") + done.get("log", "")[-3000:]
        counts.append(len(own_children()))
    # a killed tree ends in its own time on a busy machine: the evidence is waited for (reaping.LATER_S), and
    # a child that is never collected is still found
    deadline = time.monotonic() + reaping.LATER_S + 10
    while (after := own_children()) != before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert after == before, f"children before {before}, after {after} (after each student: {counts})"

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:  # and the notebooks were graded
        maximum = sum(EXERCISES[e].max_points for e in CHOSEN)
        assert gb.find_submission(ASSIGNMENT, "alice").score == maximum
        assert gb.find_submission(ASSIGNMENT, "dave").score == 0


def forged(exercise_id, released, source):
    """The right answer, and a copy of the notebook's first check cell under a name the gradebook does not
    know, claiming ten points (erin)."""
    answered(exercise_id, released, source)
    check = next(c for c in released.cells if c.metadata["nbgrader"].get("grade"))
    bonus = nbformat.from_dict(json.loads(json.dumps(check)))
    bonus.id = f"{exercise_id}-bonus"
    bonus.metadata["nbgrader"].update(grade_id=f"{exercise_id}_bonus", points=10)
    bonus.source = "print('bonus')"
    released.cells.append(bonus)


@pytest.mark.filterwarnings("ignore:Object of type:Warning")  # nbgrader's own add_submission says it
def test_a_forged_graded_cell_is_left_to_the_instructor_and_the_rest_is_graded(tmp_path, monkeypatch):
    course, api = course_api(tmp_path, monkeypatch, {"erin": forged})
    done = api.autograde(ASSIGNMENT, "erin")
    assert done["success"], done.get("error", "") + done.get("log", "")[-3000:]
    log = done.get("log", "")
    for exercise_id in CHOSEN:  # the log names the cell, the student and the notebook for the instructor
        module = EXERCISES[exercise_id].module
        assert f"erin 的 {module} 里有一个 nbgrader 单元格 '{exercise_id}_bonus'" in log, log[-3000:]
        graded = nbformat.read(course / "autograded" / "erin" / ASSIGNMENT / f"{module}.ipynb", as_version=4)
        (bonus,) = [c for c in graded.cells if c.source == "print('bonus')"]
        assert "nbgrader" not in bonus.metadata  # kept, as an ordinary cell
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for exercise_id in CHOSEN:  # every cell the gradebook knows is graded, and the bonus earns nothing
            exercise = EXERCISES[exercise_id]
            submitted = gb.find_submission_notebook(exercise.module, ASSIGNMENT, "erin")
            assert (submitted.score, submitted.max_score) == (exercise.max_points, exercise.max_points)
