"""grader.judge.runners.honesty: one list of rules, held by the measurement and the curve runner alike. The
issue's hole: the curve runner applied neither the CPU-time rule nor the one-core rule, so a multi-threaded
m2b sweep or m5b curve was judged as one core's."""

from __future__ import annotations

import dataclasses
import time

import pytest

from grader.judge.prepare import Prepared, prepare
from grader.judge.runners import honesty
from grader.judge.runners.curve import run_shape
from grader.judge.verdicts import Verdict
from grader.results.outcome import State
from grader.sandbox import cputime, messages
from grader.specs.check import Exercise, MeasurementCheck
from tests.grader.judge.fakes import FakeJudgeSide, spans
from tests.grader.judge.runners.test_measurement_load import QUIET, SHAPE_CHECK, S

XS = [1, 4, 16, 64, 256, 1024]
CURVE = [[x, (1e-5 + 1e-6 * x) * S] for x in XS]
CHECK = SHAPE_CHECK  # an overhead curve of three rounds, with a reference


def graded(judge: FakeJudgeSide) -> Verdict | None:
    exercise = Exercise(id="fx", module="fx", title_zh="假", title_en="Fake", checks=(CHECK,))
    try:
        run_shape(judge, prepare(CHECK, exercise, "en"), "fx.py")
    except Verdict as verdict:
        return verdict
    return None


@pytest.mark.parametrize("cores", [1.0, 3.0])
def test_a_curve_from_more_than_one_core_is_wrong(cores: float) -> None:

    def call(timeout_s: float) -> messages.Returned:
        time.sleep(0.02)
        return messages.Returned(CURVE)

    # the worker tree's CPU during each call: one core's worth of its wall time, or three
    judge = FakeJudgeSide(
        student=call,
        reference=0.0,
        curve=CURVE,
        used=lambda path, before: cputime.Used(cores * 0.02, 1e-6, True),
        spans=spans(QUIET),
    )
    verdict = graded(judge)
    if cores == 1.0:
        assert verdict is None  # passed
    else:
        assert (
            verdict is not None and verdict.state == State.WRONG and "more than one core" in verdict.message
        )


def test_both_runners_hold_the_same_rules() -> None:
    import inspect

    from grader.judge.runners import curve, measurement

    assert honesty.RULES == (
        honesty.work_floor,
        honesty.claim_kept,
        honesty.cpu_worked,
        honesty.one_core_only,
        honesty.clock_read,
        honesty.counted,
        honesty.witnessed,
        honesty.window_kept,
        honesty.passes_in_order,
    )
    for runner in (measurement, curve):
        source = inspect.getsource(runner)
        assert "hold(judge, p, call)" in source
        for single in ("no_measurement(", "claimed_time(", "one_core(", "worked(", "timed(", "timed_curve("):
            assert single not in source, (runner.__name__, single)  # no rule applied on its own


@pytest.mark.parametrize(
    ("used", "says"),
    [
        (cputime.Used(0.001, cputime.CLOCK_RESOLUTION_S, True), "process used only"),
        (cputime.Used(0.001, cputime.CLOCK_RESOLUTION_S, False), "without being waited for"),
        (None, None),  # no reading (no /proc): the rule is not made
        (cputime.Used(0.03, cputime.CLOCK_RESOLUTION_S, False), None),  # what could be seen is enough
        (cputime.Used(0.001, 0.02, True), None),  # a share of 25 ms, too short to read in 20 ms ticks
    ],
    ids=["too-little", "too-little-some-unseen", "no-reading", "enough-seen", "below-resolution"],
)
def test_a_call_claiming_cpu_work_must_show_it(used: cputime.Used | None, says: str | None) -> None:
    """The CPU-time rule on a call that says one run takes 0.1 s: at least a quarter of that must be seen."""
    check = MeasurementCheck(
        id="c", part="a", points=1, func="copy_bandwidth", reference=lambda n_bytes: 1.0, kind="dram"
    )
    p = Prepared(Exercise(id="fx", module="fx", title_zh="假", title_en="Fake", checks=(check,)), check)
    judge = FakeJudgeSide(lang="en")
    if says is None:
        honesty.worked(judge, p, {"n_bytes": 1}, 0.1, used)
        return
    with pytest.raises(Verdict) as verdict:
        honesty.worked(judge, p, {"n_bytes": 1}, 0.1, used)
    assert verdict.value.state == "wrong"
    assert says in verdict.value.message and "n_bytes=1" in verdict.value.message


def test_on_a_gpu_a_figure_returned_sooner_than_one_run_at_its_rate_is_no_measurement(monkeypatch) -> None:
    """m6 names its work: a copy of 2 GiB at the claimed 2.95e12 B/s is 0.73 ms, an 8192^3 bf16 product at
    7.8e14 FLOP/s 1.4 ms, which a figure typed in returns far sooner than (both passed m6 on an H100); a
    call that lasts them passes. The work floor at the machine's bounds is the CPU's and is not applied on a
    GPU: at this machine's CPU peak the product's FLOPs take seconds, which no honest GPU call lasts."""
    from grader.checks import m6
    from grader.judge.runners.measurement import run_measurement
    from perfcore.measure import make_bounds

    checks = {c.id: c for c in m6.EXERCISE.checks if isinstance(c, MeasurementCheck)}
    copy, product = checks["gpu_copy_bandwidth"], checks["gpu_bf16_matmul"]
    assert copy.work is not None and copy.work(**copy.kwargs).bytes == 2 * m6.COPY_BYTES  # as perfcore counts
    assert product.work is not None and product.work(**product.kwargs).flops == 2 * m6.MATMUL_N**3

    def grade(found: MeasurementCheck, rate: float, call_s: float) -> Verdict | None:
        check = dataclasses.replace(found, physical_bound=None)  # the spec's bound reads the GPU: not here
        assert check.requires.cuda

        def call(timeout_s: float) -> messages.Returned:
            time.sleep(call_s)
            return messages.Returned(rate)

        judge = FakeJudgeSide(
            student=call, reference=rate, machine=make_bounds(profile=None), spans=spans(QUIET)
        )
        try:
            run_measurement(judge, prepare(check, m6.EXERCISE, "en"), "m6_gpu.py")
        except Verdict as verdict:
            return verdict
        return None

    # the H100's figures a hundredth as fast: a run at them is then 73 ms and 140 ms, far above what this
    # fake's own call costs on a loaded machine (at the H100's own 0.73 ms, a load of 6 made a call typed in
    # take longer than one run, and the test failed now and then)
    for found, rate in ((copy, 2.95e10), (product, 7.8e12)):
        typed_in = grade(found, rate, 0.0)
        assert typed_in is not None and typed_in.state == State.WRONG, found.id
        assert "no measurement" in typed_in.message.lower(), typed_in.message
        assert grade(found, rate, 0.3) is None, found.id  # 300 ms: a warm-up and several runs, timed
