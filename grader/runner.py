"""Running checks on a submission, without pytest: prepare, load, call, compare, give an Outcome.

The order is what makes grades fair and reproducible:

1. :func:`prepare` (for each check) evaluates the requirements and computes the reference side *before
   any student code runs*: ``expected()`` of value and choice checks, the derandomized hypothesis inputs
   and their reference values of property checks. They are kept in :class:`Prepared` objects that student
   code is never handed.
2. :func:`load_submission` imports the student's file under a private, unique module name, with a time
   limit; an exception there (``SystemExit`` included) becomes an ``error`` outcome for every check of the
   exercise, with a traceback cut to the student's own frames.
3. :func:`run_check` calls the student's function under the check's time limit. Every call of student
   code is bracketed by a sandbox snapshot and restore (``grader.sandbox``), so patching perfcore or the
   grader changes nothing; the comparison (``grader.compare``) runs after the restore.

``NotImplementedError`` means *not attempted* (no traceback); any other exception is an ``error`` showing
the student's frames; a value of the wrong kind (NaN, a string, an array where a number is due) is
*wrong*, never a crash. A ``KeyboardInterrupt`` is let through so that Ctrl-C still stops a session.
"""

from __future__ import annotations

import copy
import importlib.util
import itertools
import os
import statistics
import sys
import traceback
import types
from collections.abc import Callable, Iterable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import sandbox
from .compare import NotANumber, as_number, describe, mismatch
from .messages import Text, kind_of, render, show, show_inputs
from .outcome import ExerciseResult, Outcome
from .requirements import unmet_reason
from .shapes import shape_problem
from .spec import (
    Check,
    ChoiceCheck,
    Exercise,
    MeasurementCheck,
    PropertyCheck,
    ShapeCheck,
    ValueCheck,
)
from .timelimit import CheckTimeout, shielded, time_limit

DEFAULT_MAX_NOISE = 0.25
MEASUREMENT_ATTEMPTS = 2
MAX_TRACE_FRAMES = 10

_GRADER_DIR = os.path.dirname(os.path.abspath(__file__))
_counter = itertools.count()
_deepcopy = copy.deepcopy
_take_snapshot = sandbox.take_snapshot
_restore = sandbox.restore


class GraderError(Exception):
    """The grader itself failed (a bad spec, a reference that raised); never the student's fault."""


# ---------------------------------------------------------------------------------------------------
# 1. preparing checks


@dataclass(frozen=True, eq=False)
class Prepared:
    """A check with its reference side computed. ``unmet``: why it is skipped; ``error``: grader failure."""

    exercise: Exercise
    check: Check
    expected: Any = None
    examples: tuple[tuple[dict[str, Any], Any], ...] = ()
    unmet: str | None = None
    error: str | None = None


def _frozen(value: Any) -> Any:
    import numpy as np

    if isinstance(value, np.ndarray):
        value = value.copy()
        value.flags.writeable = False
    return value


def draw_examples(strategy: Any, max_examples: int) -> list[dict[str, Any]]:
    """Up to ``max_examples`` kwargs dicts drawn from ``strategy``, the same ones on every run.

    Hypothesis runs derandomized (a fixed seed), with no deadline, no example database and the generate
    phase only; a local settings object is used, so no global profile changes.
    """
    from hypothesis import HealthCheck, Phase, given, settings

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
            drawn.append(_deepcopy(dict(kwargs)))

    collect()
    return drawn


def prepare(check: Check, exercise: Exercise, lang: str = "zh") -> Prepared:
    """Check the requirements and compute the reference side of ``check`` (before student code runs)."""
    reason = unmet_reason(check.requires, lang)
    if reason is not None:
        return Prepared(exercise, check, unmet=reason)
    try:
        if isinstance(check, ValueCheck):
            return Prepared(exercise, check, expected=_frozen(check.expected()))
        if isinstance(check, ChoiceCheck):
            expected = check.expected() if callable(check.expected) else check.expected
            if not isinstance(expected, str) or expected.strip().lower() not in check.choices:
                raise GraderError(f"expected() gave {expected!r}, not one of {check.choices}")
            return Prepared(exercise, check, expected=expected.strip().lower())
        if isinstance(check, PropertyCheck):
            examples = []
            for kwargs in draw_examples(check.strategy, check.max_examples):
                try:
                    value = check.reference(**_deepcopy(kwargs))
                except Exception as exc:
                    raise GraderError(f"the reference raised {exc!r} on {show_inputs((), kwargs)}") from exc
                examples.append((kwargs, _frozen(value)))
            if not examples:
                raise GraderError("the strategy drew no inputs")
            return Prepared(exercise, check, examples=tuple(examples))
        return Prepared(exercise, check)
    except Exception as exc:  # a grader bug must cost this check, not the session
        return Prepared(exercise, check, error=f"{exercise.id}::{check.id}: {type(exc).__name__}: {exc}")


