"""The judge: the trusted side of grading. It prepares, asks the worker, compares, scores.

Every front end (the pytest plugin, ``python -m grader file``, batch grading, ``grader.grade()``) grades
through a :class:`Judge`; the student's code runs only in a worker process (:mod:`grader.worker`), started
through :mod:`grader.confinement`. The order is what makes a grade mean what the student did:

1. :func:`prepare` evaluates a check's requirements and computes its reference side *before any student
   code runs*: ``expected()`` of value and choice checks, the derandomized hypothesis inputs and the
   reference's values of property checks. They stay in this process; the worker never sees them.
2. The worker imports the student's file (:meth:`Judge.run_check` asks for it once per worker) under the
   exercise's import time limit.
3. Each check sends the student's function its inputs and gets back plain data (:mod:`grader.wire`): a
   value, or the exception with the student's own traceback lines. The comparison (:mod:`grader.compare`)
   and the feedback run here, on decoded plain values, never on the student's objects.
4. Time limits are wall-clock limits from outside: past one, the judge kills the worker (and whatever it
   started) and the next check gets a new worker. A worker that dies (``os._exit``, a signal, a
   resource limit) costs the check that was running; the message says what happened.

Measurements (:class:`~grader.spec.MeasurementCheck`): the student's function runs in the worker and
perfcore's reference in a trusted process of its own (:mod:`grader.reference`), alternately, A B A B, both
pinned to the least busy core where the OS allows. Each round gives a paired ratio; the interval of their
median (:mod:`grader.stats`) decides: inside the band passed, wholly outside wrong, straddling an edge more
rounds (:class:`_Budget`), and then deferred with the reason, or wrong where the student's own figures
scatter while perfcore's hold still. The judge also times each of the student's calls from outside: a call
that returns sooner than its work can be done on this machine (``work``, at the physical bounds) took no
measurement; and on a ``probe`` input the student has not seen, the figure must be physically possible and
follow perfcore's.
"""

from __future__ import annotations

import hashlib
import hmac
import inspect
import math
import os
import random
import secrets
import select
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from . import confinement, cputime, stats, wire
from .compare import NotANumber, as_number, describe, mismatch
from .messages import Text, kind_of, render, show, show_inputs
from .outcome import LANGS, ExerciseResult, Outcome, State
from .reference import ReferenceShortage
from .requirements import unmet_reason
from .shapes import MalformedCurve, as_curve, shape_problem
from .spec import (
    MEASUREMENT_BANDS,
    Check,
    ChoiceCheck,
    Exercise,
    MeasurementCheck,
    PropertyCheck,
    ShapeCheck,
    ValueCheck,
    Work,
)

#: How long the judge watches the cores before it picks the least busy one for a measurement.
CPU_SAMPLE_S = 0.05
#: The address space a worker takes before any working set: the interpreter and torch (about 0.7 GiB).
WORKER_OWN_BYTES = 1 << 30
#: The round-to-round spread (IQR/median) past which a student's own figures count as scattered.
DEFAULT_MAX_NOISE = 0.25
#: While a ratio's interval straddles a band edge, rounds are added two at a time: up to this many times a
#: check's own rounds, and while they end within this share of its time limit (see :class:`_Budget`).
MAX_ROUNDS_FACTOR = 4
ROUNDS_BUDGET_SHARE = 0.5
#: An undecided ratio is the student's doing, not the machine's, when the student's figures scatter more
#: than this many times perfcore's in the same rounds.
SCATTER_FACTOR = 3.0
#: How often the judge reads the memory of a worker it watches (one capped by RLIMIT_DATA), in seconds: at
#: the few GB/s a process can fault pages in, it gets at most about half a GB past its limit in between.
MEMORY_POLL_S = 0.1
#: Rounds (A B each) of a probe: enough for a median, few enough to keep a check's time down.
PROBE_ROUNDS = 3
#: A call counts as "no measurement" only when it took less than this share of its least possible time
#: (the judge's clock and the round trip are coarse next to the work of one operation).
NO_MEASUREMENT_SHARE = 0.9
#: A rate (B/s, FLOP/s) says how long one run of its operation takes: the check's work over the figure. A
#: call must last at least this share of that (and of NO_MEASUREMENT_SHARE), which allows work counted up
#: to twice over: a student who counts read and write where the check counts one is judged by the band.
CLAIMED_RATE_SHARE = 0.5
#: A measuring call on the CPU keeps a CPU busy (the worker's tree, read from the kernel) for at least this
#: share of the time it says one run takes: an honest call runs it at least once, and a share this low
#: leaves room for a run that was preempted for half its time. Calls claiming less than CPU_CHECK_MIN_S
#: are not held to it: the worker's own handling of a call is then a fair part of what the kernel reads.
CPU_SHARE = 0.25
CPU_CHECK_MIN_S = 0.005


class GraderError(Exception):
    """The grader itself failed (a bad spec, a reference that raised); never the student's fault."""


# ---------------------------------------------------------------------------------------------------
# 1. preparing checks


@dataclass(frozen=True, eq=False)
class Prepared:
    """A check with its reference side computed. ``unmet``: why it is skipped; ``error``: grader failure."""

    exercise: Exercise
    check: Check
    expected: Any = None
    examples: tuple[tuple[dict[str, Any], Any], ...] = ()
    unmet: str | None = None
    error: str | None = None


