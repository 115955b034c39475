"""grader.judge.runners.tallied: an accumulator's runs counted at each of the call's clock readings, and the
rule that holds a figure to them (honesty.counted), on m5's own checks and a fake judge; the worker's side
of the tally on a real worker."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Sequence

import numpy as np
import pytest

from grader.checks import m5
from grader.judge.prepare import prepare
from grader.judge.runners import honesty, tallied
from grader.judge.runners.readings import Witnessed
from grader.judge.runners.tallied import Tally
from grader.judge.runners.witness import Crossings
from grader.judge.verdicts import Verdict
from grader.results.outcome import State
from grader.sandbox import channel, cputime, messages
from grader.sandbox.clocks import Readings
from grader.sandbox.process import WorkerProcess
from grader.sandbox.shared import Buffers, Shared
from grader.specs.check import MeasurementCheck, ShapeCheck
from tests.grader.judge.fakes import FakeJudgeSide
from tests.grader.judge.runners.clocks import sent
from tests.grader.judge.runners.test_worker_readings import started

ADD = next(c for c in m5.EXERCISE.checks if isinstance(c, MeasurementCheck))
CURVE = next(c for c in m5.EXERCISE.checks if isinstance(c, ShapeCheck))
#: One point's places: what one run adds at each (x there), both of point 0.
ONE = Tally((3, 7), (1.0, 4.0), (0, 0))
US = 1e-6


def rows(counts: Sequence[Sequence[float]], tally: Tally, lags: Sequence[float] | None = None) -> list:
    """The tally rows of readings at which each place had counted ``counts`` runs, then the lag."""
    lags = [0.0] * len(counts) if lags is None else lags
    return [
        [c * u for c, u in zip(row, tally.units, strict=True)] + [lag]
        for row, lag in zip(counts, lags, strict=True)
    ]


def call_with(
    claimed: float | Sequence[float],
    values: Sequence[float],
    counts: Sequence[Sequence[float]],
    tally: Tally = ONE,
    lags: Sequence[float] | None = None,
    tree_cpu: float | None = None,
    cpu_clock: bool = False,
    threads: Sequence[int] | None = None,
    cpu: Sequence[float] | None = None,
    finishes: tuple[tuple[tuple[float, float], ...], ...] | None = None,
) -> honesty.Call:
    """A call whose readings at ``values`` found ``counts`` runs at ``tally``'s places; its tree's CPU as
    the calling thread's (its work in that thread alone) unless ``tree_cpu`` says otherwise; the thread's
    CPU time at each reading ``cpu`` (by default on the CPU throughout: as the wall clock ran); the witness's
    looks saw ``finishes`` at its places (none, by default)."""
    window = (min(values) - 1e-3, max(values) + 1e-3)
    if cpu is None:
        cpu = [v - values[0] for v in values]
    raw = sent(values, cpu=cpu, threads=threads, tally=rows(counts, tally, lags))
    readings = Readings.parse(raw)
    assert readings is not None
    labels = tally.labels if not isinstance(claimed, float) else ()  # a curve's places are labelled by point
    seen_at = finishes if finishes is not None else ((),) * len(labels)
    looks = tuple(sorted({t for place in seen_at for finish in place for t in finish}))
    watched = Crossings(seen_at, looks, labels, tally=tally, counted=True)
    seen = Witnessed(window, readings, crossings=watched)
    ran = readings.call_cpu or 0.0
    used = cputime.Used(ran if tree_cpu is None else tree_cpu, 1e-6, True)
    took = window[1] - window[0]
    if isinstance(claimed, float):
        return honesty.Call(
            {"n_elements": 16}, took=took, cpu=used, seconds=claimed, seen=seen, cpu_clock=cpu_clock
        )
    points = tuple(claimed)
    sizes = {"sizes": tuple(16 for _ in points)}
    return honesty.Call(
        sizes, took, used, seconds=sum(points), seen=seen, cpu_clock=cpu_clock, curve=True, points=points
    )


def verdict_of(call: honesty.Call) -> Verdict | None:
    check = CURVE if call.curve else ADD
    try:
        honesty.counted(FakeJudgeSide(lang="en"), prepare(check, m5.EXERCISE, "en"), call)
    except Verdict as verdict:
        return verdict
    return None


#: Ten single adds of 10 us, each timed alone: a reading before and after each.
SINGLES = [i * 10 * US for i in range(11)]
ONE_EACH = [[i, i] for i in range(11)]


@pytest.mark.parametrize("claimed", [9.5 * US, 10 * US, 10.5 * US])
def test_a_figure_of_the_runs_as_they_were_counted_holds(claimed: float) -> None:
    assert verdict_of(call_with(claimed, SINGLES, ONE_EACH)) is None


@pytest.mark.parametrize(("claimed", "says"), [(15 * US, "at most"), (6.5 * US, "at least")])
def test_a_figure_slower_or_faster_than_the_counted_runs_is_wrong(claimed: float, says: str) -> None:
    verdict = verdict_of(call_with(claimed, SINGLES, ONE_EACH))
    assert verdict is not None and verdict.state == State.WRONG
    assert "counted the adds" in verdict.message and says in verdict.message


def test_a_block_of_microsecond_runs_is_counted_exactly() -> None:
    """A block of 100 adds between two readings: 10 us each, however many finish between the judge's own
    looks; 0.85x of it is a clock sped up (what the looks from outside could not tell)."""
    block = [0.0, 1e-3]
    assert verdict_of(call_with(10 * US, block, [[0, 0], [100, 100]])) is None
    verdict = verdict_of(call_with(8.5 * US, block, [[0, 0], [100, 100]]))
    assert verdict is not None and "at least 9.98e-06" in verdict.message  # (1 ms - 2 us) / 100


def test_runs_made_before_the_first_reading_or_after_the_last_were_not_timed() -> None:
    before = verdict_of(call_with(10 * US, SINGLES, [[5, 5]] * 11))
    assert before is not None and "no measurement taken" in before.message
    after = verdict_of(call_with(10 * US, SINGLES, [[0, 0]] * 11))  # out counted nothing at any reading
    assert after is not None and "no measurement taken" in after.message


def test_a_reading_before_untimed_work_gives_no_stretch_for_a_piece_scaled_up() -> None:
    """m5's family 2: a reading, the whole add untimed (1 ms with what else ran), then half the elements
    timed in blocks and the figure scaled by two: the half runs reach one place only, no whole run, and the
    one stretch that held a whole run says the figure is no timing of it. The stretches of half runs are
    parts of runs, which say so first."""
    half = Tally((3, 900), (1.0, 1.0), (0, 0))  # one place in each half
    values = [0.0, 1e-3, 1.1e-3, 1.2e-3]
    counts = [[0, 0], [1, 1], [101, 1], [201, 1]]  # blocks of 100 half adds: the second half's place stays
    verdict = verdict_of(call_with(2 * US, values, counts, half))  # 1 us a half add, x2
    assert verdict is not None and verdict.state == State.WRONG and "part of a run" in verdict.message
    # only its whole run timed (the half blocks' stretches left out of the record): the stretch that held
    # it says the figure is no timing of it
    whole = verdict_of(call_with(2 * US, values[:2], counts[:2], half))
    assert whole is not None and "at least 0.000998" in whole.message  # (1 ms - 2 us) / 1


def test_a_stretch_holding_part_of_a_run_is_no_timing_of_runs() -> None:
    """A piece of the output timed apart from the rest, a later add evening the rest out (m5b's points timed on
    85% of their piece): one place added to between two readings while the other was not. The calling
    thread alone working, an honest run lies within one stretch and adds at every place there."""
    parted = [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0], [5, 5], [6, 6], [7, 7], [8, 8], [9, 9], [10, 10]]
    verdict = verdict_of(call_with(10 * US, SINGLES, parted))
    assert verdict is not None and verdict.state == State.WRONG and "part of a run" in verdict.message
    curve = verdict_of(call_with((10 * US,), SINGLES, parted))
    assert curve is not None and "point 1 (of 1)" in curve.message and "part of" in curve.message
    assert verdict_of(call_with(10 * US, SINGLES, ONE_EACH)) is None  # every run's adds in one stretch


def test_the_shortest_is_held_as_the_student_s_code_saw_the_clock() -> None:
    """Each reading's noting (its places read, its CPU half) costs time the calling thread's wall clocks
    leave out: a single add that read 20 us on the clock, 10 us of it the noting's, is 10 us to the student."""
    lags = [i * 10 * US for i in range(11)]
    values = [i * 20 * US for i in range(11)]
    assert verdict_of(call_with(10 * US, values, ONE_EACH, lags=lags)) is None
    verdict = verdict_of(call_with(10 * US, values, ONE_EACH))  # the same without the lag: too fast
    assert verdict is not None and "at least 1.8e-05" in verdict.message  # 20 us less the resolution


