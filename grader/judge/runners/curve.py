"""The runner of a curve check (:class:`~grader.specs.check.ShapeCheck`): the student's curve must have the
shape the lecture says (a roofline, an overhead curve) and follow perfcore's, point by point, round by
round; or, for a custom test of one value (a speedup), pass it where perfcore's value passes it.

A curve with no reference is only tested for its shape. Otherwise both sides are measured alternately
(A B A B), each point's paired ratios decide as a measurement's do (:mod:`grader.compare.ratios`), and a
probe at sizes the student has not seen must follow perfcore's too. The rounds themselves (the calls, the
clock, the watch, the budget) are :mod:`.paired`'s, shared with the measurement runner; this module is what
a curve adds.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ...compare import ratios
from ...compare.curves import MalformedCurve, as_curve, shape_problem
from ...compare.values import NotANumber, as_number, describe
from ...results.measured import Measured
from ...results.outcome import State
from ...sandbox import load
from ...specs.check import MEASUREMENT_BANDS, ShapeCheck
from ...text.catalogue import Text, render
from ...text.show import show
from ..prepare import Prepared
from ..verdicts import GraderError, Verdict, evidence, hint, inputs_text, join, undecided, wrong
from . import busy
from .honesty import hold
from .paired import PairedRounds, Series
from .protocol import JudgeSide
from .readings import curve_claims
from .rounds import PROBE_ROUNDS, Budget, drawn_inputs, probes_first


def run_shape(judge: JudgeSide, p: Prepared, path: str) -> Measured | None:
    """Grade ``p``'s curve check; returns (or attaches to its verdict) every round it measured."""
    return CurveRounds(judge, p, path).run()


@dataclass(frozen=True)
class Judged:
    """What the rounds of a curve say so far: perfcore's own curve lacks the shape (over every round), the
    student's lacks it (in the quiet rounds, where perfcore's kept it), the points' comparison (over the
    clean rounds where it would be wrong), and ``busy``: a verdict against the student that only rounds
    the machine's load could bend would give."""

    reference_problem: Text | None
    student_problem: Text | None
    comparison: CurveComparison | None
    busy: bool
    probe: bool = False  # the rounds at a probe's input

    @property
    def more(self) -> bool:
        """Worth more rounds. At a probe: too busy to judge, or the points not decided. At the check's own
        input also where perfcore's curve lacks the shape (the machine, now), or the student's lacks it while
        its points are not wholly off (noise can bend a median of a few rounds; a wrong method stays wrong
        over more)."""
        undecided = self.comparison is not None and self.comparison.undecided
        if self.probe:
            return self.busy or undecided
        if self.reference_problem is not None or self.busy:
            return True
        if self.comparison is None:
            return False
        return undecided or (self.student_problem is not None and not self.comparison.wrong)


def judged(
    check: ShapeCheck, mine: list[Any], ref: list[Any], loads: busy.Loads, others: list[Any] | None = None
) -> Judged:
    """The state of a curve check's rounds (see :class:`Judged`); ``others``: the other honest library's
    curves, where measured (each point's band widened by them, :func:`compare_curves`)."""
    others = others or []
    reference_problem = shape_problem(check.shape, median_curve(ref))
    comparison = compare_curves(check, mine, ref, others=others)
    quiet, clean = loads.quiet(), loads.clean()
    if reference_problem is not None:
        return Judged(reference_problem, None, comparison, False)
    student_problem = shape_problem(check.shape, student_curve(mine))
    loaded = False
    if student_problem is not None and len(quiet) < len(loads.rounds):
        # judged on the quiet rounds alone, where perfcore's curve in the same rounds kept the shape
        if len(quiet) < busy.EVIDENCE_ROUNDS:
            student_problem, loaded = None, True
        else:
            student_problem = shape_problem(check.shape, student_curve(busy.pick(mine, quiet)))
            if shape_problem(check.shape, median_curve(busy.pick(ref, quiet))) is not None:
                student_problem, loaded = None, True
    if comparison is not None and comparison.wrong and len(clean) < len(loads.rounds):
        if len(clean) < busy.EVIDENCE_ROUNDS:
            return Judged(None, student_problem, None, True)
        comparison = compare_curves(check, busy.pick(mine, clean), busy.pick(ref, clean), others=others)
    if comparison is not None and comparison.wrong and len(quiet) < len(loads.rounds):
        low, high = comparison.band
        wide = (low / load.CONTENTION_FACTOR, high * load.CONTENTION_FACTOR)
        widened = compare_curves(check, busy.pick(mine, clean), busy.pick(ref, clean), wide, others)
        if widened is not None and not widened.wrong:
            return Judged(None, student_problem, None, True)
    return Judged(None, student_problem, comparison, loaded)


