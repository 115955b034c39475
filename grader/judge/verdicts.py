"""Verdicts: how a check ends other than passing, and the feedback's parts every kind of check shares.

A runner raises :class:`Verdict` (a state, the message, the comparison's fields) as soon as it knows; the
judge turns it into the check's outcome. :class:`GraderError` is the grader's own failure, never the
student's. The helpers here put feedback together the same way for every kind of check: the input as a call
reads, the hint, the fields beside the prose, and what a ratio beyond its band points at.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from ..compare import ratios, slips
from ..compare.values import describe
from ..results.measured import Measured
from ..results.outcome import State
from ..specs.check import Check, MeasurementCheck, ShapeCheck, higher_is_better
from ..specs.handed import Buffer
from ..text.catalogue import Text, render
from ..text.show import show, show_inputs

#: An undecided ratio is the student's doing, not the machine's, when the student's figures scatter more
#: than this many times perfcore's in the same rounds.
SCATTER_FACTOR = 3.0
#: ... and only when perfcore's own figures held this still (round-to-round IQR/median) in those rounds. A
#: machine can be disturbed where the load reader sees nothing (another guest on the host, a frequency
#: change): perfcore's figures then vary too, and a short honest block varies more than perfcore's longer
#: one. Over three gradings of every measuring solution on a 2-vCPU EPYC at load about 1, perfcore's spreads
#: in rounds read as quiet were 0.001-0.14 in most checks and 0.19-0.49 in a few (m3's transposes, both
#: sides alike); the rounds that called an honest m3b tiled transpose wrong (IQR/median 0.88 against
#: perfcore's 0.28, every round read as quiet) were of the second kind.
STEADY_SPREAD = 0.15


class GraderError(Exception):
    """The grader itself failed (a bad spec, a reference that raised); never the student's fault.

    ``measured``: what the check had measured when it failed, for the reports (set by the runner)."""

    measured: Measured | None = None


class Verdict(Exception):
    """Ends a check early with a state, a message and the comparison's fields; ``measured`` is what the
    check had measured by then (set by the runner that raised it, for the reports' plots)."""

    def __init__(
        self, state: State, message: str, deferred: bool = False, details: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.state = state
        self.message = message
        self.deferred = deferred
        self.details = details
        self.measured: Measured | None = None


def join(lang: str, *parts: str) -> str:
    return render("sep", lang).join(p for p in parts if p)


def parameter_order(check: Check) -> tuple[str, ...]:
    """The order of the student's parameters as the kit's own callable for the check names them (its
    reference or expected; trusted code, never the student's), for showing an input as a call reads."""
    for name in ("reference", "expected"):
        func = getattr(check, name, None)
        if callable(func):
            try:
                return tuple(inspect.signature(func).parameters)
            except (TypeError, ValueError):
                return ()
    return ()


def inputs_text(check: Check, args: tuple = (), kwargs: Mapping[str, Any] | None = None) -> str:
    """A check's input as text, its keyword arguments in the function's parameter order; where the check
    hands the student's function buffers (a measurement's ``handed``), the call as the function is made at
    that input: each buffer by its library, dtype, shape and bytes (``src=torch.float32[676864] (2707456
    B)``), not the size it was drawn from, which the function no longer takes."""
    handed = getattr(check, "handed", None)
    if handed is not None and not args and kwargs:
        return handed_text(handed.arguments(**kwargs))
    return show_inputs(args, kwargs, parameter_order(check))


def handed_text(arguments: Mapping[str, Any]) -> str:
    """``(src=torch.float32[676864] (2707456 B), k=8)``: the keyword arguments a handed call is made with."""
    parts = [f"{k}={v.shown if isinstance(v, Buffer) else show(v, 60)}" for k, v in arguments.items()]
    return "(" + ", ".join(parts) + ")"


def details(
    text: Text, args: tuple = (), kwargs: Mapping | None = None, check: Check | None = None
) -> dict[str, str]:
    """The comparison's parts as fields beside the prose: expected, got, input and tolerance."""
    fields = dict(text.fields)
    details: dict[str, str] = {k: str(fields[k]) for k in ("expected", "got") if k in fields}
    if args or kwargs:
        shown = inputs_text(check, args, kwargs) if check is not None else show_inputs(args, kwargs)
        details["input"] = shown
    tolerance = [f"{k}={fields[k]}" for k in ("rtol", "atol") if fields.get(k) not in (None, "-")]
    if tolerance:
        details["tolerance"] = ", ".join(tolerance)
    return details


def hint(check: Check, lang: str) -> str:
    """The check's hint as a part of the feedback, or nothing where it has none."""
    return render("hint", lang, hint=check.hint(lang)) if check.hint(lang) else ""


def in_its_terms(check: Check, text: Text) -> Text:
    """``text`` with the slip it names told in ``check``'s terms (:func:`grader.compare.slips.fitted`: K and
    V, a 2-byte type, only where the question speaks of them)."""
    return slips.fitted(text, check.id, check.func, check.hint("en"))


def wrong(check: Check, text: Text, lang: str, args: tuple = (), kwargs: Mapping | None = None) -> Verdict:
    """The wrong verdict of ``text``: the mismatch, the input, and the check's fixed hint unless a slip was
    named (the hint is about something else then: "use the FP32 peak" after a reciprocal)."""
    text = in_its_terms(check, text)
    inputs = render("input", lang, inputs=inputs_text(check, args, kwargs)) if (args or kwargs) else ""
    return Verdict(
        State.WRONG,
        join(lang, describe(text, lang), inputs, "" if slips.named(text) else hint(check, lang)),
        details=details(text, args, kwargs, check),
    )


def confidence(interval: ratios.Interval) -> str:
    return f"{interval.confidence:.0%}"


def evidence(check: MeasurementCheck | ShapeCheck, ratio: float, lang: str) -> str:
    """What a ratio beyond the band points at: a figure that reads faster than perfcore doing the same work
    (another operation, a cache-resident size, bytes counted twice), or slower (allocation, page faults,
    threads, a cold call, bytes counted once); for a speedup (unit "x"), that it is the machine's at the
    input given, not a constant. Which way reads faster comes from the check's unit (a curve of FLOP/s
    is a rate, as a measurement's B/s is; a curve of seconds is not)."""
    if check.unit == "x":  # a ratio of two times: no operation reads faster or slower
        return render("evidence_speedup", lang)
    rate = check.higher_is_better if isinstance(check, MeasurementCheck) else higher_is_better(check.unit)
    faster = (ratio > 1) == rate
    return render("evidence_faster" if faster else "evidence_slower", lang)


def undecided(
    lang: str,
    max_noise: float,
    interval: ratios.Interval,
    band: tuple[float, float],
    mine_spread: float,
    ref_spread: float,
) -> Verdict:
    """The verdict when an interval still straddles the band after every round the budget allowed: wrong
    when the student's own figures scatter (their round-to-round spread beyond ``max_noise`` and
    ``SCATTER_FACTOR`` x perfcore's in the same rounds: the method's doing) while perfcore's held still
    (at most :data:`STEADY_SPREAD`), else deferred (the machine's)."""
    fields = {
        "rounds": interval.rounds,
        "confidence": confidence(interval),
        "interval": ratios.interval_text(interval, band),
        "low": band[0],
        "high": band[1],
        "mine": f"{mine_spread:.3g}",
        "reference": f"{ref_spread:.3g}",
    }
    if mine_spread > max(max_noise, SCATTER_FACTOR * ref_spread):
        if ref_spread > STEADY_SPREAD:
            fields["steady"] = f"{STEADY_SPREAD:g}"
            return Verdict(State.SKIPPED, render("measure_unsteady", lang, **fields), deferred=True)
        return Verdict(State.WRONG, render("measure_scattered", lang, **fields))
    return Verdict(State.SKIPPED, render("measure_undecided", lang, **fields), deferred=True)
