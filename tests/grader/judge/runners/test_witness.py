"""grader.judge.runners.witness: the judge watches a handed call's output from its own process, sees each
run finish on its own clock, and holds the figure to the stretches of the student's clock readings that
held those runs (issue 45, the judge's own clock). The watch over a real shared buffer written by another
thread; the bounds on made-up finishes; the rule (honesty.witnessed) on a fake judge."""

from __future__ import annotations

import base64
import dataclasses
import mmap
import threading
import time
from array import array

import numpy as np
import pytest

from grader.compare import outputs
from grader.judge.prepare import prepare
from grader.judge.runners import honesty, witness
from grader.judge.runners.readings import Witnessed
from grader.judge.runners.witness import Crossings
from grader.judge.verdicts import Verdict
from grader.results.outcome import State
from grader.sandbox import channel
from grader.sandbox.clocks import CLOCKS, Readings
from grader.sandbox.shared import Shared
from grader.specs.check import Exercise, ShapeCheck
from grader.specs.handed import Handed
from grader.specs.requirements import Requirements
from tests.grader.judge.fakes import FakeJudgeSide
from tests.grader.judge.runners.clocks import sent
from tests.grader.judge.runners.test_measurement_load import TIME_CHECK

POSIX = channel.PASSES_FDS and hasattr(__import__("os"), "pread")
#: A time check whose call is handed an output every run writes once.
CHECK = dataclasses.replace(
    TIME_CHECK,
    handed=Handed(
        arguments=lambda **_: {},
        result=lambda got, **_: True,
        result_zh="dst 等于 src",
        result_en="dst equal to src",
        watched="dst",
        at=outputs.copied_at,
        written_once=True,
    ),
)
EXERCISE = Exercise(id="fx", module="fx", title_zh="假", title_en="Fake", checks=(CHECK,))
N = 1 << 16


def finishes(*per_place: list[float], width: float = 1e-3) -> Crossings:
    """Finishes seen at each place at the given times, each between a look ``width`` before and the look;
    the looks every ``width`` (from 10 ms before 0 to 100 ms) besides."""
    looks = sorted({*(float(t) for t in np.arange(-0.01, 0.1, width)), *(t for p in per_place for t in p)})
    return Crossings(tuple(tuple((t - width, t) for t in place) for place in per_place), tuple(looks))


def test_a_stretch_holds_the_runs_that_finished_inside_it_for_certain() -> None:
    # runs of 10 ms, back to back from t = 0, timed one per stretch; two places a third and two thirds in
    ends = [0.01 * (i + 1) for i in range(5)]
    seen = finishes([e - 0.0067 for e in ends], [e - 0.0033 for e in ends])
    readings = [0.0, 0.01, 0.02, 0.03, 0.04, 0.05]
    assert seen.runs == 5
    assert seen.held(readings) == {i: 1 for i in range(5)}
    assert seen.longest_run(readings) == pytest.approx((0.01, 1))
    assert seen.shortest_run(readings, 0.004) == pytest.approx((0.01, 1))
    # one stretch over all five runs: five for certain, and at most five
    assert seen.longest_run([0.0, 0.05]) == pytest.approx((0.01, 5))
    assert seen.shortest_run([0.0, 0.05], 0.004) == pytest.approx((0.01, 5))


def test_a_finish_whose_looks_straddle_a_reading_is_certain_in_neither_stretch() -> None:
    seen = finishes([0.0100], width=0.002)  # seen at 10.0 ms, the look before at 8.0 ms
    assert seen.held([0.0, 0.009, 0.02]) == {}  # might have finished in either
    assert seen.held([0.0, 0.007, 0.02]) == {1: 1}
    # but it may have been in either: each stretch can have held it
    assert seen.shortest_run([0.0, 0.009, 0.02], 0.004) == pytest.approx((0.009, 1))


def test_the_place_that_saw_fewest_bounds_the_runs_a_stretch_can_have_held() -> None:
    # place 0 saw three finishes in the stretch, place 1 one, place 2 two (a run finishing at place 1
    # twice more unseen cannot be where the looks were close; one place may lose a finish to the stamp)
    seen = finishes([0.011, 0.021, 0.031], [0.035], [0.015, 0.036])
    assert seen.shortest_run([0.0, 0.04], 0.004) == pytest.approx((0.02, 2))
    assert seen.longest_run([0.0, 0.04]) == pytest.approx((0.04 / 3, 3))


