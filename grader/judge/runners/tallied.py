"""The work an accumulator's output counted at each of a call's clock readings (issue 45, "the counted work
at each reading").

An accumulator (m5's ``out += x``: out handed at zero, x powers of two) holds after r runs exactly r times
what one run adds, so the runs done by any moment are read off its places. The judge's witness draws a few
places of it (:class:`Tally`, two a point); the worker reads them with every clock reading the call makes
(:attr:`grader.sandbox.clocks.Noting.tally`), within the noting's own time. Between two consecutive readings
of one clock by the calling thread the judge then knows the runs done, for certain, however fast the runs:
an add of two microseconds timed alone, a block of a thousand, or none. :func:`stretches` makes that table;
:func:`grader.judge.runners.honesty.counted` holds the figures to it:

- no run between the first reading and the last: not a timing of them (untimed);
- a curve's point whose runs all lay in stretches with another point's: not timed on its own;
- one run as the figure claims it, longer than the longest stretch's time over the runs it held (a clock
  slowed, a figure scaled up, a reading before untimed work: those runs are counted too), or shorter than
  the shortest's time over them (a clock sped up, a figure scaled down).

Sound for any honest statistic of timed runs (a block's time over its runs, a median, a least, a mean): each
lies between the shortest and the longest stretch's time per run. Only where the call's work ran in the
calling thread alone (its tree's CPU within that thread's): a run in another thread can finish between a
reading and the tally read after it. The record lives in the student's process: evidence, as the readings
are, and runs written without being run (an add of 100 x) only loosen the lower bound
(docs/measurement.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ...compare.outputs import MOST_RUNS
from ...sandbox import cputime
from ...sandbox.clocks import Noting, Readings, clock_of

#: The most runs a place can count: FP32 holds every whole multiple of a power of two exactly up to 2^24 of
#: them; past that adds round, and a count could stand still while runs go on (the result test's own limit).
COUNT_LIMIT = MOST_RUNS
#: The calling thread ran the call's work alone: the worker tree's CPU in the call within this share of
#: that thread's, plus :data:`ALONE_SLACK_S` (the worker's own threads, the clock's resolution).
ALONE_SHARE = 1.05
ALONE_SLACK_S = 0.003


@dataclass(frozen=True)
class Tally:
    """The places of an accumulator the worker reads with each reading (flat places of the output), what
    one run adds at each, and the point of a curve each belongs to (0 for one figure)."""

    places: tuple[int, ...]
    units: tuple[float, ...]
    labels: tuple[int, ...]
    #: The runs each place had counted when the call ended (the witness's last look), where known.
    final: tuple[float, ...] = ()


@dataclass(frozen=True)
class Stretch:
    """The time between two consecutive readings of one clock by the calling thread, as the clock read
    (``seconds``) and as the student's code saw it (``timed``: less the noting's own time in it), and by
    point the whole runs done in it (``least``) and the most added at one of its places (``most``: some of
    its work, where more than none). The calling thread alone working, its runs lie each within one
    stretch: ``least`` is exactly the runs it timed there."""

    seconds: float
    timed: float
    least: dict[int, int]
    most: dict[int, int]

    def others(self, point: int, at_least: bool = True) -> bool:
        """Whether another point than ``point`` ran in it: a whole run, or (``at_least`` False) any of its
        work."""
        runs = self.least if at_least else self.most
        return any(n > 0 for label, n in runs.items() if label != point)


@dataclass(frozen=True)
class Table:
    """A call's stretches (:class:`Stretch`), and the whole runs each point did between each clock's
    first reading and its last (for each clock, the most). Where the record was cut at the worker's cap
    (``whole`` False) but every run lay within what it kept, the stretches are of the readings kept: two of
    them may span readings left out, so that only the untimed rule and the longest run per stretch (which a
    longer stretch only lengthens) read them. Taken on the judge's CPU clock from readings without their
    CPU halves (``seen`` False), a stretch as the student's code saw it is not known (its wall time holds
    others' slices), so that only the longest run per stretch reads them too."""

    stretches: tuple[Stretch, ...]
    spanned: dict[int, int]
    whole: bool = True
    seen: bool = True


Row = tuple[float, float, list[float]]  # a reading: its value, the value the student's code saw, the counts


def _rows(readings: Readings, tally: Tally, on_cpu: bool = False) -> dict[str, list[Row]] | None:
    """Each clock's readings by the calling thread, in order, with the runs counted at each place; None where
    a place held a value no whole number of runs leaves. What the student's code saw: the reading less the
    noting's lag on the wall clock; on the CPU clock the thread's
    CPU time at the reading, which is what the worker's wall clocks advanced by there (only the offset
    differs, and stretches are differences)."""
    width = readings.tally_places + 1  # the places, then the noting's lag
    clocks: dict[str, list[Row]] = {}
    for i, (value, kind) in enumerate(zip(readings.values, readings.kinds, strict=True)):
        if readings.threads and readings.threads[i] != 0:
            continue
        *row, lag = readings.tally[i * width : (i + 1) * width]
        counts = [v / unit for v, unit in zip(row, tally.units, strict=True)]
        if not all(math.isfinite(c) and c == round(c) and 0 <= c <= COUNT_LIMIT for c in counts):
            return None
        if not (math.isfinite(lag) and lag >= 0):
            return None
        seen = readings.cpu[i] if on_cpu else value - lag
        clocks.setdefault(clock_of(kind), []).append((value, seen, counts))
    for rows in clocks.values():
        rows.sort(key=lambda row: row[0])
    return clocks


