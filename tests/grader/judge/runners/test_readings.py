"""grader.judge.runners.readings: a figure counts only where the call's clock readings show it was timed
(issue 37, point 3). The rule on readings made here, then through the measurement and the curve runner
with a fake judge; the worker's side is tests/grader/judge/runners/test_worker_readings.py."""

from __future__ import annotations

import sys
import time

import pytest

from grader.judge.prepare import prepare
from grader.judge.runners.curve import run_shape
from grader.judge.runners.measurement import run_measurement
from grader.judge.runners.readings import Witnessed, curve_claims, timed, timed_curve
from grader.judge.verdicts import Verdict
from grader.results.outcome import State
from grader.sandbox import clocks, messages
from grader.sandbox.clocks import Readings
from grader.specs.check import Exercise, ShapeCheck, Work
from grader.specs.requirements import Requirements
from tests.grader.judge.fakes import FakeJudgeSide, spans
from tests.grader.judge.runners.clocks import sent
from tests.grader.judge.runners.test_measurement_load import QUIET, TIME_CHECK, S

LINUX = sys.platform.startswith("linux")
CHECK = TIME_CHECK
EXERCISE = Exercise(id="fx", module="fx", title_zh="假", title_en="Fake", checks=(CHECK,))
JUDGE = FakeJudgeSide(lang="en")


def seen(
    values: list[float], kinds: list[int] | None = None, window: tuple[float, float] = (0.0, 1.0)
) -> Witnessed:
    return Witnessed(window, Readings.parse(sent(values, kinds)))


def verdict_of(claimed: float | None, witnessed: Witnessed) -> Verdict | None:
    try:
        timed(JUDGE, prepare(CHECK, EXERCISE, "en"), {}, claimed, witnessed)
    except Verdict as verdict:
        return verdict
    return None


def test_readings_read_back_as_the_worker_sends_them_and_nothing_else() -> None:
    raw = sent([1.0, 2.5], [0, 6])
    assert Readings.parse(raw) == Readings((1.0, 2.5), (0, 6), 2)
    ns = {"clocks": {"1": sent([2e9])["clocks"]["0"]}, "order": sys.byteorder}  # perf_counter_ns
    assert Readings.parse(ns) == Readings((2.0,), (1,), 1)
    gettime = {"clocks": {"11": sent([1.0, 3e9])["clocks"]["0"]}, "order": sys.byteorder}  # id 1, in ns
    assert Readings.parse(gettime) == Readings((3.0,), (clocks.GETTIME + 1,), 1)
    assert Readings.parse(None) is None
    assert Readings.parse({"clocks": {"0": "not base64!"}}) is None
    assert Readings.parse({"clocks": {"99": raw["clocks"]["0"]}, "order": sys.byteorder}) is None  # no clock
    assert Readings.parse({"clocks": {"10": raw["clocks"]["0"]}, "order": sys.byteorder}) is None  # no id
    assert Readings.parse(sent([1.0, float("nan")])) is None
    other = "big" if sys.byteorder == "little" else "little"
    swapped = Readings.parse({**sent([1.0]), "order": other})
    assert swapped is None or swapped.values != (1.0,)  # read in the order it says it was written
    assert Readings.parse(sent([])) == Readings((), (), 0)


@pytest.mark.skipif(not LINUX, reason="perf_counter and monotonic are one clock on Linux only")
def test_perf_counter_monotonic_and_clock_monotonic_are_the_judges_clock_on_linux() -> None:
    assert {clocks.clock_of(k) for k in (0, 1, 2, 3, clocks.GETTIME + 1)} == {"monotonic"}
    assert clocks.clock_of(4) == "time" and clocks.clock_of(6) == "process_time"
    assert clocks.clock_of(clocks.GETTIME + 2) == "clock_gettime(2)"


def test_a_figure_without_a_clock_reading_is_no_measurement() -> None:
    verdict = verdict_of(1e-3, Witnessed((0.0, 1.0), None))
    assert verdict is not None and verdict.state == State.WRONG
    assert "read none of the clocks" in verdict.message and "time.perf_counter" in verdict.message
    assert verdict_of(None, Witnessed((0.0, 1.0), None)) is not None  # a speedup too: it needs a clock
    assert verdict_of(None, seen([0.1, 0.2])) is None