@pytest.mark.skipif(not POSIX, reason="the witness reads by pread, the buffers pass by descriptor")
def test_the_witness_sees_each_run_of_another_thread_and_puts_back_what_it_stamped() -> None:
    src = Shared("src", (N,), "float32", "numpy")
    dst = Shared("dst", (N,), "float32", "numpy")
    try:
        drawn = np.random.default_rng(1).random(N, dtype=np.float32)
        src.write(0, drawn)
        dst.write(0, np.full(N, np.nan, dtype=np.float32))
        mapped = mmap.mmap(dst.fd, dst.size)
        views = [np.frombuffer(mapped, dtype=np.float32)]  # the student's mapping of dst
        watching = witness.watch({"src": src, "dst": dst}, "dst", outputs.copied_at, {})
        assert watching is not None
        times = []

        def runs() -> None:  # six runs of 20 ms, each a copy amid it, timed as a student would
            for _ in range(6):
                times.append(time.perf_counter())
                time.sleep(0.01)
                np.copyto(views[0], drawn)
                time.sleep(0.01)
            times.append(time.perf_counter())

        worker = threading.Thread(target=runs)
        worker.start()
        worker.join()
        seen = watching.stop()
        assert seen is not None
        assert 5 <= seen.runs <= 6  # each run seen (the last may finish after the last stamp's look)
        longest = seen.longest_run(times)
        assert longest is not None and longest[1] == 1 and longest[0] >= 0.02
        assert np.array_equal(
            views[0], drawn
        )  # the stamps put back: the result as the student's code left it
        views.clear()
        mapped.close()
    finally:
        src.close()
        dst.close()


@pytest.mark.skipif(not POSIX, reason="the witness reads by pread, the buffers pass by descriptor")
def test_a_place_left_wrong_is_neither_counted_nor_mended() -> None:
    src = Shared("src", (N,), "float32", "numpy")
    dst = Shared("dst", (N,), "float32", "numpy")
    try:
        src.write(0, np.ones(N, dtype=np.float32))
        dst.write(0, np.zeros(N, dtype=np.float32))  # never the copy
        watching = witness.watch({"src": src, "dst": dst}, "dst", outputs.copied_at, {})
        assert watching is not None
        time.sleep(0.01)
        seen = watching.stop()
        assert seen is not None and seen.runs == 0
        assert not np.any(dst.contents())  # what was there stays: the outputs' test judges it
    finally:
        src.close()
        dst.close()


def test_the_results_at_places_are_what_the_whole_results_test_accepts() -> None:
    rng = np.random.default_rng(2)
    src = rng.random((6, 4), dtype=np.float32)
    where = np.array([0, 5, 23])
    assert np.array_equal(outputs.transposed_added_at({"src": src}, where), src.T.reshape(-1)[where])
    a, b = rng.random((5, 7), dtype=np.float32), rng.random((7, 3), dtype=np.float32)
    values, tol = outputs.product_at({"a": a, "b": b}, np.array([0, 7, 14]))
    assert np.all(np.abs((a @ b).reshape(-1)[[0, 7, 14]] - values) <= tol)
    x = rng.random(10, dtype=np.float32)
    values, tol = outputs.scaled_at({"x": x}, np.array([1, 9]), k=5, fused=False, c=1.01)
    y = x.copy()
    for _ in range(5):
        y *= np.float32(1.01)
    assert np.array_equal(values, y[[1, 9]]) and not tol.any()


def call_with(claimed: float, readings: list[float], seen: Crossings, kinds: list[int] | None = None, **more):
    window = (min(readings) - 1e-3, max(readings) + 1e-3)
    witnessed = Witnessed(window, Readings.parse(sent(readings, kinds)), crossings=seen)
    return honesty.Call({}, took=window[1] - window[0], cpu=None, seconds=claimed, seen=witnessed, **more)


def verdict_of(call: honesty.Call) -> Verdict | None:
    try:
        honesty.witnessed(FakeJudgeSide(lang="en"), prepare(CHECK, EXERCISE, "en"), call)
    except Verdict as verdict:
        return verdict
    return None


