"""perfcore's side of the judge: the reference process it asks, and the student's trees stopped meanwhile.

:class:`ReferenceSide` owns the judge's :class:`~grader.judge.reference.ReferenceProcess` (made on first
use, started early where a check will measure, pinned to the core its measurement's worker was pinned to
when asked its first figure), perfcore's figures and values for a check (:meth:`ReferenceSide.measure`,
:meth:`ReferenceSide.value`), each taken with every worker's process tree stopped and read from the kernel
to have stayed stopped, and this machine's bounds.

It is handed the student's workers (:class:`~grader.judge.student.StudentSide`'s dictionary, shared, not
copied) only to stop them and read their CPU time; it never asks them anything.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from perfcore.measure import make_bounds
from perfcore.measure.core import Bounds

from ..results.outcome import State
from ..sandbox import cputime, scheduling
from ..sandbox.process import WorkerProcess
from ..specs.ceilings import evidence_profile
from ..text.catalogue import render
from .prepare import Prepared, measures
from .reference import ReferenceProcess
from .verdicts import Verdict

#: CPU seconds a student's stopped tree may show while perfcore measures (the readings' own margin), and
#: how many measurements in a row may be voided by more before the check is wrong.
TREE_RAN_S = 0.005
TREE_RAN_TRIES = 3


class ReferenceSide:
    """perfcore's reference process for one judge, and the student's ``workers`` stopped while it measures.

    ``progress`` is told each of perfcore's figures (True where it begins a round)."""

    def __init__(
        self,
        lang: str,
        *,
        extra_checks: tuple[str, ...],
        python: str,
        workers: dict[str, WorkerProcess],
        progress: Callable[[bool], None],
    ) -> None:
        self.lang = lang
        self.extra_checks = extra_checks
        self.python = python
        self.workers = workers
        self.progress = progress
        #: The reference process, once made (started on its first request or by :meth:`start`).
        self.made: ReferenceProcess | None = None
        self._cpus: set[int] | None = None
        self._pinned: tuple[int, set[int]] | None = None
        self._bounds: Bounds | None = None

    def close(self) -> None:
        """End the reference process."""
        if self.made is not None:
            self.made.close()
            self.made = None

    def process(self, exclude: Iterable[str] = ()) -> ReferenceProcess:
        """The reference process (made on first use; started on first request or by :meth:`start`). The
        folders graded so far and ``exclude`` are kept off its import path."""
        if self.made is None:
            graded = (*self.workers, *(os.fspath(f) for f in exclude))
            self.made = ReferenceProcess(self.extra_checks, self.python, exclude=graded)
        return self.made

    def start(self, prepared: Iterable[Prepared], folders: Iterable[str]) -> None:
        """Start the reference process now where a check in ``prepared`` will measure, so that it imports
        torch while the checks before it run (the student's ``folders`` stay off its import path)."""
        if any(measures(p) for p in prepared):
            self.process(exclude=folders).start()

    def cpu_reading(self) -> cputime.TreeCpu | None:
        """The CPU time of the reference process now (started if need be): what perfcore's side used, for
        the load of the core it measured on (:mod:`grader.judge.runners.busy`)."""
        return cputime.read([self.process().start()])

    def pin(self, cpus: set[int]) -> None:
        """Put the reference process on ``cpus`` when it is asked for its first figure (:meth:`_pinned_process`):
        a student's function that only raises ``NotImplementedError`` starts no perfcore process (and no
        torch)."""
        self._cpus = set(cpus)

    def _pinned_process(self) -> ReferenceProcess:
        """The reference process, started if need be and on the core its measurement's worker was pinned
        to (a reference left unpinned would measure on an idle core)."""
        reference = self.process()
        pid = reference.start()
        if self._cpus is not None and self._pinned != (pid, self._cpus):
            scheduling.pin_tree([pid], self._cpus)
            self._pinned = (pid, set(self._cpus))
        return reference

    def measure(
        self, p: Prepared, kwargs: Mapping[str, Any], also: bool = False, on_cpu: bool = False
    ) -> float:
        """perfcore's figure for ``p``'s check at ``kwargs`` (always the judge's input: the reference
        process never works out the sizes itself), or its other library's (``also``), timed in CPU time
        where ``on_cpu``. Every worker's tree is stopped meanwhile."""
        ids = (p.exercise.id, p.check.id)
        self.progress(not also)
        return float(
            self._with_trees_stopped(
                lambda: self._pinned_process().value(*ids, dict(kwargs), also, on_cpu=on_cpu)
            )
        )

    def value(self, p: Prepared, kwargs: Mapping[str, Any], on_cpu: bool = False, also: bool = False) -> Any:
        """perfcore's value (a curve, or the one number a custom test reads) for ``p``'s check at ``kwargs``,
        or its other library's curve (``also``), timed in CPU time where ``on_cpu``; every worker's tree is
        stopped meanwhile."""
        self.progress(not also)
        return self._with_trees_stopped(
            lambda: self._pinned_process().value(p.exercise.id, p.check.id, dict(kwargs), also, on_cpu=on_cpu)
        )

    def _with_trees_stopped(self, measure: Callable[[], Any]) -> Any:
        """``measure()`` with every worker's tree stopped, read from the kernel to have stayed stopped: a
        measurement during which a process of a student's tree used CPU (one that escaped the stop) is void
        and taken again; :data:`TREE_RAN_TRIES` in a row, and the check is wrong, "a process of yours ran
        while the reference was measured"."""
        ran = 0.0
        for _ in range(TREE_RAN_TRIES):
            with self.workers_stopped():
                before = {key: w.cpu_reading() for key, w in list(self.workers.items())}
                value = measure()
                used = [self.workers[key].cpu_since(b) for key, b in before.items() if key in self.workers]
            ran = max((u.seconds for u in used if u is not None), default=0.0)
            if ran <= TREE_RAN_S:
                return value
        raise Verdict(State.WRONG, render("tree_ran", self.lang, cpu=f"{ran:.3g}", tries=TREE_RAN_TRIES))

    @contextlib.contextmanager
    def workers_stopped(self) -> Iterator[None]:
        """Every worker's process tree stopped for the block (:meth:`WorkerProcess.stopped`): perfcore's side
        measures with the student's code stopped, whatever it left running, so it cannot be slowed from
        the core the two share."""
        with contextlib.ExitStack() as stack:
            for worker in list(self.workers.values()):
                stack.enter_context(worker.stopped())
            yield

    def bounds(self) -> Bounds:
        """This machine's bounds, with the measured ceilings of its profile where they are evidence
        (:func:`grader.specs.ceilings.evidence_profile`: not where it was measured busy)."""
        if self._bounds is None:
            profile = evidence_profile()
            self._bounds = make_bounds(profile=profile)
        return self._bounds