def student_curve(curves: list[Any]) -> Any:
    """The median of the student's rounds, point by point, as for the reference: one noisy round is not
    the method; the last round where they cannot be combined."""
    try:
        return median_curve(curves)
    except (MalformedCurve, ValueError):
        return curves[-1]


def typical(values: list[Any]) -> Any:
    """The median of ``values`` where all are numbers (a speedup measured over rounds), else the last."""
    numbers = []
    for v in values:
        try:
            numbers.append(float(as_number(v, "")))
        except NotANumber:
            return values[-1]
    return statistics.median(numbers)


class CurveRounds(PairedRounds[Judged]):
    """A curve check's paired rounds: the student's curve against perfcore's, point by point, and its shape;
    or one value (a speedup) under the check's custom test, where perfcore's passes it."""

    gives = "curve"
    check: ShapeCheck

    def perfcore(self, kwargs: Mapping[str, Any]) -> Any:
        return self.judge.reference_value(self.p, kwargs, on_cpu=self.on_cpu)

    def other(self, kwargs: Mapping[str, Any]) -> Any:
        """perfcore's curve at ``kwargs`` with the other honest library (the check's ``also``)."""
        return self.asked(
            lambda at: self.judge.reference_value(self.p, at, on_cpu=self.on_cpu, also=True), kwargs
        )

    def student(self, series: Series) -> Any:
        """The student's curve at ``series``'s input, after the call shows it measured (its work, its seconds,
        one core's CPU where the check is single-threaded)."""
        check, judge, p, kwargs = self.check, self.judge, self.p, series.kwargs
        try:
            work = check.work(**kwargs) if check.work is not None else None
        except Exception as exc:
            raise GraderError(f"work() raised {exc!r}") from exc
        reply, took, cpu = self.called(kwargs)
        seconds = None
        if check.shape == "overhead":  # a curve of seconds: the call lasted at least as long as what it timed
            try:
                seconds = float(as_curve(reply.value)[1].sum())
            except MalformedCurve:
                pass  # the shape test says what is wrong with it
        claims = curve_claims(check, kwargs, reply.value)  # None: one value (a speedup), or a refused curve
        call = self.call_of(
            kwargs, took, cpu, work, seconds, points=None if claims is None else tuple(claims)
        )
        hold(judge, p, call)  # the same rules as every measuring call, its clock readings among them
        return reply.value

    def decide(self, series: Series) -> Judged:
        """Where the rounds stand; where some point is not inside the band and the check names another honest
        library, that library's curve is measured too (from now on, every round) and each point's band
        widened by it (an honest numpy sweep read 0.35-0.5x torch's at m of 2-8 on a Xeon's OpenBLAS, and
        1.3-1.7x on an EPYC's)."""
        check = self.check
        if check.also is not None and not series.others:
            plain = compare_curves(check, series.mine, series.ref)
            if plain is not None and any(pt[2] != ratios.INSIDE for pt in plain.points):
                series.others.extend(self.other(series.kwargs) for _ in range(busy.EVIDENCE_ROUNDS))
                if series.record is not None:
                    series.record.also = series.others
        judged_now = judged(check, series.mine, series.ref, series.loads, series.others)
        return replace(judged_now, probe=series.probe)

    def grade(self) -> None:
        check, lang = self.check, self.lang
        # the inputs, before any call: the same for every try of this code
        graded, *probes = drawn_inputs(check, self.path)
        if check.reference is None:
            self.shape_only(graded)
            return
        self.pin()
        if callable(check.shape):  # one value, not a curve: perfcore's must show what the student's must
            self.custom(graded)
            return
        budget = Budget(check)
        series = Series(graded)
        self.start(Measured(shape=check.shape, mine=series.mine, reference=series.ref), series)
        early = probes_first(check, self.path)
        if early:  # the first input a function meets is not always the graded one
            self.probes(probes)
        self.rounds(series, check.rounds)
        current = self.settle(series, budget, self.decide(series))
        if current.reference_problem is not None:  # this machine cannot show the shape now
            why = describe(current.reference_problem, lang)
            raise Verdict(State.SKIPPED, render("curve_reference_shape", lang, why=why), deferred=True)
        if current.student_problem is not None:
            raise wrong(check, current.student_problem, lang, (), graded)
        comparison = current.comparison
        if comparison is not None and comparison.wrong:
            curve_verdict(self.judge, check, comparison, graded)
        if not early:
            self.probes(probes)
        if current.busy:
            raise busy.busy_verdict(series.loads, lang)
        if comparison is not None and comparison.undecided:
            self.unsettled(series, comparison)

    def shape_only(self, graded: Mapping[str, Any]) -> None:
        """A curve with no reference: tested for its shape alone, from one call."""
        value = self.student(Series(graded))
        shape = self.check.shape if isinstance(self.check.shape, str) else "value"
        self.record = Measured(shape=shape, mine=[value], reference=[])
        text = shape_problem(self.check.shape, value)
        if text is not None:
            raise wrong(self.check, text, self.lang, (), graded)

    def unsettled(self, series: Series, comparison: CurveComparison) -> None:
        """Still undecided after the rounds the budget allowed, at the check's own input or a probe's:
        deferred where too few rounds were quiet (a scatter in busy rounds may be the machine's); else judged
        on the quiet rounds alone, perfcore's spread in the same ones: wrong where the student's points
        scatter, else deferred. A probe's rounds are read as the graded input's are (issue 38: an honest
        m5b whose probe, scattered by a shared core, went to the scatter rule over busy rounds was wrong)."""
        loads = series.loads
        quiet = loads.quiet()
        if len(quiet) < busy.EVIDENCE_ROUNDS:
            raise busy.busy_verdict(loads, self.lang)
        if len(quiet) < len(loads.rounds):
            mine, ref = busy.pick(series.mine, quiet), busy.pick(series.ref, quiet)
            comparison = compare_curves(self.check, mine, ref) or comparison
        curve_verdict(self.judge, self.check, comparison, series.kwargs, probe=series.probe)

    def probes(self, probes: list[dict[str, Any]]) -> None:
        """Other sizes, unseen: a made-up table cannot follow the machine there. Each is measured A B A B, as
        the check's own input, with more rounds while busy or undecided; a made-up table is caught here or
        nowhere, so a probe too busy to tell defers the check, and an undecided one never passes (wrong
        where the student's points scatter, else deferred)."""
        for kwargs in probes:
            series = Series(kwargs, probe=True)
            self.rounds(series, PROBE_ROUNDS)
            probe = self.settle_probe(series, self.decide(series))
            if probe.busy:
                raise busy.busy_verdict(series.loads, self.lang)
            comparison = probe.comparison
            if comparison is not None and comparison.wrong:
                curve_verdict(self.judge, self.check, comparison, kwargs, probe=True)
            if comparison is not None and comparison.undecided:
                self.unsettled(series, comparison)

    def custom(self, graded: Mapping[str, Any]) -> None:
        """A custom test of one value (m3c: tiled beats naive by 1.2x) against perfcore's value measured
        alternately: deferred where perfcore's own median fails the test here; rounds added while the
        student's median fails it and perfcore's passes (load bends a speedup); wrong if it still fails in
        the quiet rounds, where perfcore's passed it in the same rounds, and deferred where too few were
        quiet."""
        check, lang = self.check, self.lang
        budget = Budget(check)
        series = Series(graded)
        self.start(Measured(shape="value", mine=series.mine, reference=series.ref), series)
        self.rounds(series, check.rounds)
        reference_problem, student_problem = value_problems(check, series.mine, series.ref)
        while (reference_problem is not None or student_problem is not None) and budget.more(
            len(series.mine)
        ):
            self.round(series)
            self.round(series)
            reference_problem, student_problem = value_problems(check, series.mine, series.ref)
        if reference_problem is not None:
            why = describe(reference_problem, lang)
            raise Verdict(State.SKIPPED, render("curve_reference_shape", lang, why=why), deferred=True)
        if student_problem is None:
            return
        loads = series.loads
        quiet = loads.quiet()
        if len(quiet) < len(loads.rounds):  # the quiet rounds alone decide, perfcore's passing in them
            if len(quiet) < busy.EVIDENCE_ROUNDS:
                raise busy.busy_verdict(loads, lang)
            if shape_problem(check.shape, typical(busy.pick(series.ref, quiet))) is not None:
                raise busy.busy_verdict(loads, lang)
            student_problem = shape_problem(check.shape, typical(busy.pick(series.mine, quiet)))
        if student_problem is not None:
            raise wrong(check, student_problem, lang, (), graded)


