"""The runner of a measurement check: the student's figure against perfcore's, round by round, then a probe.

The student's function runs in the worker and perfcore's in the reference process, alternately (A B), both
pinned to one core. Each round gives a paired ratio; the interval of their median (:mod:`grader.compare.ratios`)
decides: inside the band passed, wholly outside wrong, straddling an edge more rounds (:class:`Budget`),
then deferred with the reason, or wrong where the student's own figures scatter while perfcore's hold still.
Every call is also held to the honesty rules (:mod:`grader.judge.runners.honesty`); on a probe input the
figure must be physically possible and follow perfcore's. The rounds themselves (the calls, the clock, the
watch, the budget) are :mod:`.paired`'s, shared with the curve runner; this module is what a figure adds.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from perfcore.measure.core import Bounds

from ...compare import ratios, slips
from ...compare.values import NotANumber, as_number, describe
from ...results.environment import gpu_name
from ...results.measured import Measured, Probe
from ...results.outcome import State
from ...specs.check import MEASUREMENT_BANDS, MeasurementCheck, Work
from ...text.catalogue import Text, render
from ...text.show import kind_of, show
from ..prepare import Prepared
from ..verdicts import (
    GraderError,
    Verdict,
    confidence,
    details,
    evidence,
    hint,
    inputs_text,
    join,
    undecided,
    wrong,
)
from . import busy
from .honesty import NO_MEASUREMENT_SHARE, hold, least_seconds, work_floor
from .paired import PairedRounds, Series
from .protocol import JudgeSide
from .rounds import MIN_ROUNDS, PROBE_ROUNDS, Budget, drawn_inputs, probes_first


def figure_of(judge: JudgeSide, p: Prepared, value: Any, kwargs: Mapping[str, Any]) -> float:
    check = p.check
    assert isinstance(check, MeasurementCheck)
    try:
        figure = float(as_number(value, check.unit))
    except NotANumber:
        figure = float("nan")
    if not (figure > 0 and figure < math.inf):
        text = Text("measure_not_number", {"unit": check.unit, "kind": kind_of(value), "got": show(value)})
        raise wrong(check, text, judge.lang, (), kwargs)
    return figure


def device_name(device: str) -> str | None:
    """The GPU a measurement ran on (the report names it on the plot), as ``grades.json`` names it; None on
    the CPU."""
    if device == "cpu":
        return None
    name = gpu_name()
    return None if name == "none" else name


def run_measurement(judge: JudgeSide, p: Prepared, path: str) -> Measured | None:
    """Grade ``p``'s measurement check; returns (or attaches to its verdict) every round it measured."""
    return MeasurementRounds(judge, p, path).run()


@dataclass(frozen=True)
class Placed:
    """Where the paired ratios at one input lie (``ratios.INSIDE``, ``OUTSIDE``, ``STRADDLES``, or
    ``busy.BUSY``), their interval, and the band they were placed in (widened by the other library)."""

    where: str
    interval: ratios.Interval
    band: tuple[float, float]

    @property
    def more(self) -> bool:
        return self.where in (ratios.STRADDLES, busy.BUSY)

    @property
    def busy(self) -> bool:
        return self.where == busy.BUSY


