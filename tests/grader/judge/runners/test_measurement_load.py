"""grader.judge.runners.measurement and curve under load: the same figures are wrong on a quiet machine and
deferred where the machine's load could have produced them; a student's call past its limit while others
held the core is deferred; the check's time counts the student's own calls only. The load is injected
(every span busy, or every span quiet), as on a machine this test does not run on."""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Mapping
from typing import Any

import pytest

from grader.judge.prepare import Prepared, prepare
from grader.judge.runners.curve import run_shape
from grader.judge.runners.measurement import run_measurement
from grader.judge.verdicts import Verdict
from grader.results.outcome import State
from grader.sandbox import load, messages
from grader.specs.check import Exercise, MeasurementCheck, ShapeCheck, Work
from grader.specs.requirements import Requirements
from tests.grader.judge.fakes import FakeJudgeSide, spans

QUIET = load.Span(wall=1.0, others=0.0, steal=0.0, elsewhere=0.0, cores=1, resolution=0.01)
SHARED = load.Span(wall=1.0, others=0.7, steal=0.0, elsewhere=1.0, cores=1, resolution=0.01)
#: The checks' seconds: short enough that a call returning at once lasts longer (the claimed-time rule).
S = 1e-7


def measured(check: MeasurementCheck, judge: FakeJudgeSide) -> Verdict | None:
    exercise = Exercise(id="fx", module="fx", title_zh="假", title_en="Fake", checks=(check,))
    try:
        run_measurement(judge, prepare(check, exercise, "en"), "fx.py")
    except Verdict as verdict:
        return verdict
    return None


TIME_CHECK = MeasurementCheck(
    id="t",
    part="a",
    points=1,
    func="transpose_time",
    reference=lambda: 1.0,
    kind="cache",
    unit="s",
    higher_is_better=False,
    rounds=3,
    timeout_s=60.0,
    requires=Requirements(),
)


@pytest.mark.parametrize(("span", "state"), [(QUIET, State.WRONG), (SHARED, State.SKIPPED)])
def test_a_figure_far_from_perfcores_is_wrong_only_on_a_quiet_machine(span, state) -> None:
    """The issue's m3 case: the student's figure 0.22x perfcore's. Quiet, that is the method (wrong);
    with perfcore's core shared, it is what load does to perfcore's blocks (deferred, with the load)."""
    verdict = measured(
        TIME_CHECK,
        FakeJudgeSide(student=lambda timeout_s: messages.Returned(0.22 * S), reference=S, spans=spans(span)),
    )
    assert verdict is not None and verdict.state == state
    if state == State.SKIPPED:
        assert verdict.deferred and "this machine was busy" in verdict.message


def test_scatter_under_load_is_deferred_not_wrong() -> None:
    """The issue's ex10 case: the student's figures scatter (IQR/median 2.18) while perfcore's hold: wrong
    only where the rounds were quiet."""
    figures = [0.3, 1.0, 3.0, 0.5, 2.5, 0.35, 1.6, 0.7, 2.8, 0.4, 1.9, 0.6, 3.1]

    def scattered():
        values = iter(figures * 4)
        return lambda timeout_s: messages.Returned(next(values) * S)

    verdict = measured(TIME_CHECK, FakeJudgeSide(student=scattered(), reference=S, spans=spans(SHARED)))
    assert verdict is not None and verdict.state == State.SKIPPED and verdict.deferred
    verdict = measured(TIME_CHECK, FakeJudgeSide(student=scattered(), reference=S, spans=spans(QUIET)))
    assert verdict is not None and verdict.state == State.WRONG and "scatter" in verdict.message


class UnsteadyReference(FakeJudgeSide):
    """perfcore's figures vary round to round (IQR/median about 0.3) on a machine whose load reads quiet: a
    disturbance the load reader cannot see (another guest on the host, a frequency change)."""

    def __init__(self, **fields: Any) -> None:
        super().__init__(**fields)
        self.figures = itertools.cycle([1.0, 1.4, 0.8, 1.3, 0.9, 1.2, 0.75])

    def measure_reference(
        self, p: Prepared, kwargs: Mapping[str, Any], also: bool = False, on_cpu: bool = False
    ) -> float:
        return next(self.figures) * S