RUNS = [0.01 * (i + 1) for i in range(5)]  # five runs of 10 ms, one per stretch
READINGS = [0.0, 0.01, 0.02, 0.03, 0.04, 0.05]
SEEN = finishes([e - 0.005 for e in RUNS], [e - 0.002 for e in RUNS])


@pytest.mark.parametrize("claimed", [0.0095, 0.01, 0.0105])
def test_a_figure_of_the_runs_as_they_ran_holds(claimed: float) -> None:
    assert verdict_of(call_with(claimed, READINGS, SEEN)) is None


@pytest.mark.parametrize(("claimed", "says"), [(0.0125, "at most"), (0.0085, "at least")])
def test_a_figure_slower_or_faster_than_the_runs_ran_is_wrong(claimed: float, says: str) -> None:
    verdict = verdict_of(call_with(claimed, READINGS, SEEN))
    assert verdict is not None and verdict.state == State.WRONG
    assert "figure not what ran" in verdict.message and says in verdict.message


def test_the_lower_bound_holds_only_where_it_is_sound() -> None:
    fast = 0.0085
    # a CPU clock read in the call (its runs' times need not be stretches of the judge's clock)
    thread_time = [CLOCKS.index("thread_time")] * len(READINGS)
    assert verdict_of(call_with(fast, READINGS + READINGS, SEEN, kinds=[0] * 6 + thread_time)) is None
    # a round on the judge's CPU clock: the worker's wall clocks ran as the CPU did
    assert verdict_of(call_with(fast, READINGS, SEEN, cpu_clock=True)) is None
    # looks further apart than half the claimed run: a run may have finished between two unseen
    coarse = Crossings(SEEN.finishes, tuple(float(t) for t in np.arange(-0.01, 0.1, 0.005)))
    assert verdict_of(call_with(fast, READINGS, coarse)) is None
    # a stretch the looks do not reach around is held to nothing either
    assert Crossings(SEEN.finishes, ()).shortest_run(READINGS, 1.0) is None
    # nor are the others where one stretch's looks were far apart: leaving out the fastest stretch (a
    # "best of five" timed there) would leave a bound the honest least is below (found by the timeit
    # method on m4a: 0.1008 s claimed, 0.111 s from the stretches left)
    late = sorted({*SEEN.looks} - {t for t in SEEN.looks if 0.0105 < t < 0.0195})
    assert Crossings(SEEN.finishes, tuple(late)).shortest_run(READINGS, 0.004) is None
    # and the upper bound still holds in each
    assert verdict_of(call_with(0.0125, READINGS, SEEN, cpu_clock=True)) is not None


def cpu_call(claimed: float, walls: list[float], cpu: list[float], seen: Crossings, **more) -> honesty.Call:
    """A call timed on ``thread_time`` alone: its readings ``cpu``, each with the judge's wall clock read with
    it (``walls``), as the worker sends them."""
    thread_time = CLOCKS.index("thread_time")
    raw = sent(cpu, [thread_time] * len(cpu), cpu=cpu)
    raw["walls"] = {str(thread_time): base64.b64encode(array("d", walls).tobytes()).decode()}
    window = (min(walls) - 1e-3, max(walls) + 1e-3)
    witnessed = Witnessed(window, Readings.parse(raw), crossings=seen)
    return honesty.Call({}, took=window[1] - window[0], cpu=None, seconds=claimed, seen=witnessed, **more)


def test_a_figure_timed_on_a_cpu_clock_is_held_to_its_stretches_placed_by_their_wall_halves() -> None:
    """The runs of SEEN timed on ``thread_time`` (a CPU clock starting anywhere, here at 7 s, running as the
    wall clock on a quiet core): the figure as they ran holds; scaled by 0.87 it is below every stretch's CPU
    time over its runs (a helper's m4a kept its points so). A stretch that ran less on the CPU than on the
    wall (a busy core) only lowers the bound."""
    cpu = [7.0 + t for t in READINGS]
    assert verdict_of(cpu_call(0.01, READINGS, cpu, SEEN)) is None
    verdict = verdict_of(cpu_call(0.0087, READINGS, cpu, SEEN))
    assert verdict is not None and "figure not what ran" in verdict.message
    shared = [7.0 + 0.6 * t for t in READINGS]  # the thread had 60% of the core: its figure 6 ms, honest
    assert verdict_of(cpu_call(0.006, READINGS, shared, SEEN)) is None
    # looks further apart than half the claimed run, or a round on the judge's CPU clock: nothing said
    coarse = Crossings(SEEN.finishes, tuple(float(t) for t in np.arange(-0.01, 0.1, 0.005)))
    assert verdict_of(cpu_call(0.0087, READINGS, cpu, coarse)) is None
    assert verdict_of(cpu_call(0.0087, READINGS, cpu, SEEN, cpu_clock=True)) is None