def value_problems(check: ShapeCheck, mine: list[Any], ref: list[Any]) -> tuple[Text | None, Text | None]:
    """What the custom test says of perfcore's typical value and of the student's (None: passed)."""
    return shape_problem(check.shape, typical(ref)), shape_problem(check.shape, typical(mine))


def median_curve(curves: list[Any]) -> list[tuple[float, float]]:
    """Point by point, the median y of ``curves`` (all of one length; the first one's x)."""
    arrays = [as_curve(c) for c in curves]
    xs = arrays[0][0]
    if any(len(a[0]) != len(xs) for a in arrays):
        raise ValueError("curves of different lengths")
    return [(float(x), float(statistics.median(float(a[1][i]) for a in arrays))) for i, x in enumerate(xs)]


@dataclass(frozen=True)
class CurveComparison:
    """A student's curves against perfcore's, round by round, point by point: each point's interval of
    paired ratios (see :mod:`grader.compare.ratios`) is inside the band, outside it, or straddles an edge."""

    band: tuple[float, float]
    points: tuple[tuple[float, ratios.Interval, str], ...]  # (x, interval, place)
    mine: tuple[float, ...]  # per point, the student's round-to-round spread
    ref: tuple[float, ...]  # per point, perfcore's

    @property
    def outside(self) -> list[tuple[float, ratios.Interval, str]]:
        return [pt for pt in self.points if pt[2] == ratios.OUTSIDE]

    @property
    def wrong(self) -> bool:
        """More than a third of the points wholly outside: one noisy point is not a wrong method."""
        return 3 * len(self.outside) > len(self.points)

    @property
    def undecided(self) -> bool:
        """Not wrong yet, but wrong if the straddling points fell outside."""
        unclear = sum(1 for pt in self.points if pt[2] != ratios.INSIDE)
        return not self.wrong and 3 * unclear > len(self.points)


