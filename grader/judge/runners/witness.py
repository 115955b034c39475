"""The judge's witness of a handed call: the runs it saw the student's code finish, on the judge's own clock
(issue 45, "the judge's own clock").

The figure a call returns is read off clocks in the student's process, which the student's code can bend (a
``perf_counter`` replaced at import by one running at 0.85x, a figure scaled by 1.15 within the band) and
which a shared core stretches. The outputs of a handed check are in memory the judge maps too
(:mod:`grader.sandbox.shared`), and every run writes them anew. So while the call runs, a thread of the
judge's watches a few places of the output (:data:`PLACES`, drawn from its own secret, spread over the
buffer), each about every :data:`PERIOD_S`:

- a place that holds what a run leaves there (:attr:`grader.specs.handed.Handed.at`, worked out from the
  inputs before the call) has seen a run finish: the judge notes the time on its own clock and writes NaN
  there (its stamp), so that the next run to finish there is seen too;
- a value between (k passes' first pass, a product's partial sums) is no finish: the place is watched until
  it holds the result again; a run over NaN leaves NaN, and the next one overwrites it;
- after the reply, a place still stamped gets back the result it held before the stamp (the student's own
  value, seen to be right), so the outputs are judged as the student's code left them.

For passes (:attr:`grader.specs.handed.Handed.stages`, m4a's k), each look also reads which of the passes
each place has had, the places in an order drawn anew each look, and keeps what :mod:`.passes` needs: the
quickest look that read them out of order, and whether each place was seen between two of its results.

What it gives (:class:`Crossings`): for each place the runs that finished there, each between two of the
judge's looks. The student's clock readings (noted beneath any clock the student's code put on top,
:mod:`grader.sandbox.clocks`) on the judge's own clock cut the call into stretches; a stretch holds at least
the runs that finished inside it for certain at some place. An honest figure of one run (a median, a least,
a mean of timed runs, a block over its count) is no longer than the longest stretch's time over the runs it
held, on any core, busy or not: both are the same runs on the same clock. A figure longer than that
(:meth:`Crossings.longest_run`) claims runs slower than they ran, a clock slowed or a figure scaled up:
:func:`grader.judge.runners.honesty.witnessed`. Runs faster than the watch finish several times between two
looks and count once, and a finish near a stretch's end may count in neither: fewer runs only lengthen the
bound, never a false verdict. A stretch the student's code spins out after its runs lengthens it too: what
such a pad hides is said in docs/measurement.md.

The other way (:meth:`Crossings.shortest_run`): a stretch held at most the finishes whose looks reach into
it, where no finish can have gone unseen, which holds only while the looks stay closer than a run's writes at
one place (two finishes between two looks, or a finish written over by the next run's first pass before a
look, would hide runs). An honest figure is no shorter than the shortest stretch's time over those; a
figure shorter claims runs faster than they ran, a clock sped up or a figure scaled down. The bound is held
only where it is sound: for every stretch of the call or for none.

The student's code can see the stamps (a NaN in an output between runs). Writing results at the places
without running makes the judge see more finishes, which only tightens both bounds on its own figure; it
cannot make the judge see fewer than it wrote. A function that checks its own output inside the call meets
the NaN too: docs/students.md says to check after the call. What a stamp gives away is where the places
are: a call that finds them can walk only them through "runs" paced as it likes, the rest of the output
left as one real run wrote it. For passes the witness also reads as many places again that it never
stamps (``shadows``), among the others in each look's order: left at the last pass while the stamped ones
are between, they read as passes out of order (:mod:`.passes`). An output whose runs all leave the same
value (a copy, a product) has no such tell: docs/measurement.md says what that leaves open.
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import math
import mmap
import os
import secrets
import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...sandbox.shared import Shared
from .passes import Apart, apart
from .tallied import COUNT_LIMIT, Tally

#: Places of the output watched: spread over it, one drawn in each of as many equal parts.
PLACES = 8
#: Places of each point of an accumulator the worker reads with every clock reading (:mod:`.tallied`): two,
#: the first part's and the last's, so that each reading costs little and a part left out at either end of
#: a piece is seen.
TALLIED = 2
#: How often the witness looks (seconds between looks, as the judge's thread sleeps): half a millisecond, so
#: that a look delayed by the scheduler still comes within the lower bound's guard (m4a's passes: half a pass,
#: 2-3 ms here); a look costs a few microseconds, on a core the measured one is not.
PERIOD_S = 0.0005


@dataclass(frozen=True)
class Crossings:
    """What the witness saw of one call: for each place watched, each run seen to have finished there, as
    the judge's ``perf_counter`` at the look before it and at the look that saw it (it finished between)."""

    finishes: tuple[tuple[tuple[float, float], ...], ...]
    #: When each look began, in order.
    looks: tuple[float, ...] = ()
    #: For a curve's output: the point each place belongs to (its segment), in the order of ``finishes``.
    labels: tuple[int, ...] = ()
    #: For an output that counts its runs (an accumulator): for each place, how many runs each of its
    #: ``finishes`` stands for (all finished between the same two looks); empty: one run each.
    counts: tuple[tuple[int, ...], ...] = ()
    #: Whether every finish was counted, however close together (an accumulator's count), rather than seen
    #: at most once between two looks: the bound on the runs a stretch held then needs no guard on the looks.
    counted: bool = False
    #: An accumulator's places the worker read with each clock reading (:mod:`.tallied`), where it was asked.
    tally: Tally | None = None
    #: For passes (:attr:`grader.specs.handed.Handed.stages`): the quickest look that read places further apart
    #: than passes in order leave them (:mod:`.passes`), None where none did; and, of the stretches between
    #: two runs' results at one place where no look saw a pass between them, the narrowest, by its widest gap
    #: between looks (seconds), None where every such stretch had a pass seen in it.
    apart: Apart | None = None
    bare: float | None = None
    #: For a stamped output: for each place, the stretches of the judge's clock it held NaN throughout (from
    #: the judge's fill or its stamp to the last look that found NaN), no write of the student's code seen
    #: in them (:meth:`unwritten`).
    blank: tuple[tuple[tuple[float, float], ...], ...] = ()

    def weights(self, i: int) -> tuple[int, ...]:
        """How many runs each finish at place ``i`` stands for."""
        return self.counts[i] if self.counts else (1,) * len(self.finishes[i])

    def point(self, i: int) -> Crossings:
        """What the witness saw at the places of a curve's point ``i`` alone."""
        return self._only(lambda label: label == i)

    def besides(self, i: int) -> Crossings:
        """What the witness saw at the places of every point of a curve but ``i``."""
        return self._only(lambda label: label != i)

    def _only(self, keep: Callable[[int], bool]) -> Crossings:
        kept = [i for i, label in enumerate(self.labels) if keep(label)]
        return Crossings(
            tuple(self.finishes[i] for i in kept),
            self.looks,
            tuple(self.labels[i] for i in kept),
            tuple(self.counts[i] for i in kept) if self.counts else (),
            self.counted,
            self.tally,
            self.apart,
            self.bare,
            tuple(self.blank[i] for i in kept) if self.blank else (),
        )

    def gap(self, start: float, end: float) -> float:
        """The longest time between two looks begun around ``(start, end]``: from the last look begun by
        ``start`` to the first begun at ``end`` or after (infinite where the looks do not reach around it)."""
        first = bisect.bisect_right(self.looks, start) - 1
        last = bisect.bisect_left(self.looks, end)
        if first < 0 or last >= len(self.looks):
            return math.inf
        return max(
            b - a for a, b in zip(self.looks[first:last], self.looks[first + 1 : last + 1], strict=True)
        )

    @property
    def runs(self) -> int:
        """The runs the outputs prove: the most finishes seen at one place."""
        return max((sum(self.weights(i)) for i in range(len(self.finishes))), default=0)

    def outside(self, readings: Sequence[float]) -> bool:
        """Whether a run was seen and every run seen finished, for certain, before the first of ``readings``
        (sorted, on the judge's clock) or after the last: none can have been timed, since a timed run lies
        between two readings and writes its result there."""
        seen = [finish for place in self.finishes for finish in place]
        if not seen or not readings:
            return False
        return all(at <= readings[0] or after >= readings[-1] for after, at in seen)

    def part_outside(self, readings: Sequence[float], guard: float) -> bool:
        """Whether some place saw at least two runs finish between the first of ``readings`` (sorted, on the
        judge's clock) and the last for certain, while another place that saw runs saw none finish there
        for certain: the timed runs left that place's part of the output alone, its result written before
        the readings or after. That holds only where the looks were never ``guard`` apart around the
        readings (half a run's writes at one place apart): then each run's write at every place is seen on
        its own, and of two runs between the readings, each place's write of one lies inside them for
        certain (the first run's writes late in it, or the second's early in it, are far from both ends)."""
        if len(readings) < 2 or self.gap(readings[0], readings[-1]) >= guard:
            return False
        first, last = readings[0], readings[-1]
        inside = [
            sum(first <= after and at <= last for after, at in place) for place in self.finishes if place
        ]
        return bool(inside) and max(inside) >= 2 and min(inside) == 0

    def unwritten(self, readings: Sequence[float]) -> int:
        """How many places held NaN from before the first of ``readings`` (sorted, on the judge's clock) to
        after the last, no write seen in between: no run between the readings wrote there. Sound however far
        apart the looks: a value written over NaN stays until a look sees it (the judge stamps only what a look
        saw), and a write lost under a stamp (between a look and its stamp) came before the stamp, so before
        the first reading. Only the student's own NaN could hide a write, and it calls only that call wrong.
        0 with fewer than two readings."""
        if len(readings) < 2:
            return 0
        first, last = readings[0], readings[-1]
        return sum(any(start <= first and last <= end for start, end in spans) for spans in self.blank)

    def around(self, readings: Sequence[float]) -> list[float]:
        """The ``readings`` (sorted) that bound the runs seen: from the last one by the earliest finish's look
        before it to the first one at or after the latest finish's look, so that a bound on these runs is held
        to their own stretches' looks and not to the whole call's (a curve's other points); all of them where
        no run was seen."""
        seen = [finish for place in self.finishes for finish in place]
        if not seen:
            return list(readings)
        first = max(0, bisect.bisect_right(readings, min(after for after, _ in seen)) - 1)
        last = min(len(readings) - 1, bisect.bisect_left(readings, max(at for _, at in seen)))
        return list(readings[first : last + 1])

    def held(self, readings: Sequence[float]) -> dict[int, int]:
        """The runs each stretch between consecutive ``readings`` (sorted, on the judge's clock) held for
        certain, by the index of its first reading: those that finished inside it (both looks around the
        finish within it) at the place that saw most in it. Stretches that held none are left out."""
        most: dict[int, int] = {}
        for place, weights in zip(self.finishes, map(self.weights, range(len(self.finishes))), strict=True):
            here: dict[int, int] = {}
            for (after, at), weight in zip(place, weights, strict=True):
                i = bisect.bisect_right(readings, after) - 1
                if 0 <= i < len(readings) - 1 and at <= readings[i + 1]:
                    here[i] = here.get(i, 0) + weight
            for i, runs in here.items():
                most[i] = max(most.get(i, 0), runs)
        return most

    def longest_run(
        self, readings: Sequence[float], skip: Collection[int] = frozenset()
    ) -> tuple[float, int] | None:
        """The longest one run took by the stretches between consecutive ``readings`` (the student's, sorted,
        on the judge's clock) that held a run for certain (:meth:`held`), but those ``skip`` names (by their
        first reading: a curve's stretches that held another point's runs too): a stretch's time over its
        runs, the longest, with those runs; None where no stretch held one."""
        best: tuple[float, int] | None = None
        for i, runs in self.held(readings).items():
            if i in skip:
                continue
            each = (readings[i + 1] - readings[i]) / runs
            if best is None or each > best[0]:
                best = (each, runs)
        return best

    def shortest_run(
        self,
        readings: Sequence[float],
        guard: float,
        lasting: bool = True,
        seconds: Sequence[float] | None = None,
    ) -> tuple[float, int] | None:
        """The shortest one run can have taken by the stretches between consecutive ``readings`` that held a
        run: each stretch held at most the finishes whose looks reach into it, at the place that saw fewest
        but one; its time over those, the shortest, with them. That holds only where the looks were never
        ``guard`` apart from the first reading to the last (a run's writes at one place, one result and the
        next, further apart than that: none finishes unseen, no two between two looks): else None, as where
        no stretch held a run at every place. All stretches or none: the fastest stretch left out would
        leave a bound that an honest least of them is below. A result that does not last (``lasting``
        False, a product's) is missed at most places however close the looks: there the place that saw
        most bounds the runs, the one whose result stood longest. Where every finish was counted
        (:attr:`counted`) none is missed however far apart the looks: only their reaching around the
        readings is asked, and the place that counted most bounds the runs. ``seconds``: each stretch's time
        on the clock the figure was timed on, where that is not the judge's (a CPU clock's readings, placed
        among the looks by their wall halves); by default the stretch's own."""
        guard = math.inf if self.counted else guard
        if len(readings) < 2 or self.gap(readings[0], readings[-1]) >= guard:
            return None
        best: tuple[float, int] | None = None
        places = []
        for i, f in enumerate(self.finishes):
            total = [0]  # the runs of the finishes before each, so that a bisect's count is of runs
            for weight in self.weights(i):
                total.append(total[-1] + weight)
            places.append(([after for after, _ in f], [at for _, at in f], total))
        for i, (start, end) in enumerate(zip(readings, readings[1:], strict=False)):
            # a finish reaches into the stretch where it began looking before its end and was seen after its
            # start: those looking before the end, less those seen by its start (they began before it too)
            counts = sorted(
                s[bisect.bisect_left(a, end)] - s[bisect.bisect_right(t, start)] for a, t, s in places
            )
            # the second fewest: a finish the judge's own stamp wrote over (the next run there between its
            # look and its stamp, microseconds) is lost at one place, not at two in one stretch
            most = counts[1] if len(counts) >= 3 else counts[0] if counts else 0
            if not lasting or self.counted:
                most = counts[-1] if counts else 0
            took = end - start if seconds is None else seconds[i]
            if most > 0 and (best is None or took / most < best[0]):
                best = (took / most, most)
        return best