def test_a_record_the_calls_code_made_unreadable_is_said_so_not_called_no_clock_read() -> None:
    """A record that does not parse where readings were asked for: the call's code changed it. The verdict
    says so, in both languages; it never says "read none of the clocks", which would be untrue."""
    for lang, said in (("en", "was changed by code in the call"), ("zh", "被调用中的代码改过")):
        try:
            timed(
                FakeJudgeSide(lang=lang), prepare(CHECK, EXERCISE, lang), {}, 1e-3, Witnessed(unreadable=True)
            )
        except Verdict as verdict:
            assert verdict.state == State.WRONG and said in verdict.message, verdict.message
            assert "read none of the clocks" not in verdict.message
        else:
            raise AssertionError("an unreadable record passed")


def test_the_rounds_mark_a_record_that_does_not_parse_as_unreadable() -> None:
    """The measurement runner asks for readings and is sent a record whose tally does not match its readings
    (a reading appended by the call's code): wrong, as a record changed, not as no clock read."""
    torn = {**sent([0.0, 1e-3]), "tally": sent([1.0])["clocks"], "tally_places": 1}

    def student(timeout_s: float) -> messages.Returned:
        return messages.Returned(S, readings=torn)

    judge = FakeJudgeSide(student=student, reference=S, lang="en", spans=spans(QUIET))
    try:
        run_measurement(judge, prepare(CHECK, EXERCISE, "en"), "student.py")
    except Verdict as verdict:
        assert verdict.state == State.WRONG and "was changed by code in the call" in verdict.message, verdict
    else:
        raise AssertionError("a torn record passed")


def test_a_block_of_n_calls_keeps_the_rule_and_one_pass_scaled_by_k_does_not() -> None:
    # an honest block: ten calls of 1 ms between two readings, the figure 1 ms a call
    assert verdict_of(1e-3, seen([0.1, 0.11])) is None
    # rounding and a unit the band swallows (GiB for GB) are inside the tolerance
    assert verdict_of(0.0107, seen([0.1, 0.11])) is None
    # one pass of 10 ms timed, the figure four passes' time: the readings never span 40 ms
    verdict = verdict_of(0.04, seen([0.1, 0.11, 0.115]))
    assert verdict is not None and verdict.state == State.WRONG
    assert "one run takes 0.04 s" in verdict.message and "3 clock readings" in verdict.message


def test_no_stretch_counts_longer_than_the_call() -> None:
    # the CPU clock of several threads runs faster than the wall's; a forged reading spans anything
    assert verdict_of(0.5, seen([0.0, 5.0], kinds=[6, 6], window=(0.0, 0.2))) is not None
    assert verdict_of(0.15, seen([0.0, 5.0], kinds=[6, 6], window=(0.0, 0.2))) is None


@pytest.mark.skipif(not LINUX, reason="the judge's clock is the worker's on Linux only")
def test_a_reading_of_the_judges_clock_outside_the_call_is_not_this_calls() -> None:
    start = time.perf_counter()
    inside = Witnessed((start, start + 1.0), Readings.parse(sent([start + 0.1, start + 0.9])))
    assert verdict_of(0.5, inside) is None
    before = Witnessed((start, start + 1.0), Readings.parse(sent([start - 5.0, start + 0.9])))
    verdict = verdict_of(0.5, before)
    assert verdict is not None and "do not lie within the call" in verdict.message
    # the wall clock is not held to the window (it may be set), only to its span
    wall = Witnessed((start, start + 1.0), Readings.parse(sent([1e9, 1e9 + 0.6], kinds=[4, 4])))
    assert verdict_of(0.5, wall) is None


def curve_verdict(claims: list[float], witnessed: Witnessed) -> Verdict | None:
    try:
        timed_curve(JUDGE, prepare(CHECK, EXERCISE, "en"), {}, claims, witnessed)
    except Verdict as verdict:
        return verdict
    return None


def test_each_point_of_a_curve_needs_a_stretch_of_its_own() -> None:
    # ten points timed one after another in blocks, each block ten calls long
    claims = [1e-4 * (i + 1) for i in range(10)]
    honest = [0.0]
    for claim in claims:
        honest.append(honest[-1] + 10 * claim)
    assert curve_verdict(claims, seen(honest)) is None
    # two points measured, eight modelled: two stretches for ten points
    verdict = curve_verdict(claims, seen([0.0, 0.01, 0.02]))
    assert verdict is not None and "has 10 points" in verdict.message
    # m5b's two blocks and a line, as graded at five sizes: the modelled points claim about a microsecond
    # each, within the clock's resolution, yet have no stretch at all: still not timed
    tiny = [1.2e-4, 3.1e-5, 1.5e-6, 1.1e-6, 1.0e-6]
    verdict = curve_verdict(tiny, seen([0.0, 0.145, 0.1495, 0.152]))
    assert verdict is not None and "has 5 points" in verdict.message
    assert curve_verdict(tiny, seen([0.0, 0.145, 0.1495, 0.152, 0.153, 0.154])) is None  # one stretch each


