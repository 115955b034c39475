"""The clock readings of a measuring call: a figure counts as a measurement only where the call's readings
show it was timed (perfkit issue 37).

The worker notes every reading of Python's clocks a measuring call makes (``time.perf_counter``,
``monotonic``, ``time``, ``process_time``, ``thread_time``, ``clock_gettime`` and their ``_ns`` forms, and so
``timeit`` and ``torch.utils.benchmark``; :class:`grader.sandbox.clocks.Readings`) and sends them with the
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

import base64
import math
import sys
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...compare.curves import MalformedCurve, as_curve
from ...results.outcome import State
from ...specs.check import ShapeCheck
from ...text.catalogue import render
from ...text.show import show
from ..prepare import Prepared
from ..verdicts import Verdict, inputs_text
from .protocol import JudgeSide

#: A figure may claim this much more than the readings show: its rounding, and a unit the band swallows
#: (GiB for GB is 1.07x); a figure that claims twice what was timed is not rounding.
TOLERANCE = 1.1
#: And this many seconds more: the resolution of the clocks and of the conversion of ``_ns`` readings.
RESOLUTION_S = 2e-6
#: How far outside the call's window a reading of the judge's clock may lie: the judge's reading and the
#: worker's are of one clock, so only their own float rounding.
WINDOW_SLACK_S = 1e-4
#: The clocks the worker notes, by their code in its record (``grader.sandbox.clocks.CLOCKS``): ``_ns`` forms
#: share their clock; ``clock_gettime(id)`` is 10 + id.
NAMES = ("perf_counter", "monotonic", "time", "process_time", "thread_time")
GETTIME = 10
_MONOTONIC_ID = 1  # CLOCK_MONOTONIC on Linux
#: Shown in the message of a call that read none of them.
SEEN = "time.perf_counter, time.monotonic, time.time, time.process_time, time.thread_time, timeit, torch.utils.benchmark"


def clock_of(kind: int) -> str:
    """The clock a reading of ``kind`` is of: readings of one clock can be compared with each other. On
    Linux ``perf_counter``, ``monotonic`` and ``clock_gettime(CLOCK_MONOTONIC)`` are one clock, the judge's."""
    if kind >= GETTIME:
        ident = kind - GETTIME
        if sys.platform.startswith("linux") and ident == _MONOTONIC_ID:
            return "monotonic"
        return f"clock_gettime({ident})"
    name = NAMES[kind // 2] if 0 <= kind < 2 * len(NAMES) else f"unknown({kind})"
    if sys.platform.startswith("linux") and name in ("perf_counter", "monotonic"):
        return "monotonic"
    return name


@dataclass(frozen=True)
class Readings:
    """A call's clock readings: ``values`` (seconds) and ``kinds`` (their clocks: the index of the function
    in the worker's ``CLOCKS``, ``GETTIME`` + the id for ``clock_gettime[_ns]``), ``count`` of them."""

    values: tuple[float, ...]
    kinds: tuple[int, ...]
    count: int
    #: Past the worker's first readings of a clock function (a spin on it): that function's longest
    #: stretches and its extremes, by its kind (:class:`grader.sandbox.clocks.Beyond`).
    beyond: tuple[tuple[int, tuple[float, ...], float, float], ...] = ()

    @classmethod
    def parse(cls, raw: Any) -> Readings | None:
        """The readings a reply carries (``wire.Returned.readings``: for each clock noted, by its index in
        the worker's ``CLOCKS``, what it read, as an array of doubles in base64; ``clock_gettime[_ns]``:
        the id asked, then the reading); None where there are none or they do not read as the worker
        writes them (the student's code wrote the line)."""
        clocks = raw.get("clocks") if isinstance(raw, dict) else None
        if not isinstance(clocks, dict) or not all(isinstance(v, str) for v in clocks.values()):
            return None
        values: list[float] = []
        kinds: list[int] = []
        try:
            for key, text in clocks.items():
                kind, read = int(key), array("d", base64.b64decode(text, validate=True))
                if raw.get("order") != sys.byteorder:
                    read.byteswap()
                if not 0 <= kind < 2 * len(NAMES) + 2 or (kind >= GETTIME and len(read) % 2):
                    return None
                scale = 1e-9 if kind % 2 else 1.0  # the _ns forms are the odd ones
                if kind >= GETTIME:  # (id, reading) pairs
                    kinds.extend(GETTIME + int(ident) % 50 for ident in read[::2])
                    values.extend(v * scale for v in read[1::2])
                else:
                    kinds.extend([kind] * len(read))
                    values.extend(v * scale for v in read)
        except (ValueError, OverflowError):
            return None
        if not all(math.isfinite(v) for v in values):
            return None
        beyond = _beyond(raw.get("beyond"), raw.get("order"))
        if beyond is None:
            return None
        count = len(values) + sum(len(longest) for _, longest, _, _ in beyond)
        return cls(tuple(values), tuple(kinds), count, beyond)

    def by_clock(self) -> dict[str, list[float]]:
        """The readings of each clock in the order it read them (the worker keeps one array per function
        of ``time``: the readings of one clock through several are put in order by their values)."""
        clocks: dict[str, list[float]] = {}
        for value, kind in zip(self.values, self.kinds, strict=True):
            clocks.setdefault(clock_of(kind), []).append(value)
        return {clock: sorted(values) for clock, values in clocks.items()}

    def stretches(self, took: float) -> list[float]:
        """The times between consecutive readings of each clock (each at most ``took``), longest first. A
        clock function read past the worker's first readings gives its longest stretches instead, where it
        is the only function of its clock read in the call (another's readings could fall inside them)."""
        found: list[float] = []
        alone = {clock: kinds for clock, kinds in self._kinds_by_clock().items() if len(kinds) == 1}
        spun = {kind: longest for kind, longest, _, _ in self.beyond if alone.get(clock_of(kind)) == {kind}}
        for clock, values in self.by_clock().items():
            (kind,) = alone.get(clock, {-1})
            if kind in spun:
                found.extend(min(took, s) for s in spun[kind])
            else:
                found.extend(min(took, abs(b - a)) for a, b in zip(values, values[1:], strict=False))
        return sorted(found, reverse=True)

    def _kinds_by_clock(self) -> dict[str, set[int]]:
        kinds: dict[str, set[int]] = {}
        for kind in self.kinds:
            kinds.setdefault(clock_of(kind), set()).add(kind)
        return kinds

    def outside(self, window: tuple[float, float]) -> float | None:
        """A reading of the judge's own clock (see :func:`clock_of`) outside ``window`` (its
        ``time.perf_counter`` before and after the call), or None."""
        low, high = window[0] - WINDOW_SLACK_S, window[1] + WINDOW_SLACK_S
        extremes = [v for kind, _, lo, hi in self.beyond if clock_of(kind) == "monotonic" for v in (lo, hi)]
        for value in [*self.by_clock().get("monotonic", []), *extremes]:
            if not low <= value <= high:
                return value
        return None


@dataclass
class Witnessed:
    """What the judge saw of a measuring call: its window on the judge's clock and its clock readings."""

    window: tuple[float, float] = (0.0, 0.0)
    readings: Readings | None = None

    @property
    def took(self) -> float:
        return self.window[1] - self.window[0]


def _wrong(
    judge: JudgeSide, p: Prepared, kwargs: Mapping[str, Any], key: str, got: str, **fields: Any
) -> None:
    inputs = inputs_text(p.check, (), kwargs)
    message = render(key, judge.lang, func=p.check.func, inputs=inputs, **fields)
    raise Verdict(State.WRONG, message, details={"input": inputs, "got": got})


def read_at_all(judge: JudgeSide, p: Prepared, kwargs: Mapping[str, Any], seen: Witnessed) -> Readings:
    """The call's readings: some, each of the judge's clock inside the call's window; else wrong."""
    readings = seen.readings
    if readings is None or not readings.values:
        _wrong(judge, p, kwargs, "figure_no_clock", "no clock reading", clocks=SEEN)
    assert readings is not None
    stray = readings.outside(seen.window)
    if stray is not None:
        where = stray - seen.window[0]
        _wrong(judge, p, kwargs, "figure_clock_outside", f"a reading at {where:+.3g} s", at=f"{where:+.3g}")
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
        _wrong(judge, p, kwargs, "figure_beyond_readings", f"{show(claimed)} s claimed", **fields)


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
            _wrong(
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


#: The most clock functions a reply may say it read past the worker's first readings (one per function).
MAX_BEYOND = 16


def _beyond(raw: Any, order: Any) -> tuple[tuple[int, tuple[float, ...], float, float], ...] | None:
    """The ``beyond`` part of a reply's readings (:class:`grader.sandbox.clocks.Beyond`, by kind): ``()``
    where there is none, None where it does not read as the worker writes it."""
    if raw is None:
        return ()
    if not isinstance(raw, dict) or len(raw) > MAX_BEYOND:
        return None
    found = []
    try:
        for key, entry in raw.items():
            kind = int(key)
            if (
                not 0 <= kind < GETTIME
                or not isinstance(entry, dict)
                or not isinstance(entry.get("longest"), str)
            ):
                return None
            longest = array("d", base64.b64decode(entry["longest"], validate=True))
            if order != sys.byteorder:
                longest.byteswap()
            scale = 1e-9 if kind % 2 else 1.0
            low, high = float(entry["low"]) * scale, float(entry["high"]) * scale
            stretches = tuple(v * scale for v in longest)
            if len(stretches) > 4096 or not all(math.isfinite(v) and v >= 0 for v in (*stretches, low, high)):
                return None
            found.append((kind, stretches, low, high))
    except (KeyError, TypeError, ValueError, OverflowError):
        return None
    return tuple(found)