def prepare_exercise(
    exercise: Exercise, lang: str = "zh", checks: Iterable[str] | None = None
) -> list[Prepared]:
    """:func:`prepare` every check of ``exercise`` (or those named in ``checks``, in that order)."""
    chosen = exercise.checks if checks is None else tuple(exercise.check(c) for c in checks)
    return [prepare(c, exercise, lang) for c in chosen]


# ---------------------------------------------------------------------------------------------------
# 2. loading the submission


@dataclass(frozen=True, eq=False)
class Submission:
    """What the student handed in: a namespace of functions, or why it could not be loaded."""

    namespace: Mapping[str, Any] | None
    file: str | None = None
    failure_state: str | None = None
    failure_message: str | None = None
    source: str = ""

    @classmethod
    def from_module(cls, module: types.ModuleType) -> Submission:
        return cls(vars(module), getattr(module, "__file__", None))

    @classmethod
    def from_mapping(cls, namespace: Mapping[str, Any]) -> Submission:
        return cls(namespace, None)


def student_trace(exc: BaseException, student_file: str | None) -> str:
    """The traceback of ``exc`` cut to the student's frames (their file; else all but the grader's)."""
    target = os.path.realpath(student_file) if student_file else None

    def is_student(filename: str) -> bool:
        if target is not None:
            return os.path.realpath(filename) == target
        return not (filename.startswith(_GRADER_DIR) or filename.startswith("<frozen"))

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if is_student(f.filename)]
    lines = traceback.format_list(frames)
    if len(lines) > MAX_TRACE_FRAMES:  # a runaway recursion: the first frames and the last ones say enough
        omitted = len(lines) - MAX_TRACE_FRAMES
        lines = lines[:3] + [f"  ... {omitted} frames ...\n"] + lines[3 - MAX_TRACE_FRAMES :]
    lines += traceback.format_exception_only(type(exc), exc)
    return "".join(lines).rstrip()


def _restore_robustly(snap: sandbox.Snapshot) -> None:
    interrupted: BaseException | None = None
    for _ in range(1000):
        try:
            with shielded():
                _restore(snap)
            break
        except CheckTimeout as exc:  # the alarm landed before the shield went up: restore again
            interrupted = exc
    if interrupted is not None:
        raise interrupted


def preimport_references(exercise: Exercise) -> None:
    """Import every perfcore module and torch's benchmark Timer before any student code runs.

    The sandbox restores the modules that were loaded when its snapshot was taken; a module first imported
    by the student's file (``import perfcore.measure`` and a patch of ``copy_bandwidth``) was not in the
    snapshot, and a measurement's reference, which imports it at call time, would get the patched one.
    Loading them first puts them in every snapshot. Only plans with measurement or shape checks need it
    (other references are computed before the student's file is imported).
    """
    if not any(isinstance(c, (MeasurementCheck, ShapeCheck)) for c in exercise.checks):
        return
    import pkgutil

    import perfcore

    names = [
        m.name for m in pkgutil.walk_packages(perfcore.__path__, "perfcore.") if "__main__" not in m.name
    ]
    for name in [*names, "torch.utils.benchmark"]:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: S112 - an optional part (no torch, no GPU): nothing to protect there
            continue