class MeasurementRounds(PairedRounds[Placed]):
    """A measurement's paired rounds: the student's figure against perfcore's, in the band of the check's kind."""

    check: MeasurementCheck

    def perfcore(self, kwargs: Mapping[str, Any]) -> float:
        return self.judge.measure_reference(self.p, kwargs, on_cpu=self.on_cpu)

    def student(self, series: Series) -> float:
        """The student's figure at ``series``'s input, held to the honesty rules (its work, its clock)."""
        check, judge, p, kwargs = self.check, self.judge, self.p, series.kwargs
        reply, took, cpu = self.called(kwargs)
        try:
            figure: float | None = figure_of(judge, p, reply.value, kwargs)
        except Verdict:  # not a number: said after the work floor, which a call that did nothing breaks first
            figure = None
        rated = check.unit in RATE_UNITS and series.work is not None
        seconds = figure if check.unit == "s" else None
        call = self.call_of(kwargs, took, cpu, series.work, seconds, figure if rated else None)
        if figure is None:
            work_floor(judge, p, call)
            return figure_of(judge, p, reply.value, kwargs)
        hold(judge, p, call)  # its clock readings among the rules (honesty.clock_read)
        return figure

    def band(self, series: Series) -> tuple[float, float]:
        """The band of ``series``'s input (the check's, or a probe's kind's), widened by the ratio of the two
        libraries' figures measured in the same rounds."""
        check = self.check
        base = MEASUREMENT_BANDS[check.probe_kind or check.kind] if series.probe else check.ratio_band
        return ratios.widened(base, series.others, series.ref)

    def decide(self, series: Series) -> Placed:
        """Where the ratios lie in the band; where not inside, and the check names another honest library,
        that library is measured too (from now on, every round) and the band widened by it."""
        band = self.band(series)
        where, interval = busy.decide(series.mine, series.ref, series.loads, band)
        if where != ratios.INSIDE and self.check.also is not None and not series.others:
            series.others.extend(self.other(series.kwargs) for _ in range(busy.EVIDENCE_ROUNDS))
            if series.record is not None:
                series.record.also = series.others
            band = self.band(series)
            where, interval = busy.decide(series.mine, series.ref, series.loads, band)
        return Placed(where, interval, band)

    def grade(self) -> None:
        check = self.check
        # the inputs, before any call: the same for every try of this code
        graded, *probes = drawn_inputs(check, self.path)
        try:
            bound = float(check.physical_bound()) if check.physical_bound is not None else None
            work = check.work(**graded) if check.work is not None else None
        except Exception as exc:
            raise GraderError(f"physical_bound() or work() raised {exc!r}") from exc
        if bound is None and work is not None and check.inputs is not None:
            bound = possible(check, work, self.judge.bounds())  # the bound of the drawn input's own work
        self.pin()
        budget = Budget(check)
        series = Series(graded, work=work)
        self.start(self.measured(series, bound), series)
        early = probes_first(check, self.path)
        if early:  # the first input a function meets is not always the graded one
            for kwargs in probes:
                self.probe(kwargs)
        self.first_rounds(series)
        self.within_bound(series, bound)
        placed = self.settle(series, budget, self.decide(series))
        if placed.where == ratios.OUTSIDE:
            raise self.outside(series, placed)
        # The probe runs after the check's own rounds (a large probe leaves the allocator and the caches
        # unlike before it), and before any deferral: a made-up figure that happens to straddle an edge
        # must not be deferred when it cannot follow the physics to an input it has not seen.
        for kwargs in [] if early else probes:
            self.probe(kwargs)
        if placed.more:
            raise self.unsettled(series, placed)

    def measured(self, series: Series, bound: float | None) -> Measured:
        """The record of the check's rounds, its lists filled as they are taken."""
        check, work = self.check, series.work
        record = Measured(
            unit=check.unit,
            kind=check.kind,
            device=self.device,
            device_name=device_name(self.device),
            mine=series.mine,
            reference=series.ref,
            bound=bound,
        )
        if work is not None and work.bytes > 0 and work.flops > 0:
            record.intensity = work.flops / work.bytes
        if check.inputs is not None or check.graded_input is not None:  # drawn for this submission: say which
            record.input = inputs_text(check, (), series.kwargs)
        return record

    def first_rounds(self, series: Series) -> None:
        """The check's own rounds; a sequential rule, in either direction: once the least rounds lie wholly
        inside the band, or wholly outside it in rounds the load could not bend, more rounds say nothing new
        (inside is decided on every round taken, busy or not: load cannot put a wrong figure inside; outside
        only as :func:`.busy.decide` places it, on its clean rounds). An outside figure then goes on to
        :meth:`decide`, which measures the other honest library where the check names one."""
        check = self.check
        for taken in range(1, check.rounds + 1):
            self.round(series)
            if MIN_ROUNDS <= taken < check.rounds:
                where = busy.decide(series.mine, series.ref, series.loads, self.band(series))[0]
                if where in (ratios.INSIDE, ratios.OUTSIDE):
                    break

    def within_bound(self, series: Series, bound: float | None) -> None:
        """Wrong where the figure lies beyond the physical bound: load cannot make a figure faster than the
        machine (a bound perfcore's own figure nears may be the load's: a profile measured on a busy machine
        reads low; the band decides then). A unit slip that explains it is named (:mod:`grader.compare.slips`)."""
        check = self.check
        got, expected = statistics.median(series.mine), statistics.median(series.ref)
        if (
            bound is None
            or not beyond(got, bound, check.higher_is_better)
            or not trusted(expected, bound, check)
        ):
            return
        fields: dict[str, Any] = {"got": show(got), "reference": show(expected), "unit": check.unit}
        fields.update(
            slips.beyond(got, expected, check.ratio_band, bound, check.higher_is_better, check.unit)
        )
        key = "measure_bound" if check.higher_is_better else "measure_below"
        raise wrong(check, Text(key, {**fields, "bound": show(bound)}), self.lang, (), series.kwargs)

    def unsettled(self, series: Series, placed: Placed, said: str = "") -> Verdict:
        """The verdict of rounds still busy or across an edge of the band: deferred with the load's numbers,
        or, where the quiet rounds show the student's own figures scatter while perfcore's hold still, the
        scatter's (``said`` before its message)."""
        if placed.busy:
            return busy.busy_verdict(series.loads, self.lang)
        spreads = busy.scatter_spreads(series.mine, series.ref, series.loads)
        if spreads is None:  # a scatter in busy rounds may be the machine's
            return busy.busy_verdict(series.loads, self.lang)
        verdict = undecided(self.lang, self.judge.max_noise, placed.interval, placed.band, *spreads)
        verdict.message = said + verdict.message
        return verdict

    def outside(self, series: Series, placed: Placed) -> Verdict:
        """Wrong: the ratios lie wholly outside the band, in rounds the load could not bend."""
        check, lang, graded, interval = self.check, self.lang, series.kwargs, placed.interval
        low, high = placed.band
        got, expected = statistics.median(series.mine), statistics.median(series.ref)
        text = Text(
            "measure_outside",
            {
                "got": show(got),
                "reference": show(expected),
                "unit": check.unit,
                "ratio": ratios.ratio_text(interval.median, placed.band),
                "rounds": interval.rounds,
                "confidence": confidence(interval),
                "interval": ratios.interval_text(interval, placed.band),
                "low": low,
                "high": high,
            },
        )
        inputs = render("input", lang, inputs=inputs_text(check, (), graded)) if graded else ""
        slip = band_slip(got, expected, placed.band, check.unit, lang)
        # a slip that explains the figure: no hint
        said = join(lang, evidence(check, interval.median, lang), slip or hint(check, lang))
        on_cpu = sum(series.loads.on_cpu)  # the CPU clock's rounds, said where they decided (.cpuclock)
        clock = render("measure_on_cpu_clock", lang, count=on_cpu) if on_cpu else ""
        return Verdict(
            State.WRONG,
            join(lang, describe(text, lang), clock, inputs, said),
            details={
                **details(text, (), graded, check),
                "expected": f"{show(expected)} {check.unit}",
                "tolerance": f"ratio in [{low}, {high}] ({confidence(interval)} interval)",
            },
        )

    def probe(self, kwargs: Mapping[str, Any]) -> None:
        """On an input the student has not seen, the figure must be physically possible and follow perfcore's
        figure at the same input (A B A B): wrong only when the whole interval of the paired ratios lies
        outside the band of the probe's kind in rounds the load could not bend (the check's own input has
        decided the rest); where the probe's rounds were too busy to say, the check is deferred, since a
        made-up figure is caught here or nowhere."""
        check, lang, record = self.check, self.lang, self.record
        assert check.work is not None and record is not None
        try:
            work = check.work(**kwargs)
        except Exception as exc:
            raise GraderError(f"work() raised {exc!r}") from exc
        inputs = inputs_text(check, (), kwargs)
        series = Series(kwargs, work=work, probe=True)
        least = least_seconds(work, self.judge.bounds())
        if check.unit == "s":
            bound = least
        elif check.unit in RATE_UNITS:
            amount = work.bytes if check.unit == "B/s" else work.flops
            bound = amount / least if least > 0 else math.inf
        else:  # a speedup: no bound of its own
            bound = math.nan
        if record.probe is None:  # the report draws the (first) probe beside the check's own input
            kind = check.probe_kind or check.kind
            finite = bound if math.isfinite(bound) else None
            record.probe = Probe(
                kind=kind, input=inputs, mine=series.mine, reference=series.ref, bound=finite
            )
        self.rounds(series, PROBE_ROUNDS)
        figure = statistics.median(series.mine)
        limit = NO_MEASUREMENT_SHARE * least if check.unit == "s" else bound / NO_MEASUREMENT_SHARE
        impossible = not math.isnan(limit) and beyond(figure, limit, check.higher_is_better)
        if impossible and trusted(statistics.median(series.ref), limit, check):  # load cannot make it faster
            message = render(
                "probe_impossible", lang, inputs=inputs, got=show(figure), unit=check.unit, bound=show(bound)
            )
            raise Verdict(State.WRONG, message, details={"input": inputs, "got": show(figure)})
        # A probe that still straddles after its extra rounds never passes (a figure made up at the edge of
        # the band, or one cheat landing on the probe, passed so): wrong where the student's own figures
        # scatter, else deferred.
        placed = self.settle_probe(series, self.decide(series))
        if placed.more:
            raise self.unsettled(series, placed, render("probe_curve", lang, inputs=inputs))
        if placed.where == ratios.OUTSIDE:
            band = placed.band
            message = render(
                "probe_band",
                lang,
                inputs=inputs,
                ratio=ratios.ratio_text(placed.interval.median, band),
                confidence=confidence(placed.interval),
                interval=ratios.interval_text(placed.interval, band),
                low=band[0],
                high=band[1],
            )
            raise Verdict(
                State.WRONG,
                join(lang, message, evidence(check, placed.interval.median, lang), hint(check, lang)),
                details={
                    "input": inputs,
                    "got": show(figure),
                    "tolerance": f"ratio in [{band[0]}, {band[1]}]",
                },
            )


