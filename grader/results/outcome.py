"""Outcomes: what one check gave (state, points, message) and what an exercise sums to.

States: ``passed`` (full points), ``wrong``, ``not_attempted`` (the stub still raises NotImplementedError),
``error`` (the student's code raised, at import or in the call), ``timeout``, and ``skipped`` (a requirement
unmet, or a machine too noisy to measure fairly). A skipped check's points are *deferred*: left out of the
maximum and listed as such, or counted as zero when the session asks for ``deferred="zero"``. The state's
value stays ``skipped`` in every file a script reads (grades.json, the journal, Gradescope's tags), with
``deferred`` true beside it; every view a person reads names it "deferred" / "暂缓计分"
(:func:`grader.reports.table.state_label`).

Outcomes are plain data (``to_dict``/``from_dict`` with builtins only), so they travel from pytest-xdist
workers to the controller inside test reports.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from ..specs.check import Check, Exercise
from .measured import Measured


class State(str, enum.Enum):
    """What became of a check. A ``str`` enum: ``State.PASSED == "passed"``, and JSON writes the string."""

    PASSED = "passed"
    WRONG = "wrong"
    NOT_ATTEMPTED = "not_attempted"
    ERROR = "error"
    TIMEOUT = "timeout"
    SKIPPED = "skipped"

    def __str__(self) -> str:
        return self.value


STATES = tuple(s.value for s in State)
#: What a skipped check's points do: left out of the maximum (defer) or counted as zero.
DEFERRED_POLICIES = ("defer", "zero")


@dataclass(frozen=True)
class Outcome:
    """The result of one check. ``points`` is what was earned; ``max_points`` what the check is worth.

    ``kind``, ``visibility``, ``number`` (Gradescope's "1.2"), ``title`` (of the exercise) and ``source``
    (the graded file) are carried for the reports.
    """

    exercise: str
    check_id: str
    part: str
    state: str
    points: float
    max_points: float
    message: str
    deferred: bool = False
    kind: str = ""
    visibility: str = "visible"
    number: str = ""
    title: str = ""
    source: str = ""

    #: The comparison's parts as fields beside the prose (expected, got, input, tolerance), where it has them.
    details: Mapping[str, str] | None = None
    #: What a measurement's rounds gave (the student's figures or curves and perfcore's, the unit), for the
    #: HTML report's plots (:class:`~grader.results.measured.Measured`; given as its plain dict, from JSON or
    #: a worker's report, it is read into one); None for checks that measure nothing.
    measured: Measured | None = None
    #: When a measurement shown again from the student's own pytest cache was taken (its file unchanged
    #: since: :mod:`grader.results.reuse`); "" where it was measured in this run.
    reused: str = ""

    def __post_init__(self) -> None:
        if self.state not in STATES:
            raise ValueError(f"Outcome.state must be one of {STATES}, got {self.state!r}")
        object.__setattr__(self, "state", State(self.state).value)
        if not 0 <= self.points <= self.max_points:
            raise ValueError(f"Outcome.points must lie in [0, {self.max_points}], got {self.points}")
        if isinstance(self.measured, Mapping):  # the plain dict of to_dict, back from JSON or a worker
            object.__setattr__(self, "measured", Measured.from_dict(self.measured))
        elif not isinstance(self.measured, Measured):  # None, or a damaged record: nothing to draw
            object.__setattr__(self, "measured", None)

    @classmethod
    def of(
        cls,
        exercise: Exercise,
        check: Check,
        state: State | str,
        message: str,
        *,
        lang: str = "zh",
        deferred: bool = False,
        source: str = "",
        details: Mapping[str, str] | None = None,
        measured: Measured | Mapping[str, Any] | None = None,
        reused: str = "",
    ) -> Outcome:
        """The one way to make an Outcome: full points when passed, none otherwise, the rest from the spec."""
        state = State(state)
        return cls(
            exercise=exercise.id,
            check_id=check.id,
            part=check.part,
            state=state.value,
            points=float(check.points) if state is State.PASSED else 0.0,
            max_points=float(check.points),
            message=printable(message),  # the student's output and exception texts are in it
            deferred=deferred and state is State.SKIPPED,
            kind=check.check_kind,
            visibility=check.visibility,
            number=exercise.number(check.id),
            title=exercise.title(lang),
            source=source,
            details={k: printable(str(v)) for k, v in details.items()} if details else None,
            measured=plain_record(measured),
            reused=printable(reused),
        )

    @property
    def name(self) -> str:
        """``ex01::1a_ridge_fp32``."""
        return f"{self.exercise}::{self.check_id}"

    @property
    def passed(self) -> bool:
        return self.state == State.PASSED

    def counted_max(self, deferred: str = "defer") -> float:
        """The points this check adds to the maximum under the ``deferred`` policy."""
        _policy(deferred)
        return 0.0 if self.deferred and deferred == "defer" else float(self.max_points)

    def sort_key(self) -> tuple:
        """Report order: by file, then by exercise, by part ("1a" before "1b" before "10"), and by check
        number within a part."""
        numbers = tuple((0, int(n), "") if n.isdigit() else (1, 0, n) for n in self.number.split("."))
        part = tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.findall(r"\d+|\D+", self.part))
        return (self.source, numbers[:1], part, numbers, self.exercise, self.check_id)

    def to_dict(self) -> dict[str, Any]:
        """Builtins only, the measured record as its plain dict (:meth:`Measured.to_dict`)."""
        data = asdict(replace(self, measured=None))
        data["measured"] = self.measured.to_dict() if self.measured is not None else None
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Outcome:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


#: Control characters but the newline and the tab: a student's output or exception text holding them could
#: clear the terminal or move its cursor and draw a score table of its own over the grader's. Lone
#: surrogates too: they are no text at all (an undecodable byte of a file name, or "\udce9" in a student's
#: exception), and UTF-8 cannot write them, so one of them in a message lost the whole batch's grades.json.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    r"""``text`` with every control character but the newline and the tab written as an escape (``\x1b``),
    and every lone surrogate too (``\udce9``)."""
    return _CONTROL.sub(lambda m: _escape(m.group()), text)


#: The first and last surrogates ``os.fsdecode`` makes of the undecodable bytes 0x80-0xff of a file name.
_BYTE_SURROGATES = (0xDC80, 0xDCFF)


def _name_escape(char: str) -> str:
    code = ord(char)
    if char == "\\":
        return "\\\\"
    if _BYTE_SURROGATES[0] <= code <= _BYTE_SURROGATES[1]:
        return f"\\x{code - 0xDC00:02x}"  # the byte itself, as Python writes bytes
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def shown_name(name: str) -> str:
    r"""A student's folder name as every report writes it (grades.csv and .json, the HTML pages, the terminal):
    valid text that draws nothing on a terminal, and one text per name, so two folders never share a row.

    Printable characters stay (Chinese names read as they are); an undecodable byte of the name
    (``os.fsdecode``'s surrogates) is written ``\xe9``; any other character that is not printable (a control,
    a bidirectional override, a lone surrogate) as ``\u001b``; the backslash as ``\\``, which is what makes
    the escapes unambiguous: the folders ``caf\xe9`` (bytes) and ``caf\\xe9`` (text) stay apart. Unlike
    :func:`printable`, meant for prose, this keeps no tab or newline either: a name is one cell, one line.
    """
    return "".join(c if c.isprintable() and c != "\\" else _name_escape(c) for c in name)


def _plain_default(value: Any) -> Any:
    """What JSON cannot hold as it is: an array (a student's numpy curve, say) as nested lists, another
    number as a float, anything else as None, so one odd part never loses the rest."""
    if hasattr(value, "tolist"):
        try:
            return value.tolist()
        except Exception:  # noqa: BLE001 - a student's object with a tolist of its own
            return None
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None


def plain_data(value: Any) -> Any:
    """``value`` as JSON's builtins (tuples become lists, numbers floats or ints, arrays nested lists; any
    other part None): outcomes travel between processes and into JSON."""
    try:
        return json.loads(json.dumps(value, default=_plain_default))
    except (TypeError, ValueError, RecursionError):
        return None


def plain_record(measured: Measured | Mapping[str, Any] | None) -> Measured | None:
    """``measured`` with its rounds as JSON's builtins (:func:`plain_data`: a student's numpy curve becomes
    nested lists), so the outcome travels between processes and into JSON; None for an empty record."""
    if not measured:
        return None
    data = plain_data(measured.to_dict() if isinstance(measured, Measured) else measured)
    return Measured.from_dict(data) if isinstance(data, dict) else None


def _policy(deferred: str) -> str:
    if deferred not in DEFERRED_POLICIES:
        raise ValueError(f"deferred must be one of {DEFERRED_POLICIES}, got {deferred!r}")
    return deferred


@dataclass(frozen=True)
class Totals:
    score: float
    max_score: float
    deferred_points: float


def totals(outcomes: Iterable[Outcome], deferred: str = "defer") -> Totals:
    """Score, maximum and deferred points of ``outcomes`` under the ``deferred`` policy."""
    _policy(deferred)
    items = list(outcomes)
    return Totals(
        score=float(sum(o.points for o in items)),
        max_score=float(sum(o.counted_max(deferred) for o in items)),
        deferred_points=float(sum(o.max_points for o in items if o.deferred)),
    )


@dataclass(frozen=True)
class ExerciseResult:
    """All outcomes of one exercise; ``score`` and ``max_score`` follow the ``deferred`` policy."""

    exercise: str
    outcomes: tuple[Outcome, ...]
    deferred: str = "defer"
    title: str = ""

    def __post_init__(self) -> None:
        _policy(self.deferred)
        object.__setattr__(self, "outcomes", tuple(self.outcomes))

    @property
    def score(self) -> float:
        return totals(self.outcomes, self.deferred).score

    @property
    def max_score(self) -> float:
        return totals(self.outcomes, self.deferred).max_score

    @property
    def deferred_points(self) -> float:
        return totals(self.outcomes, self.deferred).deferred_points

    def outcome(self, check_id: str) -> Outcome:
        for o in self.outcomes:
            if o.check_id == check_id:
                return o
        raise KeyError(f"no outcome for check {check_id!r} of exercise {self.exercise}")

    @property
    def points_by_part(self) -> dict[str, tuple[float, float]]:
        """``{part: (score, max)}`` in the order the parts first appear."""
        parts: dict[str, list[Outcome]] = {}
        for o in self.outcomes:
            parts.setdefault(o.part, []).append(o)
        result = {}
        for part, items in parts.items():
            t = totals(items, self.deferred)
            result[part] = (t.score, t.max_score)
        return result