def load_submission(path: str | os.PathLike[str], exercise: Exercise, lang: str = "zh") -> Submission:
    """Import the student's file (see the module docstring); never raises for the student's faults.

    The outcomes name the file as ``path`` was given (their ``source``).
    """
    source = os.fspath(path)
    file = str(Path(path).resolve())
    name = f"_perfkit_student_{exercise.module}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        message = render("import_error", lang, file=os.path.basename(file), trace=f"cannot import {file}")
        return Submission(None, file, "error", message, source)
    module = importlib.util.module_from_spec(spec)
    directory = os.path.dirname(file)
    if directory not in sys.path:  # like pytest's "prepend" import mode: sibling helper modules import
        sys.path.insert(0, directory)
    sys.modules[name] = module
    preimport_references(exercise)
    snap = _take_snapshot()
    try:
        try:
            with time_limit(exercise.import_timeout_s):
                spec.loader.exec_module(module)
        finally:
            _restore_robustly(snap)
    except CheckTimeout:
        sys.modules.pop(name, None)
        message = render("import_timeout", lang, file=os.path.basename(file), limit=exercise.import_timeout_s)
        return Submission(None, file, "timeout", message, source)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit included: a student's exit() must not end the session
        sys.modules.pop(name, None)
        message = render("import_error", lang, file=os.path.basename(file), trace=student_trace(exc, file))
        return Submission(None, file, "error", message, source)
    return Submission(vars(module), file, source=source)


# ---------------------------------------------------------------------------------------------------
# 3. running a check


class _NotAttempted(Exception):
    pass


class _StudentRaised(Exception):
    def __init__(self, exc: BaseException) -> None:
        super().__init__(repr(exc))
        self.exc = exc


class _Verdict(Exception):
    """Raised by the kind runners to end a check early with a state and a message."""

    def __init__(self, state: str, message: str, deferred: bool = False) -> None:
        super().__init__(message)
        self.state = state
        self.message = message
        self.deferred = deferred


def call_student(
    func: Callable[..., Any],
    args: tuple = (),
    kwargs: Mapping[str, Any] | None = None,
    snap: sandbox.Snapshot | None = None,
) -> Any:
    """``func(*args, **kwargs)`` on copies of the arguments, the protected modules restored afterwards.

    ``snap`` is the state to restore; by default one taken just before the call. A caller that calls the
    student many times with nothing of its own running in between (a property check) passes one snapshot
    for all the calls, since taking one walks every loaded module.

    Raises ``_NotAttempted`` for NotImplementedError and ``_StudentRaised`` for any other exception
    (SystemExit included); ``CheckTimeout`` and ``KeyboardInterrupt`` pass through.
    """
    args = _deepcopy(args)
    kwargs = _deepcopy(dict(kwargs or {}))
    snap = snap if snap is not None else _take_snapshot()
    try:
        try:
            return func(*args, **kwargs)
        finally:
            _restore_robustly(snap)
    except (CheckTimeout, KeyboardInterrupt):
        raise
    except NotImplementedError:
        raise _NotAttempted() from None
    except BaseException as exc:
        raise _StudentRaised(exc) from None


def _join(lang: str, *parts: str) -> str:
    return render("sep", lang).join(p for p in parts if p)


def _wrong_feedback(
    check: Check, text: Text, lang: str, args: tuple = (), kwargs: Mapping | None = None
) -> str:
    inputs = render("input", lang, inputs=show_inputs(args, kwargs)) if (args or kwargs) else ""
    hint = render("hint", lang, hint=check.hint(lang)) if check.hint(lang) else ""
    return _join(lang, describe(text, lang), inputs, hint)


def _run_value(p: Prepared, func: Callable[..., Any], lang: str, **_: Any) -> None:
    check = p.check
    assert isinstance(check, ValueCheck)
    got = call_student(func, check.args, check.kwargs)
    text = mismatch(p.expected, got, check.rtol, check.atol)
    if text is not None:
        raise _Verdict("wrong", _wrong_feedback(check, text, lang, check.args, check.kwargs))


def _run_choice(p: Prepared, func: Callable[..., Any], lang: str, **_: Any) -> None:
    check = p.check
    assert isinstance(check, ChoiceCheck)
    got = call_student(func, check.args, check.kwargs)
    answer = str.lower(str.strip(got)) if isinstance(got, str) else None
    if answer not in check.choices:
        text = Text("choice_invalid", {"got": show(got), "choices": " / ".join(check.choices)})
    elif answer != p.expected:
        text = Text("choice_wrong", {"expected": show(p.expected), "got": show(got)})
    else:
        return
    raise _Verdict("wrong", _wrong_feedback(check, text, lang, check.args, check.kwargs))