def test_a_scatter_is_the_students_only_where_perfcores_figures_held_still() -> None:
    """The m3b false wrong (an honest tiled transpose, IQR/median 0.88 against perfcore's 0.28, every round
    read as quiet): where perfcore's own figures varied beyond ``STEADY_SPREAD``, the machine was not steady
    and the scatter is deferred with both spreads, never wrong; where they held still it stays wrong."""
    figures = [0.3, 1.0, 3.0, 0.5, 2.5, 0.35, 1.6, 0.7, 2.8, 0.4, 1.9, 0.6, 3.1]

    def scattered():
        values = iter(figures * 4)
        return lambda timeout_s: messages.Returned(next(values) * S)

    verdict = measured(TIME_CHECK, UnsteadyReference(student=scattered(), spans=spans(QUIET)))
    assert verdict is not None and verdict.state == State.SKIPPED and verdict.deferred, verdict
    assert "too noisy" in verdict.message and "perfcore's own varied" in verdict.message
    steady = measured(TIME_CHECK, FakeJudgeSide(student=scattered(), reference=S, spans=spans(QUIET)))
    assert steady is not None and steady.state == State.WRONG and "scatter" in steady.message


def test_a_timeout_is_the_students_only_where_the_core_was_its_own() -> None:
    limits: list[float] = []

    def hangs(timeout_s: float) -> messages.Returned:
        limits.append(timeout_s)
        raise Verdict(State.TIMEOUT, "over")

    verdict = measured(TIME_CHECK, FakeJudgeSide(student=hangs, reference=1.0, spans=spans(SHARED)))
    assert verdict is not None and verdict.deferred and "own time limit of 60 s" in verdict.message
    verdict = measured(TIME_CHECK, FakeJudgeSide(student=hangs, reference=1.0, spans=spans(QUIET)))
    assert verdict is not None and verdict.state == State.TIMEOUT
    assert limits == [60.0, 60.0]  # the whole limit, never what perfcore's rounds left of it


def test_perfcores_rounds_do_not_spend_the_students_limit() -> None:
    """perfcore's side takes long (a loaded machine): the student's calls still get the check's limit less
    their own time, not less perfcore's (the issue's 'time limit of 0.1 s')."""
    limits: list[float] = []

    def honest(timeout_s: float) -> messages.Returned:
        limits.append(timeout_s)
        return messages.Returned(S)

    class SlowReference(FakeJudgeSide):
        def measure_reference(
            self, p: Prepared, kwargs: Mapping[str, Any], also: bool = False, on_cpu: bool = False
        ) -> float:
            time.sleep(0.3)
            return super().measure_reference(p, kwargs, also)

    judge = SlowReference(student=honest, reference=S, spans=spans(QUIET))
    check = MeasurementCheck(**{**TIME_CHECK.__dict__, "timeout_s": 0.5})
    assert measured(check, judge) is None  # passed
    assert min(limits) > 0.4  # 3 x 0.3 s of perfcore's rounds did not come off the student's 0.5 s


SHAPE_CHECK = ShapeCheck(
    id="c",
    part="b",
    points=1,
    func="overhead_curve",
    shape="overhead",
    reference=lambda: None,
    kind="overhead",
    rounds=3,
    requires=Requirements(),
)


@pytest.mark.parametrize(("span", "state"), [(QUIET, State.WRONG), (SHARED, State.SKIPPED)])
def test_a_curve_shape_fails_only_in_quiet_rounds(span, state) -> None:
    """The issue's m5 case: the last two points 8.6x apart for 4x the size, perfcore's curve flat there."""
    xs = [1, 4, 16, 64, 256, 1024]
    theirs = [[x, (1e-5 + 1e-6 * x) * S] for x in xs]
    mine = [[x, (1e-5 + 1e-6 * x) * S] for x in xs[:-1]] + [[1024, 8.6 * (1e-5 + 1e-6 * 256) * S]]
    judge = FakeJudgeSide(
        student=lambda timeout_s: messages.Returned(mine), reference=0.0, curve=theirs, spans=spans(span)
    )
    exercise = Exercise(id="fx", module="fx", title_zh="假", title_en="Fake", checks=(SHAPE_CHECK,))
    with pytest.raises(Verdict) as verdict:
        run_shape(judge, prepare(SHAPE_CHECK, exercise, "en"), "fx.py")
    assert verdict.value.state == state, verdict.value.message


