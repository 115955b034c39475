"""grader: grades students' exercise functions against perfcore, fairly, reproducibly, with feedback.

- ``grader.spec``: the check specifications (one module per exercise in ``grader.checks``);
- ``grader.runner``: preparing references, importing a submission, running a check (no pytest);
- ``grader.plugin``: the pytest plugin (``pytest exercises/``), registered through ``pytest11``;
- ``grader.grade`` / ``grader.check``: the same checks outside pytest (nbgrader cells, notebooks);
- ``grader.report``: the score table and Gradescope's results.json.
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