#: The units whose figure the work of a call bounds: a rate of bytes or FLOPs, or seconds. A ratio of two
#: times (a speedup, unit "x") has no such bound: only perfcore's figure at the same input judges it.
RATE_UNITS = ("B/s", "FLOP/s")


def band_slip(got: float, reference: float, band: tuple[float, float], unit: str, lang: str) -> str:
    """The unit slip that brings ``got`` within ``band`` of perfcore's ``reference`` figure (bits for
    bytes: 8x; bytes counted once: 0.5x; ms for s: 1000x), said in ``lang``; nothing where none does, or
    for a ratio of two times (unit "x"), which no unit slip explains."""
    if unit not in (*RATE_UNITS, "s"):
        return ""
    # only a slip the band cannot swallow: GiB for GB (1.07x) is no explanation of a figure 1.3x off
    slip = slips.unit_slip(got, reference * band[0], reference * band[1], swallowed=band)
    if slip is None:
        return ""
    fields = {"times": slips.times(slip), "fixed": f"{got / slip.factor:.4g}", "unit": unit}
    return slips.say(Text("slip_measure_band", {**fields, "cause": slips.cause_of(slip, unit)}), lang)


def possible(check: MeasurementCheck, work: Work, bounds: Bounds) -> float | None:
    """The most (a rate) or least (seconds) figure ``work`` allows here, with the share of the honesty rules
    (a drawn input has no bound of its own: its work gives it); None for a figure the work does not bound."""
    if check.unit != "s" and check.unit not in RATE_UNITS:
        return None
    least = least_seconds(work, bounds)
    if check.unit == "s":
        return NO_MEASUREMENT_SHARE * least
    amount = work.bytes if check.unit == "B/s" else work.flops
    return amount / least / NO_MEASUREMENT_SHARE if least > 0 else math.inf


def beyond(figure: float, bound: float, higher_is_better: bool) -> bool:
    """Whether ``figure`` lies past ``bound``: faster than the machine allows."""
    return figure > bound if higher_is_better else figure < bound


#: A physical bound is evidence only where perfcore's own figure stays this share inside it: the bound of a
#: drawn input comes from the machine's profile, which reads low where it was measured on a busy machine.
BOUND_TRUST = 0.9


def trusted(reference: float, bound: float, check: MeasurementCheck) -> bool:
    """Whether ``bound`` can be believed here: perfcore's own ``reference`` figure, measured in the same
    rounds, lies well inside it (a figure past a bound that perfcore's own figure nears says more of the
    bound, a profile taken under load, than of the student)."""
    inside = bound * BOUND_TRUST if check.higher_is_better else bound / BOUND_TRUST
    return not beyond(reference, inside, check.higher_is_better)
