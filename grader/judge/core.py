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

A runner sees the judge through :class:`~grader.judge.runners.protocol.JudgeSide`: the student's calls, the
worker's CPU time and core, and perfcore's reference side (:mod:`grader.judge.reference`). It returns what
it measured, which the outcome carries for the reports.

While a measuring check runs, the judge tells its front end how far it is (``on_progress``, a
:class:`Progress` at the check's start, at each of the student's calls and at each of perfcore's figures):
the runners need not know, and nothing here knows pytest or a terminal.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from perfcore.measure import make_bounds
from perfcore.measure.core import Bounds

from ..results.measured import Measured
from ..results.outcome import ExerciseResult, Outcome, State
from ..sandbox import confinement, cputime, messages, scheduling, wire
from ..sandbox.process import WorkerProcess
from ..sandbox.shared import Buffers
from ..specs import requirements
from ..specs.ceilings import evidence_profile
from ..specs.check import Exercise
from ..text.catalogue import LANGS, render
from .prepare import Prepared, measures, prepare_exercise
from .reference import ReferenceProcess
from .runners import runner_for
from .runners.protocol import JudgeSide
from .untouched import untouched_in
from .verdicts import GraderError, Verdict

#: The address space a worker takes before any working set: the interpreter and torch (about 0.7 GiB).
WORKER_OWN_BYTES = 1 << 30
#: The round-to-round spread (IQR/median) past which a student's own figures count as scattered.
DEFAULT_MAX_NOISE = 0.25
#: CPU seconds a student's stopped tree may show while perfcore measures (the readings' own margin), and
#: how many measurements in a row may be voided by more before the check is wrong.
TREE_RAN_S = 0.005
TREE_RAN_TRIES = 3


@dataclass(frozen=True)
class Progress:
    """How far a measuring check is: its exercise and check, the rounds begun (perfcore's figures asked
    for: one per round A B, probes included; an "also" figure of the same round is not one), and the
    seconds since the check started."""

    exercise: str
    check: str
    rounds: int
    elapsed_s: float


def time_budget_s(exercise: Exercise) -> float:
    """The most seconds one grading of ``exercise`` may keep the student's worker busy: what an honest but
    slow submission can use, its import's time limit once and each check's time limit. Past it the checks
    left are not run (TIMEOUT): without it a submission whose import takes nearly its limit and whose
    every function hangs pays that import again after each timeout, for every check (ex02: 229 s).

    A measurement fits: its student calls share one deadline, the check's time limit (perfcore's side runs
    in the reference process, whose time is not the worker's); nor is a worker's start counted, which runs
    before any of the student's code."""
    return exercise.import_timeout_s + sum(c.timeout_s for c in exercise.checks)


class Judge:
    """Grades files: one worker per folder, started on first use and after any failure.

    ``sandbox``: confine workers with bubblewrap where it works (see :mod:`grader.sandbox.confinement`);
    ``allow``: kit packages the student's code may import (``("perfcore",)``, a course's choice);
    Use it as a context manager, or call :meth:`close`: it kills every worker and what they started.
    """

    def __init__(
        self,
        lang: str = "zh",
        *,
        max_noise: float = DEFAULT_MAX_NOISE,
        sandbox: bool = True,
        limits: confinement.Limits | None = None,
        allow: Iterable[str] = (),
        extra_checks: Iterable[str] = (),
        python: str = sys.executable,
        say: Callable[[str], None] | None = None,
        on_progress: Callable[[Progress], None] | None = None,
    ) -> None:
        if lang not in LANGS:
            raise ValueError(f"lang must be one of {LANGS}, got {lang!r}")
        self.lang = lang
        self.max_noise = max_noise
        self.limits = limits or confinement.Limits()
        self.allow = tuple(allow)
        unknown = [name for name in self.allow if name not in ("perfcore", "grader")]
        if unknown:
            raise ValueError(f"allow may name perfcore and grader only, got {unknown}")
        self.extra_checks = tuple(extra_checks)
        self.python = python
        self.bwrap, self.unconfined_reason = (
            (None, "--no-sandbox") if not sandbox else confinement.find_bwrap()
        )
        self._say = say
        #: Whether a worker was started unconfined: the front end tells the user once (not inside a check).
        self.ran_unconfined = False
        self.workers: dict[str, WorkerProcess] = {}
        self.import_failures: dict[str, tuple[State, str]] = {}
        #: Seconds each (file, exercise) has kept its worker busy: imports and calls (see _request).
        self.spent: dict[tuple[str, str], float] = {}
        self._reference: Any = None
        self._reference_cpus: set[int] | None = None
        self._reference_pinned: tuple[int, set[int]] | None = None
        self._bounds: Bounds | None = None
        #: Told how far a measuring check is (see :class:`Progress`); a front end's display, so a failure
        #: of it stops the telling and never costs a grade.
        self.on_progress = on_progress
        self._running: tuple[Prepared, float] | None = None  # the measuring check and when it started
        self._rounds = 0

    # -- lifecycle

    def __enter__(self) -> Judge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Kill every worker, the reference process, and any orphan a student left behind."""
        # a copy: a batch that is stopped closes its judges from another thread while they grade, and
        # one of them may be starting a worker
        for worker in list(self.workers.values()):
            worker.close()
        self.workers.clear()
        if self._reference is not None:
            self._reference.close()
            self._reference = None
        confinement.reap()

    @property
    def confined(self) -> bool:
        return self.bwrap is not None

    def worker(self, folder: str) -> WorkerProcess:
        key = os.path.realpath(folder)
        if key not in self.workers:
            if not self.confined and not self.ran_unconfined and self._say is not None:
                self._say(render("not_confined", self.lang, reason=self.unconfined_reason))
            self.ran_unconfined = self.ran_unconfined or not self.confined
            self.workers[key] = WorkerProcess(
                key,
                limits=self.limits,
                bwrap=self.bwrap,
                python=self.python,
                allow=self.allow,
            )
        return self.workers[key]

    # -- grading

    def grade_file(
        self, file: str | os.PathLike[str], prepared: Iterable[Prepared], source: str | None = None
    ) -> list[Outcome]:
        """Every prepared check on the student's ``file``."""
        path = os.path.realpath(os.fspath(file))
        prepared = list(prepared)
        untouched = untouched_in(path)
        written = [p for p in prepared if p.check.func not in untouched]  # no reference for a stub's check
        self.start_reference(written, [os.path.dirname(path)])
        return [self.run_check(p, file, source) for p in prepared]

    def grade(
        self,
        exercise: Exercise,
        file: str | os.PathLike[str],
        checks: Iterable[str] | None = None,
        *,
        deferred: str = "defer",
        source: str | None = None,
    ) -> ExerciseResult:
        """Prepare ``exercise`` (before any student code runs) and grade ``file``."""
        untouched = untouched_in(os.path.realpath(os.fspath(file)))
        prepared = prepare_exercise(exercise, self.lang, checks, untouched)
        outcomes = self.grade_file(file, prepared, source)
        return ExerciseResult(exercise.id, tuple(outcomes), deferred, exercise.title(self.lang))

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
            self._running, self._rounds = (p, time.monotonic()), 0
            self._progress()
        try:
            self._budget_left(p.exercise, path)  # a spent budget: not run, and no reference is asked
            self._load(p.exercise, path)
            measured = runner_for(check)(self, p, path)
        except Verdict as verdict:
            return done(verdict.state, verdict.message, verdict.deferred, verdict.details, verdict.measured)
        except GraderError as exc:
            error = f"{p.exercise.id}::{check.id}: {exc}"
            return done(State.ERROR, render("grader_bug", lang, error=error), measured=exc.measured)
        finally:
            self._running = None
        return done(State.PASSED, render("passed", lang), measured=measured)

    def _progress(self, new_round: bool = False) -> None:
        """Tell ``on_progress`` how far the measuring check in hand is (nothing where none is)."""
        if self._running is None or self.on_progress is None:
            return
        self._rounds += new_round
        p, started = self._running
        try:
            self.on_progress(Progress(p.exercise.id, p.check.id, self._rounds, time.monotonic() - started))
        except Exception:  # noqa: BLE001 - a display that fails is left off; the grade goes on
            self.on_progress = None

    # -- the worker's side of a check

    def failure(self, failure: messages.WorkerFailure, step: str) -> Verdict:
        """The verdict for a worker that died or misbehaved during ``step`` (timeouts are told by the
        callers, who know the limit)."""
        fields: dict[str, Any] = {"step": step}
        if failure.kind == "exit":
            fields["code"] = failure.detail
        elif failure.kind == "signal":
            fields["signal"] = failure.detail
        elif failure.kind == "memory":
            fields["limit"] = f"{self.limits.memory_bytes / (1 << 30):g} GiB"
        elif failure.kind == "output":
            fields["limit"] = f"{self.limits.file_bytes >> 20} MiB"
        elif failure.kind in ("tampered", "startup"):
            fields["detail"] = failure.detail
        elif failure.kind == "oversized":
            what = failure.detail if failure.detail in wire.LIMITS else "bytes"
            amount = wire.LIMITS[what] >> 20 if what == "bytes" else wire.LIMITS[what]
            fields["limit"] = render(f"limit_{what}", self.lang, n=f"{amount:,}")
        return Verdict(State.ERROR, render(f"died_{failure.kind}", self.lang, **fields))

    def _request(
        self,
        exercise: Exercise,
        path: str,
        step: str,
        op: str,
        timeout_s: float,
        buffers: Buffers | None = None,
        **fields: Any,
    ) -> Any:
        """``worker.ask(op, timeout_s, buffers=buffers, ...)`` for ``exercise`` graded from ``path``, within
        the exercise's time budget (:func:`time_budget_s`): what is left of it caps ``timeout_s``, and the time the
        worker took is taken from it. Every request of a check goes through here, so no check, and no
        import after a worker was killed, escapes the budget.

        Raises the TIMEOUT verdict once the budget is spent (before sending) or runs out during the
        request; every other failure is the worker's WorkerFailure, for the caller to tell."""
        budget = time_budget_s(exercise)
        left = self._budget_left(exercise, path)
        worker = self.worker(os.path.dirname(path))
        if not worker.alive:
            worker.start()  # the grader's own time, before any student code: not the student's to pay
        started = time.monotonic()
        try:
            return worker.ask(op, min(timeout_s, left), buffers=buffers, **fields)
        except messages.WorkerFailure as failure:
            if failure.kind == "timeout" and left < timeout_s:
                message = render(
                    "budget_ran_out", self.lang, step=step, exercise=exercise.id, budget=f"{budget:g}"
                )
                raise Verdict(State.TIMEOUT, message) from None
            raise
        finally:
            key = (path, exercise.id)
            self.spent[key] = self.spent.get(key, 0.0) + time.monotonic() - started

    def _budget_left(self, exercise: Exercise, path: str) -> float:
        """The seconds left of ``exercise``'s time budget for ``path``; the TIMEOUT verdict where none are."""
        budget = time_budget_s(exercise)
        left = budget - self.spent.get((path, exercise.id), 0.0)
        if left <= 0:
            message = render("budget_spent", self.lang, exercise=exercise.id, budget=f"{budget:g}")
            raise Verdict(State.TIMEOUT, message)
        return left

    def _load(self, exercise: Exercise, path: str) -> None:
        """Make sure the worker has imported the student's file; raise the exercise's import failure."""
        if path in self.import_failures:
            state, message = self.import_failures[path]
            raise Verdict(state, message)
        worker = self.worker(os.path.dirname(path))
        if worker.alive and exercise.module in worker.loaded:
            return
        name = os.path.basename(path)
        step = render("step_import", self.lang, file=name)
        # numpy and torch are imported once per worker, in the template the file's fresh process is forked
        # from, where the exercise needs torch (a formula exercise's worker imports neither)
        needs_torch = any(c.requires.needs_torch for c in exercise.checks)
        try:
            loaded = self._request(
                exercise,
                path,
                step,
                "load",
                exercise.import_timeout_s,
                module=exercise.module,
                file=name,
                preload=["numpy", "torch"] if needs_torch else [],
            )
        except messages.WorkerFailure as failure:
            if failure.kind == "startup":
                raise Verdict(State.ERROR, render("died_startup", self.lang, detail=failure.detail)) from None
            if failure.kind == "timeout":
                verdict = Verdict(
                    State.TIMEOUT,
                    render("import_timeout", self.lang, file=name, limit=exercise.import_timeout_s),
                )
            else:
                verdict = self.failure(failure, step)
            self.import_failures[path] = (verdict.state, verdict.message)
            raise verdict from None
        if not isinstance(loaded, messages.Loaded):
            worker.kill()
            raise self.failure(messages.WorkerFailure("tampered", "not a reply to the import"), name)
        if loaded.error is not None:
            message = render("import_error", self.lang, file=name, trace=loaded.error.trace)
            self.import_failures[path] = (State.ERROR, message)
            raise Verdict(State.ERROR, message)
        # each file is served by a fresh process of its own (grader/sandbox/worker.py): loading one ends
        # the process of the file before, which must be loaded afresh if it is graded again
        worker.loaded = {exercise.module: loaded}

    def _ask(
        self, p: Prepared, path: str, op: str, timeout_s: float, buffers: Buffers | None = None, **fields: Any
    ) -> Any:
        """A request for ``p``'s function (handing it ``buffers``, where given); turns every failure into the
        check's verdict."""
        check, lang = p.check, self.lang
        worker = self.worker(os.path.dirname(path))
        if not worker.alive or p.exercise.module not in worker.loaded:
            self._load(p.exercise, path)
        step = render("step_check", lang, check=f"{p.exercise.id}::{check.id}")
        try:
            reply = self._request(
                p.exercise,
                path,
                step,
                op,
                timeout_s,
                buffers,
                module=p.exercise.module,
                func=check.func,
                **fields,
            )
        except messages.WorkerFailure as failure:
            if failure.kind == "timeout":
                raise Verdict(
                    State.TIMEOUT, render("timeout", lang, func=check.func, limit=f"{timeout_s:g}")
                ) from None
            raise self.failure(failure, step) from None
        replies = reply if isinstance(reply, list) else [reply]
        if any(one.threads_left for one in replies if isinstance(one, (messages.Returned, messages.Raised))):
            # a thread the student's code left running would run on through the next check (its CPU on the
            # next figure, a signal in the next call): the file is imported afresh in a process of its own
            # for the next request, which ends this one and all it started
            self.worker(os.path.dirname(path)).loaded = {}
        first = replies[0] if replies else reply
        if isinstance(first, messages.Raised) and first.missing:
            if first.missing == "missing":
                raise Verdict(State.NOT_ATTEMPTED, render("func_missing", lang, func=check.func))
            raise Verdict(State.ERROR, render("func_not_callable", lang, func=check.func, kind=first.missing))
        return reply

    def raised(self, p: Prepared, raised: messages.Raised, inputs: str | None = None) -> Verdict:
        lang, func = self.lang, p.check.func
        if raised.not_attempted:
            return Verdict(State.NOT_ATTEMPTED, render("not_attempted", lang, func=func))
        short = self._gpu_short(p, raised)
        if short is not None:
            return Verdict(State.SKIPPED, render("student_gpu_memory", lang, reason=short), deferred=True)
        if inputs is None:
            message = render("raised", lang, func=func, trace=raised.trace)
        else:
            message = render("raised_at", lang, func=func, inputs=inputs, trace=raised.trace)
        if raised.stdout.strip():
            message += "\n" + render("output", lang, output=raised.stdout.strip()[-1500:])
        return Verdict(State.ERROR, message)

    def _gpu_short(self, p: Prepared, raised: messages.Raised) -> str | None:
        """Why the GPU cannot hold the check's working sets, where the student's call ran out of GPU memory
        and the GPU is still short once the student's workers are gone (others use it, a small MIG slice);
        None otherwise. Only the GPU's free memory with the student's processes ended defers: a submission
        that raises an out-of-memory error itself, or fills the GPU before raising one, is an error."""
        req = p.check.requires
        said = f"{raised.exc_type}\n{raised.trace}"
        if not (req.cuda and req.gpu_memory_bytes) or not (
            raised.exc_type == "OutOfMemoryError" or "out of memory" in said
        ):
            return None
        for worker in self.workers.values():
            worker.kill()  # its allocations, cached by torch or not, go with it
        try:
            return requirements.gpu_memory_shortage(req.gpu_memory_bytes, self.lang)
        except Exception:  # noqa: BLE001 - no reading of the free memory: the error stands
            return None

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
        """The student's function called once on ``args`` and ``kwargs`` (and on ``buffers``, handed by
        :class:`~grader.sandbox.shared.Buffers`, where given), on ``threads`` threads where given, its
        clock ``readings`` asked for (``on_cpu``: on the judge's CPU clock, :mod:`grader.sandbox.clocks`); the
        check's verdict for anything but a value returned."""
        self._progress()
        asked: dict[str, Any] = {} if threads is None else {"threads": threads}
        if readings:
            asked.update({"readings": True, **({"clock": "cpu"} if on_cpu else {})})
        reply = self._ask(
            p,
            path,
            "call",
            timeout_s,
            buffers,
            args=[wire.encode(a) for a in args],
            kwargs={k: wire.encode(v) for k, v in kwargs.items()},
            **asked,
        )
        if isinstance(reply, messages.Raised):
            raise self.raised(p, reply)
        if not isinstance(reply, messages.Returned):
            raise self.failure(messages.WorkerFailure("tampered", "not a reply to the call"), p.check.id)
        return reply

    def call_many(
        self, p: Prepared, path: str, kwargs_list: list[dict[str, Any]], timeout_s: float
    ) -> list[Any]:
        """The student's function called on each of ``kwargs_list`` (encoded) in one request."""
        self._progress()
        return self._ask(p, path, "call_many", timeout_s, kwargs_list=kwargs_list)

    def cpu_reading(self, path: str) -> cputime.Reading | None:
        """The CPU time of the worker grading ``path`` now (see :mod:`grader.sandbox.cputime`)."""
        return self.worker(os.path.dirname(path)).cpu_reading()

    def cpu_since(self, path: str, before: cputime.Reading | None) -> cputime.Used | None:
        """The CPU time the worker grading ``path`` used since ``before``."""
        return self.worker(os.path.dirname(path)).cpu_since(before)

    def reference_cpu_reading(self) -> cputime.Reading | None:
        """The CPU time of the reference process now (started if need be): what perfcore's side used, for
        the load of the core it measured on (:mod:`grader.judge.runners.busy`)."""
        return cputime.read([self.reference().start()])

    def pin(self, path: str, cpus: set[int]) -> None:
        """Put the worker grading ``path`` and the reference process on ``cpus`` where the OS allows. The
        reference is pinned when it is asked for its first figure (:meth:`_pinned_reference`): a student's
        function that only raises ``NotImplementedError`` starts no perfcore process (and no torch)."""
        self.worker(os.path.dirname(path)).pin(cpus)
        self._reference_cpus = set(cpus)

    def _pinned_reference(self) -> ReferenceProcess:
        """The reference process, started if need be and on the core its measurement's worker was pinned
        to (a reference left unpinned would measure on an idle core)."""
        reference = self.reference()
        pid = reference.start()
        if self._reference_cpus is not None and self._reference_pinned != (pid, self._reference_cpus):
            scheduling.pin_tree([pid], self._reference_cpus)
            self._reference_pinned = (pid, set(self._reference_cpus))
        return reference

    # -- measurements' trusted side

    def reference(self, exclude: Iterable[str] = ()) -> ReferenceProcess:
        """The reference process (made on first use; started on first request or by
        :meth:`start_reference`). The folders graded so far and ``exclude`` are kept off its import path."""
        if self._reference is None:
            graded = (*self.workers, *(os.fspath(f) for f in exclude))
            self._reference = ReferenceProcess(self.extra_checks, self.python, exclude=graded)
        return self._reference

    def measure_reference(
        self, p: Prepared, kwargs: Mapping[str, Any], also: bool = False, on_cpu: bool = False
    ) -> float:
        """perfcore's figure for ``p``'s check at ``kwargs`` (always the judge's input: the reference
        process never works out the sizes itself), or its other library's (``also``), timed in CPU time
        where ``on_cpu``. Every worker's tree is stopped meanwhile."""
        ids = (p.exercise.id, p.check.id)
        self._progress(new_round=not also)
        return float(
            self._with_trees_stopped(
                lambda: self._pinned_reference().value(*ids, dict(kwargs), also, on_cpu=on_cpu)
            )
        )

    def reference_value(self, p: Prepared, kwargs: Mapping[str, Any], on_cpu: bool = False) -> Any:
        """perfcore's value (a curve, or the one number a custom test reads) for ``p``'s check at ``kwargs``
        (timed in CPU time where ``on_cpu``); every worker's tree is stopped meanwhile."""
        self._progress(new_round=True)
        return self._with_trees_stopped(
            lambda: self._pinned_reference().value(p.exercise.id, p.check.id, dict(kwargs), on_cpu=on_cpu)
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

    def start_reference(self, prepared: Iterable[Prepared], folders: Iterable[str]) -> None:
        """Start the reference process now where a check in ``prepared`` will measure, so that it imports
        torch while the checks before it run (the student's ``folders`` stay off its import path)."""
        if any(measures(p) for p in prepared):
            self.reference(exclude=folders).start()

    def bounds(self) -> Bounds:
        """This machine's bounds, with the measured ceilings of its profile where they are evidence
        (:func:`grader.specs.ceilings.evidence_profile`: not where it was measured busy)."""
        if self._bounds is None:
            profile = evidence_profile()
            self._bounds = make_bounds(profile=profile)
        return self._bounds


def _judge_side(judge: Judge) -> JudgeSide:
    """Never called: mypy (run by tests/kit/test_static.py) checks here that a :class:`Judge` is what every
    runner is given, a :class:`JudgeSide`; a method missing, or one whose signature or return type differs
    from the protocol's, fails the type check."""
    return judge
