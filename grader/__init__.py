"""grader: grades students' exercise functions against perfcore, fairly, reproducibly, with feedback.

Its rooms, one folder each, from the bottom up (``docs/ARCHITECTURE.md`` draws them and the flow of one check):

- ``grader.text``: every student-facing word, one catalogue; how values are shown;
- ``grader.sandbox``: the process boundary: the worker (the only place student code runs), the wire,
  confinement, CPU time, the judge's handle on a worker;
- ``grader.compare``: values, curves and paired-ratio statistics;
- ``grader.specs`` and ``grader.checks``: what a check is, and the checks of every exercise;
- ``grader.results``: outcomes and the environment record; ``grader.registry``: which exercises exist;
- ``grader.judge``: the trusted side: preparation, the ``Judge``, one runner per kind of check, perfcore's
  reference process;
- ``grader.reports``: the score table, Gradescope's JSON, the HTML report;
- ``grader.batch`` and ``grader.course``: batch grading, and what a course is given;
- front ends: ``grader.plugin`` (pytest, through ``pytest11``; its session, items, feedback and summary in
  ``grader.pytest``), ``grader.grade`` / ``grader.check`` (``grader.api``), ``python -m grader``.

This package's own module may import any room: it names what a course's code uses.
"""

from .api import check, grade
from .reports.table import score_table
from .results.outcome import ExerciseResult, Outcome
from .specs.check import ChoiceCheck, Exercise, MeasurementCheck, PropertyCheck, ShapeCheck, ValueCheck
from .specs.requirements import Requirements

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
