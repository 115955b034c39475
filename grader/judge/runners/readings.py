"""The clock readings of a measuring call: a figure counts as a measurement only where the call's readings
show it was timed (perfkit issue 37).

The worker notes every reading of Python's clocks a measuring call makes (``time.perf_counter``,
``monotonic``, ``time``, ``process_time``, ``thread_time``, ``clock_gettime`` and their ``_ns`` forms, and so
``timeit`` and ``torch.utils.benchmark``; :mod:`grader.sandbox.clocks`, which also reads them back as a :class:`Readings`) and sends them with the
value. The runners ask for them and keep the call's window as the judge saw it
(:meth:`grader.judge.runners.paired.PairedRounds.timed_call`, a :class:`Witnessed`); :func:`timed` holds the
figure to them:

- no reading during the call: the figure did not come from a clock the grader can see (pasted, modelled, or
  kept from an earlier call), wrong;
- a reading of ``CLOCK_MONOTONIC`` (``perf_counter``, ``monotonic``: system-wide on Linux, the judge's own
  clock) outside the call's window: not a reading of this call, wrong;
- the time one run takes, as the figure claims it (its seconds, or the check's work over its rate), longer
  than the longest stretch between two consecutive readings of one clock (at most the call's own duration;
  the CPU clocks are durations only): the figure says more was timed at a stretch than was, wrong. An
  honest figure is a block's time over its calls (a block of n calls lasts n times one call), or a median,
  mean or least of single calls' times, each a stretch between two readings: none is longer than the
  longest stretch. One pass timed (however often) and the figure scaled by k, a quarter of a transpose
  timed and scaled by 4, or a pasted figure with the call spun out on a loop reading the clock, is.
  Consecutive, not any two: a quarter timed five times would otherwise span more than the whole it claims.
  What it cannot see: a stretch with no reading inside it holds whatever ran then, so a reading before
  untimed passes makes one stretch of them (docs/measurement.md).

A curve (:func:`timed_curve`) is held to the same per call, and each of its points must have a time between
two consecutive readings of its own at least as long as the time it claims (the points are timed one after
another): a curve with more points than timed stretches long enough had points that were not measured.

The record lives in the student's process and can be forged there (readings appended, the original clock
found and called, a clock read through ctypes); docs/measurement.md says what the readings prove and what
they cannot.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...compare.curves import MalformedCurve, as_curve
from ...results.outcome import State
from ...sandbox.clocks import Readings
from ...specs.check import ShapeCheck
from ...text.catalogue import render
from ...text.show import show
from ..prepare import Prepared
from ..verdicts import Verdict, inputs_text
from .protocol import JudgeSide
from .witness import Crossings

#: A figure may claim this much more than the readings show: its rounding, and a unit the band swallows
#: (GiB for GB is 1.07x); a figure that claims twice what was timed is not rounding.
TOLERANCE = 1.1
#: And this many seconds more: the resolution of the clocks and of the conversion of ``_ns`` readings.
RESOLUTION_S = 2e-6
#: Shown in the message of a call that read none of them.
SEEN = "time.perf_counter, time.monotonic, time.time, time.process_time, time.thread_time, timeit, torch.utils.benchmark"


@dataclass
class Witnessed:
    """What the judge saw of a measuring call: its window on the judge's clock, its clock readings and, for
    a handed call, the runs its witness saw finish."""

    window: tuple[float, float] = (0.0, 0.0)
    readings: Readings | None = None
    #: The runs the judge's witness saw finish in a handed call's output (:mod:`.witness`), where watched.
    crossings: Crossings | None = None
    #: The worker sent a record of the readings that does not read as it writes one (:meth:`Readings.parse`
    #: gave None where readings were asked for): code in the call changed it. :attr:`readings` is None then.
    unreadable: bool = False

    @property
    def took(self) -> float:
        return self.window[1] - self.window[0]


def figure_wrong(
    judge: JudgeSide, p: Prepared, kwargs: Mapping[str, Any], key: str, got: str, **fields: Any
) -> None:
    """Raise the wrong verdict of a figure held to what the judge saw of its call: the message ``key`` with
    ``fields``, ``got`` in its details (the readings' rules here, the witness's in :mod:`.honesty`)."""
    inputs = inputs_text(p.check, (), kwargs)
    message = render(key, judge.lang, func=p.check.func, inputs=inputs, **fields)
    raise Verdict(State.WRONG, message, details={"input": inputs, "got": got})


def read_at_all(judge: JudgeSide, p: Prepared, kwargs: Mapping[str, Any], seen: Witnessed) -> Readings:
    """The call's readings: some, each of the judge's clock inside the call's window; else wrong (a record
    the call's code made unreadable is said as such: "read none of the clocks" would be untrue)."""
    readings = seen.readings
    if readings is None and seen.unreadable:
        figure_wrong(judge, p, kwargs, "figure_clock_record_unreadable", "clock record unreadable")
    if readings is None or not readings.values:
        figure_wrong(judge, p, kwargs, "figure_no_clock", "no clock reading", clocks=SEEN)
    assert readings is not None
    stray = readings.outside(seen.window)
    if stray is not None:
        where = stray - seen.window[0]
        figure_wrong(
            judge, p, kwargs, "figure_clock_outside", f"a reading at {where:+.3g} s", at=f"{where:+.3g}"
        )
    return readings


