"""Which rounds of a measurement are evidence against the student: those the machine's load could not bend.

Every round of a measuring check is two spans, the student's call and perfcore's measurement, each read by
:mod:`grader.sandbox.load` (what else ran on the measured core, the steal, the other cores). A verdict of
"wrong" that a figure's distance from perfcore's, its scatter or a curve's shape would give is taken only
from rounds in which the measured core ran nothing else, for both sides (*clean*); where other cores were
busy too, a ratio must lie beyond the band widened by :data:`~grader.sandbox.load.CONTENTION_FACTOR`. With
fewer than :data:`EVIDENCE_ROUNDS` such rounds the check is deferred, with the numbers of the load: the
machine's doing, never the student's. A pass needs no such care: load does not make a wrong method agree
with perfcore's.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ...compare import ratios
from ...results.measured import Load
from ...results.outcome import State
from ...sandbox import cputime, load
from ...text.catalogue import render
from ..verdicts import Verdict
from .protocol import JudgeSide

#: Clean rounds a verdict against the student needs (a median and its interval need three).
EVIDENCE_ROUNDS = 3
#: What a decision can be besides ratios.INSIDE, OUTSIDE and STRADDLES: too few clean rounds to say.
BUSY = "busy"


@dataclass
class Loads:
    """The load of each round taken, in the order taken: (the student's span, perfcore's span)."""

    rounds: list[tuple[load.Span, load.Span]] = field(default_factory=list)
    #: Per round: read on the judge's CPU clock, both sides, the student's call covered by it
    #: (:mod:`.cpuclock`); such a round's spans count without others' share of the core.
    on_cpu: list[bool] = field(default_factory=list)

    def add(self, student: load.Span, reference: load.Span, on_cpu: bool = False) -> None:
        self.rounds.append((student, reference))
        self.on_cpu.append(on_cpu)

    def counted(self, i: int) -> tuple[load.Span, load.Span]:
        """Round ``i``'s spans as its clock counts them: others' slices of the core left out where it was
        read on the CPU clock (:meth:`grader.sandbox.load.Span.on_cpu_clock`)."""
        s, r = self.rounds[i]
        return (s.on_cpu_clock(), r.on_cpu_clock()) if self.on_cpu[i] else (s, r)

    def clean(self) -> list[int]:
        """The rounds in which nothing else ran on the measured core, either side, as each round's clock
        counts it (:meth:`counted`): each span clean, and each side's spans of those rounds clean pooled
        (:func:`grader.sandbox.load.pooled_clean`: short spans, each within a reading's ticks, may together
        show a shared core), the wall clock's rounds and the CPU clock's pooled apart (others' share, which
        voids the former together, does not bend the latter); none of a clock's where they are not."""
        counted = [self.counted(i) for i in range(len(self.rounds))]
        candidates = [i for i, (s, r) in enumerate(counted) if s.clean and r.clean]
        kept: list[int] = []
        for on_cpu in (False, True):
            rounds = [i for i in candidates if self.on_cpu[i] == on_cpu]
            if all(load.pooled_clean([counted[i][side] for i in rounds]) for side in (0, 1)):
                kept.extend(rounds)
        return sorted(kept)

    def core_shared(self) -> bool:
        """Whether these rounds found the measured core shared with others: the last round's span on either
        side not clean for their share (not steal's), or either side's spans so far not clean pooled (short
        spans, each clean within its ticks, that together show a shared core)."""
        if not self.rounds:
            return False
        if any(s.known and not s.clean and s.others > s.steal for s in self.rounds[-1]):
            return True
        # others' share alone: a hypervisor's steal is no one's the CPU clock leaves out
        sides = [[replace(pair[side], steal=0.0) for pair in self.rounds] for side in (0, 1)]
        return not all(load.pooled_clean(spans) for spans in sides)

    def quiet(self) -> list[int]:
        """The clean rounds in which the other cores were calm too."""
        return [i for i in self.clean() if all(s.calm for s in self.rounds[i])]

    def hopeless(self, more: int) -> bool:
        """Whether the rounds so far show that this check cannot now get the clean rounds a verdict against
        the student needs, even with ``more`` rounds added: none clean among the first
        :data:`EVIDENCE_ROUNDS`, or so few that the rounds left, at the rate so far, would not make up
        :data:`EVIDENCE_ROUNDS`. Then a check defers at once rather than spending its time budget on rounds
        the load will discard (issue 38: deferral is cheap)."""
        done = len(self.rounds)
        clean = len(self.clean())
        if done < EVIDENCE_ROUNDS or clean >= EVIDENCE_ROUNDS:
            return False
        return clean + max(0, more) * clean / done < EVIDENCE_ROUNDS

    @property
    def all_quiet(self) -> bool:
        return bool(self.rounds) and len(self.quiet()) == len(self.rounds)

    def reason(self, lang: str) -> str:
        """Why these rounds are no evidence: how busy the measured core and the other cores were. Where
        enough rounds were clean for a verdict, what stood in the way was the other cores (their contention
        for the caches and memory), and the reason says that; otherwise how much of the measured core others
        took in the rounds that were not clean (a median over every round, most of them clean, read as "2%
        of it": a reason that named no reason)."""
        spans = [s for pair in self.rounds for s in pair if s.known]
        unclean = [s for s in spans if not s.clean] or spans
        share = statistics.median(s.others_share for s in unclean) if unclean else 0.0
        elsewhere = statistics.median(s.elsewhere for s in spans) if spans else 0.0
        clean = len(self.clean())
        return render(
            "machine_busy_elsewhere"
            if clean == len(self.rounds) or clean >= EVIDENCE_ROUNDS
            else "machine_busy",
            lang,
            clean=clean,
            rounds=len(self.rounds),
            share=f"{share:.0%}",
            elsewhere=f"{elsewhere:.1f}",
            load=_loadavg(),
        )

    def load(self) -> Load:
        """The typed record of these rounds for the outcome (:class:`~grader.results.measured.Load`): how many
        were clean and quiet, and the load of the busiest span (never through a dictionary: a renamed field
        fails the type check)."""
        spans = [s for pair in self.rounds for s in pair if s.known]
        return Load(
            rounds=len(self.rounds),
            clean=len(self.clean()),
            quiet=len(self.quiet()),
            others_share=round(max((s.others_share for s in spans), default=0.0), 3),
            elsewhere=round(max((s.elsewhere for s in spans), default=0.0), 2),
            on_cpu=sum(self.on_cpu),
        )


