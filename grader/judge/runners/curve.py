"""The runner of a curve check (:class:`~grader.specs.check.ShapeCheck`): the student's curve must have the
shape the lecture says (a roofline, an overhead curve) and follow perfcore's, point by point, round by
round; or, for a custom test of one value (a speedup), pass it where perfcore's value passes it.

A curve with no reference is only tested for its shape. Otherwise both sides are measured alternately
(A B A B), each point's paired ratios decide as a measurement's do (:mod:`grader.compare.ratios`), and a
probe at sizes the student has not seen must follow perfcore's too.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from ...compare import ratios
from ...compare.curves import MalformedCurve, as_curve, shape_problem
from ...compare.values import NotANumber, as_number, describe
from ...results.measured import Measured
from ...results.outcome import State
from ...sandbox import cputime, load
from ...specs.check import MEASUREMENT_BANDS, ShapeCheck
from ...text.catalogue import Text, render
from ...text.show import show
from ..prepare import Prepared
from ..reference import ReferenceShortage
from ..verdicts import GraderError, Verdict, evidence, hint, inputs_text, join, undecided, wrong
from . import busy
from .cores import pin_pair
from .honesty import Call, hold
from .protocol import JudgeSide
from .readings import Witness, curve_claims, timed, timed_curve
from .rounds import (
    PROBE_EXTRA_ROUNDS,
    PROBE_ROUNDS,
    Budget,
    StudentClock,
    drawn_inputs,
    probes_first,
    timed_call,
)


def run_shape(judge: JudgeSide, p: Prepared, path: str) -> Measured | None:
    """Grade ``p``'s curve check; returns (or attaches to its verdict) every round it measured."""
    started: list[Measured] = []  # the record, once the rounds start: the reports draw every round taken
    try:
        _shape(judge, p, path, started)
    except (Verdict, GraderError) as exc:
        exc.measured = started[0] if started else None
        raise
    return started[0] if started else None


