"""nbgrader's long-lived process: autograding several notebooks, one after another, in one process (as
``nbgrader autograde`` does for a class) leaves no child of that process behind, ended or not.

Each notebook's kernel runs the check cells (a judge per cell, in the kernel), and the course's
``JudgeCheckCells`` grades it again with a judge in nbgrader's own process; before the fix every worker that
ended by itself left bubblewrap's inner process unreaped here (about six per notebook), and a class of a few
hundred students ran the system out of process ids."""

from __future__ import annotations

import os

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
from grader.sandbox import confinement, proctree  # noqa: E402
from tests.grader.course.helpers import ASSIGNMENT, EXERCISES, without_markers  # noqa: E402
from tests.grader.course.test_nbgrader import nbgrader_env  # noqa: E402

CHOSEN = ("ex01", "ex05")
STUDENTS = ("alice", "dave")


def own_children() -> list[tuple[int, str]]:
    """This process's children, ended ones not yet collected (zombies) included, with their state."""
    pids = proctree.child_pids(os.getpid())
    return [(p, (proctree.stat_fields(p) or ["gone"])[0]) for p in pids]


@pytest.mark.filterwarnings("ignore:Object of type:Warning")  # nbgrader's own add_submission says it
def test_autograding_one_notebook_after_another_leaves_no_child(tmp_path, monkeypatch):
    if confinement.find_bwrap()[0] is None:
        pytest.skip("bubblewrap does not work here: the leak was bwrap's own process")
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
        for student in STUDENTS:
            gb.add_student(student)
    done = api.generate_assignment(ASSIGNMENT, force=True)
    assert done["success"], done.get("error")
    for student in STUDENTS:
        folder = course / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        for exercise_id in CHOSEN:
            module = EXERCISES[exercise_id].module
            source = nbformat.read(course / "source" / ASSIGNMENT / f"{module}.ipynb", as_version=4)
            released = nbformat.read(course / "release" / ASSIGNMENT / f"{module}.ipynb", as_version=4)
            for mine, theirs in zip(released.cells, source.cells, strict=True):
                if student == "alice" and mine.metadata["nbgrader"]["solution"]:
                    mine.source = without_markers(theirs.source)  # dave submits the stub as released
            nbformat.write(released, str(folder / f"{module}.ipynb"))

    before = own_children()
    counts = []
    for student in STUDENTS:  # one student after another, as nbgrader autograde goes through a class
        done = api.autograde(ASSIGNMENT, student)
        assert done["success"], done.get("error", "") + done.get("log", "")[-3000:]
        counts.append(len(own_children()))
    after = own_children()
    assert after == before, f"children before {before}, after {after} (after each student: {counts})"

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:  # and the notebooks were graded
        maximum = sum(EXERCISES[e].max_points for e in CHOSEN)
        assert gb.find_submission(ASSIGNMENT, "alice").score == maximum
        assert gb.find_submission(ASSIGNMENT, "dave").score == 0
