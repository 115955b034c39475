"""The nbgrader course's autograde steps on their own (``grader.course.judgecells``,
``grader.course.deferredgrades``), the config that puts them in nbgrader's pipeline, and the command's
word when the nbgrader extra is missing. The real nbgrader round trip is ``test_nbgrader.py``'s."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip(
    "nbformat", reason="the nbgrader extra is not installed: pip install -e '.[nbgrader]'"
)
pytest.importorskip("nbgrader", reason="the nbgrader extra is not installed: pip install -e '.[nbgrader]'")

from nbgrader.api import Gradebook  # noqa: E402
from nbgrader.converters import Autograde  # noqa: E402
from nbgrader.preprocessors import Execute, OverwriteCells, SaveAutoGrades  # noqa: E402
from traitlets.config.loader import PyFileConfigLoader  # noqa: E402

from grader.__main__ import main as grader_main  # noqa: E402
from grader.course import notebooks  # noqa: E402
from grader.course.deferredgrades import DeferredGrades  # noqa: E402
from grader.course.judgecells import DEFERRED_KEY, JudgeCheckCells  # noqa: E402
from grader.course.unknowncells import UnknownCells  # noqa: E402
from grader.results.outcome import Outcome, State  # noqa: E402
from tests.grader.course.helpers import ASSIGNMENT, EXERCISES, ROOT  # noqa: E402

EXERCISE = EXERCISES["ex05"]


class Verdicts(JudgeCheckCells):
    """The step with its judge's outcomes given: the first check deferred, the second wrong, the rest passed
    (no machine at hand defers a formula check, so the mapping is tested with outcomes made for it)."""

    def judge(self, exercise, code_cells, check_ids):
        states = [State.SKIPPED, State.WRONG] + [State.PASSED] * len(check_ids)
        return {
            c: Outcome.of(exercise, exercise.check(c), s, f"said of {c}", deferred=s is State.SKIPPED)
            for c, s in zip(check_ids, states, strict=False)
        }


def source_notebook(tmp_path):
    notebooks.write_course(tmp_path / "course", exercises=[EXERCISE], assignment=ASSIGNMENT)
    path = tmp_path / "course" / "source" / ASSIGNMENT / f"{EXERCISE.module}.ipynb"
    return nbformat.read(path, as_version=4)


def check_outputs(nb):
    ids = {notebooks.grade_id(EXERCISE.id, c.id): c.id for c in EXERCISE.checks}
    return {ids[gid]: c.outputs for c in nb.cells if (gid := c.metadata["nbgrader"]["grade_id"]) in ids}


@pytest.mark.parametrize("policy", ["defer", "zero"])
def test_check_cells_show_the_judges_outcomes_whatever_the_kernel_printed(tmp_path, policy):
    nb = source_notebook(tmp_path)
    for cell in nb.cells:  # what a kernel fooled by the student printed: a pass everywhere
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="passed\n")]
    step = Verdicts(deferred=policy)
    nb, resources = step.preprocess(nb, {"nbgrader": {"notebook": EXERCISE.module}})
    outputs = check_outputs(nb)
    deferred, wrong, *passed = (c.id for c in EXERCISE.checks)
    for check_id in (deferred, wrong):
        (error,) = outputs[check_id]
        assert error.output_type == "error" and error.ename == "AssertionError"
        assert error.evalue.startswith(f"{EXERCISE.id}::{check_id}: said of {check_id}")
    for check_id in passed:
        assert [(o.output_type, o.text) for o in outputs[check_id]] == [("stream", f"said of {check_id}\n")]
    by_hand = "grade by hand" in outputs[deferred][0].evalue or "手动评分" in outputs[deferred][0].evalue
    assert by_hand == (policy == "defer")
    expected = [notebooks.grade_id(EXERCISE.id, deferred)] if policy == "defer" else []
    assert resources[DEFERRED_KEY] == expected


def test_a_notebook_of_no_exercise_is_left_alone(tmp_path):
    nb = source_notebook(tmp_path)
    before = nbformat.writes(nb)
    nb, resources = Verdicts().preprocess(nb, {"nbgrader": {"notebook": "my_own_notes"}})
    assert nbformat.writes(nb) == before and DEFERRED_KEY not in resources


@pytest.mark.filterwarnings("ignore:Object of type:Warning")  # nbgrader's own add_submission says it
def test_deferred_cells_are_left_to_be_graded_by_hand(tmp_path, monkeypatch):
    # nbgrader runs `alembic` from PATH when it creates a gradebook: this interpreter's scripts come first
    monkeypatch.setenv(
        "PATH", os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    )
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    ids = [notebooks.grade_id(EXERCISE.id, c.id) for c in EXERCISE.checks[:2]]
    with Gradebook(url) as gb:
        gb.add_assignment(ASSIGNMENT)
        gb.add_notebook(EXERCISE.module, ASSIGNMENT)
        for grade_id in ids:
            gb.add_grade_cell(grade_id, EXERCISE.module, ASSIGNMENT, max_score=1, cell_type="code")
        gb.add_student("s")
        gb.add_submission(ASSIGNMENT, "s")
        for grade_id in ids:  # what SaveAutoGrades wrote for an error output
            grade = gb.find_grade(grade_id, EXERCISE.module, ASSIGNMENT, "s")
            grade.auto_score, grade.needs_manual_grade = 0, False
        gb.db.commit()
    info = {"db_url": url, "notebook": EXERCISE.module, "assignment": ASSIGNMENT, "student": "s"}
    DeferredGrades().preprocess(nbformat.v4.new_notebook(), {"nbgrader": info, DEFERRED_KEY: ids[:1]})
    with Gradebook(url) as gb:
        first, second = (gb.find_grade(i, EXERCISE.module, ASSIGNMENT, "s") for i in ids)
        assert (first.auto_score, first.needs_manual_grade) == (None, True)
        assert (second.auto_score, second.needs_manual_grade) == (0, False)


def test_the_config_puts_the_steps_in_nbgraders_pipeline(tmp_path):
    course = tmp_path / "course"
    argv = ["notebooks", str(course), "--exercises", "ex05", "--deferred", "zero", "--lang", "en"]
    assert grader_main(argv) == 0
    cfg = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
    steps = list(cfg.Autograde.autograde_preprocessors)
    default = Autograde.autograde_preprocessors.default()
    assert [s for s in steps if s not in (JudgeCheckCells, DeferredGrades)] == default  # nbgrader's, kept
    assert steps.index(JudgeCheckCells) == steps.index(Execute) + 1
    assert steps.index(DeferredGrades) == steps.index(SaveAutoGrades) + 1
    assert (cfg.JudgeCheckCells.deferred, cfg.JudgeCheckCells.lang) == ("zero", "en")
    sanitize = list(cfg.Autograde.sanitize_preprocessors)
    assert [s for s in sanitize if s is not UnknownCells] == Autograde.sanitize_preprocessors.default()
    assert sanitize.index(UnknownCells) == sanitize.index(OverwriteCells) - 1
    assert cfg.UnknownCells.lang == "en"
    note = nbformat.read(course / "source" / "p3" / f"{EXERCISE.module}.ipynb", as_version=4)
    assert "decided by the grader outside your notebook" in note.cells[1].source


@pytest.mark.parametrize(("command", "module"), [("notebooks", "nbformat"), ("gradebook", "nbgrader")])
def test_notebooks_without_the_nbgrader_extra_names_it(tmp_path, command, module):
    """Without nbformat (or nbgrader) the command says which extra to install and exits 2, no traceback."""
    course = str(tmp_path / "course")
    argv = [command, course] if command == "notebooks" else [command, course, "--course", course]
    code = (
        "import sys\n"
        f"sys.modules[{module!r}] = None  # as if the nbgrader extra were not installed\n"
        "from grader.__main__ import main\n"
        f"sys.exit(main({argv!r}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert 'pip install -e ".[nbgrader]"' in done.stderr and module in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "course").exists()