def _run_property(
    p: Prepared, func: Callable[..., Any], lang: str, student_file: str | None, **_: Any
) -> None:
    check = p.check
    assert isinstance(check, PropertyCheck)
    failures: list[tuple[tuple[int, str], dict[str, Any], Text]] = []
    snap = _take_snapshot()  # only student calls run in this loop; each is followed by a restore to it
    for kwargs, expected in p.examples:
        try:
            got = call_student(func, (), kwargs, snap)
        except _StudentRaised as raised:
            trace = student_trace(raised.exc, student_file)
            message = render("raised_at", lang, func=check.func, inputs=show_inputs((), kwargs), trace=trace)
            raise _Verdict("error", message) from None
        text = mismatch(expected, got, check.rtol, check.atol)
        if text is not None:
            shown = show_inputs((), kwargs)
            failures.append(((len(shown), shown), kwargs, text))
    if failures:
        best = min(failures, key=lambda f: f[0])
        smallest, text = best[1], best[2]
        message = render(
            "property_wrong",
            lang,
            failed=len(failures),
            total=len(p.examples),
            inputs=show_inputs((), smallest),
            detail=describe(text, lang),
        )
        hint = render("hint", lang, hint=check.hint(lang)) if check.hint(lang) else ""
        raise _Verdict("wrong", _join(lang, message, hint))


def _quartile_spread(values: list[float]) -> float:
    q = statistics.quantiles(values, n=4, method="inclusive")
    median = statistics.median(values)
    return (q[2] - q[0]) / median if median > 0 else float("inf")


def _run_measurement(p: Prepared, func: Callable[..., Any], lang: str, max_noise: float, **_: Any) -> None:
    from perfcore.measure.timing import interleave, single_thread

    check = p.check
    assert isinstance(check, MeasurementCheck)
    low, high = check.ratio_band
    try:
        bound = float(check.physical_bound()) if check.physical_bound is not None else None
    except Exception as exc:
        raise GraderError(f"physical_bound() raised {exc!r}") from exc

    def student() -> float:
        got = call_student(func, (), check.kwargs)
        try:
            value = float(as_number(got, check.unit))
        except NotANumber:
            value = float("nan")
        if not (value > 0 and value < float("inf")):
            text = Text("measure_not_number", {"unit": check.unit, "kind": kind_of(got), "got": show(got)})
            raise _Verdict("wrong", _wrong_feedback(check, text, lang, (), check.kwargs))
        return value

    def reference() -> float:
        try:
            return float(check.reference(**_deepcopy(dict(check.kwargs))))
        except Exception as exc:
            raise GraderError(f"the reference measurement raised {exc!r}") from exc

    verdict: _Verdict | None = None
    for attempt in range(1, MEASUREMENT_ATTEMPTS + 1):
        with single_thread() if check.single_thread else nullcontext():
            samples = interleave({"student": student, "reference": reference}, check.rounds)
        ref, mine = samples["reference"], samples["student"]
        noise = _quartile_spread(ref)
        got, expected = statistics.median(mine), statistics.median(ref)
        fields = {"got": show(got), "reference": show(expected), "unit": check.unit}
        if noise > max_noise:
            reason = render("measure_noisy", lang, noise=f"{noise:.3g}", limit=f"{max_noise:.3g}")
            verdict = _Verdict("skipped", reason, deferred=True)
        elif bound is not None and (got > bound if check.higher_is_better else got < bound):
            key = "measure_bound" if check.higher_is_better else "measure_below"
            text = Text(key, {**fields, "bound": show(bound)})
            verdict = _Verdict("wrong", _wrong_feedback(check, text, lang, (), check.kwargs))
        else:
            ratio = got / expected
            if low <= ratio <= high:
                return
            text = Text(
                "measure_band",
                {**fields, "ratio": f"{ratio:.3g}", "low": low, "high": high, "attempts": attempt},
            )
            verdict = _Verdict("wrong", _wrong_feedback(check, text, lang, (), check.kwargs))
    assert verdict is not None
    raise verdict


def _run_shape(p: Prepared, func: Callable[..., Any], lang: str, **_: Any) -> None:
    check = p.check
    assert isinstance(check, ShapeCheck)
    got = call_student(func, (), check.kwargs)
    text = shape_problem(check.shape, got)
    if text is not None:
        raise _Verdict("wrong", _wrong_feedback(check, text, lang, (), check.kwargs))