def test_the_counts_hold_nothing_where_they_cannot_be_read_soundly() -> None:
    scaled = 6.5 * US
    # the work in another thread besides: a run can finish between a reading and its tally
    assert verdict_of(call_with(scaled, SINGLES, ONE_EACH, tree_cpu=1.0)) is None
    # a place holding what no whole number of runs leaves: the student's code wrote something else there
    junk = [[i, i + 0.5 if i == 4 else i] for i in range(11)]
    assert verdict_of(call_with(scaled, SINGLES, junk)) is None
    # readings of another thread are no stretch of the calling thread's
    other = [0] + [1] * 10
    assert verdict_of(call_with(scaled, SINGLES, ONE_EACH, threads=other)) is None


def test_on_the_judge_s_cpu_clock_the_shortest_is_the_cpu_time_the_thread_ran() -> None:
    """A busy core: each single add took 30 us on the wall, 10 us of them its thread's CPU time, and the
    student's wall clock, switched to the CPU clock, advanced by those 10 us. The honest 10 us holds (the
    wall's 30 us would have called it wrong), a figure x0.65 is wrong by the CPU time, and the upper bound
    still holds on the wall."""
    wall = [i * 30 * US for i in range(11)]
    cpu = [i * 10 * US for i in range(11)]
    assert verdict_of(call_with(10 * US, wall, ONE_EACH, cpu_clock=True, cpu=cpu)) is None
    scaled = verdict_of(call_with(6.5 * US, wall, ONE_EACH, cpu_clock=True, cpu=cpu))
    assert scaled is not None and scaled.state == State.WRONG and "at least" in scaled.message
    slowed = verdict_of(call_with(40 * US, wall, ONE_EACH, cpu_clock=True, cpu=cpu))
    assert slowed is not None and "at most" in slowed.message
    # on the wall clock the same readings hold the honest figure to the wall's stretches
    assert verdict_of(call_with(30 * US, wall, ONE_EACH, cpu=cpu)) is None
    # on the CPU clock from readings without their CPU halves the student's stretches are not known: the
    # lower bound holds nothing, the upper still holds on the wall
    halfless = [*cpu[:5], math.nan, *cpu[6:]]  # one reading without its CPU half
    assert verdict_of(call_with(6.5 * US, wall, ONE_EACH, cpu_clock=True, cpu=halfless)) is None
    unseen = verdict_of(call_with(40 * US, wall, ONE_EACH, cpu_clock=True, cpu=halfless))
    assert unseen is not None and "at most" in unseen.message


