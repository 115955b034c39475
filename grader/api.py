"""Grading outside pytest: one call for a module, a file or a notebook's namespace.

``grade(target, "ex01")`` returns an :class:`~grader.outcome.ExerciseResult` (outcomes and points) for
``target``: a module, the path of a student's file, or a mapping such as a notebook's ``globals()``.
``check(namespace, "ex01", "1a_ridge_fp32")`` runs one check and raises ``AssertionError`` with the feedback
unless it passed, which is what an nbgrader grade cell needs (a cell that raises scores 0; a skipped
check raises too, saying why, since a grade needs a machine that meets the requirements).

The reference side is computed before the student's file is imported. For a module or a namespace the
student's code has already run; ``import grader`` in a notebook's first (locked) cell, before any student
cell, so that every later call of student code is bracketed by the sandbox.
"""

from __future__ import annotations

import os
import types
from collections.abc import Iterable, Mapping
from typing import Any

from .outcome import ExerciseResult, Outcome
from .registry import find_exercise
from .runner import DEFAULT_MAX_NOISE, Submission, grade_submission, load_submission, prepare_exercise


def grade(
    target: types.ModuleType | str | os.PathLike[str] | Mapping[str, Any],
    exercise_id: str,
    *,
    checks: list[str] | None = None,
    lang: str = "zh",
    deferred: str = "defer",
    max_noise: float = DEFAULT_MAX_NOISE,
    extra_checks: Iterable[str] = (),
) -> ExerciseResult:
    """Run the checks of ``exercise_id`` (all, or those named in ``checks``) on ``target``.

    ``extra_checks`` names modules with more exercises, as the pytest option ``grader_checks`` does.
    """
    exercise = find_exercise(exercise_id, extra_checks)
    prepared = prepare_exercise(exercise, lang, checks)
    if isinstance(target, types.ModuleType):
        submission = Submission.from_module(target)
    elif isinstance(target, (str, os.PathLike)):
        submission = load_submission(target, exercise, lang)
    elif isinstance(target, Mapping):
        submission = Submission.from_mapping(target)
    else:
        raise TypeError(
            "target must be a module, a file path or a mapping (a notebook's globals()), "
            f"got {type(target).__name__}"
        )
    return grade_submission(exercise, prepared, submission, lang, max_noise, deferred)


def check(
    namespace: types.ModuleType | str | os.PathLike[str] | Mapping[str, Any],
    exercise_id: str,
    check_id: str,
    *,
    lang: str = "zh",
    extra_checks: Iterable[str] = (),
) -> Outcome:
    """Run one check; return its Outcome when passed, else raise AssertionError with the feedback."""
    outcome = grade(namespace, exercise_id, checks=[check_id], lang=lang, extra_checks=extra_checks).outcomes[
        0
    ]
    if not outcome.passed:
        raise AssertionError(f"{outcome.name}: {outcome.message}")
    return outcome