def _shape(judge: JudgeSide, p: Prepared, path: str, started: list[Measured]) -> None:
    check, lang = p.check, judge.lang
    assert isinstance(check, ShapeCheck)
    graded, *probes = drawn_inputs(check, path)  # before any call: the same for every try of this code
    clock = StudentClock(check.timeout_s)
    watch = busy.Watch(None)
    on_cpu = not (check.requires.cuda or check.requires.mps)
    # the calls ask for their clock readings (on the CPU: a GPU's events are a clock the grader cannot see;
    # and where there is perfcore's curve to follow: a curve without one is tested for its shape alone)
    witness = Witness(judge) if on_cpu and check.reference is not None else None
    caller = judge if witness is None else cast(JudgeSide, witness)

    def student(kwargs: Mapping[str, Any]) -> Any:
        """The student's curve at ``kwargs``, after the call shows it measured (its work, its seconds, one
        core's CPU where the check is single-threaded)."""
        try:
            work = check.work(**kwargs) if check.work is not None else None
        except Exception as exc:
            raise GraderError(f"work() raised {exc!r}") from exc
        threads = 1 if check.single_thread else None
        reply, took, cpu = timed_call(caller, p, path, kwargs, clock, watch, threads)
        seconds = None
        if check.shape == "overhead":  # a curve of seconds: the call lasted at least as long as what it timed
            try:
                seconds = float(as_curve(reply.value)[1].sum())
            except MalformedCurve:
                pass  # the shape test says what is wrong with it
        call = Call(
            kwargs,
            took,
            cpu,
            work=work,
            seconds=seconds,
            on_cpu=on_cpu,
            single_thread=check.single_thread,
            others_share=watch.student.others_share,
        )
        hold(judge, p, call)  # the same rules as every measuring call
        if witness is not None:  # the curve came from timing its points, as the call's readings show
            claims = curve_claims(check, kwargs, reply.value)
            if claims is None:  # one value (a speedup), or a curve the shape test refuses: a clock still
                timed(judge, p, kwargs, None, witness.last)
            else:
                timed_curve(judge, p, kwargs, claims, witness.last)
        return reply.value

    def reference(kwargs: Mapping[str, Any] = graded) -> Any:
        before_cpu = judge.reference_cpu_reading()
        before = watch.begin()
        try:  # always at the judge's input: the reference process never works out the sizes itself
            value = judge.reference_value(p, kwargs)
        except ReferenceShortage as exc:  # the GPU's memory, not a grader bug: deferred with the reason
            raise Verdict(State.SKIPPED, render("ref_gpu_memory", lang, error=exc), deferred=True) from None
        except RuntimeError as exc:
            raise GraderError(f"the reference curve failed: {exc}") from exc
        used = cputime.used(before_cpu, judge.reference_cpu_reading())
        watch.reference = watch.end(before, used.seconds if used else None)
        return value

    if check.reference is None:
        value = student(graded)
        shape = check.shape if isinstance(check.shape, str) else "value"
        started.append(Measured(shape=shape, mine=[value], reference=[]))
        text = shape_problem(check.shape, value)
        if text is not None:
            raise wrong(check, text, lang, (), graded)
        return
    watch.core = pin_pair(judge, path)
    loads = busy.Loads()
    if callable(check.shape):  # one value, not a curve: perfcore's must show what the student's must
        run_custom_shape(judge, p, started, check, student, reference, graded, watch, loads)
        return
    budget = Budget(check)
    mine_curves: list[Any] = []
    ref_curves: list[Any] = []
    record = Measured(shape=check.shape, mine=mine_curves, reference=ref_curves)
    started.append(record)

    def one_round() -> None:  # A B A B
        mine_curves.append(student(graded))
        ref_curves.append(reference())
        watch.round(loads)
        record.load = loads.load()

    def undecided(state: Judged) -> bool:
        """Worth more rounds: perfcore's curve lacks the shape (the machine, now), the rounds were too busy
        to judge the student's, the points are not decided, or the student's curve lacks the shape while
        its points are not wholly off (noise can bend a median of a few rounds; a wrong method stays wrong
        over more)."""
        if state.reference_problem is not None or state.busy:
            return True
        if state.comparison is None:
            return False
        return state.comparison.undecided or (
            state.student_problem is not None and not state.comparison.wrong
        )

    def run_probes() -> None:
        for kwargs in probes:  # other sizes, unseen: a made-up table cannot follow the machine there
            mine: list[Any] = []
            theirs: list[Any] = []
            probe_loads = busy.Loads()
            for _ in range(PROBE_ROUNDS):  # A B A B, as on the check's own input
                mine.append(student(kwargs))
                theirs.append(reference(kwargs))
                watch.round(probe_loads)
            probe = judged(check, mine, theirs, probe_loads)
            for extra in range(PROBE_EXTRA_ROUNDS):  # busy, or undecided: more rounds (as a measurement's)
                if not (probe.busy or (probe.comparison is not None and probe.comparison.undecided)):
                    break
                if probe.busy and probe_loads.hopeless(PROBE_EXTRA_ROUNDS - extra):
                    break  # deferred now: the load will discard what the rounds left would give
                mine.append(student(kwargs))
                theirs.append(reference(kwargs))
                watch.round(probe_loads)
                probe = judged(check, mine, theirs, probe_loads)
            if probe.busy:  # a made-up table is caught here or nowhere: too busy to tell is deferred
                raise busy.busy_verdict(probe_loads, lang)
            comparison = probe.comparison
            if comparison is not None and (comparison.wrong or comparison.undecided):
                # an undecided probe never passes: wrong where the student's points scatter, else deferred
                curve_verdict(judge, check, comparison, kwargs, probe=True)

    early = probes_first(check, path)
    if early:  # the first input a function meets is not always the graded one
        run_probes()
    for _ in range(check.rounds):
        one_round()
    current = judged(check, mine_curves, ref_curves, loads)
    while undecided(current) and budget.more(len(mine_curves)) and clock.more():
        if current.busy and loads.hopeless(budget.rounds_left(len(mine_curves))):
            break  # deferred now: the load will discard what more rounds would give
        one_round()
        one_round()
        current = judged(check, mine_curves, ref_curves, loads)
    if current.reference_problem is not None:  # this machine cannot show the shape now
        why = describe(current.reference_problem, lang)
        raise Verdict(State.SKIPPED, render("curve_reference_shape", lang, why=why), deferred=True)
    if current.student_problem is not None:
        raise wrong(check, current.student_problem, lang, (), graded)
    comparison = current.comparison
    if comparison is not None and comparison.wrong:
        curve_verdict(judge, check, comparison, graded)
    if not early:
        run_probes()
    if current.busy:
        raise busy.busy_verdict(loads, lang)
    if comparison is not None and comparison.undecided:
        quiet = loads.quiet()
        if len(quiet) < busy.EVIDENCE_ROUNDS:  # a scatter in busy rounds may be the machine's
            raise busy.busy_verdict(loads, lang)
        if len(quiet) < len(loads.rounds):  # the quiet rounds alone, perfcore's spread in the same ones
            quiet_only = compare_curves(check, busy.pick(mine_curves, quiet), busy.pick(ref_curves, quiet))
            comparison = quiet_only or comparison
        curve_verdict(judge, check, comparison, graded)  # undecided: deferred, or the scatter's


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


