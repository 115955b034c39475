"""``JudgeCheckCells``: the nbgrader autograde step that decides every check cell's points with the judge,
outside the student's kernel.

Under ``nbgrader autograde`` each check cell runs ``grader.check(globals(), ...)`` in the student's kernel,
after the student's own cells ran there, so a student cell could replace ``grader.check`` or patch the judge
and every check cell would pass. This preprocessor runs in nbgrader's own process, after ``Execute`` and
before ``SaveAutoGrades`` (the course's ``nbgrader_config.py`` puts it there; see
:func:`grader.course.notebooks.config_text`). It reads the student's code from the notebook being graded
(its code cells, as :func:`grader.judge.cells.cells_source` reads them), never from the kernel, grades it
with a :class:`~grader.judge.Judge` whose worker is confined as in batch grading, and sets every check
cell's outputs from the judge's outcome, whatever the kernel printed: the feedback as printed output where
the check passed (full points), an ``AssertionError`` with the feedback where it did not (0 points).

The notebook it sees is nbgrader's sanitized copy: ``OverwriteCells`` has already put back the source of
every locked cell (setup and check cells, hidden checks included) from the gradebook, and
``DeduplicateIds`` has dropped extra cells that reuse a grade id. A deferred check (the machine does not
meet its requirements) scores as the course chose (``deferred``, as ``--deferred`` in batch): ``"zero"``
scores 0; ``"defer"`` gives it an error output too, and names its cell in ``resources`` so that
:class:`grader.course.deferredgrades.DeferredGrades`, after ``SaveAutoGrades``, leaves it for the
instructor to grade by hand. This module, that one and :mod:`grader.course.unknowncells` are the only ones
of the grader that import nbgrader; they run in nbgrader's process, which imports them from the course's
config.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from nbformat import NotebookNode
from nbformat.v4 import new_output
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool, Enum, List, Unicode

from ..judge import Judge, JudgeConfig
from ..judge.cells import cells_source
from ..registry import load_exercises
from ..results.outcome import DEFERRED_POLICIES, Outcome
from ..sandbox.confinement import Limits, default_memory_bytes
from ..specs.check import Exercise
from ..text.catalogue import LANGS, render
from .notebooks import grade_id

#: Where in nbgrader's ``resources`` this step names the cells of deferred checks (policy ``"defer"``).
DEFERRED_KEY = "perfkit_deferred_grade_ids"


def is_code(cell: NotebookNode) -> bool:
    return cell.get("cell_type") == "code"


def grade_id_of(cell: NotebookNode) -> str | None:
    """The cell's nbgrader grade id if it is a grade cell, else None."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return meta.get("grade_id") if meta.get("grade") else None


def passed_outputs(outcome: Outcome) -> list[NotebookNode]:
    """What a passed check's cell shows: its feedback, printed (nbgrader gives such a cell full points)."""
    return [new_output("stream", name="stdout", text=outcome.message + "\n")]


def failed_outputs(outcome: Outcome, note: str = "") -> list[NotebookNode]:
    """What a check that did not pass shows: an ``AssertionError`` with the check's id and feedback (and
    ``note``), from no frame at all (nbgrader scores a cell with an error output 0)."""
    value = f"{outcome.name}: {outcome.message}" + (f"\n{note}" if note else "")
    return [
        new_output(
            "error",
            ename="AssertionError",
            evalue=value,
            traceback=[f"\x1b[0;31mAssertionError\x1b[0m: {value}"],
        )
    ]


class JudgeCheckCells(NbGraderPreprocessor):
    """Grades the notebook's code with the judge, outside the kernel, and sets every check cell's outputs."""

    lang = Enum(list(LANGS), default_value="zh", help="the language of the feedback").tag(config=True)
    deferred = Enum(
        list(DEFERRED_POLICIES),
        default_value="defer",
        help="a deferred check's points: 'defer' leaves it to be graded by hand, 'zero' scores 0",
    ).tag(config=True)
    extra_checks = List(Unicode(), help="modules with more exercises (the grader_checks option)").tag(
        config=True
    )
    allow = List(
        Enum(["perfcore", "grader"]), help="kit packages the graded code may import (none by default)"
    ).tag(config=True)
    sandbox = Bool(True, help="confine the worker with bubblewrap where it works").tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: dict[str, Any]) -> tuple[NotebookNode, dict[str, Any]]:
        notebook_id = str(resources.get("nbgrader", {}).get("notebook", ""))
        exercises = load_exercises(self.extra_checks)
        exercise = next((e for e in exercises.values() if e.module == notebook_id), None)
        if exercise is None:  # not one of the course's exercise notebooks: nothing here is a check
            return nb, resources
        checks = {grade_id(exercise.id, c.id): c.id for c in exercise.checks}
        cells = [
            (cell, checks[gid]) for cell in nb.cells if is_code(cell) and (gid := grade_id_of(cell)) in checks
        ]
        resources[DEFERRED_KEY] = []
        if not cells:
            return nb, resources
        code = [cell.source for cell in nb.cells if is_code(cell)]
        outcomes = self.judge(exercise, code, list(dict.fromkeys(c for _, c in cells)))
        deferred_ids: list[str] = []
        for cell, check_id in cells:
            outcome = outcomes[check_id]
            if outcome.passed:
                cell.outputs = passed_outputs(outcome)
            elif outcome.deferred and self.deferred == "defer":
                cell.outputs = failed_outputs(outcome, render("nb_deferred_by_hand", self.lang))
                deferred_ids.append(str(grade_id_of(cell)))
            else:
                cell.outputs = failed_outputs(outcome)
        resources[DEFERRED_KEY] = deferred_ids
        return nb, resources

    def judge(self, exercise: Exercise, code_cells: list[str], check_ids: list[str]) -> dict[str, Outcome]:
        """The outcomes of ``check_ids`` of ``exercise`` on the code of ``code_cells``, written as
        ``<module>.py`` into a private folder and graded there by a judge of its own, as batch grading does."""
        with tempfile.TemporaryDirectory(prefix="perfkit-autograde-") as folder:
            os.chmod(folder, 0o755)  # the confined worker reads it as batch grading's copies are read
            path = Path(folder) / f"{exercise.module}.py"
            path.write_text(cells_source(code_cells), encoding="utf-8")
            config = JudgeConfig(
                self.lang,
                sandbox=self.sandbox,
                limits=Limits(memory_bytes=default_memory_bytes(1)),
                allow=tuple(self.allow),
                extra_checks=tuple(self.extra_checks),
                deferred=self.deferred,
            )
            with Judge(config, say=self.log.warning) as judge:
                result = judge.grade(exercise, path, check_ids, source=f"{exercise.module}.ipynb")
        return {o.check_id: o for o in result.outcomes}