def test_a_check_whose_run_writes_a_place_k_times_asks_looks_k_times_closer() -> None:
    # k passes: the next run's first pass rewrites a place a pass after the last one finished there
    passes = dataclasses.replace(CHECK.handed, writes=lambda **_: 5)
    check = dataclasses.replace(CHECK, handed=passes)
    exercise = Exercise(id="fx", module="fx", title_zh="假", title_en="Fake", checks=(check,))
    call = call_with(0.0085, READINGS, SEEN)  # looks 1 ms apart: beyond 0.85 ms, half a pass
    honesty.witnessed(FakeJudgeSide(lang="en"), prepare(check, exercise, "en"), call)  # held to nothing


def test_a_call_the_witness_did_not_watch_is_held_to_nothing_here() -> None:
    call = call_with(1.0, READINGS, SEEN)
    call = honesty.Call({}, took=1.0, cpu=None, seconds=1.0, seen=Witnessed((0.0, 1.0), call.seen.readings))
    assert verdict_of(call) is None
    assert honesty.witnessed in honesty.RULES


def window_verdict(claimed: float, took: float, quiet: bool) -> Verdict | None:
    seen = Witnessed((0.0, took), Readings.parse(sent([0.0, took])), crossings=SEEN)  # five runs proven
    call = honesty.Call({}, took=took, cpu=None, seconds=claimed, seen=seen, quiet=quiet)
    try:
        honesty.window_kept(FakeJudgeSide(lang="en"), prepare(CHECK, EXERCISE, "en"), call)
    except Verdict as verdict:
        return verdict
    return None


def test_the_runs_the_outputs_prove_fit_in_the_call_at_the_claimed_time() -> None:
    assert window_verdict(0.01, 0.055, quiet=True) is None  # 5 x 10 ms in 55 ms
    verdict = window_verdict(0.013, 0.055, quiet=True)  # 65 ms of runs claimed in 55
    assert verdict is not None and verdict.state == State.WRONG and "5 times" in verdict.message
    # on a busy core a median of runs may exceed their mean, never twice it
    assert window_verdict(0.013, 0.055, quiet=False) is None
    assert window_verdict(0.025, 0.055, quiet=False) is not None


def test_an_accumulators_counted_runs_hold_the_window_only_on_a_quiet_call() -> None:
    """Every run counted: a median of blocks of unequal counts (one-add blocks on a busy core beside a
    calibration's hundred) can be any multiple of the mean; the counts at each reading hold it there."""
    counted = dataclasses.replace(
        SEEN, counts=tuple((1,) * len(place) for place in SEEN.finishes), counted=True
    )
    for quiet, wrong in ((True, True), (False, False)):
        seen = Witnessed((0.0, 0.055), Readings.parse(sent([0.0, 0.055])), crossings=counted)
        call = honesty.Call({}, took=0.055, cpu=None, seconds=0.025, seen=seen, quiet=quiet)
        try:
            honesty.window_kept(FakeJudgeSide(lang="en"), prepare(CHECK, EXERCISE, "en"), call)
        except Verdict:
            assert wrong
        else:
            assert not wrong


# A curve's points (m2b's sweep, m5b's overhead curve): each point's part of the output watched apart, each
# point held to its own runs, and a point whose runs all shared their stretches with another's not timed.

#: A curve of two points, each writing its own piece of the output.
CURVE = ShapeCheck(
    id="curve",
    part="c",
    points=1,
    func="curve",
    shape="overhead",
    kwargs={"sizes": (4, 4)},
    reference=lambda sizes: None,
    handed=dataclasses.replace(CHECK.handed, segments=lambda sizes: [(0, 4), (4, 8)]),
    requires=Requirements(),
)
CURVE_EXERCISE = Exercise(id="fc", module="fc", title_zh="假", title_en="Fake", checks=(CURVE,))