def _runs(tally: Tally, a: list[float], b: list[float]) -> Iterator[tuple[int, int, int]]:
    """For each point: the whole runs done between counts ``a`` and ``b`` (a run adds at every place of its
    point: the fewest added at one), and the most added at one (some work of the point, a run or a part)."""
    for point in sorted(set(tally.labels)):
        added = [int(b[i] - a[i]) for i, label in enumerate(tally.labels) if label == point]
        yield point, max(0, min(added)), max(0, max(added))


def cpu_halves(readings: Readings) -> bool:
    """Whether every reading carries the CPU time its thread had run (none where the platform has no thread
    clock, or the record was written without them)."""
    return len(readings.cpu) == len(readings.values) and all(math.isfinite(c) for c in readings.cpu)


def stretches(readings: Readings, tally: Tally, cpu_clock: bool = False) -> Table | None:
    """The call's :class:`Table`; None where the readings carry no tally of ``tally``'s places, the record
    is not whole (:func:`whole`) and runs came after what it kept, a place held what no whole number of runs
    leaves (the student's code wrote something else there), or the calling thread read no clock twice.
    ``cpu_clock``: the call was taken on the judge's CPU clock (:mod:`.cpuclock`), so each stretch as the
    student's code saw it is the CPU time its thread ran in it (:func:`_rows`), where the readings carry
    it (:func:`cpu_halves`; else not known, :attr:`Table.seen`)."""
    if readings.tally_places != len(tally.places) or not tally.places:
        return None
    on_cpu = cpu_clock and cpu_halves(readings)
    clocks = _rows(readings, tally, on_cpu)
    if clocks is None:
        return None
    kept = whole(readings)
    if not kept and not _all_runs_kept(clocks, tally):
        return None
    found: list[Stretch] = []
    spanned: dict[int, int] = {}
    if all(len(rows) < 2 for rows in clocks.values()):  # the calling thread timed nothing itself
        return None
    for rows in clocks.values():
        for (a, seen_a, ca), (b, seen_b, cb) in zip(rows, rows[1:], strict=False):
            done = list(_runs(tally, ca, cb))
            least, most = {p: lo for p, lo, _ in done}, {p: hi for p, _, hi in done}
            found.append(Stretch(b - a, min(b - a, seen_b - seen_a), least, most))
        for point, timed_runs, _ in _runs(tally, rows[0][2], rows[-1][2]):
            spanned[point] = max(spanned.get(point, 0), timed_runs)
    return Table(tuple(found), spanned, kept, seen=on_cpu or not cpu_clock)


def _all_runs_kept(clocks: dict[str, list[Row]], tally: Tally) -> bool:
    """Whether the latest reading kept had counted every run the call made (``tally.final``): then no run
    lies after the readings the record kept, where readings left out could have timed it."""
    latest = max((row for rows in clocks.values() for row in rows), key=lambda row: row[0], default=None)
    return latest is not None and bool(tally.final) and list(latest[2]) == list(tally.final)


def whole(readings: Readings) -> bool:
    """Whether the record holds every reading of the call: none past the worker's first readings of a clock
    (a spin on it), where the runs after them would be in no stretch here (a warm-up spin, then the timed
    runs, would read as untimed)."""
    if readings.beyond:
        return False
    per_kind: dict[int, int] = {}
    for kind in readings.kinds:
        per_kind[kind] = per_kind.get(kind, 0) + 1
    return all(count < Noting.MAX_READINGS for count in per_kind.values())


def alone(readings: Readings, used: cputime.Used | None) -> bool:
    """Whether the call's work ran in the calling thread alone: the worker tree's CPU in the call (``used``,
    from outside) within :data:`ALONE_SHARE` of that thread's own (the readings' record of it)."""
    if used is None or readings.call_cpu is None:
        return False
    slack = ALONE_SLACK_S + 2 * used.resolution
    return used.seconds <= ALONE_SHARE * readings.call_cpu + slack


def per_run(
    found: Sequence[Stretch], point: int, longest: bool, resolution: float
) -> tuple[float, int] | None:
    """The longest (``longest``) one run of ``point`` took by the stretches that held its whole runs and no
    other point's, with those runs, as the clock read them; or the shortest by the stretches that held its
    whole runs and no work of another point, as the student's code saw them; each stretch widened by the
    clocks' ``resolution``, shared by its runs. None where no stretch held
    any."""
    best: tuple[float, int] | None = None
    for one in found:
        runs = one.least.get(point, 0)
        if runs <= 0 or one.others(point, at_least=longest):
            continue
        each = (one.seconds + resolution if longest else max(0.0, one.timed - resolution)) / runs
        if best is None or (each > best[0] if longest else each < best[0]):
            best = (each, runs)
    return best
