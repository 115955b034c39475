"""grader: grades students' exercise functions against perfcore, fairly, reproducibly, with feedback.

- ``grader.spec``: the check specifications (one module per exercise in ``grader.checks``);
- ``grader.judge``: the trusted side of grading (references, comparison, scores); the student's code runs
  only in ``grader.worker``'s process, started by ``grader.confinement``, over ``grader.wire``;
- ``grader.plugin``: the pytest plugin (``pytest exercises/``), registered through ``pytest11``;
- ``grader.grade`` / ``grader.check``: the same judge outside pytest (files, modules, notebooks);
- ``grader.batch`` and ``grader.course``: batch grading, and what a course is given (stubs, nbgrader,
  Gradescope);
- ``grader.report``: the score table and Gradescope's results.json.

The rooms and the data flow are drawn in ``docs/ARCHITECTURE.md``.
"""

from .api import check, grade
from .outcome import ExerciseResult, Outcome
from .report import score_table
from .requirements import Requirements
from .spec import ChoiceCheck, Exercise, MeasurementCheck, PropertyCheck, ShapeCheck, ValueCheck

__all__ = [
    "ChoiceCheck",
    "Exercise",
    "ExerciseResult",
    "MeasurementCheck",
    "Outcome",
    "PropertyCheck",
    "Requirements",
    "ShapeCheck",
    "ValueCheck",
    "check",
    "grade",
    "score_table",
]
