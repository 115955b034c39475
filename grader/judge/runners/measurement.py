"""The runner of a measurement check: the student's figure against perfcore's, round by round, then a probe.

The student's function runs in the worker and perfcore's in the reference process, alternately (A B), both
pinned to one core. Each round gives a paired ratio; the interval of their median (:mod:`grader.compare.ratios`)
decides: inside the band passed, wholly outside wrong, straddling an edge more rounds (:class:`Budget`),
then deferred with the reason, or wrong where the student's own figures scatter while perfcore's hold still.
Every call is also held to the honesty rules (:mod:`grader.judge.runners.honesty`); on a probe input the
figure must be physically possible and follow perfcore's.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping
from typing import Any, cast

from perfcore.measure.core import Bounds

from ...compare import ratios, slips
from ...compare.values import NotANumber, as_number, describe
from ...results.environment import gpu_name
from ...results.measured import Measured, Probe
from ...results.outcome import State
from ...sandbox import cputime
from ...specs.check import MEASUREMENT_BANDS, MeasurementCheck, Work
from ...text.catalogue import Text, render
from ...text.show import kind_of, show
from ..prepare import Prepared
from ..reference import ReferenceShortage
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
from .cores import pin_pair
from .handing import handing
from .honesty import NO_MEASUREMENT_SHARE, Call, claimed_seconds, hold, least_seconds, work_floor
from .protocol import JudgeSide
from .readings import Witness, timed
from .rounds import (
    MIN_ROUNDS,
    PROBE_EXTRA_ROUNDS,
    PROBE_ROUNDS,
    Budget,
    StudentClock,
    drawn_inputs,
    probes_first,
    timed_call,
)


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
    started: list[Measured] = []  # the record, once the rounds start: the reports draw every round taken
    try:
        _measure(judge, p, path, started)
    except (Verdict, GraderError) as exc:
        exc.measured = started[0] if started else None
        raise
    return started[0] if started else None


def _measure(judge: JudgeSide, p: Prepared, path: str, started: list[Measured]) -> None:
    check, lang = p.check, judge.lang
    assert isinstance(check, MeasurementCheck)
    band = check.ratio_band
    graded, *probes = drawn_inputs(check, path)  # before any call: the same for every try of this code
    try:
        bound = float(check.physical_bound()) if check.physical_bound is not None else None
        work = check.work(**graded) if check.work is not None else None
    except Exception as exc:
        raise GraderError(f"physical_bound() or work() raised {exc!r}") from exc
    if bound is None and work is not None and check.inputs is not None:
        bound = possible(check, work, judge.bounds())  # the bound of the drawn input's own work
    threads = 1 if check.single_thread else None
    device = "cuda" if check.requires.cuda else "mps" if check.requires.mps else "cpu"
    core = pin_pair(judge, path)
    watch = busy.Watch(core)
    clock = StudentClock(check.timeout_s)
    # the calls ask for their clock readings (on the CPU: a GPU's events are a clock the grader cannot see)
    witness = Witness(judge) if device == "cpu" else None
    caller = judge if witness is None else cast(JudgeSide, witness)

    def student(kwargs: Mapping[str, Any], least_work: Work | None) -> float:
        with handing(check, kwargs) as handed:  # the judge's buffers, read back before any figure counts
            reply, took, cpu = timed_call(caller, p, path, kwargs, clock, watch, threads, handed)
            handed.verdict(lang)
        try:
            figure: float | None = figure_of(judge, p, reply.value, kwargs)
        except Verdict:  # not a number: said after the work floor, which a call that did nothing breaks first
            figure = None
        call = Call(
            kwargs,
            took,
            cpu,
            work=least_work,
            seconds=figure if check.unit == "s" else None,
            rate=figure if check.unit in RATE_UNITS and least_work is not None else None,
            on_cpu=device == "cpu",
            single_thread=check.single_thread,
            others_share=watch.student.others_share,
        )
        if figure is None:
            work_floor(judge, p, call)
            return figure_of(judge, p, reply.value, kwargs)
        hold(judge, p, call)
        if witness is not None:  # the figure came from timing the work, as its readings show
            timed(judge, p, kwargs, claimed_seconds(p, call), witness.last)
        return figure

    def reference(kwargs: Mapping[str, Any] = graded) -> float:
        before_cpu = judge.reference_cpu_reading()
        before = watch.begin()
        try:  # always at the judge's input: the reference process never works out the sizes itself
            figure = judge.measure_reference(p, kwargs)
        except ReferenceShortage as exc:  # the GPU's memory, not a grader bug: deferred with the reason
            raise Verdict(State.SKIPPED, render("ref_gpu_memory", lang, error=exc), deferred=True) from None
        except RuntimeError as exc:
            raise GraderError(f"the reference measurement failed: {exc}") from exc
        used = cputime.used(before_cpu, judge.reference_cpu_reading())
        watch.reference = watch.end(before, used.seconds if used else None)
        return figure

    def other(kwargs: Mapping[str, Any] = graded) -> float:  # the other honest library's figure
        try:
            return judge.measure_reference(p, kwargs, also=True)
        except ReferenceShortage as exc:  # as perfcore's main figure: the GPU's memory, deferred
            raise Verdict(State.SKIPPED, render("ref_gpu_memory", lang, error=exc), deferred=True) from None
        except RuntimeError as exc:
            raise GraderError(f"the reference measurement failed: {exc}") from exc

    budget = Budget(check)
    mine: list[float] = []
    ref: list[float] = []
    others: list[float] = []  # perfcore's figure with the other library (check.also), round by round
    loads = busy.Loads()

    def band_now() -> tuple[float, float]:
        """The band, widened by the ratio of the two libraries' figures measured in the same rounds."""
        return widened(band, others, ref)

    # the lists fill as rounds are taken: the outcome carries every round of the check's own input
    record = Measured(
        unit=check.unit,
        kind=check.kind,
        device=device,
        device_name=device_name(device),
        mine=mine,
        reference=ref,
        bound=bound,
    )
    if work is not None and work.bytes > 0 and work.flops > 0:
        record.intensity = work.flops / work.bytes
    if check.inputs is not None or check.graded_input is not None:  # drawn for this submission: say which
        record.input = inputs_text(check, (), graded)
    started.append(record)

    def one_round() -> None:  # A B: both see the same drift of the machine
        mine.append(student(graded, work))
        ref.append(reference())
        watch.round(loads)
        if others:  # the other library is measured, from the first round it was needed on
            others.append(other())
        record.load = loads.load()

    def decided() -> tuple[str, ratios.Interval]:
        """Where the ratios lie in the band; where not inside, and the check names another honest library,
        that library is measured too (from now on, every round) and the band widened by it."""
        where, interval = busy.decide(mine, ref, loads, band_now())
        if where != ratios.INSIDE and check.also is not None and not others:
            others.extend(other() for _ in range(busy.EVIDENCE_ROUNDS))
            record.also = others
            where, interval = busy.decide(mine, ref, loads, band_now())
        return where, interval

    early = probes_first(check, path)
    if early:  # the first input a function meets is not always the graded one
        for kwargs in probes:
            probe(judge, p, kwargs, record, student, reference, watch, other if check.also else None)
    for taken in range(1, check.rounds + 1):
        one_round()
        # a sequential rule: once the least rounds lie wholly inside the band, more rounds say nothing new
        # (inside is decided on every round taken, busy or not: load cannot put a wrong figure inside)
        if (
            MIN_ROUNDS <= taken < check.rounds
            and busy.decide(mine, ref, loads, band_now())[0] == ratios.INSIDE
        ):
            break
    got, expected = statistics.median(mine), statistics.median(ref)
    # the hook of grader.compare.slips: a figure beyond the bound that a unit slip explains names it
    fields: dict[str, Any] = {"got": show(got), "reference": show(expected), "unit": check.unit}
    fields.update(slips.beyond(got, expected, band, bound, check.higher_is_better, check.unit))
    if bound is not None and beyond(got, bound, check.higher_is_better) and trusted(expected, bound, check):
        # load cannot make a figure faster than the machine (a bound perfcore's own figure nears may be the
        # load's: a profile measured on a busy machine reads low; the band decides then)
        key = "measure_bound" if check.higher_is_better else "measure_below"
        raise wrong(check, Text(key, {**fields, "bound": show(bound)}), lang, (), graded)
    where, interval = decided()
    while where in (ratios.STRADDLES, busy.BUSY) and budget.more(len(mine)) and clock.more():
        if where == busy.BUSY and loads.hopeless(budget.rounds_left(len(mine))):
            break  # the load will discard what more rounds would give: deferred now, not at the budget's end
        one_round()
        one_round()
        where, interval = decided()
    band = band_now()
    if where != ratios.OUTSIDE:
        # The probe runs after the check's own rounds (a large probe leaves the allocator and the caches
        # unlike before it), and before any deferral: a made-up figure that happens to straddle an edge
        # must not be deferred when it cannot follow the physics to an input it has not seen.
        for kwargs in [] if early else probes:
            probe(judge, p, kwargs, record, student, reference, watch, other if check.also else None)
        if where == busy.BUSY:
            raise busy.busy_verdict(loads, lang)
        if where == ratios.STRADDLES:
            spreads = busy.scatter_spreads(mine, ref, loads)
            if spreads is None:  # a scatter in busy rounds may be the machine's
                raise busy.busy_verdict(loads, lang)
            raise undecided(lang, judge.max_noise, interval, band, *spreads)
        return
    low, high = band
    expected = statistics.median(ref)
    text = Text(
        "measure_outside",
        {
            "got": show(statistics.median(mine)),
            "reference": show(expected),
            "unit": check.unit,
            "ratio": ratios.ratio_text(interval.median, band),
            "rounds": interval.rounds,
            "confidence": confidence(interval),
            "interval": ratios.interval_text(interval, band),
            "low": low,
            "high": high,
        },
    )
    inputs = render("input", lang, inputs=inputs_text(check, (), graded)) if graded else ""
    slip = band_slip(statistics.median(mine), expected, band, check.unit, lang)
    said = join(lang, evidence(check, interval.median, lang), slip or hint(check, lang))  # a slip: no hint
    raise Verdict(
        State.WRONG,
        join(lang, describe(text, lang), inputs, said),
        details={
            **details(text, (), graded, check),
            "expected": f"{show(expected)} {check.unit}",
            "tolerance": f"ratio in [{low}, {high}] ({confidence(interval)} interval)",
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


def probe(
    judge: JudgeSide,
    p: Prepared,
    kwargs: Mapping[str, Any],
    record: Measured,
    student: Callable[[Mapping[str, Any], Work | None], float],
    reference: Callable[[Mapping[str, Any]], float],
    watch: busy.Watch,
    other: Callable[[Mapping[str, Any]], float] | None = None,
) -> None:
    """On an input the student has not seen, the figure must be physically possible and follow perfcore's
    figure at the same input (A B A B): wrong only when the whole interval of the paired ratios lies
    outside the band of the probe's kind in rounds the load could not bend (the check's own input has
    decided the rest); where the probe's rounds were too busy to say, the check is deferred, since a
    made-up figure is caught here or nowhere."""
    check, lang = p.check, judge.lang
    assert isinstance(check, MeasurementCheck) and check.work is not None
    try:
        work = check.work(**kwargs)
    except Exception as exc:
        raise GraderError(f"work() raised {exc!r}") from exc
    inputs = inputs_text(check, (), kwargs)
    mine: list[float] = []
    ref: list[float] = []
    others: list[float] = []
    loads = busy.Loads()
    least = least_seconds(work, judge.bounds())
    if check.unit == "s":
        bound = least
    elif check.unit in RATE_UNITS:
        amount = work.bytes if check.unit == "B/s" else work.flops
        bound = amount / least if least > 0 else math.inf
    else:  # a speedup: no bound of its own
        bound = math.nan
    if record.probe is None:  # the report draws the (first) probe beside the check's own input
        record.probe = Probe(
            kind=check.probe_kind or check.kind,
            input=inputs,
            mine=mine,
            reference=ref,
            bound=bound if math.isfinite(bound) else None,
        )

    def one_round() -> None:
        mine.append(student(kwargs, work))
        ref.append(reference(kwargs))
        watch.round(loads)
        if others and other is not None:
            others.append(other(kwargs))

    for _ in range(PROBE_ROUNDS):
        one_round()
    figure = statistics.median(mine)
    limit = NO_MEASUREMENT_SHARE * least if check.unit == "s" else bound / NO_MEASUREMENT_SHARE
    impossible = not math.isnan(limit) and beyond(figure, limit, check.higher_is_better)
    if impossible and trusted(statistics.median(ref), limit, check):  # load cannot make a figure faster
        message = render(
            "probe_impossible", lang, inputs=inputs, got=show(figure), unit=check.unit, bound=show(bound)
        )
        raise Verdict(State.WRONG, message, details={"input": inputs, "got": show(figure)})
    kind_band = MEASUREMENT_BANDS[check.probe_kind or check.kind]
    band = kind_band
    where, interval = busy.decide(mine, ref, loads, band)
    if where != ratios.INSIDE and other is not None:  # the other honest library, as on the graded input
        others.extend(other(kwargs) for _ in range(busy.EVIDENCE_ROUNDS))
        band = widened(kind_band, others, ref)
        where, interval = busy.decide(mine, ref, loads, band)
    # Busy rounds are no evidence, and an interval across an edge decides nothing: more rounds, in case the
    # machine calms or the interval narrows. A probe that still straddles never passes (a figure made up at
    # the edge of the band, or one cheat landing on the probe, passed so): wrong where the student's own
    # figures scatter, else deferred.
    for extra in range(PROBE_EXTRA_ROUNDS):
        if where not in (busy.BUSY, ratios.STRADDLES):
            break
        if where == busy.BUSY and loads.hopeless(PROBE_EXTRA_ROUNDS - extra):
            break  # deferred now: the load will discard what the rounds left would give
        one_round()
        band = widened(kind_band, others, ref)
        where, interval = busy.decide(mine, ref, loads, band)
    if where == busy.BUSY:
        raise busy.busy_verdict(loads, lang)
    if where == ratios.STRADDLES:
        spreads = busy.scatter_spreads(mine, ref, loads)
        if spreads is None:  # a scatter in busy rounds may be the machine's
            raise busy.busy_verdict(loads, lang)
        verdict = undecided(lang, judge.max_noise, interval, band, *spreads)
        verdict.message = render("probe_curve", lang, inputs=inputs) + verdict.message
        raise verdict
    if where == ratios.OUTSIDE:
        message = render(
            "probe_band",
            lang,
            inputs=inputs,
            ratio=ratios.ratio_text(interval.median, band),
            confidence=confidence(interval),
            interval=ratios.interval_text(interval, band),
            low=band[0],
            high=band[1],
        )
        raise Verdict(
            State.WRONG,
            join(lang, message, evidence(check, interval.median, lang), hint(check, lang)),
            details={"input": inputs, "got": show(figure), "tolerance": f"ratio in [{band[0]}, {band[1]}]"},
        )


def widened(band: tuple[float, float], others: list[float], ref: list[float]) -> tuple[float, float]:
    """``band`` widened to hold the other honest library too: by the ratio of its median figure to
    perfcore's main one, measured beside it (numpy's k passes at 0.6x torch's time: the low edge times
    0.6); ``band`` itself where there is no other library's figure. The other library is measured only
    where the student's ratio is not inside the band as it is: an honest student of the main library
    costs nothing more."""
    if not others or not ref or statistics.median(ref) <= 0:
        return band
    q = statistics.median(others) / statistics.median(ref)
    low, high = band
    return (low * min(1.0, q), high * max(1.0, q))


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