def test_a_record_cut_at_the_worker_s_cap_holds_nothing() -> None:
    """A spin on the clock past the worker's first readings (a warm-up), then the timed runs: the record
    keeps the spin's readings only, so it would read the runs as untimed; it holds nothing instead."""
    from grader.sandbox.clocks import Noting

    many = Noting.MAX_READINGS
    values = [i * 1e-7 for i in range(many)]
    readings = Readings.parse(sent(values, tally=[[0.0, 0.0, 0.0]] * many))
    assert readings is not None and not tallied.whole(readings)
    assert tallied.stretches(readings, ONE) is None
    # unless every run lay within what it kept: an add made untimed, then a spin to the claimed time
    untimed = Readings.parse(sent(values, tally=[[1.0, 4.0, 0.0]] * many))
    assert untimed is not None
    table = tallied.stretches(untimed, dataclasses.replace(ONE, final=(1.0, 1.0)))
    assert table is not None and not table.whole and table.spanned == {0: 0}
    assert tallied.stretches(untimed, dataclasses.replace(ONE, final=(2.0, 2.0))) is None  # a run after it
    fewer = Readings.parse(sent(values[:10], tally=[[0.0, 0.0, 0.0]] * 10))
    assert fewer is not None and tallied.whole(fewer) and tallied.stretches(fewer, ONE) is not None


