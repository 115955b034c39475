"""Which exercises exist: the ``EXERCISE`` objects of the modules in ``grader.checks``, plus extra modules.

Every module ``grader/checks/exNN.py`` defines ``EXERCISE = Exercise(...)``. A course (or a test) can add
exercises from other importable modules by name: the pytest ini option ``grader_checks`` (a list of module
names), ``--grader-checks``, or the ``extra`` argument here. Exercise ids and student module stems must be
unique across all of them.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable, Mapping

from . import checks
from .specs.check import Exercise


class RegistryError(ValueError):
    """A checks module is missing, has no EXERCISE, or clashes with another one."""


def _exercise_of(module_name: str) -> Exercise:
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise RegistryError(f"cannot import the checks module {module_name!r}: {exc}") from exc
    exercise = getattr(module, "EXERCISE", None)
    if not isinstance(exercise, Exercise):
        raise RegistryError(f"checks module {module_name!r} must define EXERCISE = Exercise(...)")
    return exercise


def builtin_check_modules() -> list[str]:
    """The module names in the package grader.checks, sorted."""
    return sorted(f"{checks.__name__}.{m.name}" for m in pkgutil.iter_modules(checks.__path__) if not m.ispkg)


def load_exercises(extra: Iterable[str] = ()) -> dict[str, Exercise]:
    """``{exercise id: Exercise}`` of grader.checks and the ``extra`` modules, in that order."""
    exercises: dict[str, Exercise] = {}
    stems: dict[str, str] = {}
    names = builtin_check_modules() + [m for m in extra if m]
    for name in dict.fromkeys(names):
        exercise = _exercise_of(name)
        if exercise.id in exercises:
            raise RegistryError(f"exercise id {exercise.id!r} of {name!r} is already registered")
        if exercise.module in stems:
            raise RegistryError(
                f"student module {exercise.module!r} of {name!r} is already graded by exercise "
                f"{stems[exercise.module]}"
            )
        exercises[exercise.id] = exercise
        stems[exercise.module] = exercise.id
    return exercises


def by_module(exercises: Mapping[str, Exercise]) -> dict[str, Exercise]:
    """``{student module stem: Exercise}``."""
    return {e.module: e for e in exercises.values()}


def find_exercise(exercise_id: str, extra: Iterable[str] = ()) -> Exercise:
    """The exercise ``exercise_id`` (or whose student module is named so); a KeyError lists the known ones."""
    exercises = load_exercises(extra)
    if exercise_id in exercises:
        return exercises[exercise_id]
    stems = by_module(exercises)
    if exercise_id in stems:
        return stems[exercise_id]
    raise KeyError(f"no exercise {exercise_id!r}; known: {sorted(exercises)}")