class Watch:
    """Reads the load of the spans of one check's measurement on ``core`` (None: not pinned) through
    ``judge`` (:meth:`~grader.judge.runners.protocol.JudgeSide.load_span`): each side's latest span, which
    :meth:`round` pairs into the check's :class:`Loads`."""

    def __init__(self, judge: JudgeSide, core: set[int] | None) -> None:
        self.judge = judge
        self.core = core
        self.student = load.UNKNOWN
        self.reference = load.UNKNOWN

    def begin(self) -> load.MachineTicks:
        return load.reading()

    def end(self, before: load.MachineTicks, ours_s: float | None) -> load.Span:
        return self.judge.load_span(before, self.core, ours_s)

    def round(self, loads: Loads, on_cpu: bool = False) -> None:
        loads.add(self.student, self.reference, on_cpu)


def _loadavg() -> str:
    value = load.loadavg()
    return "?" if value is None else f"{value:.1f}"


def pick(values: Sequence[float], rounds: Sequence[int]) -> list[float]:
    return [values[i] for i in rounds]


def decide(
    mine: Sequence[float], ref: Sequence[float], loads: Loads, band: tuple[float, float]
) -> tuple[str, ratios.Interval]:
    """Where the paired ratios lie: INSIDE on every round taken; otherwise as the clean rounds say, OUTSIDE
    (of the band, or of the widened band where other cores were busy) only on their evidence; BUSY with
    too few clean rounds, or where only the contention of busy cores could explain the distance."""
    everything = ratios.median_interval(ratios.paired_ratios(mine, ref))
    if ratios.place(everything, band) == ratios.INSIDE:
        return ratios.INSIDE, everything
    clean = loads.clean()
    if len(clean) < EVIDENCE_ROUNDS:
        return BUSY, everything
    interval = ratios.median_interval(ratios.paired_ratios(pick(mine, clean), pick(ref, clean)))
    where = ratios.place(interval, band)
    if where == ratios.OUTSIDE and len(loads.quiet()) < len(clean):
        low, high = band
        wide = (low / load.CONTENTION_FACTOR, high * load.CONTENTION_FACTOR)
        if ratios.place(interval, wide) != ratios.OUTSIDE:
            return BUSY, interval
    return where, interval


def scatter_spreads(mine: Sequence[float], ref: Sequence[float], loads: Loads) -> tuple[float, float] | None:
    """Each side's round-to-round spread over the quiet rounds only, where there are enough of them to
    blame a scatter on the student's method; None where there are not (the scatter may be the machine's)."""
    quiet = loads.quiet()
    if len(quiet) < EVIDENCE_ROUNDS:
        return None
    return ratios.spread(pick(mine, quiet)), ratios.spread(pick(ref, quiet))


def busy_verdict(loads: Loads, lang: str) -> Verdict:
    """Deferred: the machine was too busy for these rounds to be evidence either way."""
    return Verdict(State.SKIPPED, loads.reason(lang), deferred=True)


def timed_out(func: str, span: load.Span, used: cputime.Used | None, limit: float, lang: str) -> None:
    """A student's call that ran past its limit while other processes took a fair share of the measured core
    (:data:`BUSY_TIMEOUT_SHARE`) is deferred: the machine's doing. Otherwise the timeout stands."""
    if span.known and span.others_share >= BUSY_TIMEOUT_SHARE:
        cpu = "?" if used is None else f"{used.seconds:.3g}"
        message = render(
            "machine_busy_timeout",
            lang,
            func=func,
            limit=f"{limit:.3g}",
            share=f"{span.others_share:.0%}",
            cpu=cpu,
        )
        raise Verdict(State.SKIPPED, message, deferred=True)


#: A call past its limit is the machine's doing where other processes took at least this share of the core.
BUSY_TIMEOUT_SHARE = 0.25