def test_a_tally_that_does_not_match_the_places_asked_is_read_as_none() -> None:
    readings = Readings.parse(sent(SINGLES, tally=rows(ONE_EACH, ONE)))
    assert readings is not None and readings.tally_places == 2
    assert tallied.stretches(readings, Tally((1, 2, 3), (1.0, 1.0, 1.0), (0, 0, 0))) is None
    cut = sent(SINGLES, tally=rows(ONE_EACH, ONE))
    cut["tally_places"] = 3  # rows that do not read as the worker writes them: no readings at all
    assert Readings.parse(cut) is None


#: A curve of two points, two places each.
TWO = Tally((1, 5, 20, 27), (1.0, 2.0, 1.0, 4.0), (0, 0, 1, 1))


def test_each_point_of_a_curve_timed_on_its_own_holds_and_one_never_alone_is_named() -> None:
    values = [i * 10 * US for i in range(7)]
    alone = [[0, 0, 0, 0], [1, 1, 0, 0], [2, 2, 0, 0], [3, 3, 0, 0], [3, 3, 1, 1], [3, 3, 2, 2], [3, 3, 3, 3]]
    assert verdict_of(call_with([10 * US, 10 * US], values, alone, TWO)) is None
    beside = [
        [0, 0, 0, 0],
        [1, 1, 0, 0],
        [2, 2, 1, 1],
        [3, 3, 2, 2],
        [4, 4, 3, 3],
        [5, 5, 4, 4],
        [6, 6, 5, 5],
    ]
    verdict = verdict_of(call_with([10 * US, 10 * US], values, beside, TWO))
    assert verdict is not None and "point 2 (of 2)" in verdict.message and "not" in verdict.message
    slow = verdict_of(call_with([10 * US, 15 * US], values, alone, TWO))
    assert slow is not None and "point 2 (of 2)" in slow.message and "at most" in slow.message


def test_the_rule_is_one_of_the_rules() -> None:
    assert honesty.counted in honesty.RULES


STUDENT = """
import time

def adds(x, out, n):
    for _ in range(n):
        time.perf_counter()
        out += x
    time.perf_counter()
    return 1.0
"""


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    process = started(tmp_path_factory.mktemp("student"), "tally", STUDENT)
    yield process
    process.close()


@pytest.mark.skipif(not channel.PASSES_FDS, reason="the buffers pass by descriptor")
def test_the_worker_reads_the_places_with_every_reading(worker: WorkerProcess) -> None:
    """A real worker, handed x and out with two places of out to tally: each reading of the call found as
    many adds there as it had made, with the noting's lag beside."""
    x = Shared("x", (64,), "float32", "numpy")
    out = Shared("out", (64,), "float32", "numpy")
    try:
        x.write(0, np.full(64, 2.0, dtype=np.float32))
        out.write(0, np.zeros(64, dtype=np.float32))
        out.tally = (5, 60)
        reply = worker.ask(
            "call", 60, module="tally", func="adds", args=[], kwargs={"n": 4}, readings=True,
            buffers=Buffers.of([x, out]),
        )  # fmt: skip
        assert isinstance(reply, messages.Returned), reply
        readings = Readings.parse(reply.readings)
        assert readings is not None and readings.tally_places == 2
        table = tallied.stretches(readings, Tally((5, 60), (2.0, 2.0), (0, 0)))
        assert table is not None and [s.least[0] for s in table.stretches] == [1, 1, 1, 1]
        assert table.spanned == {0: 4} and all(s.timed <= s.seconds for s in table.stretches)
        lags = readings.tally[2::3]
        assert lags == tuple(sorted(lags)) and lags[-1] > 0  # the noting's own time, growing
        assert np.array_equal(out.contents(), np.full(64, 8.0, dtype=np.float32))
    finally:
        x.close()
        out.close()


