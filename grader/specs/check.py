"""Check specifications: what to call, on which inputs, against which perfcore reference, for how many points.

Specs only state things (frozen dataclasses, keyword-only); ``grader.judge`` reads them. One module per
exercise in ``grader.checks`` defines ``EXERCISE = Exercise(...)``::

    EXERCISE = Exercise(
        id="ex01", module="ex01_ridge_point", title_zh="平衡点", title_en="Ridge point",
        checks=(
            ValueCheck(id="1a_ridge_fp32", part="1a", points=2, func="answer_1a",
                       expected=lambda: perfcore.ridge_point(perfcore.A100, "fp32"), rtol=1e-3),
            ...
        ),
    )

Kinds of check:

- :class:`ValueCheck`: ``func(*args, **kwargs)`` against ``expected()`` (a lambda over perfcore, called by
  the grader before any student code runs) with a per-quantity tolerance (``grader.compare.values``).
- :class:`ChoiceCheck`: a categorical answer, compared after ``strip().lower()``.
- :class:`PropertyCheck`: ``func(**kw)`` against ``reference(**kw)`` on inputs drawn by hypothesis from
  ``strategy`` (a strategy of kwargs dicts), derandomized, so a hard-coded answer cannot pass and the same
  submission always gets the same grade.
- :class:`MeasurementCheck`: the student's measuring function and perfcore's reference, interleaved A B A B;
  the ratio of their medians must lie in a band chosen per kind of quantity.
- :class:`ShapeCheck`: a curve returned by the student must have the expected shape (``grader.compare.curves``).

Every check has ``points`` (partial credit: an exercise scores the sum of its passed checks), a ``part``
label from the lecture (``"1a"``), bilingual hints, :class:`~grader.specs.requirements.Requirements`, a
Gradescope ``visibility`` and a time limit ``timeout_s``. Malformed specs raise ``TypeError`` or
``ValueError`` naming the class and the field.
"""

from __future__ import annotations

import math
import numbers
import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

from hypothesis.strategies import SearchStrategy

from .handed import Handed
from .requirements import Requirements
from .tolerance import check_tolerance

#: Gradescope's visibility values.
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")

#: Default ratio bands (student median / reference median) per kind of measured quantity.
MEASUREMENT_BANDS: Mapping[str, tuple[float, float]] = {
    "dram": (0.8, 1.25),
    "cache": (0.6, 1.6),
    "compute": (0.7, 1.4),
    "overhead": (0.5, 2.0),
}

SHAPES = ("roofline", "overhead")


def higher_is_better(unit: str) -> bool:
    """Whether a larger figure in ``unit`` reads faster: a rate (``B/s``, ``FLOP/s``: anything per second)
    does, seconds do not; a speedup (``x``) is a ratio of two times, read as neither (False)."""
    return unit.endswith("/s")


class Work(NamedTuple):
    """What one honest call must at least do: bytes moved and FLOPs computed. The judge turns it into the
    fewest seconds the call can take on this machine (at its physical bandwidth and compute bounds)."""

    bytes: float = 0.0
    flops: float = 0.0


_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")


def _fail(obj: object, name: str, message: str, exc: type[Exception] = ValueError) -> Exception:
    return exc(f"{type(obj).__name__}.{name} {message}")


def _check_text(
    obj: object, name: str, *, pattern: re.Pattern[str] | None = None, empty_ok: bool = False
) -> None:
    value = getattr(obj, name)
    if not isinstance(value, str):
        raise _fail(obj, name, f"must be a string, got {value!r}", TypeError)
    if not value and not empty_ok:
        raise _fail(obj, name, "must not be empty")
    if pattern is not None and value and not pattern.fullmatch(value):
        raise _fail(obj, name, f"must match {pattern.pattern!r} (letters, digits, _ . -), got {value!r}")


def _check_positive(obj: object, name: str) -> None:
    value = getattr(obj, name)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _fail(obj, name, f"must be a number, got {value!r}", TypeError)
    if not math.isfinite(value) or value <= 0:
        raise _fail(obj, name, f"must be a positive finite number, got {value!r}")


def _check_callable(obj: object, name: str) -> None:
    if not callable(getattr(obj, name)):
        raise _fail(obj, name, f"must be callable, got {getattr(obj, name)!r}", TypeError)


def _check_given_callables(obj: object, *names: str) -> None:
    """Each of ``names`` that is given (not None) must be callable, in the order named."""
    for name in names:
        if getattr(obj, name) is not None:
            _check_callable(obj, name)