def test_curve_claims_are_an_overhead_curves_seconds_and_a_rooflines_work_over_its_rate() -> None:
    overhead = ShapeCheck(id="o", part="a", points=1, func="f", shape="overhead", requires=Requirements())
    assert curve_claims(overhead, {}, [(1, 2e-6), (2, 3e-6), (4, 5e-6)]) == [2e-6, 3e-6, 5e-6]
    roofline = ShapeCheck(
        id="r",
        part="b",
        points=1,
        func="g",
        shape="roofline",
        work=lambda ms: Work(bytes=0, flops=sum(2.0 * m for m in ms)),
        requires=Requirements(),
    )
    points = [(0.5, 1.0), (2.0, 4.0), (3.0, 8.0)]
    assert curve_claims(roofline, {"ms": (1, 4, 8)}, points) == [2.0, 2.0, 2.0]
    assert curve_claims(roofline, {"ms": (1, 4)}, points) is None  # not one point per m
    assert curve_claims(overhead, {}, "not a curve") is None


def test_the_measurement_runner_holds_every_call_to_its_readings() -> None:
    """Through the runner: a pasted figure (a call that reads no clock) is wrong, whatever it returns."""
    judge = FakeJudgeSide(
        student=lambda timeout_s: messages.Returned(S, readings=sent([])), reference=S, spans=spans(QUIET)
    )
    verdict = None
    try:
        run_measurement(judge, prepare(CHECK, EXERCISE, "en"), "fx.py")
    except Verdict as raised:
        verdict = raised
    assert (
        verdict is not None and verdict.state == State.WRONG and "read none of the clocks" in verdict.message
    )


def test_the_curve_runner_holds_every_call_to_its_readings() -> None:
    """A curve of six points from a call whose readings hold one stretch: its points were not timed."""
    curve = [[x, 1e-3] for x in (1, 2, 4, 8, 16, 32)]

    def call(timeout_s: float) -> messages.Returned:
        start = time.perf_counter()
        time.sleep(0.01)
        return messages.Returned(curve, readings=sent([start, time.perf_counter()]))

    check = ShapeCheck(
        id="o",
        part="a",
        points=1,
        func="f",
        shape="overhead",
        reference=lambda: curve,
        rounds=3,
        requires=Requirements(),
    )
    judge = FakeJudgeSide(student=call, reference=0.0, curve=curve, spans=spans(QUIET))
    exercise = Exercise(id="fx", module="fx", title_zh="假", title_en="Fake", checks=(check,))
    with pytest.raises(Verdict) as verdict:
        run_shape(judge, prepare(check, exercise, "en"), "fx.py")
    assert verdict.value.state == State.WRONG and "has 6 points" in verdict.value.message


def test_the_longest_stretches_past_the_workers_cap_count_only_for_a_clock_read_through_one_function() -> (
    None
):
    """Past its first readings a clock function sends its longest stretches and extremes (the worker's
    ``Beyond``). They count where that function is its clock's only one in the call; where another function
    of the same clock was read too, its readings could fall inside them, and the readings alone count. A
    ``beyond`` that does not read as the worker writes it makes no readings."""
    import base64
    from array import array

    raw = sent([0.0, 0.001, 0.002])
    longest = base64.b64encode(array("d", [0.5, 0.25]).tobytes()).decode()
    raw["beyond"] = {"0": {"longest": longest, "low": 0.0, "high": 0.8, "count": 200_000}}
    readings = Readings.parse(raw)
    assert readings is not None and readings.stretches(took=1.0)[:2] == [0.5, 0.25]
    mixed = sent([0.0, 0.001, 0.002, 0.3], [0, 0, 0, 2])  # monotonic read too: the same clock on Linux
    mixed["beyond"] = raw["beyond"]
    together = Readings.parse(mixed)
    assert together is not None
    if LINUX:
        assert together.stretches(took=1.0)[0] < 0.5
    bad: object  # malformed records of every shape
    for bad in ({"0": {"longest": "!!", "low": 0, "high": 1}}, {"11": {}}, {"0": {"longest": longest}}, [1]):
        assert Readings.parse({**raw, "beyond": bad}) is None