def compare_curves(
    check: ShapeCheck,
    mine: list[Any],
    ref: list[Any],
    band: tuple[float, float] | None = None,
    others: list[Any] | None = None,
) -> CurveComparison | None:
    """The point-by-point comparison of rounds of curves, or None where the student's curves are malformed
    or of another length than perfcore's (the shape test says what is wrong with them). ``others``: the
    other honest library's curves, where measured: each point's band widened by the ratio of its median
    there to perfcore's main one (:func:`grader.compare.ratios.widened`, as a measurement's)."""
    try:
        students = [as_curve(c) for c in mine]
        references = [as_curve(c) for c in ref]
        alternatives = [as_curve(c) for c in others or []]
    except MalformedCurve:
        return None
    n = len(references[0][0])
    if any(len(c[0]) != n for c in students + references + alternatives):
        return None
    points = []
    mine_spread, ref_spread = [], []
    band = band or MEASUREMENT_BANDS[check.kind]
    for i in range(n):
        ys = [float(c[1][i]) for c in students]
        rs = [float(c[1][i]) for c in references]
        if not all(math.isfinite(y) and y > 0 for y in ys):
            return None
        interval = ratios.median_interval(ratios.paired_ratios(ys, rs))
        wide = ratios.widened(band, [float(c[1][i]) for c in alternatives], rs)
        points.append((float(students[0][0][i]), interval, ratios.place(interval, wide)))
        mine_spread.append(ratios.spread(ys))
        ref_spread.append(ratios.spread(rs))
    return CurveComparison(band, tuple(points), tuple(mine_spread), tuple(ref_spread))


def curve_verdict(
    judge: JudgeSide,
    check: ShapeCheck,
    comparison: CurveComparison,
    kwargs: Mapping[str, Any],
    probe: bool = False,
) -> None:
    """Raise the verdict of a comparison that is not a pass: wrong with the farthest point, or, still
    undecided after the rounds the budget allowed, wrong where the student's own points scatter and else
    deferred. ``probe``: the curve was asked for at inputs the student has not seen, and the message says so."""
    lang = judge.lang
    low, high = comparison.band
    inputs = inputs_text(check, (), kwargs)
    if comparison.wrong:
        worst_x, worst, _ = max(
            comparison.outside,
            key=lambda pt: abs(math.log(pt[1].median)) if 0 < pt[1].median < math.inf else math.inf,
        )
        message = render(
            "curve_points",
            lang,
            off=len(comparison.outside),
            total=len(comparison.points),
            x=show(worst_x),
            ratio=ratios.ratio_text(worst.median, comparison.band),
            low=low,
            high=high,
        )
        unseen = render("probe_curve", lang, inputs=inputs) if probe else ""
        raise Verdict(
            State.WRONG,
            join(lang, unseen + message, evidence(check, worst.median, lang), hint(check, lang)),
            details={"input": inputs, "tolerance": f"ratio in [{low}, {high}]"},
        )
    if comparison.undecided:
        _, interval, _ = next(pt for pt in comparison.points if pt[2] != ratios.INSIDE)
        mine, ref = statistics.median(comparison.mine), statistics.median(comparison.ref)
        raise undecided(judge.lang, judge.max_noise, interval, comparison.band, mine, ref)
