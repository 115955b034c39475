"""The honesty rules of a measurement: a call must take at least the time its work can be done in here, the
time it says it measured, and, on the CPU, keep a CPU busy for a share of that; a call of a single-thread
check must keep no more than one core busy; and where its clock readings were asked for, its figure must
come from timing the work (:mod:`.readings`), one rule among the others.

Each rule raises the "no measurement taken" verdict with what the call did (how long it took, how much CPU
it used) against what it claimed; the thresholds are shares, so a slow or preempted honest call keeps room.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from perfcore.measure.core import Bounds

from ...compare import slips
from ...results.outcome import State
from ...sandbox import cputime
from ...specs.check import MeasurementCheck, ShapeCheck, Work
from ...specs.handed import Handed
from ...text.catalogue import render
from ...text.show import show
from ..prepare import Prepared
from ..verdicts import Verdict, inputs_text
from . import tallied
from .protocol import JudgeSide
from .readings import RESOLUTION_S, Witnessed, figure_wrong, timed, timed_curve
from .witness import Crossings

#: A call counts as "no measurement" only when it took less than this share of its least possible time
#: (the judge's clock and the round trip are coarse next to the work of one operation).
NO_MEASUREMENT_SHARE = 0.9
#: A rate (B/s, FLOP/s) says how long one run of its operation takes: the check's work over the figure. A
#: call must last at least this share of that (and of NO_MEASUREMENT_SHARE), which allows work counted up
#: to twice over: a student who counts read and write where the check counts one is judged by the band.
CLAIMED_RATE_SHARE = 0.5
#: A measuring call on the CPU keeps a CPU busy (the worker's tree, read from the kernel) for at least this
#: share of the time it says one run takes: an honest call runs it at least once, and a share this low
#: leaves room for a run that was preempted for half its time. Calls claiming less than CPU_CHECK_MIN_S
#: are not held to it: the worker's own handling of a call is then a fair part of what the kernel reads.
CPU_SHARE = 0.25
CPU_CHECK_MIN_S = 0.005
#: A call of a single-thread check may use this much more CPU than its wall time, plus twice the reading's
#: resolution and ONE_CORE_MIN_S (the kernel's accounting, the worker's own handling of the call), before it
#: counts as having kept more than one core busy: one thread cannot use more CPU than wall time.
ONE_CORE_SLACK = 1.2
ONE_CORE_MIN_S = 0.005


def least_seconds(work: Work, bounds: Bounds) -> float:
    """The fewest seconds ``work`` can take here: its bytes at the DRAM limit (a DRAM-sized working set,
    where a profile measured one) or the physical bandwidth, its FLOPs at the compute limit or peak."""
    bandwidth = bounds.bandwidth
    if bounds.dram_limit and work.bytes >= 2 * bounds.dram_bytes:  # read + write of a DRAM-sized set
        bandwidth = min(bandwidth, bounds.dram_limit)
    flops = min(bounds.peak_flops, bounds.compute_limit or math.inf)
    return max(work.bytes / bandwidth, work.flops / flops)


def work_text(work: Work) -> str:
    parts = []
    if work.bytes:
        parts.append(f"{work.bytes:.3g} B")
    if work.flops:
        parts.append(f"{work.flops:.3g} FLOP")
    return " + ".join(parts) or "0"


def too_soon(
    judge: JudgeSide,
    p: Prepared,
    kwargs: Mapping[str, Any],
    took: float,
    floor: float,
    key: str,
    possible: Callable[[], tuple[float, str, float, float] | None] | None = None,
    **fields: str,
) -> None:
    """Raise "no measurement taken" (message ``key``) when a call took less than ``floor`` seconds; or
    "check the units" where ``possible()`` (the figure, its unit, and the least and most it could be for
    this call, or None) says one unit slip brings the figure within what the call could have measured."""
    if math.isfinite(floor) and took < NO_MEASUREMENT_SHARE * floor:
        inputs = inputs_text(p.check, (), kwargs)
        message = render(key, judge.lang, func=p.check.func, inputs=inputs, took=f"{took:.3g}", **fields)
        # the hook of grader.compare.slips: a unit slip is named instead of an accusation (still wrong)
        where = possible() if possible is not None else None
        units = slips.units(*where, judge.lang, func=p.check.func, inputs=inputs) if where else None
        message = units or message
        raise Verdict(State.WRONG, message, details={"input": inputs, "got": f"{took:.3g} s"})


def no_measurement(judge: JudgeSide, p: Prepared, kwargs: Mapping[str, Any], took: float, work: Work) -> None:
    """A call that claims ``work`` must not return sooner than that work can be done here."""
    least = least_seconds(work, judge.bounds())
    too_soon(judge, p, kwargs, took, least, "no_measurement", least=f"{least:.3g}", work=work_text(work))


def claimed_time(
    judge: JudgeSide, p: Prepared, kwargs: Mapping[str, Any], took: float, claimed: float
) -> None:
    """A call must not return sooner than the seconds it says it measured."""

    def possible() -> tuple[float, str, float, float] | None:  # at most the time the call took
        return _possible(judge, p, kwargs, claimed, "s", 0.0, took / NO_MEASUREMENT_SHARE)

    too_soon(judge, p, kwargs, took, claimed, "no_measurement_claimed", possible, claimed=f"{claimed:.3g}")


def claimed_rate(
    judge: JudgeSide, p: Prepared, kwargs: Mapping[str, Any], took: float, figure: float, work: Work
) -> float | None:
    """A call reporting a rate must not return sooner than one run of its operation takes at that rate:
    this holds on every machine, even one whose caches and DRAM run alike, where a probe cannot tell a
    constant from a measurement. Returns that time (None where the work has none of the rate's unit)."""
    unit = p.check.unit if isinstance(p.check, MeasurementCheck) else ""
    amount = work.bytes if unit == "B/s" else work.flops if unit == "FLOP/s" else 0.0
    if amount <= 0:
        return None
    claimed = amount / figure

    def possible() -> tuple[float, str, float, float] | None:  # from the call's duration to the ceiling
        lowest = CLAIMED_RATE_SHARE * NO_MEASUREMENT_SHARE * amount / took if took > 0 else math.inf
        ceiling = judge.bounds().bandwidth if unit == "B/s" else judge.bounds().peak_flops
        return _possible(judge, p, kwargs, figure, unit, lowest, ceiling)

    too_soon(
        judge,
        p,
        kwargs,
        took,
        CLAIMED_RATE_SHARE * claimed,
        "no_measurement_rate",
        possible,
        claimed=f"{claimed:.3g}",
        got=show(figure),
        unit=unit,
        work=work_text(work),
    )
    return claimed


def _possible(
    judge: JudgeSide,
    p: Prepared,
    kwargs: Mapping[str, Any],
    figure: float,
    unit: str,
    low: float,
    high: float,
) -> tuple[float, str, float, float] | None:
    """``figure`` with the range a figure of this call could lie in: within ``[low, high]`` (what the
    call's duration and the machine allow) and within the check's band of perfcore's figure at the same
    input, which the reference process measures now, on the way to a verdict only. A figure perfcore
    shares is no unit slip, however soon its call returned. None where perfcore gives no figure."""
    check = p.check
    if not isinstance(check, MeasurementCheck):  # a curve's claimed seconds have no one figure to match
        return None
    try:
        reference = float(judge.measure_reference(p, kwargs))
    except Exception:  # noqa: BLE001 - no reference figure: the no-measurement message stands
        return None
    band_low, band_high = check.ratio_band
    return figure, unit, max(low, band_low * reference), min(high, band_high * reference)


def worked(
    judge: JudgeSide,
    p: Prepared,
    kwargs: Mapping[str, Any],
    claimed: float,
    used: cputime.Used | None,
    others_share: float = 0.0,
) -> None:
    """A call on the CPU that says one run of its operation takes ``claimed`` seconds must have kept a CPU
    busy for a share of that: a call that sleeps out the time and returns a made-up figure has not.
    ``used``: the CPU time of the worker's tree during the call; skipped where the kernel gave no reading,
    or the share is too short to read at its resolution. Time the reading could not see (a process the
    call started ended with nothing in the tree waiting for it) is not taken on trust. ``others_share``: the
    share of the measured core other processes took during the call (:mod:`grader.sandbox.load`); an honest
    call's clock ran on while they did, so the CPU it is held to shrinks by as much."""
    if used is None or claimed < CPU_CHECK_MIN_S:
        return
    cpu = used.seconds
    floor = CPU_SHARE * claimed * (1.0 - min(1.0, max(0.0, others_share)))
    if floor < 2 * used.resolution or cpu >= floor:
        return
    inputs = inputs_text(p.check, (), kwargs)
    message = render(
        "no_measurement_cpu" if used.complete else "no_measurement_cpu_unseen",
        judge.lang,
        func=p.check.func,
        inputs=inputs,
        claimed=f"{claimed:.3g}",
        cpu=f"{cpu:.3g}",
    )
    raise Verdict(State.WRONG, message, details={"input": inputs, "got": f"{cpu:.3g} s CPU"})


def one_core(
    judge: JudgeSide, p: Prepared, kwargs: Mapping[str, Any], took: float, used: cputime.Used | None
) -> None:
    """A call of a single-thread check must keep at most one core busy: the CPU time of the worker's tree
    during the call past its wall time ``took`` (beyond :data:`ONE_CORE_SLACK`) was spent on more than one
    core, whatever the call did to get them (its affinity widened, more threads, a process of its own).
    Skipped where the kernel gave no reading."""
    if used is None:
        return
    if used.seconds <= ONE_CORE_SLACK * took + 2 * used.resolution + ONE_CORE_MIN_S:
        return
    inputs = inputs_text(p.check, (), kwargs)
    message = render(
        "more_than_one_core",
        judge.lang,
        func=p.check.func,
        inputs=inputs,
        took=f"{took:.3g}",
        cpu=f"{used.seconds:.3g}",
    )
    raise Verdict(
        State.WRONG, message, details={"input": inputs, "got": f"{used.seconds:.3g} s CPU in {took:.3g} s"}
    )


@dataclass(frozen=True)
class Call:
    """One measuring call of the student's function, as the honesty rules read it: its input, how long it
    took from outside, the CPU its tree used, the least work it claims, and what it says one run of its
    operation takes (``seconds``: a time it returned, or a curve's seconds summed; ``rate``: a rate it
    returned, whose time is the work over it)."""

    kwargs: Mapping[str, Any]
    took: float
    cpu: cputime.Used | None
    work: Work | None = None
    seconds: float | None = None
    rate: float | None = None
    on_cpu: bool = True  # on a GPU the CPU may wait for the device
    single_thread: bool = True
    others_share: float = 0.0  # of the measured core, taken by other processes (grader.sandbox.load)
    #: The call's window and clock readings, where they were asked for (:mod:`.readings`); a curve's
    #: ``points``: what each of its points says one run takes (None: one value, or not a curve of them).
    seen: Witnessed | None = None
    #: The round is read on the judge's CPU clock (:mod:`.cpuclock`): the worker's wall clocks ran slow.
    cpu_clock: bool = False
    #: Nothing else ran on any core in the call's span (grader.sandbox.load.Span.quiet).
    quiet: bool = False
    curve: bool = False
    points: tuple[float, ...] | None = None

    @functools.cached_property
    def counted_runs(self) -> tallied.Table | None:
        """:func:`counted_table` of this call, worked out once (a frozen dataclass keeps it in its dict)."""
        return _counted_table(self)


def claimed_seconds(p: Prepared, call: Call) -> float | None:
    """The seconds ``call`` says one run of its operation takes: its time, or its work over its rate."""
    if call.seconds is not None:
        return call.seconds
    unit = p.check.unit if isinstance(p.check, MeasurementCheck) else ""
    if call.rate is None or call.work is None or call.rate <= 0:
        return None
    amount = call.work.bytes if unit == "B/s" else call.work.flops if unit == "FLOP/s" else 0.0
    return amount / call.rate if amount > 0 else None


def work_floor(judge: JudgeSide, p: Prepared, call: Call) -> None:
    """On the CPU, no sooner than its work can be done here (:func:`no_measurement`): the machine's bounds
    are the CPU's, and a GPU's work runs faster than they allow (the claimed-rate rule holds it there)."""
    if call.work is not None and call.on_cpu:
        no_measurement(judge, p, call.kwargs, call.took, call.work)


def claim_kept(judge: JudgeSide, p: Prepared, call: Call) -> None:
    """No sooner than the time it says it measured (:func:`claimed_time`), or than one run takes at the
    rate it says (:func:`claimed_rate`)."""
    if call.seconds is not None:
        claimed_time(judge, p, call.kwargs, call.took, call.seconds)
    elif call.rate is not None and call.work is not None:
        claimed_rate(judge, p, call.kwargs, call.took, call.rate, call.work)


def cpu_worked(judge: JudgeSide, p: Prepared, call: Call) -> None:
    """On the CPU, a CPU busy for a share of what it claims (:func:`worked`)."""
    claimed = claimed_seconds(p, call)
    if call.on_cpu and claimed is not None:
        worked(judge, p, call.kwargs, claimed, call.cpu, call.others_share)


def clock_read(judge: JudgeSide, p: Prepared, call: Call) -> None:
    """Where its clock readings were asked for, the figure came from timing the work (:func:`.readings.timed`;
    a curve's points each from a stretch of their own, :func:`.readings.timed_curve`)."""
    if call.seen is None:
        return
    if call.points is not None:
        timed_curve(judge, p, call.kwargs, call.points, call.seen)
    else:  # a curve with no points to hold (one value, or refused by the shape test) claims no time
        timed(judge, p, call.kwargs, None if call.curve else claimed_seconds(p, call), call.seen)


#: A figure may claim this much more than the judge's witness allows one run (rounding, a unit the band
#: swallows: the readings rule's own tolerance).
WITNESS_TOLERANCE = 1.1


@dataclass(frozen=True)
class Held:
    """One figure the witness holds: what it claims one run takes, the crossings of its own runs and, for a
    curve's point, its place in the curve (``point`` of ``points``, from 1) and the crossings of every other
    point's runs (a stretch that held those too held more than this point's work)."""

    claimed: float
    crossings: Crossings
    point: int = 0
    points: int = 0
    others: Crossings | None = None


def held_figures(p: Prepared, call: Call) -> list[Held]:
    """The figures of ``call`` the witness can hold: a measurement's one figure; a curve's points, each
    with its own runs, where its output's segments are one per point (:attr:`Handed.segments`); none
    where nothing was watched or nothing claims a time."""
    crossings = call.seen.crossings if call.seen is not None else None
    if crossings is None:
        return []
    if not call.curve:
        claimed = claimed_seconds(p, call)
        return [] if claimed is None else [Held(claimed, crossings)]
    claims, handed = call.points, handed_of(p)
    if claims is None or not crossings.labels or handed is None or handed.segments is None:
        return []
    if len(handed.segments(**call.kwargs)) != len(claims):
        return []
    return [
        Held(claim, crossings.point(i), i + 1, len(claims), crossings.besides(i))
        for i, claim in enumerate(claims)
        if math.isfinite(claim) and claim > 0
    ]


def handed_of(p: Prepared) -> Handed | None:
    """What ``p``'s check hands the student's function, where it hands buffers."""
    return p.check.handed if isinstance(p.check, (MeasurementCheck, ShapeCheck)) else None


def witnessed(judge: JudgeSide, p: Prepared, call: Call) -> None:
    """A handed call's figure as long as its runs took as the judge's witness saw them (:mod:`.witness`, on
    the judge's own clock), within :data:`WITNESS_TOLERANCE`, busy core or quiet (both read the same runs on
    the same clock); a curve's points each by the runs of its own segment of the output
    (:func:`held_figures`):

    - no longer than the longest stretch between consecutive readings of the judge's clock by the call, over
      the runs it held for certain: a clock the student's code slowed, or a figure scaled up. A curve's
      point counts only stretches that held no other point's runs for certain, and one whose runs were all
      in stretches with another point's was not timed on its own (modelled from the points that were);
    - no shorter than the shortest such stretch over the most runs it can have held, where that bound holds:
      the call read the judge's clock alone (a CPU clock, or the wall clock of the calendar, can time runs
      its stretches do not bound), in a round on the wall clock (:mod:`.cpuclock`), in stretches whose
      looks were closer than a run's writes at one place would be at the claimed time
      (:meth:`~.witness.Crossings.shortest_run`; a curve's point, in the stretches around its own runs):
      a clock sped up, or a figure scaled down. Where that bound is sound, a figure (a curve's point) whose
      runs all finished before the call's first reading or after its last was not timed at all
      (:meth:`~.witness.Crossings.outside`), and a figure whose output each run writes once (a copy:
      :attr:`~grader.specs.handed.Handed.written_once`) had a part written only before the first reading
      or after the last timed less than whole runs (:meth:`~.witness.Crossings.part_outside`: m1's copy of
      seven eighths timed, the rest copied after; not exercise 10's matrix-vector product, whose result a
      look can miss at a place every run). On any output, a place that held the judge's NaN across the
      readings was written by no timed run (:meth:`~.witness.Crossings.unwritten`; a CPU clock:
      :func:`cpu_timed`).

    Nothing to hold where no stretch held a run (runs faster than the witness looks, a clock it cannot align),
    nor where the call's runs were counted at every reading (:func:`counted_table`): those counts hold both
    bounds over every stretch, where the looks are certain of the runs of only some. A claim made from all
    of them (a median, a mean) may exceed the longest of the stretches the looks were certain of, by more
    than the tolerance, where a busy core spread the runs (an honest m3b naive transpose of 1 ms, its
    median 1.105 ms against the 1.000 ms of the one stretch the looks held: called wrong)."""
    seen = call.seen
    figures = held_figures(p, call)
    if seen is None or seen.readings is None or not figures or counted_table(call) is not None:
        return
    readings = seen.readings
    mine = readings.by_clock().get("monotonic", [])
    alone = len(mine) == len(readings.values) and not readings.beyond
    handed = handed_of(p)
    writes = handed.writes(**call.kwargs) if handed is not None else 1
    for one in figures:
        # a curve's point: the stretches that held another point's runs for certain held more than its work
        shared = set(one.others.held(mine)) if one.others is not None else set()
        own = set(one.crossings.held(mine))
        if own and not own - shared:
            where = {"point": one.point, "points": one.points}
            got = f"point {one.point} not timed alone"
            figure_wrong(judge, p, call.kwargs, "curve_point_not_alone", got, **where)
        longest = one.crossings.longest_run(mine, skip=shared)
        if longest is not None and one.claimed > WITNESS_TOLERANCE * longest[0] + RESOLUTION_S:
            _beyond_witness(judge, p, call, one, "figure_beyond_witness", longest)
        if handed is not None and not call.cpu_clock and not one.points:
            cpu_timed(judge, p, call, one, handed.lasting, writes)
        if not alone or call.cpu_clock or handed is None:
            continue
        if one.crossings.outside(mine):  # every run before the first reading or after the last: none timed
            key, fields = "figure_untimed", {}
            if one.points:
                key, fields = "curve_point_untimed", {"point": one.point, "points": one.points}
            figure_wrong(judge, p, call.kwargs, key, "no run between the readings", **fields)
        blank = one.crossings.unwritten(
            mine
        )  # places no write reached between the first reading and the last
        if blank and not one.points:
            got = f"{blank} of {len(one.crossings.blank)} watched places written only outside the readings"
            figure_wrong(judge, p, call.kwargs, "figure_part_untimed", got)
        if blank:
            where = {"point": one.point, "points": one.points}
            figure_wrong(
                judge, p, call.kwargs, "curve_point_part_untimed", "a piece written untimed", **where
            )
        # a run's writes at one place at least half a run apart over the writes it makes there; a curve's point
        # by its own stretches' looks (the whole call's hold its other points too)
        guard = one.claimed / (2 * writes)
        if handed.written_once and not one.points and one.crossings.part_outside(mine, guard):
            figure_wrong(judge, p, call.kwargs, "figure_part_untimed", "part of the output written untimed")
        span = one.crossings.around(mine) if one.points else mine
        shortest = one.crossings.shortest_run(span, guard, handed.lasting)
        if shortest is not None and one.claimed * WITNESS_TOLERANCE + RESOLUTION_S < shortest[0]:
            _beyond_witness(judge, p, call, one, "figure_below_witness", shortest)


def cpu_timed(judge: JudgeSide, p: Prepared, call: Call, one: Held, lasting: bool, writes: int) -> None:
    """A figure timed on a CPU clock alone (every reading of the call ``process_time`` or ``thread_time``, by
    the calling thread): no shorter than the shortest stretch's time on that clock over the most runs it can
    have held, its readings placed among the witness's looks by the wall halves the worker read with them
    (:meth:`grader.sandbox.clocks.Readings.cpu_clock_walls`), where the looks were closer than a run's writes
    at one place (:meth:`~.witness.Crossings.shortest_run`). An honest figure on a CPU clock is some
    statistic of its blocks' CPU time over their runs, each block such a stretch: a figure below them all
    was scaled down (a helper's m4a timed on ``thread_time`` and returned x0.87 kept its points). The guard
    comes from the claimed CPU time, never more than the wall time the runs took."""
    seen = call.seen
    read = seen.readings.cpu_clock_walls() if seen is not None and seen.readings is not None else None
    if read is None:
        return
    _, pairs = read
    walls = [wall for wall, _ in pairs]
    seconds = [b - a for (_, a), (_, b) in zip(pairs, pairs[1:], strict=False)]
    if any(s < 0 for s in seconds):  # a CPU clock never goes back in one thread: no record to hold it to
        return
    shortest = one.crossings.shortest_run(walls, one.claimed / (2 * writes), lasting, seconds=seconds)
    if shortest is not None and one.claimed * WITNESS_TOLERANCE + RESOLUTION_S < shortest[0]:
        _beyond_witness(judge, p, call, one, "figure_below_witness", shortest)


def counted_table(call: Call) -> tallied.Table | None:
    """The call's runs as counted at each of its clock readings (:func:`.tallied.stretches`), where they can
    be read soundly: an accumulator's places were read with the readings, and the call's work ran in the
    calling thread alone (:func:`.tallied.alone`); else None. Worked out once per call (three rules read
    it, and a spin on the clock leaves a hundred thousand readings): :attr:`Call.counted_runs`."""
    return call.counted_runs


def _counted_table(call: Call) -> tallied.Table | None:
    seen = call.seen
    crossings = seen.crossings if seen is not None else None
    if seen is None or seen.readings is None or crossings is None or crossings.tally is None:
        return None
    if not tallied.alone(seen.readings, call.cpu):
        return None
    return tallied.stretches(seen.readings, crossings.tally, call.cpu_clock)


def counted(judge: JudgeSide, p: Prepared, call: Call) -> None:
    """An accumulator's figure (a curve's points) held to the runs its output counted at each of the call's
    clock readings (:mod:`.tallied`, exact however fast the runs), where the call's work ran in the calling
    thread alone (:func:`.tallied.alone`): some run between the first reading and the last (else not timed);
    no stretch holding part of a run (some of the point's places added to more often than others: the
    calling thread alone working, a run lies within one stretch, so its adds reach every place there; a
    piece timed apart from the rest, which a later add evened out, m5b's 85% of a piece);
    a curve's point in a stretch of its own; one run as claimed no longer than the longest stretch's time
    over the runs it held, and no shorter than the shortest's as the student's code saw it (each stretch
    widened by the clocks' resolution, :func:`.tallied.per_run`): on the judge's CPU clock, the CPU time its
    thread ran in it, which is what the student's wall clock advanced by (a busy core's slices stretch the
    wall readings, not that). Where the record is not whole (:func:`.tallied.whole`) only untimed and the
    longest, and only if every run lay within it."""
    table = counted_table(call)
    if table is None:
        return
    for one in held_figures(p, call):
        point = one.point - 1 if one.points else 0
        where = {"point": one.point, "points": one.points} if one.points else {}
        if table.spanned.get(point, 0) == 0:
            key = "curve_point_untimed" if one.points else "figure_untimed"
            figure_wrong(judge, p, call.kwargs, key, "no run between the readings", **where)
        if table.whole and any(s.most.get(point, 0) > s.least.get(point, 0) for s in table.stretches):
            key = "curve_point_part_run" if one.points else "figure_part_run"
            figure_wrong(judge, p, call.kwargs, key, "part of a run between two readings", **where)
        own = [s for s in table.stretches if s.least.get(point, 0) > 0]
        if one.points and table.whole and own and all(s.others(point) for s in own):
            got = f"point {one.point} not timed alone"
            figure_wrong(judge, p, call.kwargs, "curve_point_not_alone", got, **where)
        longest = tallied.per_run(table.stretches, point, True, RESOLUTION_S)
        if longest is not None and one.claimed > WITNESS_TOLERANCE * longest[0]:
            _beyond_witness(judge, p, call, one, "figure_beyond_counted", longest)
        if not (table.whole and table.seen):
            continue
        shortest = tallied.per_run(table.stretches, point, False, RESOLUTION_S)
        if shortest is not None and one.claimed * WITNESS_TOLERANCE < shortest[0]:
            _beyond_witness(judge, p, call, one, "figure_below_counted", shortest)


#: On a busy core runs vary: a median of the runs' times may exceed their mean, never twice it.
WINDOW_BUSY_FACTOR = 2.0


def window_kept(judge: JudgeSide, p: Prepared, call: Call) -> None:
    """The runs a handed call's outputs prove (:attr:`~.witness.Crossings.runs`, the judge's witness; a
    curve's, point by point), at the time the figure claims for one, fit in the call's window on the
    judge's clock (its request to its reply): within :data:`WITNESS_TOLERANCE` where the call's span was
    quiet, within :data:`WINDOW_BUSY_FACTOR` otherwise. Whatever the student's clock says, a figure scaled
    slow claims more time than the call had. Not where the call was busy and its runs were counted (an
    accumulator's, every one): a median of blocks of unequal counts (``blocked_autorange``'s one-add blocks
    on a busy core, beside its calibration's hundred) can be any multiple of the mean over all the runs
    (0.75 s claimed against 0.35 s a run, m5a beside two gradings); the runs counted at each reading hold
    such a figure soundly (:func:`counted`). Nor where the runs were counted at each reading, quiet or not:
    those counts hold the figure stretch by stretch, while the window holds a median of blocks against
    the mean of every run, calibration's included, which a core slowed mid-call where the load reader
    could not see it breaks (an honest m5a of ``perf_counter`` blocks: calibration under 1 us an add, the
    blocks 1.56 us, 61,112 adds in 84 ms, called wrong at 1.1x on a call read as quiet)."""
    figures = held_figures(p, call)
    runs = sum(one.crossings.runs for one in figures)
    if not figures or runs < 2 or counted_table(call) is not None:
        return
    if not call.quiet and any(one.crossings.counted for one in figures):
        return
    total = sum(one.claimed * one.crossings.runs for one in figures)
    factor = WITNESS_TOLERANCE if call.quiet else WINDOW_BUSY_FACTOR
    if total <= factor * call.took + RESOLUTION_S:
        return
    if call.curve:
        got = f"{show(total)} s claimed in all"
        figure_wrong(
            judge,
            p,
            call.kwargs,
            "curve_beyond_window",
            got,
            runs=runs,
            total=show(total),
            took=show(call.took),
        )
    claimed = figures[0].claimed
    fields = {"claimed": show(claimed), "runs": runs, "total": show(total)}
    figure_wrong(
        judge,
        p,
        call.kwargs,
        "figure_beyond_window",
        f"{show(claimed)} s claimed",
        took=show(call.took),
        **fields,
    )


def passes_in_order(judge: JudgeSide, p: Prepared, call: Call) -> None:
    """A handed call of passes (:attr:`~grader.specs.handed.Handed.stages`, m4a's k) made its passes over the
    output one after another, each over the whole of it, as the witness read them (:mod:`.passes`), where
    one pass cannot be made sooner than ``one``, its share of the call's work at this machine's fastest rate:

    - no look quicker than ``one`` read places further apart than passes in order leave them (a part taken
      through several passes first, in cache; two passes made together block by block);
    - no stretch between two runs' results at one place, its looks never half of the other passes' least
      time apart, passed without a look seeing that place between (the passes made elsewhere and the
      result copied in; a block taken through all k passes in cache while no look came).

    Neither can come of a busy machine: a slow pass only lengthens what the looks see."""
    crossings = call.seen.crossings if call.seen is not None else None
    handed = handed_of(p)
    if crossings is None or handed is None or call.work is None or not call.on_cpu:
        return
    if crossings.apart is None and crossings.bare is None:
        return
    writes = handed.writes(**call.kwargs)
    one = least_seconds(call.work, judge.bounds()) / writes
    apart = crossings.apart
    if apart is not None and apart.took < one:
        got = f"passes {apart.more} and {apart.fewer} at one look"
        figure_wrong(judge, p, call.kwargs, "figure_passes_apart", got, more=apart.more, fewer=apart.fewer)
    if crossings.bare is not None and writes > 1 and 2 * crossings.bare < (writes - 1) * one:
        gap = f"{crossings.bare * 1e3:.2g}"
        figure_wrong(judge, p, call.kwargs, "figure_passes_unseen", "no pass seen between", gap=gap)


def _beyond_witness(
    judge: JudgeSide, p: Prepared, call: Call, one: Held, key: str, bound: tuple[float, int]
) -> None:
    fields = {"claimed": show(one.claimed), "bound": show(bound[0]), "runs": bound[1]}
    if one.points:  # a curve's point: its own message, which names it
        key = key.replace("figure_", "curve_point_")
        fields.update(point=one.point, points=one.points)
    figure_wrong(judge, p, call.kwargs, key, f"{show(one.claimed)} s claimed", **fields)


def one_core_only(judge: JudgeSide, p: Prepared, call: Call) -> None:
    """A single-thread check's call on the CPU keeps one core busy at most (:func:`one_core`)."""
    if call.on_cpu and call.single_thread:
        one_core(judge, p, call.kwargs, call.took, call.cpu)


#: The honesty rules every measuring call is held to, in order, by the measurement and the curve runner
#: alike: a rule added here applies to every measuring check.
RULES: tuple[Callable[[JudgeSide, Prepared, Call], None], ...] = (
    work_floor,
    claim_kept,
    cpu_worked,
    one_core_only,
    clock_read,
    counted,
    witnessed,
    window_kept,
    passes_in_order,
)


def hold(judge: JudgeSide, p: Prepared, call: Call) -> None:
    """Hold ``call`` to every rule of :data:`RULES`; the first it breaks raises its verdict."""
    for rule in RULES:
        rule(judge, p, call)