def _places(start: int, stop: int) -> list[int]:
    """:data:`PLACES` flat places of ``[start, stop)`` (fewer where it has fewer), one in each equal part."""
    count = stop - start
    parts = min(PLACES, count)
    edges = [start + i * count // parts for i in range(parts + 1)]
    return [lo + secrets.randbelow(max(1, hi - lo)) for lo, hi in zip(edges, edges[1:], strict=False)]


class Witness:
    """The watch of one call's output ``shared``: started before the request, stopped after the reply
    (:meth:`stop`), which puts back any stamp left and gives the :class:`Crossings`. ``expected`` and
    ``tolerance``: what a run leaves at ``where`` and how far from it a value may lie. ``avoid``: the
    measured core, which the watch's thread keeps off where the process may use another (on this kit's
    machine a round is clean with at most 3% of that core taken by others; a look costs a few
    microseconds, half a millisecond apart)."""

    def __init__(
        self,
        shared: Shared,
        where: np.ndarray,
        expected: np.ndarray,
        tolerance: np.ndarray,
        avoid: set[int] | None = None,
        labels: Sequence[int] = (),
        unit: np.ndarray | None = None,
        stages: np.ndarray | None = None,
        shadows: np.ndarray | None = None,
    ) -> None:
        self.shared, self.where, self.labels = shared, where, tuple(labels)
        # for passes, places read at every look beside ``where`` and never stamped (``stages`` has their rows
        # after ``where``'s): the student's code cannot find them, as it finds a stamp
        self.reads = where if shadows is None else np.concatenate([where, shadows])
        # passes' stages at each place (a row a place): the stage each look found, whether a look found one
        # between two results since the last, and the widest gap between looks since then; a place whose
        # stages are not all different (x = 0 there) tells none of them apart and is left out
        self.stages = stages
        self.distinct = (
            np.isfinite(stages).all(axis=1) & (np.diff(stages, axis=1) != 0).all(axis=1)
            if stages is not None
            else np.zeros(len(self.reads), dtype=bool)
        )
        self.between = np.zeros(len(self.reads), dtype=bool)
        self.widest = np.zeros(len(self.reads), dtype=np.float64)
        self.apart: Apart | None = None
        self.bare: float | None = None
        self._order = np.random.default_rng(secrets.randbits(64)) if stages is not None else None
        self.expected, self.tolerance = expected, tolerance
        self.finishes: list[list[tuple[float, float]]] = [[] for _ in where]
        # an accumulator's places (``unit``: what one run adds at each): the runs each look counts there, and
        # the count the last look read (the output starts at zero); nothing is stamped
        self.unit = unit
        self.tally: Tally | None = None  # the places the worker reads with each reading, where asked
        self.where_index = {int(p): i for i, p in enumerate(where)}
        self.counts: list[list[int]] = [[] for _ in where]
        self.count = np.zeros(len(where), dtype=np.float64)
        # when the last look began: a place it found without the result finished after that
        self.last = time.perf_counter()
        self.stamped = [False] * len(where)
        # a stamped output's places held NaN from when (the judge's fill, before the watch; a stamp) to when
        # (the last look that found NaN), and the stretches so kept (:meth:`Crossings.unwritten`)
        self.blank_from = np.full(len(where), self.last if unit is None else math.nan)
        self.blank_to = self.blank_from.copy()
        self.blank: list[list[tuple[float, float]]] = [[] for _ in where]
        self.held: list[bytes] = [b""] * len(where)  # the result each place held before its stamp
        # when each look began; an accumulator's count is known at the start too (zero, as the judge filled it)
        self.looks: list[float] = [self.last] if unit is not None else []
        self.broken = False  # the buffer could not be read or written (the student's code cut it)
        self.avoid = avoid or set()
        self._nan = np.array([np.nan], dtype=shared.dtype).tobytes()
        # a sealed buffer cannot be cut: read through a mapping of the judge's own (no system call a look);
        # else by pread, whose short read says the file was cut
        self._map = mmap.mmap(shared.fd, shared.size, access=mmap.ACCESS_READ) if shared.sealed else None
        self._view = (
            None if self._map is None else np.frombuffer(self._map, dtype=shared.dtype, count=shared.count)
        )
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="perfkit-witness", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        others = set(os.sched_getaffinity(0)) - self.avoid if hasattr(os, "sched_getaffinity") else set()
        if self.avoid and others:
            with contextlib.suppress(OSError):  # this thread alone (a thread's id is a pid to the call)
                os.sched_setaffinity(threading.get_native_id(), others)
        while not self._done.wait(PERIOD_S) and not self.broken:
            self._look()

    def _values(self, order: np.ndarray | None = None) -> np.ndarray | None:
        """The places' values now, shadows too, read in ``order`` (an order of the places; as drawn where None)
        and given in it (None where the buffer was cut)."""
        where = self.reads if order is None else self.reads[order]
        if self._view is not None:
            return self._view[where]
        size, out = self.shared.itemsize, np.empty(len(where), dtype=self.shared.dtype)
        for i, place in enumerate(where):
            raw = os.pread(self.shared.fd, size, int(place) * size)
            if len(raw) != size:
                return None
            out[i] = np.frombuffer(raw, dtype=self.shared.dtype)[0]
        return out

    def _look(self) -> None:
        """One look at every place: a finish noted (between the last look and this one) and stamped over;
        an accumulator's runs counted (:meth:`_count`)."""
        before, began = self.last, time.perf_counter()
        self.looks.append(began)
        try:
            # passes' places are read in an order drawn anew each look (:mod:`.passes`)
            order = None if self._order is None else self._order.permutation(len(self.reads))
            values = self._values(order)
            took = time.perf_counter() - began
            if values is None:
                self.broken = True
            elif self.unit is not None:
                self._count(values, before)
            else:
                if order is not None:
                    values = self._staged(values, order, began - before, took)[: len(self.where)]
                self._blank(values, began, began + took)
                self._stamp(values, before)
        except OSError:
            self.broken = True
        self.last = began

    def _staged(self, read: np.ndarray, order: np.ndarray, gap: float, took: float) -> np.ndarray:
        """One look at passes' places, ``read`` in ``order`` in ``took`` seconds, ``gap`` after the look before:
        the stage each holds (a stamp, NaN, holds none); a look that found them out of order kept where it
        is the quickest yet; whether each has been seen between two results. The values, by place."""
        assert self.stages is not None
        values = np.empty_like(read)
        values[order] = read
        match = self.stages == values.astype(np.float64)[:, None]
        stage = np.where(match.any(axis=1) & self.distinct, match.argmax(axis=1), -1)
        last = self.stages.shape[1] - 1
        self.widest = np.maximum(self.widest, gap)
        self.between |= (stage >= 0) & (stage < last)
        found = apart(stage[order], last, took)
        if found is not None and (self.apart is None or found.took < self.apart.took):
            self.apart = found
        return values

    def _blank(self, values: np.ndarray, began: float, ended: float) -> None:
        """Each place's NaN kept on: found NaN, it held NaN until this look began at least (from the look's end
        where nothing before said it held NaN: the student's code wrote it); found written, the stretch it held
        NaN ends, and is kept."""
        nan = np.isnan(values.astype(np.float64))
        self.blank_from = np.where(nan & np.isnan(self.blank_from), ended, self.blank_from)
        self.blank_to = np.where(nan, began, self.blank_to)
        for i in np.flatnonzero(~nan & ~np.isnan(self.blank_from)):
            self._keep_blank(int(i))

    def _keep_blank(self, i: int) -> None:
        if self.blank_to[i] >= self.blank_from[i]:
            self.blank[i].append((float(self.blank_from[i]), float(self.blank_to[i])))
        self.blank_from[i] = self.blank_to[i] = math.nan

    def _stamp(self, values: np.ndarray, before: float) -> None:
        """The places that hold a run's result: a finish noted at each, and NaN written over it; for passes,
        a stretch since the place's last result in which no look saw a pass between kept (:attr:`bare`)."""
        size = self.shared.itemsize
        for i in np.flatnonzero(np.abs(values.astype(np.float64) - self.expected) <= self.tolerance):
            place = int(self.where[i])  # NaN is never near: only a finished result
            if self.distinct[i]:
                if self.finishes[i] and not self.between[i]:
                    widest = float(self.widest[i])
                    self.bare = widest if self.bare is None else min(self.bare, widest)
                self.between[i], self.widest[i] = False, 0.0
            self.finishes[i].append((before, time.perf_counter()))
            self.held[i] = values[i : i + 1].tobytes()
            self.stamped[i] = True
            if os.pwrite(self.shared.fd, self._nan, place * size) != size:
                self.broken = True  # a place not stamped would be seen to finish again
                return
            self.blank_from[i] = self.blank_to[i] = (
                time.perf_counter()
            )  # NaN from here: a write after is seen

    def _count(self, values: np.ndarray, before: float) -> None:
        """One look at an accumulator's places: the runs added at each since the last look, as one finish
        standing for them all. A value no whole number of runs leaves (the student's code wrote something
        else there) is passed over until one does; a count that fell (the output zeroed again) starts anew:
        either way the runs are never counted more than the output shows."""
        assert self.unit is not None
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            now = values.astype(np.float64) / self.unit
        whole = np.isfinite(now) & (now == np.round(now)) & (now >= 0) & (now <= COUNT_LIMIT)
        seen = time.perf_counter()
        for i in np.flatnonzero(whole & (now != self.count)):
            runs = int(now[i] - self.count[i])
            if runs > 0:
                self.finishes[i].append((before, seen))
                self.counts[i].append(runs)
            self.count[i] = now[i]

    def stop(self) -> Crossings | None:
        """Stop watching, after one last look; put back the results still stamped over. None where the
        buffer could not be watched to the end (then nothing is put back: the judge reads it as it is, and
        its size test says why)."""
        self._done.set()
        self._thread.join()
        if not self.broken:
            self._look()
        for i in np.flatnonzero(~np.isnan(self.blank_from)):
            self._keep_blank(int(i))
        try:
            values = None if self.broken else self._values()
            values = None if values is None else values[: len(self.where)]  # the shadows were never stamped
            for i in [] if values is None else np.flatnonzero(np.isnan(values)):
                # still NaN (the stamp, or a run over it not finished there since): the result put back
                if self.stamped[i]:
                    os.pwrite(self.shared.fd, self.held[i], int(self.where[i]) * self.shared.itemsize)
        except OSError:
            self.broken = True
        self._view = None
        if self._map is not None:
            self._map.close()
        if self.broken:
            return None
        if self.unit is not None:
            counts = tuple(tuple(c) for c in self.counts)
            finishes = tuple(tuple(f) for f in self.finishes)
            tally = self.tally
            if tally is not None:  # what each of its places had counted when the call ended
                final = tuple(float(self.count[self.where_index[p]]) for p in tally.places)
                tally = dataclasses.replace(tally, final=final)
            return Crossings(finishes, tuple(self.looks), self.labels, counts, True, tally)
        return Crossings(
            tuple(tuple(f) for f in self.finishes),
            tuple(self.looks),
            self.labels,
            apart=self.apart,
            bare=self.bare,
            blank=tuple(tuple(spans) for spans in self.blank),
        )


def watch(
    shared: Mapping[str, Shared],
    watched: str,
    at: Any,
    inputs: Mapping[str, Any],
    avoid: set[int] | None = None,
    segments: Sequence[tuple[int, int]] | None = None,
    counted: Any = None,
    stages: Any = None,
) -> Witness | None:
    """A witness of the output ``watched`` of ``shared`` (the call's buffers), its places' results by
    ``at`` from the inputs (:attr:`grader.specs.handed.Handed.at`), or, for an accumulator, what one run adds
    at each by ``counted`` (:attr:`~grader.specs.handed.Handed.counted`); None where the system has no
    ``pread`` or the output is empty. ``segments``: a curve's, the flat ranges each point writes
    (:attr:`~grader.specs.handed.Handed.segments`), each watched at places of its own, labelled by point.
    ``stages``: for passes, what the places hold before a run's first pass and after each, by
    :attr:`~grader.specs.handed.Handed.stages` (:mod:`.passes`)."""
    out = shared.get(watched)
    if out is None or out.count == 0 or not hasattr(os, "pread"):
        return None
    parts = [(0, out.count)] if segments is None else list(segments)
    if any(not 0 <= lo < hi <= out.count for lo, hi in parts):
        raise ValueError(f"segments {parts!r} are not ranges within {watched}'s {out.count} places")
    drawn = [(_places(lo, hi), i) for i, (lo, hi) in enumerate(parts)]
    where = np.array([place for places, _ in drawn for place in places], dtype=np.int64)
    labels = [i for places, i in drawn for _ in places] if segments is not None else []
    got = {name: one.contents() for name, one in shared.items() if name != watched}
    if counted is not None:  # an accumulator: counted, never stamped; its first places read by the worker too
        unit = np.asarray(counted(got, where, **inputs), dtype=np.float64)
        got.clear()
        witness = Witness(out, where, np.zeros(len(where)), np.zeros(len(where)), avoid, labels, unit)
        # the worker reads, with every reading, the places in the first and the last part of each point's
        # piece (:data:`TALLIED`): a part left out of the timed runs at either end of a piece (the usual
        # cheat: the head timed, the tail made up) holds one of them, and its run is not counted. Every
        # place would hold any part; but each place costs every reading, and a spin on the clock reads it a
        # hundred thousand times, where the record's size then made the worker's CPU outgrow the calling
        # thread's (no longer "alone": the counts unread). Two, as before, but not both in the first quarter.
        read: list[int] = []
        start = 0
        for places, _ in drawn:
            ends = {0, len(places) - 1}
            read.extend(start + i for i in sorted(ends)[:TALLIED])
            start += len(places)
        point = labels or [0] * len(where)
        witness.tally = Tally(
            tuple(int(where[i]) for i in read),
            tuple(float(unit[i]) for i in read),
            tuple(point[i] for i in read),
        )
        out.tally = witness.tally.places
        return witness
    expected, tolerance = at(got, where, **inputs)
    # as many places again, drawn the same way, whose passes are read but never stamped: a student's code
    # that finds the stamped places (NaN) and walks only them through the passes leaves these behind, which
    # a quick look reads as passes out of order; none where the input is made in one pass (no stages)
    drawn_too = np.array([place for lo, hi in parts for place in _places(lo, hi)], dtype=np.int64)
    table = stages(got, np.concatenate([where, drawn_too]), **inputs) if stages is not None else None
    shadows = None if table is None else drawn_too
    got.clear()
    return Witness(
        out,
        where,
        np.asarray(expected, dtype=np.float64),
        np.asarray(tolerance, dtype=np.float64),
        avoid,
        labels,
        stages=None if table is None else np.asarray(table, dtype=np.float64),
        shadows=shadows,
    )