def _freeze_kwargs(obj: object, name: str) -> None:
    value = getattr(obj, name)
    if not isinstance(value, Mapping):
        raise _fail(obj, name, f"must be a mapping of argument names to values, got {value!r}", TypeError)
    if not all(isinstance(k, str) for k in value):
        raise _fail(obj, name, f"must have string keys, got {list(value)!r}", TypeError)
    object.__setattr__(obj, name, dict(value))


def _check_inputs(obj: Any) -> None:
    """``inputs`` (one distribution for the graded input and the probes) replaces ``probe``; ``probes`` is
    how many probe inputs are drawn from it."""
    if obj.inputs is not None:
        _check_callable(obj, "inputs")
        if obj.probe is not None:
            raise _fail(obj, "inputs", "replaces probe (the probes are drawn from inputs): give one of them")
    if isinstance(obj.probes, bool) or not isinstance(obj.probes, int) or obj.probes < 1:
        raise _fail(obj, "probes", f"must be a positive int, got {obj.probes!r}")


@dataclass(frozen=True, kw_only=True, eq=False)
class Check:
    """Fields every check has. ``id`` is unique within its exercise (``ex01::1a_ridge_fp32``)."""

    check_kind: ClassVar[str] = "check"

    id: str
    points: float
    func: str
    part: str
    hint_zh: str = ""
    hint_en: str = ""
    requires: Requirements = Requirements()
    visibility: str = "visible"
    timeout_s: float = 10.0

    def __post_init__(self) -> None:
        if type(self) is Check:
            raise TypeError(
                "Check is abstract: use ValueCheck, ChoiceCheck, PropertyCheck, MeasurementCheck "
                "or ShapeCheck"
            )
        _check_text(self, "id", pattern=_ID)
        _check_positive(self, "points")
        _check_text(self, "func")
        if not self.func.isidentifier():
            raise _fail(
                self, "func", f"must be a Python identifier (the student's function), got {self.func!r}"
            )
        _check_text(self, "part", pattern=_ID)
        _check_text(self, "hint_zh", empty_ok=True)
        _check_text(self, "hint_en", empty_ok=True)
        if not isinstance(self.requires, Requirements):
            raise _fail(self, "requires", f"must be a Requirements, got {self.requires!r}", TypeError)
        if self.visibility not in VISIBILITIES:
            raise _fail(self, "visibility", f"must be one of {VISIBILITIES}, got {self.visibility!r}")
        _check_positive(self, "timeout_s")

    def hint(self, lang: str) -> str:
        """The hint in ``lang``, falling back to the other language when only one is written."""
        first, second = (self.hint_zh, self.hint_en) if lang == "zh" else (self.hint_en, self.hint_zh)
        return first or second


@dataclass(frozen=True, kw_only=True, eq=False)
class ValueCheck(Check):
    """``func(*args, **kwargs)`` must match ``expected()`` within ``rtol``/``atol`` (see grader.compare.values)."""

    check_kind: ClassVar[str] = "value"

    expected: Callable[[], Any]
    args: tuple = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    rtol: float | None = 1e-6
    atol: float | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_callable(self, "expected")
        if not isinstance(self.args, tuple):
            raise _fail(self, "args", f"must be a tuple, got {self.args!r}", TypeError)
        _freeze_kwargs(self, "kwargs")
        object.__setattr__(self, "rtol", check_tolerance(f"{type(self).__name__}.rtol", self.rtol))
        object.__setattr__(self, "atol", check_tolerance(f"{type(self).__name__}.atol", self.atol))


@dataclass(frozen=True, kw_only=True, eq=False)
class ChoiceCheck(Check):
    """A categorical answer: ``func(*args, **kwargs).strip().lower()`` must equal the expected choice."""

    check_kind: ClassVar[str] = "choice"

    expected: Callable[[], str] | str
    choices: tuple[str, ...]
    args: tuple = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.choices, tuple) or len(self.choices) < 2:
            raise _fail(
                self, "choices", f"must be a tuple of at least two strings, got {self.choices!r}", TypeError
            )
        if not all(isinstance(c, str) and c.strip() for c in self.choices):
            raise _fail(self, "choices", f"must hold non-empty strings, got {self.choices!r}", TypeError)
        object.__setattr__(self, "choices", tuple(c.strip().lower() for c in self.choices))
        if isinstance(self.expected, str):
            if self.expected.strip().lower() not in self.choices:
                raise _fail(self, "expected", f"must be one of {self.choices}, got {self.expected!r}")
        elif not callable(self.expected):
            raise _fail(self, "expected", f"must be a string or a callable, got {self.expected!r}", TypeError)
        if not isinstance(self.args, tuple):
            raise _fail(self, "args", f"must be a tuple, got {self.args!r}", TypeError)
        _freeze_kwargs(self, "kwargs")


