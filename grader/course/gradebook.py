"""Batch grades into an nbgrader gradebook: the measurement exercises of an nbgrader course graded by the batch
grader, their points written into the course's gradebook through nbgrader's own :class:`~nbgrader.api.Gradebook`.

Why: nbgrader runs each notebook in a kernel and judges every check cell in its own process, a judge per
notebook, which for the measurement exercises costs several times what the batch grader pays on the same
answers (one judge per student, perfcore's side shared, measurement lanes). A course therefore autogrades its
formula notebooks with nbgrader (``nbgrader autograde p3 --notebook 'ex0*'``) and grades the measurement
exercises with ``python -m grader grade SUBS --exercises ex10,m1,... --out OUT``; this module then writes OUT's
``grades.json`` into the gradebook, so that ``nbgrader export`` and formgrader show one total.

What it writes, per student of ``grades.json`` and per check graded there:

- the check's grade cell (``grade_id(exercise, check)``, as :mod:`grader.course.notebooks` names it) in the
  exercise's notebook: ``auto_score`` = the points, not waiting for a manual grade (a manual score the
  instructor gave stands: nbgrader reads it first); a *deferred* check follows
  the course's policy as nbgrader's own autograde does here (:mod:`grader.course.deferredgrades`): ``defer``
  leaves the cell to the instructor (no automatic score, flagged for a manual grade), ``zero`` scores 0;
- on the notebook's solution cell, an automatic comment in both languages that says where the points came
  from (the batch run's time and each check's state and points), which formgrader and the feedback show.

A student the gradebook does not know is added only when asked (``create``, as ``nbgrader autograde --create``);
a student without a submission gets one (nbgrader's ``add_submission`` mirrors the assignment's notebooks). A
check whose notebook or cell the gradebook does not have (a course written without that exercise) is reported,
never invented. Grades that nbgrader itself wrote in other notebooks are not touched; a later ``nbgrader
autograde`` of the same notebooks would overwrite these, so the import comes after autograding.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nbgrader.api import Gradebook, MissingEntry

from ..registry import find_exercise
from ..text.catalogue import LANGS, render
from .notebooks import grade_id


class GradebookImportError(ValueError):
    """grades.json or the gradebook cannot be used: the message names what and why."""


@dataclass
class Imported:
    """What one import did: cells written per student, and what it could not place."""

    written: dict[str, int] = field(default_factory=dict)
    deferred: dict[str, int] = field(default_factory=dict)
    unknown_students: list[str] = field(default_factory=list)
    unknown_cells: list[str] = field(default_factory=list)

    @property
    def cells(self) -> int:
        """Grade cells written, over every student."""
        return sum(self.written.values())


def read_grades(path: str | Path) -> dict[str, Any]:
    """``grades.json`` of a batch run: ``path`` is the file or the run's output folder."""
    file = Path(path)
    if file.is_dir():
        file = file / "grades.json"
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GradebookImportError(f"no grades.json at {file}: give a batch run's --out folder") from None
    except (OSError, ValueError) as exc:
        raise GradebookImportError(f"cannot read {file}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("students"), dict):
        raise GradebookImportError(f"{file} is not a batch run's grades.json (no 'students' table)")
    return data


def comment_text(graded_at: str, lines: list[str]) -> str:
    """The solution cell's automatic comment: where the notebook's points came from, in both languages."""
    checks = "\n".join(f"- {line}" for line in lines)
    said = [render("gradebook_comment", lang, graded_at=graded_at or "?") for lang in LANGS]
    return "\n".join(said) + "\n" + checks


def _outcome_line(outcome: Mapping[str, Any]) -> str:
    points = f"{float(outcome.get('points') or 0):g}/{float(outcome.get('max_points') or 0):g}"
    return f"{outcome['exercise']}::{outcome['check_id']}: {outcome.get('state', '?')} ({points})"


def _score(outcome: Mapping[str, Any], policy: str) -> float | None:
    """The cell's automatic score; None leaves it to the instructor (a deferral under ``defer``)."""
    if outcome.get("deferred") or outcome.get("state") == "skipped":
        return 0.0 if policy == "zero" else None
    return float(outcome.get("points") or 0.0)


def import_grades(
    grades: Mapping[str, Any], db_url: str, assignment: str, *, create: bool = False
) -> Imported:
    """Write the points of ``grades`` (a batch run's ``grades.json``) into the gradebook at ``db_url`` for
    ``assignment``; see the module's docstring for what is written."""
    policy = str(grades.get("deferred_policy", "defer"))
    done = Imported()
    with Gradebook(db_url) as gb:
        try:
            gb.find_assignment(assignment)
        except MissingEntry:
            raise GradebookImportError(
                f"the gradebook {db_url} has no assignment {assignment!r}: run `nbgrader generate_assignment "
                f"{assignment}` first"
            ) from None
        for student, record in sorted(grades["students"].items()):
            try:
                gb.find_student(student)
            except MissingEntry:
                if not create:
                    done.unknown_students.append(student)
                    continue
                gb.add_student(student)
            try:
                gb.find_submission(assignment, student)
            except MissingEntry:
                gb.add_submission(assignment, student)
            by_notebook: dict[str, list[Mapping[str, Any]]] = {}
            for outcome in record.get("outcomes", []):
                notebook = find_exercise(str(outcome["exercise"])).module
                by_notebook.setdefault(notebook, []).append(outcome)
            for notebook, outcomes in by_notebook.items():
                _write_notebook(gb, done, assignment, student, notebook, outcomes, policy, record)
        gb.db.commit()
    return done


def _write_notebook(
    gb: Gradebook,
    done: Imported,
    assignment: str,
    student: str,
    notebook: str,
    outcomes: list[Mapping[str, Any]],
    policy: str,
    record: Mapping[str, Any],
) -> None:
    lines = []
    for outcome in outcomes:
        cell = grade_id(str(outcome["exercise"]), str(outcome["check_id"]))
        try:
            grade = gb.find_grade(cell, notebook, assignment, student)
        except MissingEntry:
            done.unknown_cells.append(f"{notebook}/{cell}")
            continue
        score = _score(outcome, policy)
        grade.auto_score = score
        # a score the instructor gave by hand stands (nbgrader reads the manual score first)
        grade.needs_manual_grade = score is None and grade.manual_score is None
        done.written[student] = done.written.get(student, 0) + 1
        if score is None:
            done.deferred[student] = done.deferred.get(student, 0) + 1
        lines.append(_outcome_line(outcome))
    if not lines:
        return
    solution = grade_id(str(outcomes[0]["exercise"]), "solution")
    try:
        comment = gb.find_comment(solution, notebook, assignment, student)
    except MissingEntry:
        return  # a notebook without the kit's solution cell: the scores stand, without the comment
    comment.auto_comment = comment_text(str(record.get("graded_at", "")), lines)