def test_a_tally_of_places_outside_the_buffer_is_refused_by_the_worker(worker: WorkerProcess) -> None:
    out = Shared("out", (8,), "float32", "numpy")
    x = Shared("x", (8,), "float32", "numpy")
    try:
        out.tally = (8,)  # one past its end
        reply = worker.ask(
            "call", 60, module="tally", func="adds", args=[], kwargs={"n": 1}, readings=True,
            buffers=Buffers.of([x, out]),
        )  # fmt: skip
        assert isinstance(reply, messages.Raised) and "tally" in reply.trace
    finally:
        x.close()
        out.close()


def test_counted_runs_hold_the_figure_where_the_looks_were_certain_of_only_the_fastest_run() -> None:
    """An honest m3b naive transpose on a busy core: five single runs of 1.0 to 1.25 ms, their median 1.15 ms.
    The witness's looks, half a millisecond apart, were certain of the run of the fastest stretch alone
    (1.0 ms), and held the median to 1.1x it: wrong. Where the runs were counted at every reading, every
    stretch holds its run, and the counts decide: the figure holds."""
    stretches = [1.0e-3, 1.25e-3, 1.2e-3, 1.15e-3, 1.0e-3]
    values = [sum(stretches[:i]) for i in range(6)]
    counts = [[i, i] for i in range(6)]
    certain = (((0.2e-3, 0.7e-3),), ((0.3e-3, 0.8e-3),))  # each place saw the first run finish, and no other
    call = call_with(1.15e-3, values, counts, finishes=certain)
    assert verdict_of(call) is None
    try:
        honesty.witnessed(FakeJudgeSide(lang="en"), prepare(ADD, m5.EXERCISE, "en"), call)
    except Verdict as verdict:
        raise AssertionError(f"the looks held a counted call: {verdict.message}") from None
    # the same looks, the runs not counted (a single-thread check whose work ran in another thread too): the
    # looks alone hold it
    uncounted = call_with(1.15e-3, values, counts, finishes=certain, tree_cpu=1.0)
    with pytest.raises(Verdict, match="at most 0.001"):
        honesty.witnessed(FakeJudgeSide(lang="en"), prepare(ADD, m5.EXERCISE, "en"), uncounted)


def test_counted_runs_are_not_held_to_the_call_s_window() -> None:
    """An honest m5a of blocks (perf_counter's method) on a core that slowed where the load reader saw
    nothing: a calibration of 11,111 adds under 1 us each, then five blocks of 10,000 at 1.2 or 1.56 us an
    add, their median 1.56 us. The median over all 61,111 runs counted exceeds the call's window by more
    than 1.1x, yet each block's stretch holds its runs at the figure: the counts hold it, the window does
    not."""
    blocks = [10e-3, 12.0e-3, 15.6e-3, 15.6e-3, 12.0e-3, 15.6e-3]
    values = [sum(blocks[:i]) for i in range(len(blocks) + 1)]
    runs = [0, 11111, *(11111 + 10000 * i for i in range(1, 6))]
    call = dataclasses.replace(call_with(1.56 * US, values, [[r, r] for r in runs]), quiet=True)
    assert call.seen is not None and call.seen.crossings is not None
    # the witness's looks counted them all too: one look after each block
    place = tuple(zip(values, values[1:], strict=False))
    seen_counts = tuple(b - a for a, b in zip(runs, runs[1:], strict=False))
    crossings = dataclasses.replace(call.seen.crossings, finishes=(place,) * 2, counts=(seen_counts,) * 2)
    call = dataclasses.replace(call, seen=dataclasses.replace(call.seen, crossings=crossings))
    assert crossings.runs == 61111 and 1.56 * US * 61111 > 1.1 * call.took  # the runs do not fit the window
    judge, prepared = FakeJudgeSide(lang="en"), prepare(ADD, m5.EXERCISE, "en")
    honesty.window_kept(judge, prepared, call)  # nothing raised: the counts hold it
    assert verdict_of(call) is None
    # the same runs not counted at the readings (work in another thread besides): the window holds them
    uncounted = dataclasses.replace(call, cpu=cputime.Used(1.0, 1e-6, True))
    with pytest.raises(Verdict, match="whole call took"):
        honesty.window_kept(judge, prepared, uncounted)