def curve_seen(first: list[float], second: list[float]) -> Crossings:
    """Finishes of point 0 at ``first``, of point 1 at ``second``, each at two places of its own."""
    both = finishes(first, first, second, second)
    return dataclasses.replace(both, labels=(0, 0, 1, 1))


def curve_verdict(claims: tuple[float, float], readings: list[float], seen: Crossings) -> Verdict | None:
    window = (min(readings) - 1e-3, max(readings) + 1e-3)
    witnessed = Witnessed(window, Readings.parse(sent(readings)), crossings=seen)
    call = honesty.Call(
        {"sizes": (4, 4)}, took=window[1] - window[0], cpu=None, seen=witnessed, curve=True, points=claims
    )
    try:
        for rule in (honesty.witnessed, honesty.window_kept):
            rule(FakeJudgeSide(lang="en"), prepare(CURVE, CURVE_EXERCISE, "en"), call)
    except Verdict as verdict:
        return verdict
    return None


def test_a_curves_crossings_split_by_point() -> None:
    seen = curve_seen([0.005, 0.015], [0.035])
    assert seen.point(0).runs == 2 and seen.point(1).runs == 1
    assert seen.besides(0).finishes == seen.point(1).finishes
    assert seen.point(1).labels == (1, 1)
    # a stretch left out is not counted: the longest of the others
    assert seen.longest_run([0.0, 0.01, 0.03], skip={0}) == pytest.approx((0.02, 1))


def test_each_point_timed_on_its_own_holds() -> None:
    # point 0: two runs of 10 ms, one per stretch; point 1: one of 20 ms in a stretch of its own
    seen = curve_seen([0.008, 0.018], [0.038])
    assert curve_verdict((0.01, 0.02), [0.0, 0.01, 0.02, 0.04], seen) is None


def test_a_point_run_only_beside_another_points_runs_was_not_timed() -> None:
    # point 1 ran once, untimed, in the stretch where point 0's second run was timed
    seen = curve_seen([0.008, 0.018], [0.015])
    verdict = curve_verdict((0.01, 0.004), [0.0, 0.01, 0.02], seen)
    assert verdict is not None and verdict.state == State.WRONG
    assert "no measurement taken" in verdict.message and "point 2 (of 2)" in verdict.message


def test_a_point_slower_than_its_own_runs_is_wrong_by_name() -> None:
    seen = curve_seen([0.008, 0.018], [0.038])
    verdict = curve_verdict((0.01, 0.03), [0.0, 0.01, 0.02, 0.04], seen)  # 30 ms claimed, 20 ms ran
    assert verdict is not None and "figure not what ran" in verdict.message
    assert "point 2 (of 2)" in verdict.message


def test_a_curves_runs_at_its_claims_fit_in_its_window() -> None:
    seen = curve_seen([0.008, 0.018], [0.038])
    # 2 x 10 ms and 1 x 20 ms fit in the call's 42 ms; at 1.5x those (60 ms) do not
    call_window = honesty.window_kept
    took = 0.042
    witnessed = Witnessed((0.0, took), Readings.parse(sent([0.0, took])), crossings=seen)
    fits = honesty.Call(
        {"sizes": (4, 4)}, took=took, cpu=None, seen=witnessed, curve=True, points=(0.01, 0.02)
    )
    call_window(FakeJudgeSide(lang="en"), prepare(CURVE, CURVE_EXERCISE, "en"), fits)
    beyond = dataclasses.replace(fits, points=(0.015, 0.03), quiet=True)
    with pytest.raises(Verdict) as raised:
        call_window(FakeJudgeSide(lang="en"), prepare(CURVE, CURVE_EXERCISE, "en"), beyond)
    assert "3 times in all" in raised.value.message


def test_a_curve_whose_points_do_not_match_its_segments_is_held_to_nothing_by_point() -> None:
    seen = curve_seen([0.008, 0.018], [0.015])
    witnessed = Witnessed((0.0, 0.02), Readings.parse(sent([0.0, 0.01, 0.02])), crossings=seen)
    call = honesty.Call({"sizes": (4, 4)}, took=0.02, cpu=None, seen=witnessed, curve=True, points=(0.01,))
    assert honesty.held_figures(prepare(CURVE, CURVE_EXERCISE, "en"), call) == []


