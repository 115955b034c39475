"""The one fake judge of the runners' tests: :class:`FakeJudgeSide`, the judge as a runner sees it
(:class:`grader.judge.runners.protocol.JudgeSide`), every answer set by the test, no worker and no
perfcore process behind it. A test gives it the student's function and perfcore's figures, or subclasses it
where one answer depends on the call. That it is a ``JudgeSide`` is checked by mypy (this module, the tests
that use it and ``tests/grader/judge/test_fakes.py`` are among pyproject's mypy files) and at run time by that
test, so a runner's test cannot drift from what a runner may ask."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from grader.judge.prepare import Prepared
from grader.judge.verdicts import Verdict
from grader.results.outcome import State
from grader.sandbox import cputime, load, messages
from grader.sandbox.shared import Buffers
from perfcore.measure.core import Bounds
from tests.grader.judge.runners.clocks import read_around


def no_student(timeout_s: float) -> messages.Returned:
    raise AssertionError("this fake judge was given no student's function to call")


def no_cpu_used(path: str, before: cputime.TreeCpu | None) -> cputime.Used | None:
    """No CPU time read: as on a kernel that gives no reading, every CPU-time rule is skipped."""
    return None


@dataclass(frozen=True)
class FakeCall:
    """One call of the student's function as the runner handed it to the judge: every argument of
    :meth:`grader.judge.runners.protocol.JudgeSide.call` but the prepared check and the path."""

    args: tuple
    kwargs: Mapping[str, Any]
    timeout_s: float
    threads: int | None = None
    readings: bool = False
    buffers: Buffers | None = None
    on_cpu: bool = False


@dataclass
class FakeJudgeSide:
    """A :class:`~grader.judge.runners.protocol.JudgeSide` whose answers are its fields.

    ``student``: the worker's reply to one call of the student's function, given the call's time limit; or
    ``student_at``, where the reply depends on the call's input, given the input and the limit. A reply that
    carries no clock readings gets a ``perf_counter`` read around it, as an honest call is timed
    (:func:`tests.grader.judge.runners.clocks.read_around`). ``reference``: perfcore's figure at any input,
    and its value (``curve``, where given: a curve check's reference); ``also``: perfcore's other honest
    library's figure (``also_curve``: its curve); ``fails``: what perfcore's side raises instead of any of them (a reference process out
    of GPU memory, or one that ended). ``used``: the worker's CPU time during a call (none read, by default).
    ``machine``: the bounds of :meth:`bounds` (a test whose runner asks for them gives them). ``spans``:
    the machine's load over each span the runner reads, in turn (:func:`spans`); by default this
    machine's own, as the judge reads it.
    ``student_given``: where given, the reply to the whole call (a :class:`FakeCall`: the buffers, readings
    and threads the runner asked for among it); ``calls``: every call the runner made, as it made it."""

    lang: str = "en"
    max_noise: float = 0.1
    student: Callable[[float], messages.Returned] = no_student
    student_at: Callable[[Mapping[str, Any], float], messages.Returned] | None = None
    reference: float = 1.0
    curve: Any = None
    also: float | None = None
    also_curve: Any = None
    fails: Exception | None = None
    used: Callable[[str, cputime.TreeCpu | None], cputime.Used | None] = no_cpu_used
    machine: Bounds | None = None
    student_given: Callable[[FakeCall], messages.Returned] | None = None
    spans: Callable[[], load.Span] | None = None
    calls: list[FakeCall] = field(default_factory=list)

    def call(
        self,
        p: Prepared,
        path: str,
        args: tuple,
        kwargs: Mapping[str, Any],
        timeout_s: float,
        *,
        threads: int | None = None,
        readings: bool = False,
        buffers: Buffers | None = None,
        on_cpu: bool = False,
    ) -> messages.Returned:
        """:attr:`student`'s reply (:attr:`student_at`'s at ``kwargs``, :attr:`student_given`'s for the whole
        call, where given), read around by the clock. Everything the runner handed (the threads, the clock
        readings asked for, the buffers, the CPU clock) is recorded in :attr:`calls`, in order, and handed to
        :attr:`student_given`: a runner's test sees what reached the judge."""
        given = FakeCall(tuple(args), kwargs, timeout_s, threads, readings, buffers, on_cpu)
        self.calls.append(given)
        at, whole = self.student_at, self.student_given

        def answer() -> messages.Returned:
            if whole is not None:
                return whole(given)
            return at(kwargs, timeout_s) if at is not None else self.student(timeout_s)

        reply: messages.Returned = read_around(answer)
        return reply

    def call_many(
        self, p: Prepared, path: str, kwargs_list: list[dict[str, Any]], timeout_s: float
    ) -> list[Any]:
        return [self.call(p, path, (), kwargs, timeout_s) for kwargs in kwargs_list]

    def failure(self, failure: messages.WorkerFailure, step: str) -> Verdict:
        return Verdict(State.ERROR, f"the worker failed during {step}: {failure.kind} {failure.detail}")

    def raised(self, p: Prepared, raised: messages.Raised, inputs: str | None = None) -> Verdict:
        return Verdict(State.ERROR, f"{p.check.func} raised: {raised.trace}")

    def cpu_reading(self, path: str) -> cputime.TreeCpu | None:
        return None

    def cpu_since(self, path: str, before: cputime.TreeCpu | None) -> cputime.Used | None:
        return self.used(path, before)

    def reference_cpu_reading(self) -> cputime.TreeCpu | None:
        return None

    def pin(self, path: str, cpus: set[int]) -> None:
        """Nothing to pin: no worker, no reference process."""

    def measure_reference(
        self, p: Prepared, kwargs: Mapping[str, Any], also: bool = False, on_cpu: bool = False
    ) -> float:
        if self.fails is not None:
            raise self.fails
        if not also:
            return self.reference
        if self.also is None:
            raise AssertionError("this fake judge was given no figure of perfcore's other library")
        return self.also

    def reference_value(
        self, p: Prepared, kwargs: Mapping[str, Any], on_cpu: bool = False, also: bool = False
    ) -> Any:
        if self.fails is not None:
            raise self.fails
        if also:
            if self.also_curve is None:
                raise AssertionError("this fake judge was given no curve of perfcore's other library")
            return self.also_curve
        return self.reference if self.curve is None else self.curve

    def bounds(self) -> Bounds:
        if self.machine is None:
            raise AssertionError("this fake judge was given no machine's bounds")
        return self.machine

    def load_span(self, before: load.MachineTicks, core: set[int] | None, ours_s: float | None) -> load.Span:
        if self.spans is None:
            return load.span(before, load.reading(), core, ours_s)
        return self.spans()


def spans(*read: load.Span) -> Callable[[], load.Span]:
    """The machine's load over each span a runner reads, ``read`` in turn, over and over (a fake judge's
    ``spans``): one span for every span, or the student's and perfcore's as the sides take turns, A B A B."""
    turns = itertools.cycle(read)
    return lambda: next(turns)
