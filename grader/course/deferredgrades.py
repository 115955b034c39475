"""``DeferredGrades``: the nbgrader autograde step, after ``SaveAutoGrades``, that leaves the cells of
deferred checks to the instructor when the course chose ``--deferred defer``.

A deferred check (the grading machine does not meet its requirement, or was too noisy to measure on) is
left out of the maximum in batch grading. nbgrader's maximum is fixed by the gradebook, so here the check's
cell gets no automatic score and is marked as needing a manual grade, as nbgrader marks the cells it cannot
score itself: the instructor sees it in formgrader and decides. :class:`~grader.course.judgecells.
JudgeCheckCells` names those cells in ``resources`` and gave them an error output, so that without this step
they score 0, never full points.
"""

from __future__ import annotations

from typing import Any

from nbformat import NotebookNode
from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor

from .judgecells import DEFERRED_KEY


class DeferredGrades(NbGraderPreprocessor):
    """Clears the automatic score of every cell :class:`JudgeCheckCells` deferred and flags it for grading by
    hand."""

    def preprocess(self, nb: NotebookNode, resources: dict[str, Any]) -> tuple[NotebookNode, dict[str, Any]]:
        grade_ids = resources.get(DEFERRED_KEY) or []
        if not grade_ids:
            return nb, resources
        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gb:
            for grade_id in grade_ids:
                grade = gb.find_grade(grade_id, info["notebook"], info["assignment"], info["student"])
                grade.auto_score = None
                grade.needs_manual_grade = True
            gb.db.commit()
        return nb, resources
