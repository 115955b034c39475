"""The student's side of the judge: the workers, the student's file loaded in one, and every request to it.

:class:`StudentSide` owns one worker per graded folder (:class:`~grader.sandbox.process.WorkerProcess`),
started on first use and after any failure; the import of the student's file (once per worker and file,
under the exercise's import time limit, its failure kept for the file's later checks); the calls of the
student's function (:meth:`StudentSide.call`, :meth:`StudentSide.call_many`); each exercise's time budget
(:func:`time_budget_s`), which every request goes through; and the verdicts for whatever the worker did
instead of answering: a timeout, a death, a raise, a function missing.

Nothing here knows perfcore's side (:mod:`grader.judge.reference_side`) or what a check's kind asks
(:mod:`grader.judge.runners`); the :class:`~grader.judge.core.Judge` composes the two sides.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..results.outcome import State
from ..sandbox import confinement, cputime, messages, wire
from ..sandbox.process import WorkerProcess
from ..sandbox.shared import Buffers
from ..specs import requirements
from ..specs.check import Exercise
from ..text.catalogue import render
from .prepare import Prepared
from .verdicts import Verdict


def time_budget_s(exercise: Exercise) -> float:
    """The most seconds one grading of ``exercise`` may keep the student's worker busy: what an honest but
    slow submission can use, its import's time limit once and each check's time limit. Past it the checks
    left are not run (TIMEOUT): without it a submission whose import takes nearly its limit and whose
    every function hangs pays that import again after each timeout, for every check (ex02: 229 s).

    A measurement fits: its student calls share one deadline, the check's time limit (perfcore's side runs
    in the reference process, whose time is not the worker's); nor is a worker's start counted, which runs
    before any of the student's code."""
    return exercise.import_timeout_s + sum(c.timeout_s for c in exercise.checks)


class StudentSide:
    """The workers that run the student's code, and every request the judge makes of them.

    ``sandbox``: confine workers with bubblewrap where it works (see :mod:`grader.sandbox.confinement`);
    ``allow``: kit packages the student's code may import; ``say``: told once that a worker runs
    unconfined; ``progress``: told at each of the student's calls (the judge's ``on_progress``).
    """

    def __init__(
        self,
        lang: str,
        *,
        sandbox: bool,
        limits: confinement.Limits,
        allow: tuple[str, ...],
        python: str,
        say: Callable[[str], None] | None,
        progress: Callable[[bool], None],
    ) -> None:
        self.lang = lang
        self.limits = limits
        self.allow = allow
        self.python = python
        self.bwrap, self.unconfined_reason = (
            (None, "--no-sandbox") if not sandbox else confinement.find_bwrap()
        )
        self._say = say
        self.progress = progress
        #: Whether a worker was started unconfined: the front end tells the user once (not inside a check).
        self.ran_unconfined = False
        self.workers: dict[str, WorkerProcess] = {}
        self.import_failures: dict[str, tuple[State, str]] = {}
        #: Seconds each (file, exercise) has kept its worker busy: imports and calls (see request).
        self.spent: dict[tuple[str, str], float] = {}
        #: The (file, exercise) pairs with a check deferred so far: a budget they spend after it is the busy
        #: machine's doing as much as the student's (:meth:`budget_verdict`).
        self.deferred_in: set[tuple[str, str]] = set()

    def close(self) -> None:
        """Kill every worker and what it started."""
        # a copy: a batch that is stopped closes its judges from another thread while they grade, and
        # one of them may be starting a worker
        for worker in list(self.workers.values()):
            worker.close()
        self.workers.clear()

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

    def request(
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
        left = self.budget_left(exercise, path)
        worker = self.worker(os.path.dirname(path))
        if not worker.alive:
            worker.start()  # the grader's own time, before any student code: not the student's to pay
        started = time.monotonic()
        try:
            return worker.ask(op, min(timeout_s, left), buffers=buffers, **fields)
        except messages.WorkerFailure as failure:
            if failure.kind == "timeout" and left < timeout_s:
                raise self.budget_verdict("budget_ran_out", exercise, path, step=step) from None
            raise
        finally:
            key = (path, exercise.id)
            self.spent[key] = self.spent.get(key, 0.0) + time.monotonic() - started

    def budget_left(self, exercise: Exercise, path: str) -> float:
        """The seconds left of ``exercise``'s time budget for ``path``; the TIMEOUT verdict where none are."""
        left = time_budget_s(exercise) - self.spent.get((path, exercise.id), 0.0)
        if left <= 0:
            raise self.budget_verdict("budget_spent", exercise, path)
        return left

    def budget_verdict(self, key: str, exercise: Exercise, path: str, **fields: Any) -> Verdict:
        """The verdict of ``exercise``'s budget spent for ``path`` (the message ``key``): a timeout, or deferred
        where an earlier check of the exercise was deferred (:attr:`deferred_in`): the machine too busy to
        decide then stretched the rounds that spent the budget (m5a's calls past their limits on a core others
        held, then m5b not run: a false timeout of an honest method beside two gradings)."""
        budget = f"{time_budget_s(exercise):g}"
        message = render(key, self.lang, exercise=exercise.id, budget=budget, **fields)
        if (path, exercise.id) in self.deferred_in:
            return Verdict(State.SKIPPED, render("budget_busy", self.lang, said=message), deferred=True)
        return Verdict(State.TIMEOUT, message)

    def load(self, exercise: Exercise, path: str) -> None:
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
            loaded = self.request(
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
            self.load(p.exercise, path)
        step = render("step_check", lang, check=f"{p.exercise.id}::{check.id}")
        try:
            reply = self.request(
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
        self.progress(False)
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
        self.progress(False)
        return self._ask(p, path, "call_many", timeout_s, kwargs_list=kwargs_list)

    def cpu_reading(self, path: str) -> cputime.TreeCpu | None:
        """The CPU time of the worker grading ``path`` now (see :mod:`grader.sandbox.cputime`)."""
        return self.worker(os.path.dirname(path)).cpu_reading()

    def cpu_since(self, path: str, before: cputime.TreeCpu | None) -> cputime.Used | None:
        """The CPU time the worker grading ``path`` used since ``before``."""
        return self.worker(os.path.dirname(path)).cpu_since(before)

    def pin(self, path: str, cpus: set[int]) -> None:
        """Put the worker grading ``path`` on ``cpus`` where the OS allows."""
        self.worker(os.path.dirname(path)).pin(cpus)