@dataclass(frozen=True, kw_only=True, eq=False)
class PropertyCheck(Check):
    """``func(**kw)`` must match ``reference(**kw)`` on ``max_examples`` inputs ``kw`` from ``strategy``.

    The inputs are drawn deterministically (hypothesis, derandomized, no deadline, no database) and the
    reference values computed before student code runs. Feedback shows the smallest failing input.
    """

    check_kind: ClassVar[str] = "property"

    strategy: Any
    reference: Callable[..., Any]
    rtol: float | None = 1e-6
    atol: float | None = None
    max_examples: int = 30

    def __post_init__(self) -> None:
        super().__post_init__()

        if not isinstance(self.strategy, SearchStrategy):
            raise _fail(
                self,
                "strategy",
                f"must be a hypothesis strategy of kwargs dicts, got {self.strategy!r}",
                TypeError,
            )
        _check_callable(self, "reference")
        object.__setattr__(self, "rtol", check_tolerance(f"{type(self).__name__}.rtol", self.rtol))
        object.__setattr__(self, "atol", check_tolerance(f"{type(self).__name__}.atol", self.atol))
        if (
            isinstance(self.max_examples, bool)
            or not isinstance(self.max_examples, int)
            or self.max_examples < 1
        ):
            raise _fail(self, "max_examples", f"must be a positive int, got {self.max_examples!r}")


@dataclass(frozen=True, kw_only=True, eq=False)
class MeasurementCheck(Check):
    """The student's measuring function (in the worker) against perfcore's (in the reference process),
    interleaved A B A B on one core.

    Both ``func(**kwargs)`` and ``reference(**kwargs)`` return one float (a rate such as bytes/s, or a time
    in seconds). Each round's ratio student / reference is paired; the interval of their median
    (:mod:`grader.compare.ratios`) must lie in ``band`` (default per ``kind``: dram, cache, compute, overhead; see
    ``MEASUREMENT_BANDS``): wholly outside is wrong; while it straddles an edge the judge adds rounds (from
    ``rounds`` up to a budget), and then defers the check (the machine was noisy) or, where the student's
    own figures scatter, calls it wrong. A figure beyond ``physical_bound()`` (above it when
    ``higher_is_better``, below it otherwise) is a measurement bug. Requirements default to torch and a
    serial run; the time limit to 120 s.

    ``work(**kwargs)`` gives the :class:`Work` of one operation the student measures: a call that returns
    sooner than that work can be done on this machine took no measurement. ``probe(rng)`` draws a second
    input the student has not seen (the judge seeds ``rng`` from the submission, so the same code meets
    the same probe): there the figure must be physically possible and, against perfcore's figure at the
    same input, within the band of ``probe_kind`` (default: ``kind``). A made-up constant cannot follow the
    physics to an input it never saw.

    ``inputs(u, rng)``, where given instead of ``probe``, is the check's one distribution of inputs: the
    input at quantile ``u`` (0 <= u < 1) of its main axis, any other argument drawn from ``rng``. The
    graded input and ``probes`` probe inputs are then all drawn from it (stratified in ``u``, shuffled,
    seeded from the submission: see :func:`grader.judge.runners.rounds.drawn_inputs`), and judged in the
    band of ``kind``: no code can tell the graded call from a probe, and ``kwargs`` only documents a typical
    input. Without ``physical_bound``, the figure at each input must be possible for its ``work``.

    ``graded_input(rng)``, where given with ``probe`` (a probe of another kind than the graded input, so
    that the two cannot share one distribution: m1's in-cache probe beside its DRAM copy), draws the graded
    input per submission as ``probe`` draws the probe: no fixed size then tells the graded call, and
    ``kwargs`` only documents a typical one.

    ``also(**kwargs)``, where given, is perfcore's figure for the same work done with another honest library
    (numpy's kernels where ``reference`` uses torch's): measured in the same rounds, and the band is widened
    by the ratio of the two, so that an honest student is judged against whichever library it used.

    ``handed``, where given (:class:`~grader.specs.handed.Handed`), makes the student's arguments from each
    input: buffers the judge draws fresh for every call and reads back after it, so that a call whose
    outputs do not hold the result of its work is wrong, whatever figure it returns. ``reference`` and
    ``work`` still take the input itself (its sizes).
    """

    check_kind: ClassVar[str] = "measurement"

    reference: Callable[..., float]
    kind: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    band: tuple[float, float] | None = None
    physical_bound: Callable[[], float] | None = None
    work: Callable[..., Work] | None = None
    probe: Callable[[random.Random], Mapping[str, Any]] | None = None
    probe_kind: str | None = None
    inputs: Callable[[float, random.Random], Mapping[str, Any]] | None = None
    probes: int = 1
    graded_input: Callable[[random.Random], Mapping[str, Any]] | None = None
    also: Callable[..., float] | None = None
    handed: Handed | None = None
    rounds: int = 5
    higher_is_better: bool = True
    unit: str = "B/s"
    single_thread: bool = True
    requires: Requirements = Requirements(torch=">=2.0", serial=True)
    timeout_s: float = 120.0

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_callable(self, "reference")
        if self.kind not in MEASUREMENT_BANDS:
            raise _fail(self, "kind", f"must be one of {tuple(MEASUREMENT_BANDS)}, got {self.kind!r}")
        _freeze_kwargs(self, "kwargs")
        if self.band is not None:
            ok = (
                isinstance(self.band, tuple)
                and len(self.band) == 2
                and all(isinstance(b, numbers.Real) and not isinstance(b, bool) for b in self.band)
                and 0 < self.band[0] < 1 < self.band[1] < math.inf
            )
            if not ok:
                raise _fail(
                    self, "band", f"must be a pair (low, high) with 0 < low < 1 < high, got {self.band!r}"
                )
        _check_given_callables(self, "physical_bound", "also", "work")
        if self.handed is not None and not isinstance(self.handed, Handed):
            raise _fail(self, "handed", f"must be a Handed, got {self.handed!r}", TypeError)
        if self.probe is not None:
            _check_callable(self, "probe")
            if self.work is None:
                raise _fail(self, "probe", "needs work (the probe is judged by the work it must do)")
        _check_inputs(self)
        if self.inputs is not None and self.work is None:
            raise _fail(self, "inputs", "needs work (every drawn input is judged by the work it must do)")
        if self.graded_input is not None:
            _check_callable(self, "graded_input")
            if self.inputs is not None:
                raise _fail(self, "graded_input", "is drawn by inputs already: give one of them")
            if self.work is None:
                raise _fail(
                    self, "graded_input", "needs work (a drawn input is judged by the work it must do)"
                )
        if self.probe_kind is not None and self.probe_kind not in MEASUREMENT_BANDS:
            raise _fail(
                self, "probe_kind", f"must be one of {tuple(MEASUREMENT_BANDS)}, got {self.probe_kind!r}"
            )
        if isinstance(self.rounds, bool) or not isinstance(self.rounds, int) or self.rounds < 3:
            raise _fail(
                self, "rounds", f"must be an int >= 3 (a median and an IQR need it), got {self.rounds!r}"
            )

    @property
    def ratio_band(self) -> tuple[float, float]:
        """The band the ratio of medians must lie in."""
        return self.band if self.band is not None else MEASUREMENT_BANDS[self.kind]


