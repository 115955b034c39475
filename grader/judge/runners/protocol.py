"""What a runner may ask of the judge, and what it gives back.

A runner grades one kind of check (:mod:`grader.judge.runners`): it calls the student's function through
the judge, compares, and either returns (passed) or raises a :class:`~grader.judge.verdicts.Verdict`. It
reaches the worker and the reference process only through :class:`JudgeSide`, never through the judge's
private state; what it measured it returns (or attaches to the verdict it raises), for the reports' plots.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from perfcore.measure.core import Bounds

from ...results.measured import Measured
from ...sandbox import cputime, load, messages
from ...sandbox.shared import Buffers
from ..prepare import Prepared
from ..verdicts import Verdict


class JudgeSide(Protocol):
    """The judge as a runner sees it: the language, the noise it tolerates, the student's calls, the CPU
    time and the core of the student's worker, the trusted reference side of a measurement, and the
    machine's load while one runs."""

    lang: str
    max_noise: float

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
        """The student's function called once (on ``threads`` threads where given, its clock ``readings``
        asked for, ``on_cpu``: read on the judge's CPU clock, handed ``buffers`` where given); raises the
        check's verdict for anything but a return."""
        ...

    def call_many(
        self, p: Prepared, path: str, kwargs_list: list[dict[str, Any]], timeout_s: float
    ) -> list[Any]:
        """The student's function called on each of ``kwargs_list`` in one request: its replies in order."""
        ...

    def failure(self, failure: messages.WorkerFailure, step: str) -> Verdict:
        """The verdict for a worker that failed during ``step``."""
        ...

    def raised(self, p: Prepared, raised: messages.Raised, inputs: str | None = None) -> Verdict:
        """The verdict for a student's function that raised."""
        ...

    def cpu_reading(self, path: str) -> cputime.TreeCpu | None:
        """The CPU time of the worker that grades ``path``, now (None: no reading)."""
        ...

    def cpu_since(self, path: str, before: cputime.TreeCpu | None) -> cputime.Used | None:
        """The CPU time that worker used since ``before``."""
        ...

    def reference_cpu_reading(self) -> cputime.TreeCpu | None:
        """The CPU time of the reference process now (None: no reading)."""
        ...

    def pin(self, path: str, cpus: set[int]) -> None:
        """Put the worker that grades ``path`` and the reference process on ``cpus``."""
        ...

    def measure_reference(
        self, p: Prepared, kwargs: Mapping[str, Any], also: bool = False, on_cpu: bool = False
    ) -> float:
        """perfcore's figure for ``p``'s check at ``kwargs``, from the reference process (``also``: its
        other honest library's figure; ``on_cpu``: timed in its thread's CPU time)."""
        ...

    def reference_value(
        self, p: Prepared, kwargs: Mapping[str, Any], on_cpu: bool = False, also: bool = False
    ) -> Any:
        """perfcore's value (a curve, one number) for ``p``'s check at ``kwargs`` (``on_cpu``: timed in
        its thread's CPU time; ``also``: its other honest library's curve)."""
        ...

    def bounds(self) -> Bounds:
        """This machine's bounds (:func:`perfcore.measure.make_bounds`), with its profile's ceilings."""
        ...

    def load_span(self, before: load.MachineTicks, core: set[int] | None, ours_s: float | None) -> load.Span:
        """The machine's load from ``before`` to now on the measured ``core``, ``ours_s`` the CPU seconds our
        own process used meanwhile (:func:`grader.sandbox.load.span`)."""
        ...


class Runner(Protocol):
    """Grades one prepared check of one kind on the student's file at ``path``."""

    def __call__(self, judge: JudgeSide, p: Prepared, path: str) -> Measured | None:
        """What the check measured, round by round, for the reports to draw (None: it measured nothing)."""
        ...