@pytest.mark.skipif(not POSIX, reason="the witness reads by pread, the buffers pass by descriptor")
def test_the_witness_draws_each_segments_places_inside_it_and_labels_them() -> None:
    src = Shared("src", (64,), "float32", "numpy")
    dst = Shared("dst", (64,), "float32", "numpy")
    try:
        src.write(0, np.arange(64, dtype=np.float32))
        dst.write(0, np.full(64, np.nan, dtype=np.float32))
        segments = [(0, 3), (3, 40), (40, 64)]
        watching = witness.watch({"src": src, "dst": dst}, "dst", outputs.copied_at, {}, segments=segments)
        assert watching is not None
        seen = watching.stop()
        assert seen is not None and seen.labels == watching.labels
        for place, label in zip(watching.where, watching.labels, strict=True):
            lo, hi = segments[label]
            assert lo <= place < hi
        assert [watching.labels.count(i) for i in range(3)] == [3, 8, 8]  # fewer where a piece has fewer
        with pytest.raises(ValueError, match="segments"):
            witness.watch({"src": src, "dst": dst}, "dst", outputs.copied_at, {}, segments=[(0, 65)])
    finally:
        src.close()
        dst.close()


def test_runs_seen_only_before_the_first_reading_or_after_the_last_were_not_timed() -> None:
    # three runs finished by 30 ms, the clock read from 40 ms on: no reading came before any of them
    early = finishes([0.01, 0.02, 0.03])
    assert early.outside([0.04, 0.05, 0.06])
    assert early.outside([-0.05, -0.04])  # after the last reading
    assert not early.outside([0.0, 0.05])  # between two readings: can have been timed
    assert not early.outside([0.0295, 0.05])  # seen by a look after the first reading: can have been in it
    assert not Crossings(((),), early.looks).outside([0.0, 0.05])  # nothing seen, nothing said
    verdict = verdict_of(call_with(0.01, [0.04, 0.05, 0.06], early))
    assert verdict is not None and "no measurement taken" in verdict.message
    # where the bound's soundness fails (a CPU clock read, a round on the judge's CPU clock), nothing is said
    assert verdict_of(call_with(0.01, [0.04, 0.05, 0.06], early, cpu_clock=True)) is None


def test_a_part_of_the_output_written_only_outside_the_readings_was_not_timed() -> None:
    """m1's copy of seven eighths timed, the whole copied before and after: the place in the last eighth saw
    its runs finish before the first reading and after the last, none between, while the others saw each
    timed run there. Looks a millisecond apart, runs of 10 ms: each run's write at a place seen on its own."""
    timed = [0.015, 0.025, 0.035, 0.045]
    partial = finishes([0.005, *timed, 0.055], [0.006, *timed, 0.055], [0.009, 0.056])
    readings = [0.01, 0.02, 0.03, 0.04, 0.05]
    assert partial.part_outside(readings, guard=0.005)
    verdict = verdict_of(call_with(0.01, readings, partial))
    assert verdict is not None and verdict.state == State.WRONG and "part of it" in verdict.message
    # every place written by the timed runs, its first and last write near the readings' ends: nothing said
    edges = finishes([0.005, 0.0105, 0.025, 0.035, 0.0495, 0.055], [0.005, *timed, 0.055])
    assert not edges.part_outside(readings, guard=0.005)
    assert verdict_of(call_with(0.01, readings, edges)) is None
    # looks further apart than half a run: a place's write may hide beside another's, nothing is said
    assert not partial.part_outside(readings, guard=0.0009)
    # one run between the readings: its writes near the ends may be seen across them, nothing is said
    one = finishes([0.005, 0.015, 0.055], [0.005, 0.055])
    assert not one.part_outside(readings, guard=0.005)
    # a place that never held a run's result says nothing; no run timed at any place is the rule above
    assert not finishes([0.005, *timed, 0.055], []).part_outside(readings, guard=0.005)
    # a round on the judge's CPU clock: not held here
    assert verdict_of(call_with(0.01, readings, partial, cpu_clock=True)) is None
    # an output a run writes in partial results first (exercise 10's matrix-vector product: a look can miss
    # its result at one place every run, an honest solution was called wrong so): not held either
    panels = dataclasses.replace(CHECK, handed=dataclasses.replace(CHECK.handed, written_once=False))
    try:
        honesty.witnessed(
            FakeJudgeSide(lang="en"), prepare(panels, EXERCISE, "en"), call_with(0.01, readings, partial)
        )
    except Verdict as verdict:
        raise AssertionError(f"a part was held on an output not written once: {verdict.message}") from None