def test_a_band_widened_by_the_other_library_measured_in_the_same_rounds() -> None:
    """Issue 28: an honest numpy student's k passes read 0.6x perfcore's torch time, "faster than perfcore".
    Where the check measures numpy's path too (``also``), its ratio to torch's in the same rounds widens the
    band: 0.62x passes where numpy's own path reads 0.6x, and is wrong where both libraries agree."""
    from grader.compare.ratios import widened

    assert widened((0.8, 1.25), [0.6, 0.6, 0.6], [1.0, 1.0, 1.0]) == pytest.approx((0.48, 1.25))
    assert widened((0.8, 1.25), [1.5, 1.5, 1.5], [1.0, 1.0, 1.0]) == pytest.approx((0.8, 1.875))
    assert widened((0.8, 1.25), [], [1.0]) == (0.8, 1.25)
    check = MeasurementCheck(**{**TIME_CHECK.__dict__, "kind": "dram", "also": lambda: S})
    for numpy_share, state in ((0.6, None), (1.0, State.WRONG)):
        judge = FakeJudgeSide(
            student=lambda timeout_s: messages.Returned(0.62 * S),
            reference=S,
            also=numpy_share * S,
            spans=spans(QUIET),
        )
        verdict = measured(check, judge)
        assert (verdict.state if verdict else None) == state, verdict and verdict.message


ROOFLINE_CHECK = dataclasses.replace(
    SHAPE_CHECK, id="r", func="roofline_sweep", shape="roofline", unit="FLOP/s", kind="cache"
)


@pytest.mark.parametrize(("numpy_low", "state"), [(None, State.WRONG), (0.4, None), (1.0, State.WRONG)])
def test_a_curves_points_widened_by_the_other_librarys_curve(numpy_low: float | None, state) -> None:
    """An honest numpy sweep read 0.35-0.5x perfcore's torch at m of 2-8 (a Xeon's OpenBLAS against torch's
    BLAS), 4 of its 10 points outside [0.6, 1.6]: wrong. Where the check measures numpy's curve too
    (``also``), each point's band is widened by numpy's ratio to torch's there: the same points pass where
    numpy's own curve reads so, and are wrong where both libraries agree, or where the check names none."""
    xs = [0.5 * 2**i for i in range(10)]
    theirs = [[x, min(x * 10e9, 100e9)] for x in xs]
    low = [[x, y * (0.4 if i < 4 else 1.0)] for i, (x, y) in enumerate(theirs)]
    check = ROOFLINE_CHECK
    also = None
    if numpy_low is not None:
        check = dataclasses.replace(ROOFLINE_CHECK, also=lambda: None)
        also = [[x, y * (numpy_low if i < 4 else 1.0)] for i, (x, y) in enumerate(theirs)]
    judge = FakeJudgeSide(
        student=lambda timeout_s: messages.Returned(low),
        reference=0.0,
        curve=theirs,
        also_curve=also,
        spans=spans(QUIET),
    )
    exercise = Exercise(id="fx", module="fx", title_zh="假", title_en="Fake", checks=(check,))
    try:
        run_shape(judge, prepare(check, exercise, "en"), "fx.py")
        verdict = None
    except Verdict as raised:
        verdict = raised
    assert (verdict.state if verdict else None) == state, verdict and verdict.message
    if verdict is not None:
        assert "4 of 10 points" in verdict.message


def test_a_bound_perfcores_own_figure_nears_is_no_evidence() -> None:
    """Issue 28: m4a's k passes were wrong, "below this machine's physical floor", at 0.997 of it: the
    floor came from a profile measured on a busy machine (22 GB/s where the quiet one read 28). A figure
    past a bound is wrong only where perfcore's own figure, in the same rounds, lies well inside it."""
    check = MeasurementCheck(**{**TIME_CHECK.__dict__, "kind": "dram", "physical_bound": lambda: 1.0 * S})
    for reference, state in ((0.98 * S, None), (1.3 * S, State.WRONG)):
        judge = FakeJudgeSide(
            student=lambda timeout_s: messages.Returned(0.97 * S), reference=reference, spans=spans(QUIET)
        )
        verdict = measured(check, judge)
        if state is None:
            assert verdict is None, verdict.message  # the band decides: 0.97 / 0.98 is inside it
        else:
            assert verdict is not None and verdict.state == state and "below" in verdict.message