@dataclass(frozen=True, kw_only=True, eq=False)
class ShapeCheck(Check):
    """``func(**kwargs)`` returns a curve whose shape must be ``shape``.

    ``shape`` is ``"roofline"`` or ``"overhead"`` (see grader.compare.curves), or a callable that takes the returned
    value and gives None when the shape is right, else the reason (a string, shown to the student).
    ``work(**kwargs)``, where given, is the :class:`Work` the whole curve must at least do, as for
    :class:`MeasurementCheck`: a made-up table comes back too fast. ``reference(**kwargs)``, where given, is
    perfcore's side, measured alternately with the student's (A B A B, in its trusted process); where
    perfcore's own value does not have the shape here, the machine cannot show it now and the check is
    deferred, never "wrong". ``unit`` is what the curve's figures are in (``"s"`` by default, ``"FLOP/s"`` for
    a roofline's): a ratio beyond the band reads faster where a rate is higher, or seconds are lower. For a curve, each point's paired ratios must also lie in the band of ``kind``
    (:mod:`grader.compare.ratios`: wrong when more than a third of the points lie wholly outside, more rounds up to
    ``MAX_ROUNDS_FACTOR`` x ``rounds`` while that is undecided). ``probe(rng)`` draws other inputs the
    student has not seen (seeded from the submission): the curve there must show it measured (its work, its
    seconds) and follow perfcore's curve at the same inputs. ``inputs(u, rng)`` and ``probes``, where given
    instead of ``probe``, draw the graded input and the probes from one distribution, as for
    :class:`MeasurementCheck`. ``handed``, as for :class:`MeasurementCheck`: the judge's buffers, with
    :attr:`~grader.specs.handed.Handed.segments` saying which part of the watched output each point writes,
    so that each point is held to the runs of its own work. ``also(**kwargs)``, where given, is perfcore's
    curve at the same input with another honest library (numpy's BLAS where ``reference`` uses torch's), as
    for :class:`MeasurementCheck`: measured where the student's points are not all inside the band, and
    each point's band widened by the ratio of the two libraries' figures there.
    """

    check_kind: ClassVar[str] = "shape"

    shape: str | Callable[[Any], str | None]
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    work: Callable[..., Work] | None = None
    reference: Callable[..., Any] | None = None
    probe: Callable[[random.Random], Mapping[str, Any]] | None = None
    inputs: Callable[[float, random.Random], Mapping[str, Any]] | None = None
    probes: int = 1
    kind: str = "overhead"
    rounds: int = 2
    single_thread: bool = True
    unit: str = "s"
    handed: Handed | None = None
    also: Callable[..., Any] | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.handed is not None and not isinstance(self.handed, Handed):
            raise _fail(self, "handed", f"must be a Handed, got {self.handed!r}", TypeError)
        if not isinstance(self.unit, str) or not self.unit:
            raise _fail(
                self,
                "unit",
                f"must be a non-empty str (the curve's figures: 's', 'FLOP/s'), got {self.unit!r}",
            )
        _check_given_callables(self, "work", "reference", "probe", "also")
        _check_inputs(self)
        if self.kind not in MEASUREMENT_BANDS:
            raise _fail(self, "kind", f"must be one of {tuple(MEASUREMENT_BANDS)}, got {self.kind!r}")
        if isinstance(self.rounds, bool) or not isinstance(self.rounds, int) or self.rounds < 1:
            raise _fail(self, "rounds", f"must be a positive int, got {self.rounds!r}")
        if isinstance(self.shape, str):
            if self.shape not in SHAPES:
                raise _fail(self, "shape", f"must be one of {SHAPES} or a callable, got {self.shape!r}")
        elif not callable(self.shape):
            raise _fail(
                self, "shape", f"must be one of {SHAPES} or a callable, got {self.shape!r}", TypeError
            )
        _freeze_kwargs(self, "kwargs")