def test_a_place_held_at_nan_across_the_readings_was_written_by_no_timed_run() -> None:
    """m2a's first four fifths of rows timed, the last fifth made before the first reading or after the last:
    the place in the last fifth held the judge's NaN from its fill (or stamp) to after the last reading. Sound
    on any output (a product's result need not last) and however late the looks."""
    timed = [0.015, 0.025, 0.035, 0.045]
    readings = [0.01, 0.02, 0.03, 0.04, 0.05]
    blank = ((), (), ((-0.01, 0.06),))  # the third place: NaN from the fill until after the reply
    partial = dataclasses.replace(finishes(timed, timed, [0.056]), blank=blank)
    assert partial.unwritten(readings) == 1
    # a place whose NaN ended inside the readings was written there; one that began inside, too
    assert dataclasses.replace(partial, blank=((), (), ((-0.01, 0.03),))).unwritten(readings) == 0
    assert dataclasses.replace(partial, blank=((), (), ((0.012, 0.06),))).unwritten(readings) == 0
    assert partial.unwritten([0.01]) == 0  # one reading times nothing
    panels = dataclasses.replace(CHECK, handed=dataclasses.replace(CHECK.handed, written_once=False))
    for check in (CHECK, panels):  # whether or not a run writes each place once
        try:
            honesty.witnessed(
                FakeJudgeSide(lang="en"), prepare(check, EXERCISE, "en"), call_with(0.01, readings, partial)
            )
        except Verdict as verdict:
            assert verdict.state == State.WRONG and "part of it" in verdict.message
            assert "1 of 3 watched places" in verdict.details["got"]
        else:
            raise AssertionError("a part written by no timed run was not held")
    # a round on the judge's CPU clock: its readings are not on the judge's wall clock, nothing is said
    assert verdict_of(call_with(0.01, readings, partial, cpu_clock=True)) is None


@pytest.mark.skipif(not POSIX, reason="the witness reads by pread, the buffers pass by descriptor")
def test_the_witness_keeps_the_stretches_each_place_held_nan() -> None:
    """A real watch: another thread copies the first half of src into dst between its readings and the second
    half only after its last; the places of the second half held NaN across the readings, however slowly
    the witness looks (its thread held back), the first half's did not."""
    src = Shared("src", (N,), "float32", "numpy")
    dst = Shared("dst", (N,), "float32", "numpy")
    try:
        drawn = np.random.default_rng(2).random(N, dtype=np.float32) + 1
        src.write(0, drawn)
        dst.write(0, np.full(N, np.nan, dtype=np.float32))
        mapped = mmap.mmap(dst.fd, dst.size)
        view = np.frombuffer(mapped, dtype=np.float32)
        watching = witness.watch({"src": src, "dst": dst}, "dst", outputs.copied_at, {})
        assert watching is not None
        half = N // 2
        readings = []
        time.sleep(0.005)
        for _ in range(4):
            readings.append(time.perf_counter())
            np.copyto(view[:half], drawn[:half])
            time.sleep(0.005)
        readings.append(time.perf_counter())
        time.sleep(0.005)
        np.copyto(view[half:], drawn[half:])
        time.sleep(0.005)
        seen = watching.stop()
        assert seen is not None
        second = [i for i, p in enumerate(watching.where) if p >= half]
        assert seen.unwritten(readings) == len(second) >= 1
        first = dataclasses.replace(seen, blank=tuple(b for i, b in enumerate(seen.blank) if i not in second))
        assert first.unwritten(readings) == 0
        del view
        mapped.close()
    finally:
        src.close()
        dst.close()