def draw_examples(strategy: Any, max_examples: int) -> list[dict[str, Any]]:
    """Up to ``max_examples`` kwargs dicts drawn from ``strategy``, the same ones on every run.

    Hypothesis runs derandomized (a fixed seed), with no deadline, no example database and the generate
    phase only; a local settings object is used, so no global profile changes.
    """
    from hypothesis import HealthCheck, Phase, given, settings

    drawn: list[dict[str, Any]] = []
    seen: set[str] = set()

    @settings(
        max_examples=max_examples,
        derandomize=True,
        deadline=None,
        database=None,
        phases=(Phase.generate,),
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    @given(strategy)
    def collect(kwargs: Any) -> None:
        if not isinstance(kwargs, Mapping) or not all(isinstance(k, str) for k in kwargs):
            raise GraderError(f"the strategy must draw dicts of keyword arguments, drew {kwargs!r}")
        key = repr(sorted(kwargs.items()))
        if key not in seen:
            seen.add(key)
            drawn.append(dict(kwargs))

    collect()
    return drawn


def prepare(check: Check, exercise: Exercise, lang: str = "zh") -> Prepared:
    """Check the requirements and compute the reference side of ``check`` (before student code runs)."""
    reason = unmet_reason(check.requires, lang)
    if reason is not None:
        return Prepared(exercise, check, unmet=reason)
    try:
        if isinstance(check, ValueCheck):
            return Prepared(exercise, check, expected=check.expected())
        if isinstance(check, ChoiceCheck):
            expected = check.expected() if callable(check.expected) else check.expected
            if not isinstance(expected, str) or expected.strip().lower() not in check.choices:
                raise GraderError(f"expected() gave {expected!r}, not one of {check.choices}")
            return Prepared(exercise, check, expected=expected.strip().lower())
        if isinstance(check, PropertyCheck):
            examples = []
            for kwargs in draw_examples(check.strategy, check.max_examples):
                try:
                    value = check.reference(**kwargs)
                except Exception as exc:
                    raise GraderError(
                        f"the reference raised {exc!r} on {_inputs(check, (), kwargs)}"
                    ) from exc
                examples.append((kwargs, value))
            if not examples:
                raise GraderError("the strategy drew no inputs")
            return Prepared(exercise, check, examples=tuple(examples))
        return Prepared(exercise, check)
    except Exception as exc:  # a grader bug must cost this check, not the session
        return Prepared(exercise, check, error=f"{exercise.id}::{check.id}: {type(exc).__name__}: {exc}")


def prepare_exercise(
    exercise: Exercise, lang: str = "zh", checks: Iterable[str] | None = None
) -> list[Prepared]:
    """:func:`prepare` every check of ``exercise`` (or those named in ``checks``, in that order)."""
    chosen = exercise.checks if checks is None else tuple(exercise.check(c) for c in checks)
    return [prepare(c, exercise, lang) for c in chosen]


# ---------------------------------------------------------------------------------------------------
# 2. the worker process, seen from the judge


class WorkerProcess:
    """One worker: started in ``folder``, asked one request at a time, killed on any failure."""

    def __init__(
        self,
        folder: str,
        *,
        limits: confinement.Limits,
        bwrap: str | None,
        python: str = sys.executable,
        allow: tuple[str, ...] = (),
    ) -> None:
        self.folder = os.path.realpath(folder)
        self.limits = limits
        self.bwrap = bwrap
        self.python = python
        self.allow = allow
        self.proc: subprocess.Popen[bytes] | None = None
        self.sock: socket.socket | None = None
        self.buffer = bytearray()
        self.seq = 0
        self.loaded: dict[str, wire.Loaded] = {}
        self.home: str | None = None  # the unconfined worker's HOME and TMPDIR, removed when it ends
        #: Whether the judge watches the worker's memory itself (its cap is RLIMIT_DATA: a CUDA host)
        self.watch_memory = False
        self.log = tempfile.TemporaryFile()

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        """Start the process and wait for its hello; WorkerFailure("startup") when it does not come.

        The channel is one end of a socket pair handed over by descriptor; where the OS cannot pass one
        (Windows), a loopback listener the worker connects back to, whose hello must carry the secret the
        judge put in its environment (``wire.SECRET_ENV``): no other process's connection is taken for it.
        """
        runtime = confinement.runtime_dir()
        deadline = time.monotonic() + self.limits.startup_s
        self.home = None if self.bwrap else tempfile.mkdtemp(prefix="perfkit-home-")
        env = confinement.worker_env(self.home or "/tmp")  # inside bwrap, /tmp is its own
        env[confinement.WORKER_MARK] = "1"
        ours: socket.socket | None = None
        theirs: socket.socket | None = None
        listener: socket.socket | None = None
        secret = ""
        if confinement.PASSES_FDS:
            ours, theirs = socket.socketpair()
            channel = ["--fd", str(theirs.fileno())]
        else:
            listener = socket.create_server(("127.0.0.1", 0))
            channel = ["--connect", f"127.0.0.1:{listener.getsockname()[1]}"]
            secret = env[wire.SECRET_ENV] = secrets.token_hex(16)
        gpus = confinement.gpu_devices()
        cmd = confinement.launcher(self.python, self.limits, cuda=bool(gpus))
        self.watch_memory = bool(cmd) and confinement.memory_rlimit(bool(gpus)) == "DATA"
        if self.bwrap:
            cmd += confinement.bwrap_command(self.bwrap, self.folder, runtime, allow=self.allow, devices=gpus)
        cmd += [self.python, "-I", os.path.join(runtime, "worker.py"), *channel, "--dir", self.folder]
        if self.allow:
            cmd += ["--allow", ",".join(self.allow)]
        confinement.become_subreaper()
        try:
            with confinement.starting():  # no reap while it is started and not yet recorded
                self.proc = subprocess.Popen(
                    cmd,
                    stdin=subprocess.DEVNULL,
                    stdout=self.log,
                    stderr=self.log,
                    pass_fds=() if theirs is None else (theirs.fileno(),),
                    start_new_session=True,
                    cwd=self.folder,
                    env=env,
                )
                confinement.started(self.proc.pid)
        except OSError as exc:
            for sock in (ours, listener):
                if sock is not None:
                    sock.close()
            raise wire.WorkerFailure("startup", str(exc)) from exc
        finally:
            if theirs is not None:
                theirs.close()
        self.loaded = {}
        try:
            if listener is not None:
                with listener:
                    ours = self._accept(listener, deadline)
            self.sock = ours
            hello = self._read_line(deadline)
        except wire.WorkerFailure as exc:
            tail = self.log_tail()
            raise wire.WorkerFailure("startup", f"{exc}; {tail}" if tail else str(exc)) from None
        if not (isinstance(hello, dict) and hello.get("reply") == "hello"):
            self.kill()
            raise wire.WorkerFailure("startup", f"the worker said {str(hello)[:80]!r} instead of hello")
        if secret and not hmac.compare_digest(str(hello.get("secret", "")), secret):
            self.kill()
            raise wire.WorkerFailure("startup", "a connection that did not say the worker's secret")

    def _accept(self, listener: socket.socket, deadline: float) -> socket.socket:
        """The first connection to ``listener`` before ``deadline``, while the worker lives."""
        assert self.proc is not None
        while True:
            if self.proc.poll() is not None:
                raise self._died()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                raise wire.WorkerFailure("timeout")
            ready, _, _ = select.select([listener], [], [], min(0.1, remaining))
            if ready:
                return listener.accept()[0]

    def log_tail(self, chars: int = 1500) -> str:
        try:
            self.log.seek(0, os.SEEK_END)
            size = self.log.tell()
            self.log.seek(max(0, size - chars))
            return self.log.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""

    def cpu_reading(self) -> cputime.Reading | None:
        """What the kernel says of the CPU time of the worker's tree now; None where it says nothing or no
        worker runs (see :mod:`grader.cputime`)."""
        if not self.alive or self.proc is None:
            return None
        return cputime.read([self.proc.pid])

    def cpu_since(self, before: cputime.Reading | None) -> cputime.Used | None:
        """The CPU time the worker's tree used since ``before`` (a :meth:`cpu_reading`); None where there
        is no reading either side."""
        return cputime.used(before, self.cpu_reading())

    def pin(self, cpus: set[int]) -> None:
        """Put the worker (and what runs under it) on ``cpus`` where the OS allows."""
        if self.proc is None or not hasattr(os, "sched_setaffinity"):
            return
        for pid in [self.proc.pid, *confinement.descendants(self.proc.pid)]:
            try:
                os.sched_setaffinity(pid, cpus)
            except OSError:
                pass

    def _read_line(self, deadline: float) -> Any:
        """The next line from the worker, read by :func:`grader.wire.loads`, before ``deadline``.

        The worker is killed and WorkerFailure raised ("timeout", "oversized", "tampered") for a line that
        does not come in time, grows past ``wire.MAX_LINE_BYTES`` (refused as soon as it does, never read
        to its end) or does not read. Only the new bytes are searched for the end of the line: a long line
        arriving in many pieces costs its length, not its length squared."""
        assert self.sock is not None
        end = self.buffer.find(b"\n")
        while end < 0:
            if len(self.buffer) > wire.MAX_LINE_BYTES:
                self.kill()
                raise wire.WorkerFailure("oversized", "bytes")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                raise wire.WorkerFailure("timeout")
            wait = min(remaining, MEMORY_POLL_S) if self.watch_memory else remaining
            ready, _, _ = select.select([self.sock], [], [], wait)
            if not ready and self.watch_memory:
                self._check_memory()
            if not ready:
                continue
            try:
                chunk = self.sock.recv(1 << 20)
            except OSError:
                chunk = b""
            if not chunk:
                raise self._died()
            start = len(self.buffer)
            self.buffer += chunk
            end = self.buffer.find(b"\n", start)
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        try:
            return wire.loads(line)
        except wire.Oversized as exc:
            self.kill()
            raise wire.WorkerFailure("oversized", exc.what) from None
        except wire.DecodeError as exc:
            self.kill()
            raise wire.WorkerFailure("tampered", f"a line that is not JSON: {exc}") from None

    def _check_memory(self) -> None:
        """Kill the worker once its tree holds more than its memory limit (see
        :func:`grader.confinement.tree_memory_bytes`)."""
        assert self.proc is not None
        used = confinement.tree_memory_bytes(self.proc.pid)
        if used is not None and used > self.limits.memory_bytes:
            self.kill()
            raise wire.WorkerFailure("memory", f"{used / 2**30:.1f} GiB resident, over the limit")

    def _died(self) -> wire.WorkerFailure:
        assert self.proc is not None
        try:
            code = self.proc.wait(timeout=self.limits.grace_s)
        except subprocess.TimeoutExpired:
            self.kill()
            return wire.WorkerFailure("exit", "closed its channel")
        self.kill()
        kind, detail = confinement.describe_exit(code, self.bwrap is not None)
        return wire.WorkerFailure(kind, detail)

    def ask(self, op: str, timeout_s: float, **fields: Any) -> Any:
        """Send one request and return its typed reply (see :mod:`grader.wire`).

        Raises WorkerFailure when the worker does not answer within ``timeout_s`` (it is killed), dies, or
        answers out of turn or with a reply that does not read; the worker is dead afterwards. The limit
        covers the whole exchange: sending the request (a worker that stops reading its socket must not
        hold the judge in ``sendall``), the reply's bytes, and decoding them.
        """
        if not self.alive:
            self.start()
        assert self.sock is not None
        self.seq += 1
        deadline = time.monotonic() + timeout_s
        try:
            self.sock.settimeout(max(1e-3, timeout_s))
            self.sock.sendall(wire.dumps(wire.request(op, self.seq, **fields)))
            self.sock.settimeout(None)
        except TimeoutError:
            self.kill()
            raise wire.WorkerFailure("timeout") from None
        except OSError:
            raise self._died() from None
        data = self._read_line(deadline)
        if not isinstance(data, dict) or data.get("seq") != self.seq:
            self.kill()
            raise wire.WorkerFailure("tampered", "a reply out of turn")
        try:
            return wire.parse_reply(data, deadline)
        except wire.Late:
            self.kill()
            raise wire.WorkerFailure("timeout") from None
        except wire.Oversized as exc:
            self.kill()
            raise wire.WorkerFailure("oversized", exc.what) from None
        except wire.DecodeError as exc:
            self.kill()
            raise wire.WorkerFailure("tampered", f"a malformed reply ({exc})") from None

    def kill(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        self.buffer = bytearray()
        if self.proc is not None:
            confinement.kill_tree(self.proc)
        if self.home is not None:
            shutil.rmtree(self.home, ignore_errors=True)
            self.home = None
        self.loaded = {}

    def close(self) -> None:
        """Say bye, give the worker a moment, then kill whatever is left of it."""
        if self.alive and self.sock is not None:
            try:
                self.sock.sendall(wire.dumps(wire.request("bye", self.seq + 1)))
                assert self.proc is not None
                self.proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()
        self.log.close()


# ---------------------------------------------------------------------------------------------------
# 3. the judge


class _Verdict(Exception):
    """Ends a check early with a state, a message and the comparison's fields."""

    def __init__(
        self, state: State, message: str, deferred: bool = False, details: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.state = state
        self.message = message
        self.deferred = deferred
        self.details = details


def _join(lang: str, *parts: str) -> str:
    return render("sep", lang).join(p for p in parts if p)


def _parameter_order(check: Check) -> tuple[str, ...]:
    """The order of the student's parameters as the kit's own callable for the check names them (its
    reference or expected; trusted code, never the student's), for showing an input as a call reads."""
    for name in ("reference", "expected"):
        func = getattr(check, name, None)
        if callable(func):
            try:
                return tuple(inspect.signature(func).parameters)
            except (TypeError, ValueError):
                return ()
    return ()


def _inputs(check: Check, args: tuple = (), kwargs: Mapping[str, Any] | None = None) -> str:
    """A check's input as text, its keyword arguments in the function's parameter order."""
    return show_inputs(args, kwargs, _parameter_order(check))


def _details(
    text: Text, args: tuple = (), kwargs: Mapping | None = None, check: Check | None = None
) -> dict[str, str]:
    """The comparison's parts as fields beside the prose: expected, got, input and tolerance."""
    fields = dict(text.fields)
    details: dict[str, str] = {k: str(fields[k]) for k in ("expected", "got") if k in fields}
    if args or kwargs:
        details["input"] = _inputs(check, args, kwargs) if check is not None else show_inputs(args, kwargs)
    tolerance = [f"{k}={fields[k]}" for k in ("rtol", "atol") if fields.get(k) not in (None, "-")]
    if tolerance:
        details["tolerance"] = ", ".join(tolerance)
    return details


def _hint(check: Check, lang: str) -> str:
    """The check's hint as a part of the feedback, or nothing where it has none."""
    return render("hint", lang, hint=check.hint(lang)) if check.hint(lang) else ""


def _wrong(check: Check, text: Text, lang: str, args: tuple = (), kwargs: Mapping | None = None) -> _Verdict:
    inputs = render("input", lang, inputs=_inputs(check, args, kwargs)) if (args or kwargs) else ""
    return _Verdict(
        State.WRONG,
        _join(lang, describe(text, lang), inputs, _hint(check, lang)),
        details=_details(text, args, kwargs, check),
    )


def _least_seconds(work: Work, bounds: Any) -> float:
    """The fewest seconds ``work`` can take here: its bytes at the DRAM limit (a DRAM-sized working set,
    where a profile measured one) or the physical bandwidth, its FLOPs at the compute limit or peak."""
    bandwidth = bounds.bandwidth
    if bounds.dram_limit and work.bytes >= 2 * bounds.dram_bytes:  # read + write of a DRAM-sized set
        bandwidth = min(bandwidth, bounds.dram_limit)
    flops = min(bounds.peak_flops, bounds.compute_limit or math.inf)
    return max(work.bytes / bandwidth, work.flops / flops)


def _work_text(work: Work) -> str:
    parts = []
    if work.bytes:
        parts.append(f"{work.bytes:.3g} B")
    if work.flops:
        parts.append(f"{work.flops:.3g} FLOP")
    return " + ".join(parts) or "0"


def time_budget_s(exercise: Exercise) -> float:
    """The most seconds one grading of ``exercise`` may keep the student's worker busy: what an honest but
    slow submission can use, its import's time limit once and each check's time limit. Past it the checks
    left are not run (TIMEOUT): without it a submission whose import takes nearly its limit and whose
    every function hangs pays that import again after each timeout, for every check (ex02: 229 s).

    A measurement fits: its student calls share one deadline, the check's time limit (perfcore's side runs
    in the reference process, whose time is not the worker's); nor is a worker's start counted, which runs
    before any of the student's code."""
    return exercise.import_timeout_s + sum(c.timeout_s for c in exercise.checks)


def _measures(p: Prepared) -> bool:
    """Whether ``p`` will ask the reference process for a measurement."""
    check = p.check
    return (
        p.unmet is None
        and p.error is None
        and isinstance(check, (MeasurementCheck, ShapeCheck))
        and check.reference is not None
    )


class Judge:
    """Grades files: one worker per folder, started on first use and after any failure.

    ``sandbox``: confine workers with bubblewrap where it works (see :mod:`grader.confinement`);
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
        self._told = False
        self.workers: dict[str, WorkerProcess] = {}
        self.import_failures: dict[str, tuple[State, str]] = {}
        #: Seconds each (file, exercise) has kept its worker busy: imports and calls (see _request).
        self.spent: dict[tuple[str, str], float] = {}
        self._reference: Any = None
        self._bounds: Any = None
        #: The rounds of the check now running that measures (set by its runner), for the reports' plots.
        self.measured: dict[str, Any] | None = None

    # -- lifecycle

    def __enter__(self) -> Judge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Kill every worker, the reference process, and any orphan a student left behind."""
        for worker in self.workers.values():
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
            if not self.confined and not self._told and self._say is not None:
                self._told = True
                self._say(render("not_confined", self.lang, reason=self.unconfined_reason))
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
        prepared = list(prepared)
        self.start_reference(prepared, [os.path.dirname(os.path.realpath(os.fspath(file)))])
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
        prepared = prepare_exercise(exercise, self.lang, checks)
        outcomes = self.grade_file(file, prepared, source)
        return ExerciseResult(exercise.id, tuple(outcomes), deferred, exercise.title(self.lang))

    def run_check(self, p: Prepared, file: str | os.PathLike[str], source: str | None = None) -> Outcome:
        """One prepared check on the student's ``file``; never raises for the student's faults."""
        lang, check = self.lang, p.check
        path = os.path.realpath(os.fspath(file))
        shown = os.fspath(file) if source is None else source

        def done(
            state: State, message: str, deferred: bool = False, details: Mapping | None = None
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
                measured=None if self.measured is None else {**self.measured, "at": time.time()},
            )

        self.measured = None

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
        if p.error is not None:
            return done(State.ERROR, render("grader_bug", lang, error=p.error))
        try:
            self._budget_left(p.exercise, path)  # a spent budget: not run, and no reference is asked
            self._load(p.exercise, path)
            _runner_for(check)(self, p, path)
        except _Verdict as verdict:
            return done(verdict.state, verdict.message, verdict.deferred, verdict.details)
        except GraderError as exc:
            return done(State.ERROR, render("grader_bug", lang, error=f"{p.exercise.id}::{check.id}: {exc}"))
        return done(State.PASSED, render("passed", lang))

    # -- the worker's side of a check

    def _failure(self, failure: wire.WorkerFailure, step: str) -> _Verdict:
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
        return _Verdict(State.ERROR, render(f"died_{failure.kind}", self.lang, **fields))

    def _request(
        self, exercise: Exercise, path: str, step: str, op: str, timeout_s: float, **fields: Any
    ) -> Any:
        """``worker.ask(op, timeout_s, ...)`` for ``exercise`` graded from ``path``, within the exercise's
        time budget (:func:`time_budget_s`): what is left of it caps ``timeout_s``, and the time the
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
            return worker.ask(op, min(timeout_s, left), **fields)
        except wire.WorkerFailure as failure:
            if failure.kind == "timeout" and left < timeout_s:
                message = render(
                    "budget_ran_out", self.lang, step=step, exercise=exercise.id, budget=f"{budget:g}"
                )
                raise _Verdict(State.TIMEOUT, message) from None
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
            raise _Verdict(State.TIMEOUT, message)
        return left

    def _load(self, exercise: Exercise, path: str) -> None:
        """Make sure the worker has imported the student's file; raise the exercise's import failure."""
        if path in self.import_failures:
            state, message = self.import_failures[path]
            raise _Verdict(state, message)
        worker = self.worker(os.path.dirname(path))
        if worker.alive and exercise.module in worker.loaded:
            return
        name = os.path.basename(path)
        step = render("step_import", self.lang, file=name)
        try:
            loaded = self._request(
                exercise, path, step, "load", exercise.import_timeout_s, module=exercise.module, file=name
            )
        except wire.WorkerFailure as failure:
            if failure.kind == "startup":
                raise _Verdict(
                    State.ERROR, render("died_startup", self.lang, detail=failure.detail)
                ) from None
            if failure.kind == "timeout":
                verdict = _Verdict(
                    State.TIMEOUT,
                    render("import_timeout", self.lang, file=name, limit=exercise.import_timeout_s),
                )
            else:
                verdict = self._failure(failure, step)
            self.import_failures[path] = (verdict.state, verdict.message)
            raise verdict from None
        if not isinstance(loaded, wire.Loaded):
            worker.kill()
            raise self._failure(wire.WorkerFailure("tampered", "not a reply to the import"), name)
        if loaded.error is not None:
            message = render("import_error", self.lang, file=name, trace=loaded.error.trace)
            self.import_failures[path] = (State.ERROR, message)
            raise _Verdict(State.ERROR, message)
        worker.loaded[exercise.module] = loaded

    def _ask(self, p: Prepared, path: str, op: str, timeout_s: float, **fields: Any) -> Any:
        """A request for ``p``'s function; turns every failure into the check's verdict."""
        check, lang = p.check, self.lang
        worker = self.worker(os.path.dirname(path))
        if not worker.alive or p.exercise.module not in worker.loaded:
            self._load(p.exercise, path)
        step = render("step_check", lang, check=f"{p.exercise.id}::{check.id}")
        try:
            reply = self._request(
                p.exercise, path, step, op, timeout_s, module=p.exercise.module, func=check.func, **fields
            )
        except wire.WorkerFailure as failure:
            if failure.kind == "timeout":
                raise _Verdict(
                    State.TIMEOUT, render("timeout", lang, func=check.func, limit=f"{timeout_s:g}")
                ) from None
            raise self._failure(failure, step) from None
        first = reply[0] if isinstance(reply, list) and reply else reply
        if isinstance(first, wire.Raised) and first.missing:
            if first.missing == "missing":
                raise _Verdict(State.NOT_ATTEMPTED, render("func_missing", lang, func=check.func))
            raise _Verdict(
                State.ERROR, render("func_not_callable", lang, func=check.func, kind=first.missing)
            )
        return reply

    def _raised(self, p: Prepared, raised: wire.Raised, inputs: str | None = None) -> _Verdict:
        lang, func = self.lang, p.check.func
        if raised.not_attempted:
            return _Verdict(State.NOT_ATTEMPTED, render("not_attempted", lang, func=func))
        short = self._gpu_short(p, raised)
        if short is not None:
            return _Verdict(State.SKIPPED, render("student_gpu_memory", lang, reason=short), deferred=True)
        if inputs is None:
            message = render("raised", lang, func=func, trace=raised.trace)
        else:
            message = render("raised_at", lang, func=func, inputs=inputs, trace=raised.trace)
        if raised.stdout.strip():
            message += "\n" + render("output", lang, output=raised.stdout.strip()[-1500:])
        return _Verdict(State.ERROR, message)

    def _gpu_short(self, p: Prepared, raised: wire.Raised) -> str | None:
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
        from .requirements import gpu_memory_shortage

        try:
            return gpu_memory_shortage(req.gpu_memory_bytes, self.lang)
        except Exception:  # noqa: BLE001 - no reading of the free memory: the error stands
            return None

    def _value(
        self, p: Prepared, path: str, args: tuple, kwargs: Mapping[str, Any], timeout_s: float, **extra: Any
    ) -> wire.Returned:
        reply = self._ask(
            p,
            path,
            "call",
            timeout_s,
            args=[wire.encode(a) for a in args],
            kwargs={k: wire.encode(v) for k, v in kwargs.items()},
            **extra,
        )
        if isinstance(reply, wire.Raised):
            raise self._raised(p, reply)
        if not isinstance(reply, wire.Returned):
            raise self._failure(wire.WorkerFailure("tampered", "not a reply to the call"), p.check.id)
        return reply

    # -- measurements' trusted side

    def reference(self, exclude: Iterable[str] = ()) -> Any:
        """The reference process (made on first use; started on first request or by
        :meth:`start_reference`). The folders graded so far and ``exclude`` are kept off its import path."""
        if self._reference is None:
            from .reference import ReferenceProcess

            graded = (*self.workers, *(os.fspath(f) for f in exclude))
            self._reference = ReferenceProcess(self.extra_checks, self.python, exclude=graded)
        return self._reference

    def start_reference(self, prepared: Iterable[Prepared], folders: Iterable[str]) -> None:
        """Start the reference process now where a check in ``prepared`` will measure, so that it imports
        torch while the checks before it run (the student's ``folders`` stay off its import path)."""
        if any(_measures(p) for p in prepared):
            self.reference(exclude=folders).start()

    def bounds(self) -> Any:
        """This machine's bounds, with the measured ceilings of its profile (measured once, cached)."""
        if self._bounds is None:
            from perfcore.measure import make_bounds
            from perfcore.measure.profile import machine_profile

            try:
                profile = machine_profile()
            except Exception:  # noqa: BLE001 - no profile: the physical bounds alone, which are looser
                profile = None
            self._bounds = make_bounds(profile=profile)
        return self._bounds


# ---------------------------------------------------------------------------------------------------
# 4. the kinds of check


def _run_value(judge: Judge, p: Prepared, path: str) -> None:
    check = p.check
    assert isinstance(check, ValueCheck)
    got = judge._value(p, path, check.args, check.kwargs, check.timeout_s).value
    text = mismatch(p.expected, got, check.rtol, check.atol)
    if text is not None:
        raise _wrong(check, text, judge.lang, check.args, check.kwargs)


def _run_choice(judge: Judge, p: Prepared, path: str) -> None:
    check = p.check
    assert isinstance(check, ChoiceCheck)
    got = judge._value(p, path, check.args, check.kwargs, check.timeout_s).value
    answer = got.strip().lower() if isinstance(got, str) else None
    if answer not in check.choices:
        text = Text("choice_invalid", {"got": show(got), "choices": " / ".join(check.choices)})
    elif answer != p.expected:
        text = Text("choice_wrong", {"expected": show(p.expected), "got": show(got)})
    else:
        return
    raise _wrong(check, text, judge.lang, check.args, check.kwargs)


def _run_property(judge: Judge, p: Prepared, path: str) -> None:
    check, lang = p.check, judge.lang
    assert isinstance(check, PropertyCheck)
    kwargs_list = [{k: wire.encode(v) for k, v in kwargs.items()} for kwargs, _ in p.examples]
    replies = judge._ask(p, path, "call_many", check.timeout_s, kwargs_list=kwargs_list)
    if not isinstance(replies, list) or len(replies) > len(p.examples):
        raise judge._failure(wire.WorkerFailure("tampered", "not a reply to the calls"), check.id)
    failures: list[tuple[tuple[int, str], dict[str, Any], Text]] = []
    for (kwargs, expected), reply in zip(p.examples, replies, strict=False):
        if isinstance(reply, wire.Raised):
            raise judge._raised(p, reply, _inputs(check, (), kwargs))
        text = mismatch(expected, reply.value, check.rtol, check.atol)
        if text is not None:
            shown = _inputs(check, (), kwargs)
            failures.append(((len(shown), shown), kwargs, text))
    if len(replies) < len(p.examples) and not failures:
        raise judge._failure(wire.WorkerFailure("tampered", "fewer replies than inputs"), check.id)
    if failures:
        _, smallest, text = min(failures, key=lambda f: f[0])
        message = render(
            "property_wrong",
            lang,
            failed=len(failures),
            total=len(p.examples),
            inputs=_inputs(check, (), smallest),
            detail=describe(text, lang),
        )
        raise _Verdict(
            State.WRONG, _join(lang, message, _hint(check, lang)), details=_details(text, (), smallest)
        )


def _cpu_busy(stat: str = "/proc/stat") -> dict[int, int]:
    """Per CPU, the clock ticks it has spent busy (not idle, not waiting on I/O) since boot (Linux)."""
    busy: dict[int, int] = {}
    try:
        with open(stat, encoding="ascii") as fh:
            for line in fh:
                name, *fields = line.split()
                if name.startswith("cpu") and name[3:].isdigit() and len(fields) >= 5:
                    ticks = [int(f) for f in fields[:8]]
                    busy[int(name[3:])] = sum(ticks) - ticks[3] - ticks[4]
    except (OSError, ValueError):
        return {}
    return busy


def _measure_cpu(sample_s: float = CPU_SAMPLE_S) -> set[int] | None:
    """One core for the worker and the reference: of those this process may use, the one least busy over a
    short sample (another grader, or a student's other program, is likely on the others), else the last."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    cpus = sorted(os.sched_getaffinity(0))
    if not cpus:
        return None
    before = _cpu_busy()
    if before and len(cpus) > 1:
        time.sleep(sample_s)
        after = _cpu_busy()
        load = {c: after.get(c, 0) - before.get(c, 0) for c in cpus if c in before and c in after}
        if load:
            return {min(sorted(load, reverse=True), key=lambda c: load[c])}
    return {cpus[-1]}


def _pin_pair(judge: Judge, path: str) -> None:
    cpus = _measure_cpu()
    if cpus is None:
        return
    judge.worker(os.path.dirname(path)).pin(cpus)
    try:  # started here if need be: a reference left unpinned would measure on an idle core
        os.sched_setaffinity(judge.reference().start(), cpus)
    except OSError:
        pass


def _too_soon(
    judge: Judge, p: Prepared, kwargs: Mapping[str, Any], took: float, floor: float, key: str, **fields: str
) -> None:
    """Raise "no measurement taken" (message ``key``) when a call took less than ``floor`` seconds."""
    if math.isfinite(floor) and took < NO_MEASUREMENT_SHARE * floor:
        inputs = _inputs(p.check, (), kwargs)
        message = render(key, judge.lang, func=p.check.func, inputs=inputs, took=f"{took:.3g}", **fields)
        raise _Verdict(State.WRONG, message, details={"input": inputs, "got": f"{took:.3g} s"})


def _no_measurement(judge: Judge, p: Prepared, kwargs: Mapping[str, Any], took: float, work: Work) -> None:
    """A call that claims ``work`` must not return sooner than that work can be done here."""
    least = _least_seconds(work, judge.bounds())
    _too_soon(judge, p, kwargs, took, least, "no_measurement", least=f"{least:.3g}", work=_work_text(work))


def _figure(judge: Judge, p: Prepared, value: Any, kwargs: Mapping[str, Any]) -> float:
    check = p.check
    assert isinstance(check, MeasurementCheck)
    try:
        figure = float(as_number(value, check.unit))
    except NotANumber:
        figure = float("nan")
    if not (figure > 0 and figure < math.inf):
        text = Text("measure_not_number", {"unit": check.unit, "kind": kind_of(value), "got": show(value)})
        raise _wrong(check, text, judge.lang, (), kwargs)
    return figure


class _Budget:
    """When a check may add rounds: while fewer than ``MAX_ROUNDS_FACTOR`` x its own, and while two more
    rounds at the pace so far end within ``ROUNDS_BUDGET_SHARE`` of its time limit."""

    def __init__(self, check: MeasurementCheck | ShapeCheck) -> None:
        self.started = time.monotonic()
        self.seconds = ROUNDS_BUDGET_SHARE * check.timeout_s
        self.max_rounds = MAX_ROUNDS_FACTOR * check.rounds

    def more(self, done: int) -> bool:
        if done + 2 > self.max_rounds:
            return False
        elapsed = time.monotonic() - self.started
        return elapsed + 2 * elapsed / max(1, done) <= self.seconds


def _confidence(interval: stats.Interval) -> str:
    return f"{interval.confidence:.0%}"


def _evidence(check: MeasurementCheck | ShapeCheck, ratio: float, lang: str) -> str:
    """What a ratio beyond the band points at: a figure that reads faster than perfcore doing the same work
    (another operation, a cache-resident size, bytes counted twice), or slower (allocation, page faults,
    threads, a cold call, bytes counted once)."""
    higher_is_better = getattr(check, "higher_is_better", False)  # a curve of seconds: lower is faster
    faster = (ratio > 1) == higher_is_better
    return render("evidence_faster" if faster else "evidence_slower", lang)


def _undecided(
    judge: Judge, interval: stats.Interval, band: tuple[float, float], mine_spread: float, ref_spread: float
) -> _Verdict:
    """The verdict when an interval still straddles the band after every round the budget allowed: wrong
    when the student's own figures scatter (their round-to-round spread beyond ``max_noise`` and
    ``SCATTER_FACTOR`` x perfcore's in the same rounds: the method's doing), else deferred (the machine's)."""
    fields = {
        "rounds": interval.rounds,
        "confidence": _confidence(interval),
        "interval": stats.interval_text(interval, band),
        "low": band[0],
        "high": band[1],
        "mine": f"{mine_spread:.3g}",
        "reference": f"{ref_spread:.3g}",
    }
    if mine_spread > max(judge.max_noise, SCATTER_FACTOR * ref_spread):
        return _Verdict(State.WRONG, render("measure_scattered", judge.lang, **fields))
    return _Verdict(State.SKIPPED, render("measure_undecided", judge.lang, **fields), deferred=True)


def _device_name(device: str) -> str | None:
    """The GPU a measurement ran on (the report names it on the plot), as ``grades.json`` names it; None on
    the CPU."""
    if device == "cpu":
        return None
    from .report import gpu_name

    name = gpu_name()
    return None if name == "none" else name


def _run_measurement(judge: Judge, p: Prepared, path: str) -> None:
    check, lang = p.check, judge.lang
    assert isinstance(check, MeasurementCheck)
    band = check.ratio_band
    try:
        bound = float(check.physical_bound()) if check.physical_bound is not None else None
        work = check.work(**check.kwargs) if check.work is not None else None
    except Exception as exc:
        raise GraderError(f"physical_bound() or work() raised {exc!r}") from exc
    deadline = time.monotonic() + check.timeout_s
    threads = 1 if check.single_thread else None

    def student(kwargs: Mapping[str, Any], least_work: Work | None) -> float:
        remaining = max(0.1, deadline - time.monotonic())
        worker = judge.worker(os.path.dirname(path))
        cpu_before = worker.cpu_reading()
        start = time.perf_counter()
        reply = judge._value(p, path, (), kwargs, remaining, threads=threads)
        took = time.perf_counter() - start
        cpu = worker.cpu_since(cpu_before)
        if least_work is not None:
            _no_measurement(judge, p, kwargs, took, least_work)
        figure = _figure(judge, p, reply.value, kwargs)
        claimed: float | None = None
        if check.unit == "s":  # one call must last at least the time it says one operation takes
            claimed = figure
            _claimed_time(judge, p, kwargs, took, claimed)
        elif least_work is not None:  # and a rate says that time too: a constant rate cannot spend it
            claimed = _claimed_rate(judge, p, kwargs, took, figure, least_work)
        if claimed is not None and not (check.requires.cuda or check.requires.mps):
            _worked(judge, p, kwargs, claimed, cpu)  # on a GPU the CPU may wait for the device
        return figure

    def reference(kwargs: Mapping[str, Any] = check.kwargs) -> float:
        try:  # always at the judge's input: the reference process never works out the sizes itself
            return judge.reference().measure(p.exercise.id, check.id, dict(kwargs))
        except ReferenceShortage as exc:  # the GPU's memory, not a grader bug: deferred with the reason
            raise _Verdict(State.SKIPPED, render("ref_gpu_memory", lang, error=exc), deferred=True) from None
        except RuntimeError as exc:
            raise GraderError(f"the reference measurement failed: {exc}") from exc

    _pin_pair(judge, path)
    budget = _Budget(check)
    mine: list[float] = []
    ref: list[float] = []
    # the lists fill as rounds are taken: the outcome carries every round of the check's own input
    device = "cuda" if check.requires.cuda else "mps" if check.requires.mps else "cpu"
    judge.measured = {
        "unit": check.unit,
        "kind": check.kind,
        "device": device,
        "device_name": _device_name(device),
        "mine": mine,
        "reference": ref,
        "bound": bound,
    }
    if work is not None and work.bytes > 0 and work.flops > 0:
        judge.measured["intensity"] = work.flops / work.bytes

    def one_round() -> None:  # A B: both see the same drift of the machine
        mine.append(student(check.kwargs, work))
        ref.append(reference())

    for _ in range(check.rounds):
        one_round()
    got, expected = statistics.median(mine), statistics.median(ref)
    fields = {"got": show(got), "reference": show(expected), "unit": check.unit}
    if bound is not None and (got > bound if check.higher_is_better else got < bound):
        key = "measure_bound" if check.higher_is_better else "measure_below"
        raise _wrong(check, Text(key, {**fields, "bound": show(bound)}), lang, (), check.kwargs)
    interval = stats.median_interval(stats.paired_ratios(mine, ref))
    while stats.place(interval, band) == stats.STRADDLES and budget.more(len(mine)):
        one_round()
        one_round()
        interval = stats.median_interval(stats.paired_ratios(mine, ref))
    where = stats.place(interval, band)
    if where != stats.OUTSIDE:
        # The probe runs after the check's own rounds (a large probe leaves the allocator and the caches
        # unlike before it), and before any deferral: a made-up figure that happens to straddle an edge
        # must not be deferred when it cannot follow the physics to an input it has not seen.
        if check.probe is not None:
            _probe(judge, p, path, student, reference)
        if where == stats.STRADDLES:
            raise _undecided(judge, interval, band, stats.spread(mine), stats.spread(ref))
        return
    low, high = band
    expected = statistics.median(ref)
    text = Text(
        "measure_outside",
        {
            "got": show(statistics.median(mine)),
            "reference": show(expected),
            "unit": check.unit,
            "ratio": stats.ratio_text(interval.median, band),
            "rounds": interval.rounds,
            "confidence": _confidence(interval),
            "interval": stats.interval_text(interval, band),
            "low": low,
            "high": high,
        },
    )
    inputs = render("input", lang, inputs=_inputs(check, (), check.kwargs)) if check.kwargs else ""
    raise _Verdict(
        State.WRONG,
        _join(
            lang, describe(text, lang), inputs, _evidence(check, interval.median, lang), _hint(check, lang)
        ),
        details={
            **_details(text, (), check.kwargs, check),
            "expected": f"{show(expected)} {check.unit}",
            "tolerance": f"ratio in [{low}, {high}] ({_confidence(interval)} interval)",
        },
    )


def probe_seed(path: str, check: Check) -> int:
    """The seed of a check's probe: from the submission's bytes, so the same code meets the same probe."""
    digest = hashlib.sha256(check.id.encode())
    try:
        with open(path, "rb") as fh:
            digest.update(fh.read())
    except OSError:
        pass
    return int.from_bytes(digest.digest()[:8], "big")


def _probe_input(check: MeasurementCheck | ShapeCheck, path: str) -> dict[str, Any]:
    """The input of ``check``'s probe for the submission at ``path`` (see :func:`probe_seed`)."""
    assert check.probe is not None
    try:
        return dict(check.probe(random.Random(probe_seed(path, check))))
    except Exception as exc:
        raise GraderError(f"probe() raised {exc!r}") from exc


def _probe(
    judge: Judge,
    p: Prepared,
    path: str,
    student: Callable[[Mapping[str, Any], Work | None], float],
    reference: Callable[[Mapping[str, Any]], float],
) -> None:
    """On an input the student has not seen, the figure must be physically possible and follow perfcore's
    figure at the same input (A B A B): wrong only when the whole interval of the paired ratios lies
    outside the band of the probe's kind (the check's own input has decided the rest)."""
    check, lang = p.check, judge.lang
    assert isinstance(check, MeasurementCheck) and check.probe is not None and check.work is not None
    kwargs = _probe_input(check, path)
    try:
        work = check.work(**kwargs)
    except Exception as exc:
        raise GraderError(f"work() raised {exc!r}") from exc
    inputs = _inputs(check, (), kwargs)
    mine: list[float] = []
    ref: list[float] = []
    least = _least_seconds(work, judge.bounds())
    if check.unit == "s":
        bound = least
    else:
        amount = work.bytes if check.unit == "B/s" else work.flops
        bound = amount / least if least > 0 else math.inf
    if judge.measured is not None:  # the report draws the probe beside the check's own input
        judge.measured["probe"] = {
            "kind": check.probe_kind or check.kind,
            "input": inputs,
            "mine": mine,
            "reference": ref,
            "bound": bound if math.isfinite(bound) else None,
        }
    for _ in range(PROBE_ROUNDS):
        mine.append(student(kwargs, work))
        ref.append(reference(kwargs))
    figure = statistics.median(mine)
    if check.unit == "s":
        impossible = figure < NO_MEASUREMENT_SHARE * least
    else:
        impossible = figure > bound / NO_MEASUREMENT_SHARE
    if impossible:
        message = render(
            "probe_impossible", lang, inputs=inputs, got=show(figure), unit=check.unit, bound=show(bound)
        )
        raise _Verdict(State.WRONG, message, details={"input": inputs, "got": show(figure)})
    band = MEASUREMENT_BANDS[check.probe_kind or check.kind]
    interval = stats.median_interval(stats.paired_ratios(mine, ref))
    if stats.place(interval, band) == stats.OUTSIDE:
        message = render(
            "probe_band",
            lang,
            inputs=inputs,
            ratio=stats.ratio_text(interval.median, band),
            confidence=_confidence(interval),
            interval=stats.interval_text(interval, band),
            low=band[0],
            high=band[1],
        )
        raise _Verdict(
            State.WRONG,
            _join(lang, message, _evidence(check, interval.median, lang), _hint(check, lang)),
            details={"input": inputs, "got": show(figure), "tolerance": f"ratio in [{band[0]}, {band[1]}]"},
        )


def _run_shape(judge: Judge, p: Prepared, path: str) -> None:
    check, lang = p.check, judge.lang
    assert isinstance(check, ShapeCheck)
    deadline = time.monotonic() + check.timeout_s

    def student(kwargs: Mapping[str, Any]) -> Any:
        """The student's curve at ``kwargs``, after the call shows it measured (its work, its seconds)."""
        try:
            work = check.work(**kwargs) if check.work is not None else None
        except Exception as exc:
            raise GraderError(f"work() raised {exc!r}") from exc
        start = time.perf_counter()
        remaining = max(0.1, deadline - time.monotonic())
        reply = judge._value(p, path, (), kwargs, remaining, threads=1 if check.single_thread else None)
        took = time.perf_counter() - start
        if work is not None:
            _no_measurement(judge, p, kwargs, took, work)
        if check.shape == "overhead":  # a curve of seconds: the call lasted at least as long as what it timed
            try:
                _claimed_time(judge, p, kwargs, took, float(as_curve(reply.value)[1].sum()))
            except MalformedCurve:
                pass  # the shape test says what is wrong with it
        return reply.value

    def reference(kwargs: Mapping[str, Any] = check.kwargs) -> Any:
        try:  # always at the judge's input: the reference process never works out the sizes itself
            return judge.reference().value(p.exercise.id, check.id, dict(kwargs))
        except RuntimeError as exc:
            raise GraderError(f"the reference curve failed: {exc}") from exc

    if check.reference is None:
        value = student(check.kwargs)
        shape = check.shape if isinstance(check.shape, str) else "value"
        judge.measured = {"shape": shape, "mine": [value], "reference": []}
        text = shape_problem(check.shape, value)
        if text is not None:
            raise _wrong(check, text, lang, (), check.kwargs)
        return
    _pin_pair(judge, path)
    if callable(check.shape):  # one value, not a curve: perfcore's must show what the student's must
        _run_custom_shape(judge, p, check, student, reference)
        return
    budget = _Budget(check)
    mine_curves: list[Any] = []
    ref_curves: list[Any] = []
    judge.measured = {"shape": check.shape, "mine": mine_curves, "reference": ref_curves}

    def one_round() -> None:  # A B A B
        mine_curves.append(student(check.kwargs))
        ref_curves.append(reference())

    def student_curve() -> Any:
        """The median of the student's rounds, point by point, as for the reference: one noisy round is
        not the method."""
        try:
            return _median_curve(mine_curves)
        except (MalformedCurve, ValueError):
            return mine_curves[-1]

    def state() -> tuple[Text | None, Text | None, _CurveComparison | None]:
        reference_problem = shape_problem(check.shape, _median_curve(ref_curves))
        comparison = _compare_curves(check, mine_curves, ref_curves)
        return reference_problem, shape_problem(check.shape, student_curve()), comparison

    def undecided(state: tuple[Text | None, Text | None, _CurveComparison | None]) -> bool:
        """Worth more rounds: perfcore's curve lacks the shape (the machine, now), the points are not
        decided, or the student's curve lacks the shape while its points are not wholly off (noise can
        bend a median of a few rounds; a wrong method stays wrong over more)."""
        reference_problem, student_problem, comparison = state
        if reference_problem is not None:
            return True
        if comparison is None:
            return False
        return comparison.undecided or (student_problem is not None and not comparison.wrong)

    for _ in range(check.rounds):
        one_round()
    current = state()
    while undecided(current) and budget.more(len(mine_curves)):
        one_round()
        one_round()
        current = state()
    reference_problem, student_problem, comparison = current
    if reference_problem is not None:  # this machine cannot show the shape now
        why = describe(reference_problem, lang)
        raise _Verdict(State.SKIPPED, render("curve_reference_shape", lang, why=why), deferred=True)
    if student_problem is not None:
        raise _wrong(check, student_problem, lang, (), check.kwargs)
    if comparison is not None and comparison.wrong:
        _curve_verdict(judge, check, comparison, check.kwargs)
    if check.probe is not None:  # other sizes, unseen: a made-up table cannot follow the machine there,
        kwargs = _probe_input(check, path)  # and is not deferred below for straddling on its own input
        mine: list[Any] = []
        theirs: list[Any] = []
        for _ in range(PROBE_ROUNDS):  # A B A B, as on the check's own input
            mine.append(student(kwargs))
            theirs.append(reference(kwargs))
        probe = _compare_curves(check, mine, theirs)
        if probe is not None and probe.wrong:
            _curve_verdict(judge, check, probe, kwargs, probe=True)
    if comparison is not None:
        _curve_verdict(judge, check, comparison, check.kwargs)  # undecided: deferred, or the scatter's


def _typical(values: list[Any]) -> Any:
    """The median of ``values`` where all are numbers (a speedup measured over rounds), else the last."""
    numbers = []
    for v in values:
        try:
            numbers.append(float(as_number(v, "")))
        except NotANumber:
            return values[-1]
    return statistics.median(numbers)


def _run_custom_shape(
    judge: Judge,
    p: Prepared,
    check: ShapeCheck,
    student: Callable[[Mapping[str, Any]], Any],
    reference: Callable[[], Any],
) -> None:
    """A custom test of one value (m3c: tiled beats naive by 1.2x) against perfcore's value measured
    alternately: deferred where perfcore's own median fails the test here; rounds added while the
    student's median fails it and perfcore's passes (load bends a speedup); wrong if it still fails."""
    lang = judge.lang
    budget = _Budget(check)
    mine: list[Any] = []
    theirs: list[Any] = []
    judge.measured = {"shape": "value", "mine": mine, "reference": theirs}

    def problems() -> tuple[Text | None, Text | None]:
        return shape_problem(check.shape, _typical(theirs)), shape_problem(check.shape, _typical(mine))

    for _ in range(check.rounds):
        mine.append(student(check.kwargs))
        theirs.append(reference())
    reference_problem, student_problem = problems()
    while (reference_problem is not None or student_problem is not None) and budget.more(len(mine)):
        for _ in range(2):
            mine.append(student(check.kwargs))
            theirs.append(reference())
        reference_problem, student_problem = problems()
    if reference_problem is not None:
        why = describe(reference_problem, lang)
        raise _Verdict(State.SKIPPED, render("curve_reference_shape", lang, why=why), deferred=True)
    if student_problem is not None:
        raise _wrong(check, student_problem, lang, (), check.kwargs)


def _median_curve(curves: list[Any]) -> list[tuple[float, float]]:
    """Point by point, the median y of ``curves`` (all of one length; the first one's x)."""
    arrays = [as_curve(c) for c in curves]
    xs = arrays[0][0]
    if any(len(a[0]) != len(xs) for a in arrays):
        raise ValueError("curves of different lengths")
    return [(float(x), float(statistics.median(float(a[1][i]) for a in arrays))) for i, x in enumerate(xs)]


@dataclass(frozen=True)
class _CurveComparison:
    """A student's curves against perfcore's, round by round, point by point: each point's interval of
    paired ratios (see :mod:`grader.stats`) is inside the band, outside it, or straddles an edge."""

    band: tuple[float, float]
    points: tuple[tuple[float, stats.Interval, str], ...]  # (x, interval, place)
    mine: tuple[float, ...]  # per point, the student's round-to-round spread
    ref: tuple[float, ...]  # per point, perfcore's

    @property
    def outside(self) -> list[tuple[float, stats.Interval, str]]:
        return [pt for pt in self.points if pt[2] == stats.OUTSIDE]

    @property
    def wrong(self) -> bool:
        """More than a third of the points wholly outside: one noisy point is not a wrong method."""
        return 3 * len(self.outside) > len(self.points)

    @property
    def undecided(self) -> bool:
        """Not wrong yet, but wrong if the straddling points fell outside."""
        unclear = sum(1 for pt in self.points if pt[2] != stats.INSIDE)
        return not self.wrong and 3 * unclear > len(self.points)


def _compare_curves(check: ShapeCheck, mine: list[Any], ref: list[Any]) -> _CurveComparison | None:
    """The point-by-point comparison of rounds of curves, or None where the student's curves are malformed
    or of another length than perfcore's (the shape test says what is wrong with them)."""
    try:
        students = [as_curve(c) for c in mine]
        references = [as_curve(c) for c in ref]
    except MalformedCurve:
        return None
    n = len(references[0][0])
    if any(len(c[0]) != n for c in students + references):
        return None
    points = []
    mine_spread, ref_spread = [], []
    band = MEASUREMENT_BANDS[check.kind]
    for i in range(n):
        ys = [float(c[1][i]) for c in students]
        rs = [float(c[1][i]) for c in references]
        if not all(math.isfinite(y) and y > 0 for y in ys):
            return None
        interval = stats.median_interval(stats.paired_ratios(ys, rs))
        points.append((float(students[0][0][i]), interval, stats.place(interval, band)))
        mine_spread.append(stats.spread(ys))
        ref_spread.append(stats.spread(rs))
    return _CurveComparison(band, tuple(points), tuple(mine_spread), tuple(ref_spread))


def _curve_verdict(
    judge: Judge,
    check: ShapeCheck,
    comparison: _CurveComparison,
    kwargs: Mapping[str, Any],
    probe: bool = False,
) -> None:
    """Raise the verdict of a comparison that is not a pass: wrong with the farthest point, or, still
    undecided after the rounds the budget allowed, wrong where the student's own points scatter and else
    deferred. ``probe``: the curve was asked for at inputs the student has not seen, and the message says so."""
    lang = judge.lang
    low, high = comparison.band
    inputs = _inputs(check, (), kwargs)
    if comparison.wrong:
        worst_x, worst, _ = max(
            comparison.outside,
            key=lambda pt: abs(math.log(pt[1].median)) if 0 < pt[1].median < math.inf else math.inf,
        )
        message = render(
            "curve_points",
            lang,
            off=len(comparison.outside),
            total=len(comparison.points),
            x=show(worst_x),
            ratio=stats.ratio_text(worst.median, comparison.band),
            low=low,
            high=high,
        )
        unseen = render("probe_curve", lang, inputs=inputs) if probe else ""
        raise _Verdict(
            State.WRONG,
            _join(lang, unseen + message, _evidence(check, worst.median, lang), _hint(check, lang)),
            details={"input": inputs, "tolerance": f"ratio in [{low}, {high}]"},
        )
    if comparison.undecided:
        _, interval, _ = next(pt for pt in comparison.points if pt[2] != stats.INSIDE)
        mine, ref = statistics.median(comparison.mine), statistics.median(comparison.ref)
        raise _undecided(judge, interval, comparison.band, mine, ref)


def _claimed_time(judge: Judge, p: Prepared, kwargs: Mapping[str, Any], took: float, claimed: float) -> None:
    """A call must not return sooner than the seconds it says it measured."""
    _too_soon(judge, p, kwargs, took, claimed, "no_measurement_claimed", claimed=f"{claimed:.3g}")


def _claimed_rate(
    judge: Judge, p: Prepared, kwargs: Mapping[str, Any], took: float, figure: float, work: Work
) -> float | None:
    """A call reporting a rate must not return sooner than one run of its operation takes at that rate:
    this holds on every machine, even one whose caches and DRAM run alike, where a probe cannot tell a
    constant from a measurement. Returns that time (None where the work has none of the rate's unit)."""
    unit = p.check.unit if isinstance(p.check, MeasurementCheck) else ""
    amount = work.bytes if unit == "B/s" else work.flops if unit == "FLOP/s" else 0.0
    if amount <= 0:
        return None
    claimed = amount / figure
    _too_soon(
        judge,
        p,
        kwargs,
        took,
        CLAIMED_RATE_SHARE * claimed,
        "no_measurement_rate",
        claimed=f"{claimed:.3g}",
        got=show(figure),
        unit=unit,
        work=_work_text(work),
    )
    return claimed


def _worked(
    judge: Judge, p: Prepared, kwargs: Mapping[str, Any], claimed: float, used: cputime.Used | None
) -> None:
    """A call on the CPU that says one run of its operation takes ``claimed`` seconds must have kept a CPU
    busy for a share of that: a call that sleeps out the time and returns a made-up figure has not.
    ``used``: the CPU time of the worker's tree during the call; skipped where the kernel gave no reading,
    or the share is too short to read at its resolution. Time the reading could not see (a process the
    call started ended with nothing in the tree waiting for it) is not taken on trust."""
    if used is None or claimed < CPU_CHECK_MIN_S:
        return
    cpu = used.seconds
    floor = CPU_SHARE * claimed
    if floor < 2 * used.resolution or cpu >= floor:
        return
    inputs = _inputs(p.check, (), kwargs)
    message = render(
        "no_measurement_cpu" if used.complete else "no_measurement_cpu_unseen",
        judge.lang,
        func=p.check.func,
        inputs=inputs,
        claimed=f"{claimed:.3g}",
        cpu=f"{cpu:.3g}",
    )
    raise _Verdict(State.WRONG, message, details={"input": inputs, "got": f"{cpu:.3g} s CPU"})


_KIND_RUNNERS: dict[type, Callable[[Judge, Prepared, str], None]] = {
    ValueCheck: _run_value,
    ChoiceCheck: _run_choice,
    PropertyCheck: _run_property,
    MeasurementCheck: _run_measurement,
    ShapeCheck: _run_shape,
}


def _runner_for(check: Check) -> Callable[[Judge, Prepared, str], None]:
    for cls, runner in _KIND_RUNNERS.items():
        if isinstance(check, cls):
            return runner
    raise GraderError(f"no runner for checks of type {type(check).__name__}")