def test_a_probe_whose_interval_straddles_the_band_never_passes() -> None:
    """A figure half of perfcore's on the probe (a cheat that lands there, as m1's on the first input it
    meets, where the judge's coin puts the probe first), its first rounds scattered across the band's low
    edge: three rounds straddled and the check passed. Now the probe takes more rounds, and an interval
    that still straddles is deferred or wrong, never passed."""
    from perfcore.measure import make_bounds

    graded, unseen = {"n_bytes": 1 << 20}, {"n_bytes": 1 << 16}
    halves = iter([0.61, 0.49, 0.50, 0.52, 0.48, 0.51, 0.50, 0.49, 0.51, 0.50] * 3)

    def student_at(kwargs: Mapping[str, Any], timeout_s: float) -> messages.Returned:
        return messages.Returned(1e9 * (next(halves) if kwargs == unseen else 1.0))

    judge = FakeJudgeSide(
        student_at=student_at, reference=1e9, machine=make_bounds(profile=None), spans=spans(QUIET)
    )
    check = MeasurementCheck(
        id="c",
        part="a",
        points=1,
        func="copy_bandwidth",
        reference=lambda n_bytes: 1e9,
        kwargs=graded,
        work=lambda n_bytes: Work(bytes=1.0),
        probe=lambda rng: unseen,
        probe_kind="cache",
        kind="dram",
        rounds=3,
        timeout_s=60.0,
        requires=Requirements(),
    )
    verdict = measured(check, judge)
    assert verdict is not None and verdict.state in (State.WRONG, State.SKIPPED), verdict
    assert verdict.state == State.WRONG or verdict.deferred


def five_rounds() -> MeasurementCheck:
    """A time check of five rounds in the cache band: the sequential rule's tests."""
    return MeasurementCheck(
        **{
            **{f: getattr(TIME_CHECK, f) for f in ("id", "part", "points", "func")},
            "reference": lambda: 1.0,
            "kind": "cache",
            "unit": "s",
            "higher_is_better": False,
            "rounds": 5,
            "timeout_s": 60.0,
            "requires": Requirements(),
        }
    )


def test_rounds_stop_once_the_least_rounds_lie_inside_the_band() -> None:
    """A sequential rule: a check of five rounds whose first three ratios all lie inside ends there; one whose
    third ratio straddles an edge takes its five."""
    five = five_rounds()

    def calls(figures: list[float]) -> int:
        made = []
        values = itertools.chain(figures, itertools.repeat(1.0))

        def student(timeout_s: float) -> messages.Returned:
            made.append(1)
            return messages.Returned(next(values) * S)

        measured(five, FakeJudgeSide(student=student, reference=S, spans=spans(QUIET)))
        return len(made)

    assert calls([1.0, 1.05, 0.95, 1.0, 1.0]) == 3
    assert calls([1.0, 1.05, 2.5, 1.0, 1.0]) >= 5  # all five, then more while it straddles


def test_rounds_stop_once_the_least_rounds_lie_outside_the_band_on_a_quiet_core() -> None:
    """The sequential rule's other direction: a check of five rounds whose first three ratios all lie outside
    the band, in clean rounds, is wrong after them; the same figures on a shared core take every round the
    load leaves worth taking, and are never wrong."""
    five = five_rounds()

    def graded(span: load.Span, figures: list[float]) -> tuple[int, Verdict | None]:
        made = []
        values = itertools.chain(figures, itertools.repeat(figures[-1]))

        def student(timeout_s: float) -> messages.Returned:
            made.append(1)
            return messages.Returned(next(values) * S)

        verdict = measured(five, FakeJudgeSide(student=student, reference=S, spans=spans(span)))
        return len(made), verdict

    made, verdict = graded(QUIET, [2.5, 2.6, 2.4])
    assert made == 3 and verdict is not None and verdict.state == State.WRONG, (made, verdict)
    made, verdict = graded(QUIET, [2.5, 1.0, 2.4, 2.5, 2.5])  # one ratio inside: not decided after three
    assert made >= 5 and verdict is not None and verdict.state == State.WRONG, (made, verdict)
    made, verdict = graded(SHARED, [2.5, 2.6, 2.4])
    assert verdict is not None and verdict.deferred and made >= 3, (made, verdict)


def test_a_check_the_load_cannot_decide_defers_at_once_not_at_the_budgets_end() -> None:
    """Issue 38: deferral is cheap. Every span shared and the figure 2x perfcore's (wrong only if the rounds
    were evidence): no round is clean among the first three, so the check defers after its own three rounds
    instead of adding rounds to the budget's end (4x its rounds) that the load would discard. A figure inside
    the band still passes after its three."""
    made: list[int] = []

    def student(timeout_s: float) -> messages.Returned:
        made.append(1)
        return messages.Returned(2.0 * S)

    verdict = measured(TIME_CHECK, FakeJudgeSide(student=student, reference=S, spans=spans(SHARED)))
    assert verdict is not None and verdict.state == State.SKIPPED and verdict.deferred
    assert len(made) == TIME_CHECK.rounds
    made.clear()
    # the same figure on a quiet machine: wrong, after its own rounds
    verdict = measured(TIME_CHECK, FakeJudgeSide(student=student, reference=S, spans=spans(QUIET)))
    assert verdict is not None and verdict.state == State.WRONG and len(made) == TIME_CHECK.rounds
