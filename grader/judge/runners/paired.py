"""A check's paired rounds: the student's call and perfcore's, alternately (A B), input after input.

A measurement (:mod:`.measurement`: a figure against a band) and a curve (:mod:`.curve`: a curve's points
and shape, or a custom test of one value) are measured alike, and this module is what they share. One
:class:`PairedRounds` per check holds the student's clock (:class:`~.rounds.StudentClock`: the check's time
limit, counted in the student's own calls), the watch on the load of each span (:class:`~.busy.Watch`), the
record the reports draw (:class:`~grader.results.measured.Measured`, attached to any verdict the rounds end
in) and, per input, the rounds taken there (:class:`Series`). Its methods are the student's call (with a
measurement's handed buffers, and the clock readings asked for on the CPU), perfcore's call (one rule for
every check: a reference out of GPU memory defers it, any other failure is the grader's), one round, the
rounds added two at a time while the check is undecided (:class:`~.rounds.Budget`), and a probe's extra
rounds. What the rounds' values mean, and so what they decide, is the subclass's: :meth:`PairedRounds.decide`.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from ...results.measured import Measured
from ...results.outcome import State
from ...sandbox import cputime, messages
from ...sandbox.clocks import Readings
from ...sandbox.shared import Buffers
from ...specs.check import MeasurementCheck, ShapeCheck, Work
from ...text.catalogue import render
from ..prepare import Prepared
from ..reference import ReferenceShortage
from ..verdicts import GraderError, Verdict
from . import busy, cpuclock
from .buffers import call_buffers
from .cores import pin_pair
from .honesty import Call
from .protocol import JudgeSide
from .readings import Witnessed
from .rounds import PROBE_EXTRA_ROUNDS, Budget, StudentClock


class Decision(Protocol):
    """What the rounds at one input say so far, as the loops that add rounds read it."""

    @property
    def more(self) -> bool:
        """Worth more rounds: not decided yet, or too busy to decide."""
        ...

    @property
    def busy(self) -> bool:
        """A verdict against the student would come only from rounds the machine's load could bend."""
        ...


D = TypeVar("D", bound=Decision)
T = TypeVar("T")


@dataclass(eq=False)
class Series:
    """The rounds taken at one input, in the order taken: the student's values, perfcore's, the other honest
    library's (a measurement's ``also``, from the round it was first needed on) and each round's load.
    ``work``: the least work a call there must do (a measurement's, worked out once); ``probe``: an input
    the student has not seen; ``record``: the record whose load these rounds are (the graded input's)."""

    kwargs: Mapping[str, Any]
    work: Work | None = None
    probe: bool = False
    mine: list[Any] = field(default_factory=list)
    ref: list[Any] = field(default_factory=list)
    others: list[Any] = field(default_factory=list)
    loads: busy.Loads = field(default_factory=busy.Loads)
    record: Measured | None = None


