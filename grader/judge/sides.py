"""What a runner is handed: the judge's two sides composed behind the runners'
:class:`~grader.judge.runners.protocol.JudgeSide` protocol. The student's side
(:class:`~grader.judge.student.StudentSide`: the calls, the worker's CPU time, its failures) and perfcore's
(:class:`~grader.judge.reference_side.ReferenceSide`: the reference's figures and values, the machine's
bounds) each answer their own questions; :meth:`Sides.pin` asks both. The
:class:`~grader.judge.core.Judge` builds one and hands it to every runner, so a runner's questions go to
the side that answers them, never back into the judge that runs the check.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from perfcore.measure.core import Bounds

from ..sandbox import cputime, load, messages
from ..sandbox.shared import Buffers
from .prepare import Prepared
from .reference_side import ReferenceSide
from .runners.protocol import JudgeSide
from .student import StudentSide
from .verdicts import Verdict


class Sides:
    """The student's side and perfcore's, as a :class:`JudgeSide` in the judge's language ``lang`` with the
    noise it tolerates ``max_noise``: the student's questions first, then perfcore's."""

    def __init__(
        self, student: StudentSide, reference_side: ReferenceSide, lang: str, max_noise: float
    ) -> None:
        self.student = student
        self.reference_side = reference_side
        self.lang = lang
        self.max_noise = max_noise

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
        """See :meth:`StudentSide.call`."""
        return self.student.call(
            p,
            path,
            args,
            kwargs,
            timeout_s,
            threads=threads,
            readings=readings,
            buffers=buffers,
            on_cpu=on_cpu,
        )

    def call_many(
        self, p: Prepared, path: str, kwargs_list: list[dict[str, Any]], timeout_s: float
    ) -> list[Any]:
        """See :meth:`StudentSide.call_many`."""
        return self.student.call_many(p, path, kwargs_list, timeout_s)

    def failure(self, failure: messages.WorkerFailure, step: str) -> Verdict:
        return self.student.failure(failure, step)

    def raised(self, p: Prepared, raised: messages.Raised, inputs: str | None = None) -> Verdict:
        return self.student.raised(p, raised, inputs)

    def cpu_reading(self, path: str) -> cputime.TreeCpu | None:
        return self.student.cpu_reading(path)

    def cpu_since(self, path: str, before: cputime.TreeCpu | None) -> cputime.Used | None:
        return self.student.cpu_since(path, before)

    def pin(self, path: str, cpus: set[int]) -> None:
        """Put the worker grading ``path`` and the reference process on ``cpus`` where the OS allows (the
        reference when it is asked for its first figure: :meth:`ReferenceSide.pin`)."""
        self.student.pin(path, cpus)
        self.reference_side.pin(cpus)

    def reference_cpu_reading(self) -> cputime.TreeCpu | None:
        return self.reference_side.cpu_reading()

    def measure_reference(
        self, p: Prepared, kwargs: Mapping[str, Any], also: bool = False, on_cpu: bool = False
    ) -> float:
        """See :meth:`ReferenceSide.measure`."""
        return self.reference_side.measure(p, kwargs, also, on_cpu)

    def reference_value(
        self, p: Prepared, kwargs: Mapping[str, Any], on_cpu: bool = False, also: bool = False
    ) -> Any:
        """See :meth:`ReferenceSide.value`."""
        return self.reference_side.value(p, kwargs, on_cpu, also)

    def bounds(self) -> Bounds:
        return self.reference_side.bounds()

    def load_span(self, before: load.MachineTicks, core: set[int] | None, ours_s: float | None) -> load.Span:
        """The machine's, read now (:func:`grader.sandbox.load.span`): neither side's, both are measured in it."""
        return load.span(before, load.reading(), core, ours_s)


def _judge_side(sides: Sides) -> JudgeSide:
    """Never called: mypy (run by tests/kit/test_static.py) checks here that a :class:`Sides` is what every
    runner is given, a :class:`JudgeSide`; a method missing, or one whose signature or return type differs
    from the protocol's, fails the type check."""
    return sides
