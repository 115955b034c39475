"""Preparing checks: a check's requirements and its reference side, computed *before any student code runs*.

``expected()`` of value and choice checks, the derandomized hypothesis inputs and the reference's values of
property checks stay in the judge's process; the worker never sees them. A grader bug found here costs the
check (``error``), never the session.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings

from ..specs.check import (
    Check,
    ChoiceCheck,
    Exercise,
    MeasurementCheck,
    PropertyCheck,
    ShapeCheck,
    ValueCheck,
)
from ..specs.requirements import unmet_reason
from .verdicts import GraderError, inputs_text


@dataclass(frozen=True, eq=False)
class Prepared:
    """A check with its reference side computed. ``unmet``: why it is skipped; ``error``: grader failure."""

    exercise: Exercise
    check: Check
    expected: Any = None
    examples: tuple[tuple[dict[str, Any], Any], ...] = ()
    unmet: str | None = None
    error: str | None = None
    #: The student's function is still the stub's (:mod:`grader.judge.untouched`): nothing was prepared.
    untouched: bool = False
    #: Not prepared yet: an outcome kept from an earlier run stands for it (the pytest plugin's cache);
    #: :func:`prepare` it before running it.
    lazy: bool = False


def draw_examples(strategy: Any, max_examples: int) -> list[dict[str, Any]]:
    """Up to ``max_examples`` kwargs dicts drawn from ``strategy``, the same ones on every run.

    Hypothesis runs derandomized (a fixed seed), with no deadline, no example database and the generate
    phase only; a local settings object is used, so no global profile changes.
    """
    drawn: list[dict[str, Any]] = []
    seen: set[str] = set()

    @settings(
        max_examples=max_examples,
        derandomize=True,
        deadline=None,
        database=None,
        phases=(Phase.generate,),
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    @given(strategy)
    def collect(kwargs: Any) -> None:
        if not isinstance(kwargs, Mapping) or not all(isinstance(k, str) for k in kwargs):
            raise GraderError(f"the strategy must draw dicts of keyword arguments, drew {kwargs!r}")
        key = repr(sorted(kwargs.items()))
        if key not in seen:
            seen.add(key)
            drawn.append(dict(kwargs))

    collect()
    return drawn


def prepare(check: Check, exercise: Exercise, lang: str = "zh", untouched: Container[str] = ()) -> Prepared:
    """Check the requirements and compute the reference side of ``check`` (before student code runs);
    where its function is among ``untouched`` (still the stub's), nothing past the requirements."""
    reason = unmet_reason(check.requires, lang)
    if reason is not None:
        return Prepared(exercise, check, unmet=reason)
    if check.func in untouched:  # not attempted: no expected value, no drawn input is worth computing
        return Prepared(exercise, check, untouched=True)
    try:
        if isinstance(check, ValueCheck):
            return Prepared(exercise, check, expected=check.expected())
        if isinstance(check, ChoiceCheck):
            expected = check.expected() if callable(check.expected) else check.expected
            if not isinstance(expected, str) or expected.strip().lower() not in check.choices:
                raise GraderError(f"expected() gave {expected!r}, not one of {check.choices}")
            return Prepared(exercise, check, expected=expected.strip().lower())
        if isinstance(check, PropertyCheck):
            examples = []
            for kwargs in draw_examples(check.strategy, check.max_examples):
                try:
                    value = check.reference(**kwargs)
                except Exception as exc:
                    raise GraderError(
                        f"the reference raised {exc!r} on {inputs_text(check, (), kwargs)}"
                    ) from exc
                examples.append((kwargs, value))
            if not examples:
                raise GraderError("the strategy drew no inputs")
            return Prepared(exercise, check, examples=tuple(examples))
        return Prepared(exercise, check)
    except Exception as exc:  # a grader bug must cost this check, not the session
        return Prepared(exercise, check, error=f"{exercise.id}::{check.id}: {type(exc).__name__}: {exc}")


def prepare_exercise(
    exercise: Exercise, lang: str = "zh", checks: Iterable[str] | None = None, untouched: Container[str] = ()
) -> list[Prepared]:
    """:func:`prepare` every check of ``exercise`` (or those named in ``checks``, in that order);
    ``untouched``: the student's functions still the stub's, whose checks need nothing prepared."""
    chosen = exercise.checks if checks is None else tuple(exercise.check(c) for c in checks)
    return [prepare(c, exercise, lang, untouched) for c in chosen]


def measures(p: Prepared) -> bool:
    """Whether ``p`` will ask the reference process for a measurement."""
    check = p.check
    return (
        p.unmet is None
        and p.error is None
        and not p.untouched
        and not p.lazy
        and isinstance(check, (MeasurementCheck, ShapeCheck))
        and check.reference is not None
    )
