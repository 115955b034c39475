"""``UnknownCells``: the nbgrader autograde step that leaves a graded cell the gradebook does not know to the
instructor instead of failing the whole notebook.

A submission may hold a cell whose nbgrader metadata names a cell the assignment never had: forged (a
student copied a check cell and named it ``ex09_bonus``), or kept from another course's notebook. nbgrader's
``OverwriteCells`` says "Cell 'ex09_bonus' does not exist in the database" and drops only its ``grade_id``,
so that ``CheckCellMetadata`` then fails the notebook ("Notebook failed to validate") and none of the
student's other cells is graded. This step runs just before ``OverwriteCells`` (the course's
``nbgrader_config.py`` puts it among the sanitizing steps; see :func:`grader.course.notebooks.config_text`):
every cell marked as nbgrader's (graded, an answer, locked or a task) whose ``grade_id`` is not a cell of
this notebook in the gradebook becomes an ordinary cell, which no step scores, and the log names it, the
student and the notebook, for the instructor to look at by hand. Every cell the gradebook knows is graded
as before. Like :mod:`grader.course.judgecells`, it runs in nbgrader's process, which imports it from the
course's config.
"""

from __future__ import annotations

from typing import Any

from nbformat import NotebookNode
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Enum

from ..text.catalogue import LANGS, render

#: The nbgrader metadata flags that make a cell one nbgrader keeps in the gradebook.
MARKS = ("grade", "solution", "locked", "task")


def marked(cell: NotebookNode) -> bool:
    """Whether ``cell`` says it is one of nbgrader's cells (one the gradebook would hold)."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return any(meta.get(flag) for flag in MARKS)


class UnknownCells(NbGraderPreprocessor):
    """Makes every nbgrader cell the gradebook does not know an ordinary cell, and says so in the log."""

    lang = Enum(list(LANGS), default_value="zh", help="the language of the log's note").tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: dict[str, Any]) -> tuple[NotebookNode, dict[str, Any]]:
        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gb:
            try:
                known = {
                    cell.name for cell in gb.find_notebook(info["notebook"], info["assignment"]).source_cells
                }
            except MissingEntry:  # a notebook the assignment does not have: nbgrader's own steps say so
                return nb, resources
        for cell in nb.cells:
            if not marked(cell):
                continue
            grade_id = cell.metadata["nbgrader"].get("grade_id")
            if grade_id in known:
                continue
            del cell.metadata["nbgrader"]
            self.log.warning(
                render(
                    "nb_unknown_cell",
                    self.lang,
                    cell=grade_id,
                    student=info.get("student", "?"),
                    notebook=info["notebook"],
                )
            )
        return nb, resources