class PairedRounds(ABC, Generic[D]):
    """The paired rounds of ``p``'s measuring check on the student's file at ``path`` (see the module)."""

    #: What perfcore's side gives, as the grader's error names it where it fails.
    gives = "measurement"

    def __init__(self, judge: JudgeSide, p: Prepared, path: str) -> None:
        check = p.check
        assert isinstance(check, (MeasurementCheck, ShapeCheck))
        self.judge, self.p, self.path, self.lang = judge, p, path, judge.lang
        self.check: MeasurementCheck | ShapeCheck = check
        self.device = "cuda" if check.requires.cuda else "mps" if check.requires.mps else "cpu"
        self.threads = 1 if check.single_thread else None
        self.clock = StudentClock(check.timeout_s)
        self.watch = busy.Watch(judge, None)
        # the calls ask for their clock readings (on the CPU: a GPU's events are a clock the grader cannot see;
        # and where there is perfcore's side to follow: a curve without one is tested for its shape alone)
        self.reads_clocks = self.device == "cpu" and check.reference is not None
        self.seen: Witnessed | None = None  # the last call's window and readings, where they are asked for
        # the judge's CPU clock (.cpuclock): a round in CPU time where the core is shared, for one thread's work
        self.cpu_clock = self.reads_clocks and check.single_thread and cpuclock.available()
        self.on_cpu = False  # the round in progress is read on it
        self.covered = False  # the student's last call could only have read it (where the clock may be read)
        self.record: Measured | None = None  # once the rounds start: the reports draw every round taken

    @abstractmethod
    def grade(self) -> None:
        """Take the check's rounds and raise its verdict; return where it passed."""

    @abstractmethod
    def student(self, series: Series) -> Any:
        """The student's value at ``series``'s input, after the call shows it measured."""

    @abstractmethod
    def perfcore(self, kwargs: Mapping[str, Any]) -> Any:
        """perfcore's value at ``kwargs``, as the judge's reference process gives it."""

    @abstractmethod
    def decide(self, series: Series) -> D:
        """What ``series``'s rounds say so far."""

    def run(self) -> Measured | None:
        """Grade the check; returns (or attaches to its verdict) every round it measured."""
        try:
            self.grade()
        except (Verdict, GraderError) as exc:
            exc.measured = self.record
            raise
        return self.record

    def pin(self) -> None:
        """Both sides on the least busy core, whose spans the watch reads."""
        self.watch.core = pin_pair(self.judge, self.path)

    def start(self, record: Measured, series: Series) -> Measured:
        """``record`` as the check's, from now on, its load that of ``series``'s rounds."""
        self.record = series.record = record
        return record

    def called(self, kwargs: Mapping[str, Any]) -> tuple[messages.Returned, float, cputime.Used | None]:
        """The student's function called once at ``kwargs`` (:meth:`timed_call`). A call the CPU clock would
        not cover (:func:`.cpuclock.covered`: its work in other threads, a wall clock the worker does not
        switch; read on either clock) leaves the rest of the check on the wall clock: the method is not the
        CPU clock's to read. Where that call was on the CPU clock, its figure is of no clock the student
        chose, and the call is taken again on the wall clock, so that no rule and no bound ever reads it."""
        reply = self.called_once(kwargs)
        if self.cpu_clock and not self.covered:
            again, self.cpu_clock, self.on_cpu = self.on_cpu, False, False
            if again:
                reply = self.called_once(kwargs)
        return reply

    def called_once(self, kwargs: Mapping[str, Any]) -> tuple[messages.Returned, float, cputime.Used | None]:
        """The student's function called once at ``kwargs`` (:meth:`timed_call`). A call of a check with
        ``handed`` (a measurement's, a curve's) is handed the judge's buffers (:mod:`.buffers`: its arguments
        then), its output watched while it runs (:mod:`.witness`: the runs it finishes, in :attr:`seen`), read
        back before any figure counts."""
        with call_buffers(self.check, kwargs) as buffers:
            watching = buffers.witness(self.watch.core) if self.reads_clocks else None
            try:
                reply = self.timed_call(buffers.kwargs, buffers.sent)
            finally:  # stopped before the outputs are read: it puts back what it stamped over
                crossings = watching.stop() if watching is not None else None
            if self.seen is not None:
                self.seen.crossings = crossings
            buffers.verdict(self.lang)
        return reply

    def timed_call(
        self, arguments: Mapping[str, Any], sent: Buffers | None
    ) -> tuple[messages.Returned, float, cputime.Used | None]:
        """The student's function called once with ``arguments`` (and the buffers ``sent`` beside them) within what
        the clock leaves it, timed from outside: its reply, its seconds and the CPU its tree used, the span's
        load kept in the watch, and (where :attr:`reads_clocks`) the call's clock readings with its window
        on the judge's clock in :attr:`seen` (``time.perf_counter`` before the request and after the reply:
        on Linux the clock the worker's ``perf_counter`` reads too). A call past its limit while others held
        the measured core is deferred (:func:`~.busy.timed_out`)."""
        judge, p, path, watch = self.judge, self.p, self.path, self.watch
        remaining = self.clock.remaining(p, watch, self.lang)
        self.covered = False
        cpu_before = judge.cpu_reading(path)
        before = watch.begin()
        self.seen = None
        start = time.perf_counter()
        try:
            reply = judge.call(
                p,
                path,
                (),
                arguments,
                remaining,
                threads=self.threads,
                readings=self.reads_clocks,
                buffers=sent,
                on_cpu=self.on_cpu,
            )
        except Verdict as verdict:  # past its limit: the student's only where the machine left it the core
            self.clock.spend(time.perf_counter() - start)
            if verdict.state == State.TIMEOUT:
                used = judge.cpu_since(path, cpu_before)
                watch.student = watch.end(before, used.seconds if used else None)
                busy.timed_out(p.check.func, watch.student, used, remaining, self.lang)
            raise
        end = time.perf_counter()
        if self.reads_clocks:  # the worker always sends a record where asked: None is one the call changed
            readings = Readings.parse(reply.readings)
            self.seen = Witnessed((start, end), readings, unreadable=readings is None)
        took = self.clock.spend(end - start)
        cpu = judge.cpu_since(path, cpu_before)
        watch.student = watch.end(before, cpu.seconds if cpu else None)
        if self.cpu_clock and self.seen is not None:
            self.covered = cpuclock.covered(
                self.seen.readings, cpu.seconds if cpu else None, cpu.resolution if cpu else 0.0
            )
        return reply, took, cpu

    def call_of(
        self,
        kwargs: Mapping[str, Any],
        took: float,
        cpu: cputime.Used | None,
        work: Work | None,
        seconds: float | None = None,
        rate: float | None = None,
        points: tuple[float, ...] | None = None,
    ) -> Call:
        """The call just made, as the honesty rules read it (:class:`~.honesty.Call`), with its window and
        clock readings (:attr:`seen`); ``points``: a curve's claims, point by point."""
        return Call(
            kwargs,
            took,
            cpu,
            work=work,
            seconds=seconds,
            rate=rate,
            on_cpu=self.device == "cpu",
            single_thread=self.check.single_thread,
            others_share=self.watch.student.others_share,
            seen=self.seen,
            cpu_clock=self.on_cpu,
            quiet=self.watch.student.quiet,
            curve=isinstance(self.check, ShapeCheck),
            points=points,
        )

    def asked(self, ask: Callable[[Mapping[str, Any]], T], kwargs: Mapping[str, Any]) -> T:
        """``ask(kwargs)`` of perfcore's side, held to its one rule: out of the GPU's memory (the machine
        cannot hold both sides now, not a grader bug) the check is deferred with the reason; any other
        failure is the grader's."""
        try:
            return ask(kwargs)
        except ReferenceShortage as exc:
            raise Verdict(
                State.SKIPPED, render("ref_gpu_memory", self.lang, error=exc), deferred=True
            ) from None
        except RuntimeError as exc:
            raise GraderError(f"the reference {self.gives} failed: {exc}") from exc

    def reference(self, kwargs: Mapping[str, Any]) -> Any:
        """perfcore's value at ``kwargs`` (always at the judge's input: the reference process never works out
        the sizes itself), the span's load kept in the watch."""
        before_cpu = self.judge.reference_cpu_reading()
        before = self.watch.begin()
        value = self.asked(self.perfcore, kwargs)
        used = cputime.used(before_cpu, self.judge.reference_cpu_reading())
        self.watch.reference = self.watch.end(before, used.seconds if used else None)
        return value

    def other(self, kwargs: Mapping[str, Any]) -> Any:
        """perfcore's figure at ``kwargs`` with the other honest library (a measurement's ``also``; a curve
        check's runner gives the curve)."""
        return self.asked(
            lambda at: self.judge.measure_reference(self.p, at, also=True, on_cpu=self.on_cpu), kwargs
        )

    def round(self, series: Series) -> None:
        """One round, A B (both see the same drift of the machine): the student's call, perfcore's, the other
        library's where it is measured; the record's load then that of every round so far. On the judge's
        CPU clock, both sides, where the rounds so far found the core shared (:mod:`.cpuclock`)."""
        self.on_cpu = self.cpu_clock and series.loads.core_shared()
        try:
            series.mine.append(self.student(series))
            series.ref.append(self.reference(series.kwargs))
            self.watch.round(series.loads, self.on_cpu and self.covered)
            if series.others:  # measured from the first round it was needed on
                series.others.append(self.other(series.kwargs))
        finally:
            self.on_cpu = False
        if series.record is not None:
            series.record.load = series.loads.load()

    def rounds(self, series: Series, count: int) -> None:
        for _ in range(count):
            self.round(series)

    def settle(self, series: Series, budget: Budget, decision: D) -> D:
        """Rounds added two at a time while ``decision`` wants more, the budget allows them and the student's
        clock has time for them; none once the load will discard what they would give (deferred now, not
        at the budget's end). The last decision."""
        while decision.more and budget.more(len(series.mine)) and self.clock.more():
            if decision.busy and series.loads.hopeless(budget.rounds_left(len(series.mine))):
                break
            self.round(series)
            self.round(series)
            decision = self.decide(series)
        return decision

    def settle_probe(self, series: Series, decision: D) -> D:
        """A probe's extra rounds, one at a time, up to :data:`~.rounds.PROBE_EXTRA_ROUNDS` while ``decision``
        wants more (busy rounds are no evidence, and an interval across an edge decides nothing), none once
        the load will discard what the rounds left would give. The last decision."""
        for extra in range(PROBE_EXTRA_ROUNDS):
            if not decision.more:
                break
            if decision.busy and series.loads.hopeless(PROBE_EXTRA_ROUNDS - extra):
                break
            self.round(series)
            decision = self.decide(series)
        return decision
