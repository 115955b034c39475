"""The judge's core: the trusted side of grading. It prepares, asks the worker, compares, scores.

Every front end (the pytest plugin, ``python -m grader file``, batch grading, ``grader.grade()``) grades
through a :class:`Judge`; the student's code runs only in a worker process (:mod:`grader.sandbox`). The
order is what makes a grade mean what the student did:

1. :func:`~grader.judge.prepare.prepare` evaluates a check's requirements and computes its reference side
   *before any student code runs*.
2. The worker imports the student's file (:meth:`Judge.run_check` asks for it once per worker and file)
   under the exercise's import time limit, in a fresh process of the file's own, forked from the worker
   the judge started (:mod:`grader.sandbox.worker`): nothing one file does reaches another.
3. Each check's runner (:mod:`grader.judge.runners`, one per kind) sends the student's function its inputs
   through :meth:`Judge.call` and gets back plain data (:mod:`grader.sandbox.wire`): a value, or the
   exception with the student's own traceback lines. The comparison and the feedback run here, on decoded
   plain values, never on the student's objects.
4. Time limits are wall-clock limits from outside: past one, the judge kills the worker (and whatever it
   started) and the next check gets a new worker. A worker that dies (``os._exit``, a signal, a resource
   limit) costs the check that was running; the message says what happened. A call that leaves a thread
   of the student's running (the worker counts them with each reply) ends its file's process: the next
   request imports the file afresh, so no thread of one check runs during another.

The judge is two sides composed: the student's (:mod:`grader.judge.student`: the workers, the file's
import, the calls, the time budget, the verdicts for a worker's failures) and perfcore's
(:mod:`grader.judge.reference_side`: the reference process, the student's trees stopped while it measures).
This module owns what joins them: the order of a check and its outcome. Both sides tell a front end how
far a measuring check is through :mod:`.progress`. A runner is handed the two sides composed
(:class:`~grader.judge.sides.Sides`, a :class:`~grader.judge.runners.protocol.JudgeSide`: the student's
calls, the worker's CPU time and core, and perfcore's reference side), never the judge itself. It returns
what it measured, which the outcome carries for the reports.

While a measuring check runs, the judge tells its front end how far it is (``on_progress``, a
:class:`~.progress.Progress` at the check's start, at each of the student's calls and at each of
perfcore's figures): the runners need not know, and nothing here knows pytest or a terminal.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from ..results.measured import Measured
from ..results.outcome import ExerciseResult, Outcome, State
from ..sandbox import confinement
from ..sandbox.process import WorkerProcess
from ..specs.check import Exercise
from ..text.catalogue import render
from .config import JudgeConfig
from .prepare import Prepared, measures, prepare_exercise
from .progress import Progress, Teller
from .reference import ReferenceProcess
from .reference_side import ReferenceSide
from .runners import runner_for
from .sides import Sides
from .student import StudentSide
from .untouched import untouched_in
from .verdicts import GraderError, Verdict

#: The address space a worker takes before any working set: the interpreter and torch (about 0.7 GiB).
WORKER_OWN_BYTES = 1 << 30


class Judge:
    """Grades files: the student's side (:class:`.student.StudentSide`: one worker per folder, started on
    first use and after any failure) and perfcore's (:class:`.reference_side.ReferenceSide`), composed into
    the :class:`~.sides.Sides` every runner is handed; how it grades is its :class:`JudgeConfig`. ``say`` is
    told once that the student's code runs unconfined, ``on_progress`` how far a measuring check is.
    Use it as a context manager, or call :meth:`close`: it kills every worker and what they started.
    """

    def __init__(
        self,
        config: JudgeConfig | str = "zh",
        *,
        say: Callable[[str], None] | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        **settings: Any,
    ) -> None:
        if settings and not isinstance(config, str):
            raise TypeError(f"Judge takes a JudgeConfig or its fields, not both: {sorted(settings)}")
        # a language and keywords, JudgeConfig's fields, are the tests' short way to the same record
        self.config = JudgeConfig(config, **settings) if isinstance(config, str) else config
        self.lang, self.max_noise, self.limits = self.config.lang, self.config.max_noise, self.config.limits
        #: Told how far a measuring check is, by both sides (a front end's display: :mod:`.progress`).
        self.progress = Teller(on_progress)
        self.student = StudentSide(
            self.lang,
            sandbox=self.config.sandbox,
            limits=self.limits,
            allow=self.config.allow,
            python=self.config.python,
            say=say,
            progress=self.progress.tell,
        )
        self.reference_side = ReferenceSide(
            self.lang,
            extra_checks=self.config.extra_checks,
            python=self.config.python,
            workers=self.student.workers,
            progress=self.progress.tell,
        )
        #: What every runner is handed: the two sides behind the JudgeSide protocol (:mod:`.sides`).
        self.sides = Sides(self.student, self.reference_side, self.lang, self.max_noise)

    # -- lifecycle

    def __enter__(self) -> Judge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Kill every worker, the reference process, and any orphan a student left behind."""
        self.student.close()
        self.reference_side.close()
        confinement.reap()

    @property
    def confined(self) -> bool:
        return self.student.confined

    @property
    def ran_unconfined(self) -> bool:
        """Whether a worker was started unconfined: the front end tells the user once (not inside a check)."""
        return self.student.ran_unconfined

    @property
    def unconfined_reason(self) -> str | None:
        return self.student.unconfined_reason

    @property
    def workers(self) -> dict[str, WorkerProcess]:
        return self.student.workers

    def worker(self, folder: str) -> WorkerProcess:
        return self.student.worker(folder)

    def reference(self, exclude: Iterable[str] = ()) -> ReferenceProcess:
        """The reference process (see :meth:`ReferenceSide.process`)."""
        return self.reference_side.process(exclude)

    def workers_stopped(self) -> contextlib.AbstractContextManager[None]:
        """Every worker's process tree stopped for the block (see :meth:`ReferenceSide.workers_stopped`)."""
        return self.reference_side.workers_stopped()

    # -- grading

    def grade_file(
        self, file: str | os.PathLike[str], prepared: Iterable[Prepared], source: str | None = None
    ) -> list[Outcome]:
        """Every prepared check on the student's ``file``."""
        path = os.path.realpath(os.fspath(file))
        prepared = list(prepared)
        untouched = untouched_in(path)
        written = [p for p in prepared if p.check.func not in untouched]  # no reference for a stub's check
        self.reference_side.start(written, [os.path.dirname(path)])
        return [self.run_check(p, file, source) for p in prepared]

    def grade(
        self,
        exercise: Exercise,
        file: str | os.PathLike[str],
        checks: Iterable[str] | None = None,
        *,
        source: str | None = None,
    ) -> ExerciseResult:
        """Prepare ``exercise`` (before any student code runs) and grade ``file``; its deferred checks count
        as the config's ``deferred`` says."""
        untouched = untouched_in(os.path.realpath(os.fspath(file)))
        prepared = prepare_exercise(exercise, self.lang, checks, untouched)
        outcomes = self.grade_file(file, prepared, source)
        return ExerciseResult(exercise.id, tuple(outcomes), self.config.deferred, exercise.title(self.lang))

    def run_check(self, p: Prepared, file: str | os.PathLike[str], source: str | None = None) -> Outcome:
        """One prepared check on the student's ``file``; never raises for the student's faults."""
        lang, check = self.lang, p.check
        path = os.path.realpath(os.fspath(file))
        shown = os.fspath(file) if source is None else source

        def done(
            state: State,
            message: str,
            deferred: bool = False,
            details: Mapping | None = None,
            measured: Measured | None = None,
        ) -> Outcome:
            if deferred:
                message = render("deferred", lang, reason=message)
            return Outcome.of(
                p.exercise,
                check,
                state,
                message,
                lang=lang,
                deferred=deferred,
                source=shown,
                details=details,
                measured=None if measured is None else replace(measured, at=time.time()),
            )

        if p.unmet is not None:
            return done(State.SKIPPED, p.unmet, deferred=True)
        need = check.requires.memory_bytes
        if need and need + WORKER_OWN_BYTES > self.limits.memory_bytes:
            gib = 1 << 30
            reason = render(
                "req_memory_limit",
                lang,
                need=f"{need / gib:.2f} GiB",
                limit=f"{self.limits.memory_bytes / gib:g} GiB",
            )
            return done(State.SKIPPED, reason, deferred=True)
        if p.untouched or check.func in untouched_in(path):  # the stub's: nothing to run or prepare
            return done(State.NOT_ATTEMPTED, render("not_attempted", lang, func=check.func))
        if p.error is not None:
            return done(State.ERROR, render("grader_bug", lang, error=p.error))
        if measures(p):
            self.progress.start(p.exercise.id, check.id)
        try:
            self.student.budget_left(p.exercise, path)  # a spent budget: not run, and no reference is asked
            self.student.load(p.exercise, path)
            measured = runner_for(check)(self.sides, p, path)
        except Verdict as verdict:
            if verdict.deferred:
                self.student.deferred_in.add((path, p.exercise.id))
            return done(verdict.state, verdict.message, verdict.deferred, verdict.details, verdict.measured)
        except GraderError as exc:
            error = f"{p.exercise.id}::{check.id}: {exc}"
            return done(State.ERROR, render("grader_bug", lang, error=error), measured=exc.measured)
        finally:
            self.progress.stop()
        return done(State.PASSED, render("passed", lang), measured=measured)