@dataclass(frozen=True, kw_only=True, eq=False)
class Exercise:
    """One exercise of the lecture: the student module it grades and its checks.

    ``module`` is the student file's stem: a file ``<anywhere>/<module>.py`` collected by pytest is graded
    as this exercise. ``import_timeout_s`` limits the import of the student module.
    """

    id: str
    module: str
    title_zh: str
    title_en: str
    checks: tuple[Check, ...]
    import_timeout_s: float = 30.0

    def __post_init__(self) -> None:
        _check_text(self, "id", pattern=_ID)
        _check_text(self, "module")
        if not self.module.isidentifier():
            raise _fail(self, "module", f"must be a Python module name (a file stem), got {self.module!r}")
        _check_text(self, "title_zh", empty_ok=True)
        _check_text(self, "title_en", empty_ok=True)
        if isinstance(self.checks, list):
            object.__setattr__(self, "checks", tuple(self.checks))
        if not isinstance(self.checks, tuple) or not self.checks:
            raise _fail(
                self, "checks", f"must be a non-empty tuple of checks, got {self.checks!r}", TypeError
            )
        seen: set[str] = set()
        for check in self.checks:
            if not isinstance(check, Check):
                raise _fail(self, "checks", f"must hold Check objects, got {check!r}", TypeError)
            if check.id in seen:
                raise _fail(
                    self, "checks", f"has the check id {check.id!r} twice (ids are unique per exercise)"
                )
            seen.add(check.id)
        _check_positive(self, "import_timeout_s")

    def check(self, check_id: str) -> Check:
        """The check named ``check_id``; a KeyError lists the ids there are."""
        for check in self.checks:
            if check.id == check_id:
                return check
        raise KeyError(f"exercise {self.id} has no check {check_id!r}; it has {[c.id for c in self.checks]}")

    def title(self, lang: str) -> str:
        return (self.title_zh if lang == "zh" else self.title_en) or self.title_en or self.title_zh

    @property
    def max_points(self) -> float:
        return float(sum(c.points for c in self.checks))

    def number(self, check_id: str) -> str:
        """Gradescope's test number, ``"<exercise>.<check position>"``: ``"1.2"`` for ``ex01``, ``"m1.2"`` for
        any other id, so that numbers never collide across exercises."""
        match = re.fullmatch(r"ex0*(\d+)", self.id)
        head = match.group(1) if match else self.id
        index = [c.id for c in self.checks].index(check_id) + 1
        return f"{head}.{index}"