def test_a_curves_point_run_only_before_the_clock_was_read_was_not_timed() -> None:
    # point 1's product made once at 5 ms, untimed; point 0 then timed from 10 ms to 30 ms
    seen = curve_seen([0.018, 0.028], [0.005])
    verdict = curve_verdict((0.01, 0.004), [0.01, 0.02, 0.03], seen)
    assert verdict is not None and "no measurement taken" in verdict.message
    assert "point 2 (of 2)" in verdict.message


def test_a_curves_point_is_held_to_the_looks_around_its_own_runs() -> None:
    # point 0 timed in 10 ms stretches with looks 1 ms apart; point 1's stretches later, with a 6 ms gap
    # between looks: point 0's lower bound holds (its own looks were close), point 1's is not held
    seen = curve_seen([0.008, 0.018], [0.038])
    looks = tuple(t for t in seen.looks if not 0.031 < t < 0.037)
    gappy = dataclasses.replace(seen, looks=looks)
    readings = [0.0, 0.01, 0.02, 0.04]
    assert gappy.point(0).around(readings) == [0.0, 0.01, 0.02]
    assert gappy.point(1).around(readings) == [0.02, 0.04]
    verdict = curve_verdict((0.008, 0.02), readings, gappy)  # point 0 claims 8 ms of its 10 ms runs
    assert verdict is not None and "at least" in verdict.message and "point 1 (of 2)" in verdict.message
    # point 1 at 11 ms of its 20 ms stretch: held where its looks were close, not across its 6 ms gap
    assert curve_verdict((0.01, 0.011), readings, seen) is not None
    assert curve_verdict((0.01, 0.011), readings, gappy) is None


def test_a_result_that_does_not_last_is_bounded_by_the_place_that_saw_most() -> None:
    # a product's result stands at a place for a part of a run: place 0 saw all four runs of the stretch,
    # places 1 and 2 missed three; the runs held at most four, not one
    seen = finishes([0.011, 0.021, 0.031, 0.039], [0.035], [0.015])
    assert seen.shortest_run([0.0, 0.04], 0.004) == pytest.approx((0.04, 1))  # a lasting result's reading
    assert seen.shortest_run([0.0, 0.04], 0.004, lasting=False) == pytest.approx((0.01, 4))


@pytest.mark.skipif(not POSIX, reason="the witness reads by pread, the buffers pass by descriptor")
def test_an_accumulator_is_counted_run_by_run_however_fast_and_never_stamped() -> None:
    """m5's out += x: every run adds x, so each look counts the runs since the last however many finished
    between (a hundred adds of microseconds); nothing is written into the output, and the bound on the runs
    a stretch held needs no guard on how far apart the looks were."""
    x = Shared("x", (N,), "float32", "numpy")
    out = Shared("out", (N,), "float32", "numpy")
    try:
        drawn = np.ldexp(1.0, np.random.default_rng(2).integers(0, 3, size=N)).astype(np.float32)
        x.write(0, drawn)
        out.write(0, np.zeros(N, dtype=np.float32))
        mapped = mmap.mmap(out.fd, out.size)
        views = [np.frombuffer(mapped, dtype=np.float32)]
        watching = witness.watch(
            {"x": x, "out": out},
            "out",
            None,
            {},
            counted=lambda got, where, **_: outputs.added_at(got, where),
        )
        assert watching is not None and watching.tally is not None
        times = []

        def runs() -> None:  # three blocks of 300 adds, timed as a student would
            for _ in range(3):
                times.append(time.perf_counter())
                for _ in range(300):
                    views[0] += drawn
                time.sleep(0.002)
            times.append(time.perf_counter())

        worker = threading.Thread(target=runs)
        worker.start()
        worker.join()
        seen = watching.stop()
        assert seen is not None and seen.counted and seen.runs == 900
        assert seen.tally is not None and seen.tally.final == (900.0,) * witness.TALLIED  # each place's count
        # the worker reads the places of the first and the last eighth: a part left out at either end is seen
        assert [p * witness.PLACES // N for p in seen.tally.places] == [0, witness.PLACES - 1]
        assert np.array_equal(views[0], drawn * np.float32(900))  # nothing stamped, nothing put back
        shortest = seen.shortest_run(times, guard=1e-9)  # a guard no look could keep: counted, not needed
        assert shortest is not None and shortest[1] >= 300
        views.clear()
        mapped.close()
    finally:
        x.close()
        out.close()