_KIND_RUNNERS: dict[type, Callable[..., None]] = {
    ValueCheck: _run_value,
    ChoiceCheck: _run_choice,
    PropertyCheck: _run_property,
    MeasurementCheck: _run_measurement,
    ShapeCheck: _run_shape,
}


def make_outcome(
    p: Prepared, state: str, message: str, lang: str = "zh", deferred: bool = False, source: str = ""
) -> Outcome:
    """The Outcome of ``p`` in ``state``: full points when passed, none otherwise."""
    check, exercise = p.check, p.exercise
    return Outcome(
        exercise=exercise.id,
        check_id=check.id,
        part=check.part,
        state=state,
        points=float(check.points) if state == "passed" else 0.0,
        max_points=float(check.points),
        message=message,
        deferred=deferred,
        kind=check.check_kind,
        visibility=check.visibility,
        number=exercise.number(check.id),
        title=exercise.title(lang),
        source=source,
    )


def run_check(
    p: Prepared, submission: Submission, lang: str = "zh", max_noise: float = DEFAULT_MAX_NOISE
) -> Outcome:
    """Run one prepared check on ``submission`` and say how it went (never raises for student faults)."""
    check = p.check

    def done(state: str, message: str, deferred: bool = False) -> Outcome:
        if deferred:
            message = render("deferred", lang, reason=message)
        return make_outcome(p, state, message, lang, deferred, submission.source)

    if p.unmet is not None:
        return done("skipped", p.unmet, deferred=True)
    if p.error is not None:
        return done("error", render("grader_bug", lang, error=p.error))
    if submission.namespace is None:
        return done(submission.failure_state or "error", submission.failure_message or "")
    func = submission.namespace.get(check.func)
    if func is None:
        return done("not_attempted", render("func_missing", lang, func=check.func))
    if not callable(func):
        return done("error", render("func_not_callable", lang, func=check.func, kind=kind_of(func)))
    runner = _runner_for(check)
    note = ""
    try:
        with time_limit(check.timeout_s) as enforced:
            if not enforced:
                note = " " + render("no_time_limit", lang)
            runner(p, func, lang=lang, max_noise=max_noise, student_file=submission.file)
    except _Verdict as verdict:
        return done(verdict.state, verdict.message + note, verdict.deferred)
    except _NotAttempted:
        return done("not_attempted", render("not_attempted", lang, func=check.func))
    except _StudentRaised as raised:
        return done(
            "error", render("raised", lang, func=check.func, trace=student_trace(raised.exc, submission.file))
        )
    except CheckTimeout:
        return done("timeout", render("timeout", lang, func=check.func, limit=check.timeout_s))
    except GraderError as exc:
        return done("error", render("grader_bug", lang, error=f"{p.exercise.id}::{check.id}: {exc}"))
    except Exception as exc:  # raised while reading the student's value (a doctored __len__, __array__ ...)?
        if _has_frame_in(exc, submission.file):
            return done(
                "error", render("raised", lang, func=check.func, trace=student_trace(exc, submission.file))
            )
        return done("error", render("grader_bug", lang, error=f"{p.exercise.id}::{check.id}: {exc!r}"))
    return done("passed", render("passed", lang) + note)


def _has_frame_in(exc: BaseException, student_file: str | None) -> bool:
    if student_file is None:
        return False
    target = os.path.realpath(student_file)
    return any(os.path.realpath(f.filename) == target for f in traceback.extract_tb(exc.__traceback__))


def _runner_for(check: Check) -> Callable[..., None]:
    for cls, runner in _KIND_RUNNERS.items():
        if isinstance(check, cls):
            return runner
    raise GraderError(f"no runner for checks of type {type(check).__name__}")


def grade_submission(
    exercise: Exercise,
    prepared: list[Prepared],
    submission: Submission,
    lang: str = "zh",
    max_noise: float = DEFAULT_MAX_NOISE,
    deferred: str = "defer",
) -> ExerciseResult:
    """Run ``prepared`` checks of ``exercise`` on ``submission``."""
    outcomes = tuple(run_check(p, submission, lang, max_noise) for p in prepared)
    return ExerciseResult(exercise.id, outcomes, deferred, exercise.title(lang))