def timed(
    judge: JudgeSide, p: Prepared, kwargs: Mapping[str, Any], claimed: float | None, seen: Witnessed
) -> None:
    """Hold a figure that says one run takes ``claimed`` seconds (None: a figure that claims no time, a
    speedup: it must still come from a clock) to the readings of the call that returned it (module docstring)."""
    readings = read_at_all(judge, p, kwargs, seen)
    if claimed is None or not math.isfinite(claimed):
        return
    longest = max(readings.stretches(seen.took), default=0.0)
    if claimed > TOLERANCE * longest + RESOLUTION_S:
        fields = {"claimed": show(claimed), "longest": show(longest), "count": readings.count}
        figure_wrong(judge, p, kwargs, "figure_beyond_readings", f"{show(claimed)} s claimed", **fields)


def timed_curve(
    judge: JudgeSide, p: Prepared, kwargs: Mapping[str, Any], claims: Sequence[float], seen: Witnessed
) -> None:
    """Hold a curve whose points say one run takes ``claims`` seconds each to its call's readings: some, in
    the call's window, and a distinct stretch between consecutive readings at least as long as each claim
    (the longest claims against the longest stretches: where that pairing fails, no pairing holds)."""
    readings = read_at_all(judge, p, kwargs, seen)
    wanted = sorted((c for c in claims if math.isfinite(c) and c > 0), reverse=True)
    stretches = readings.stretches(seen.took)
    for i, claim in enumerate(wanted):
        have = stretches[i] if i < len(stretches) else 0.0
        # a point with no stretch at all was not timed, however short its claim (a modelled point of a few
        # microseconds lies within the clock's resolution of nothing)
        if i >= len(stretches) or claim > TOLERANCE * have + RESOLUTION_S:
            fields = {"points": len(wanted), "claim": show(claim), "rank": i + 1, "longest": show(have)}
            figure_wrong(
                judge, p, kwargs, "curve_beyond_readings", f"{i} stretches for {len(wanted)} points", **fields
            )


def curve_claims(check: ShapeCheck, kwargs: Mapping[str, Any], value: Any) -> list[float] | None:
    """The seconds each point of a curve says one run of its point takes: an overhead curve's own seconds;
    a roofline sweep's work of its point (one matmul of each ``m`` of ``kwargs["ms"]``, in order) over its
    rate. None for one value, a curve that does not read as one (the shape test says why), or a roofline
    whose points are not one per ``m``."""
    if not isinstance(check.shape, str):
        return None
    try:
        xs, ys = as_curve(value)
    except MalformedCurve:
        return None
    if check.shape == "overhead":
        return [float(y) for y in ys]
    ms = kwargs.get("ms")
    if (
        check.shape != "roofline"
        or check.work is None
        or not isinstance(ms, (list, tuple))
        or len(ms) != len(ys)
    ):
        return None
    try:
        flops = [check.work(**{**kwargs, "ms": (m,)}).flops for m in ms]
    except Exception:  # noqa: BLE001 - a work that cannot be split per point: the per-call rule alone
        return None
    return [f / float(y) for f, y in zip(flops, ys, strict=True) if y > 0]