def judged(check: ShapeCheck, mine: list[Any], ref: list[Any], loads: busy.Loads) -> Judged:
    """The state of a curve check's rounds (see :class:`Judged`)."""
    reference_problem = shape_problem(check.shape, median_curve(ref))
    comparison = compare_curves(check, mine, ref)
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
        comparison = compare_curves(check, busy.pick(mine, clean), busy.pick(ref, clean))
    if comparison is not None and comparison.wrong and len(quiet) < len(loads.rounds):
        low, high = comparison.band
        wide = (low / load.CONTENTION_FACTOR, high * load.CONTENTION_FACTOR)
        widened = compare_curves(check, busy.pick(mine, clean), busy.pick(ref, clean), wide)
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


def run_custom_shape(
    judge: JudgeSide,
    p: Prepared,
    started: list[Measured],
    check: ShapeCheck,
    student: Callable[[Mapping[str, Any]], Any],
    reference: Callable[[Mapping[str, Any]], Any],
    graded: Mapping[str, Any],
    watch: busy.Watch,
    loads: busy.Loads,
) -> None:
    """A custom test of one value (m3c: tiled beats naive by 1.2x) against perfcore's value measured
    alternately: deferred where perfcore's own median fails the test here; rounds added while the
    student's median fails it and perfcore's passes (load bends a speedup); wrong if it still fails in the
    quiet rounds, where perfcore's passed it in the same rounds, and deferred where too few were quiet."""
    lang = judge.lang
    budget = Budget(check)
    mine: list[Any] = []
    theirs: list[Any] = []
    record = Measured(shape="value", mine=mine, reference=theirs)
    started.append(record)

    def problems() -> tuple[Text | None, Text | None]:
        return shape_problem(check.shape, typical(theirs)), shape_problem(check.shape, typical(mine))

    def one_round() -> None:
        mine.append(student(graded))
        theirs.append(reference(graded))
        watch.round(loads)
        record.load = loads.load()

    for _ in range(check.rounds):
        one_round()
    reference_problem, student_problem = problems()
    while (reference_problem is not None or student_problem is not None) and budget.more(len(mine)):
        one_round()
        one_round()
        reference_problem, student_problem = problems()
    if reference_problem is not None:
        why = describe(reference_problem, lang)
        raise Verdict(State.SKIPPED, render("curve_reference_shape", lang, why=why), deferred=True)
    if student_problem is not None:
        quiet = loads.quiet()
        if len(quiet) < len(loads.rounds):  # the quiet rounds alone decide, perfcore's passing in them
            if len(quiet) < busy.EVIDENCE_ROUNDS:
                raise busy.busy_verdict(loads, lang)
            if shape_problem(check.shape, typical(busy.pick(theirs, quiet))) is not None:
                raise busy.busy_verdict(loads, lang)
            student_problem = shape_problem(check.shape, typical(busy.pick(mine, quiet)))
        if student_problem is not None:
            raise wrong(check, student_problem, lang, (), graded)


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
    check: ShapeCheck, mine: list[Any], ref: list[Any], band: tuple[float, float] | None = None
) -> CurveComparison | None:
    """The point-by-point comparison of rounds of curves, or None where the student's curves are malformed
    or of another length than perfcore's (the shape test says what is wrong with them)."""
    try:
        students = [as_curve(c) for c in mine]
        references = [as_curve(c) for c in ref]
    except MalformedCurve:
        return None
    n = len(references[0][0])
    if any(len(c[0]) != n for c in students + references):
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
        points.append((float(students[0][0][i]), interval, ratios.place(interval, band)))
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
