"""Batch grading: every student's folder of ``.py`` files, each in its own confined process.

``python -m grader grade SUBMISSIONS_DIR`` (one sub-folder per student, each a copy of ``exercises/``):

1. **Files.** For each student, the files whose stems are registered exercise modules are taken from the
   top of the folder (or, where none is there, from the shallowest sub-folder that has them). Nothing else
   is used: no test file, ``conftest.py``, ``pytest.ini`` or helper module of the submission. A symbolic
   link or a file over 1 MiB is not graded (a clear message says why); a missing file is not attempted.
2. **Processes.** Each child (:mod:`grader.worker`) gets a fresh temporary copy of those files, its cwd,
   and runs ``python -I -m grader.worker`` under the limits and, where it works, inside bubblewrap
   (:mod:`grader.batch_sandbox`). The checks are the installed kit's; the worker removes path entries
   through which ``solutions`` could be imported, and bubblewrap hides the kit's ``solutions``, ``tests``
   and ``.git``, the submissions and the output folder.
3. **Schedule.** Formula exercises (no check needing a serial run) of different students run in parallel,
   ``--jobs`` children at a time (default: the number of cores), one child per student. Then the exercises
   with measurement checks run one student at a time, after the machine profile has been measured (or
   read) once by a trusted process and exposed read-only, so that nothing else loads the machine.
4. **Results.** The worker reports each step on a pipe (never stdout or a file). The parent knows the plan,
   so when a child dies (``os._exit``, a signal, the CPU, memory or output limit) or passes a step's
   wall-clock limit (the check's own time limit plus ``grace_s``), the step that was running scores 0 with
   a message saying what happened, and a new child grades the rest. Every outcome is checked against the
   trusted registry (ids, order, points), and rebuilt from it.
5. **Output.** ``grades.csv`` (one row per student: score, maximum, deferred points, then the points of
   every ``exercise::check``), ``grades.json`` (every outcome with its state and message, the limits and
   the sandbox used) and, with ``--gradescope``, ``gradescope/<student>/results.json``.

Deferred checks (requirements unmet on this machine, or a machine too noisy to measure) are listed as
deferred and left out of the maximum, as in the pytest plugin, or count as zero with ``--deferred zero``.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .batch_messages import render
from .batch_sandbox import Limits, bwrap_command, describe_exit, find_bwrap, launcher
from .outcome import STATES, Outcome
from .registry import load_exercises
from .runner import DEFAULT_MAX_NOISE
from .spec import Check, Exercise

#: Largest exercise file that is graded.
MAX_FILE_BYTES = 1 << 20
#: Longest line the worker may send, and the most of a log shown in a message.
MAX_LINE_BYTES = 1 << 20
LOG_TAIL_CHARS = 1500
MAX_MESSAGE_CHARS = 4000
#: The kit's folders hidden inside the sandbox (relative to the folder holding the grader package).
KIT_HIDDEN = ("solutions", "tests", ".git")

_KIT_ROOT = Path(__file__).resolve().parent.parent


class BatchError(ValueError):
    """A bad argument or folder given to the batch grader."""


# ---------------------------------------------------------------------------------------------------
# configuration and students


@dataclass(frozen=True)
class BatchConfig:
    """How to grade. ``exercises``: ids (or module stems) to grade, all when empty."""

    exercises: tuple[str, ...] = ()
    lang: str = "zh"
    deferred: str = "defer"
    max_noise: float = DEFAULT_MAX_NOISE
    jobs: int = 0
    limits: Limits = Limits()
    sandbox: bool = True
    hide: tuple[str, ...] = ()
    grader_checks: tuple[str, ...] = ()
    python: str = sys.executable
    progress: bool = True

    def __post_init__(self) -> None:
        if self.lang not in ("zh", "en"):
            raise BatchError(f"lang must be 'zh' or 'en', got {self.lang!r}")
        if self.deferred not in ("defer", "zero"):
            raise BatchError(f"deferred must be 'defer' or 'zero', got {self.deferred!r}")
        if not self.max_noise > 0:
            raise BatchError(f"max_noise must be positive, got {self.max_noise!r}")
        if self.jobs < 0:
            raise BatchError(f"jobs must be >= 0 (0: one per core), got {self.jobs}")

    @property
    def workers(self) -> int:
        return self.jobs or os.cpu_count() or 1


@dataclass(frozen=True)
class Student:
    """One student's folder and the files found there: ``{module stem: path}`` and problems by stem."""

    name: str
    folder: Path
    files: dict[str, Path] = field(default_factory=dict)
    problems: dict[str, tuple[str, str]] = field(default_factory=dict)


def selected_exercises(config: BatchConfig) -> list[Exercise]:
    """The registered exercises to grade, in registry order; a BatchError names an unknown one."""
    exercises = load_exercises(config.grader_checks)
    if not config.exercises:
        return list(exercises.values())
    stems = {e.module: e for e in exercises.values()}
    chosen: list[Exercise] = []
    for name in config.exercises:
        exercise = exercises.get(name) or stems.get(name)
        if exercise is None:
            raise BatchError(f"--exercises: no exercise {name!r}; known: {', '.join(exercises)}")
        if exercise not in chosen:
            chosen.append(exercise)
    return [e for e in exercises.values() if e in chosen]


def _find_file(folder: Path, stem: str) -> Path | None:
    top = folder / f"{stem}.py"
    if top.exists() or top.is_symlink():
        return top
    found = sorted(
        (p for p in folder.rglob(f"{stem}.py") if not any(part.startswith(".") for part in p.parts)),
        key=lambda p: (len(p.parts), str(p)),
    )
    return found[0] if found else None


def find_students(root: str | os.PathLike[str], exercises: Sequence[Exercise], lang: str) -> list[Student]:
    """The students under ``root`` (its sub-folders, sorted) and their exercise files."""
    base = Path(root)
    if not base.is_dir():
        raise BatchError(f"SUBMISSIONS_DIR {os.fspath(root)!r} is not a folder")
    students = []
    for folder in sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith(".")):
        files: dict[str, Path] = {}
        problems: dict[str, tuple[str, str]] = {}
        for exercise in exercises:
            name = f"{exercise.module}.py"
            path = _find_file(folder, exercise.module)
            if path is None:
                problems[exercise.module] = ("not_attempted", render("file_missing", lang, file=name))
            elif path.is_symlink() or not path.is_file():
                problems[exercise.module] = ("error", render("file_link", lang, file=name))
            elif path.stat().st_size > MAX_FILE_BYTES:
                size = path.stat().st_size
                text = render("file_too_big", lang, file=name, size=size, limit=MAX_FILE_BYTES)
                problems[exercise.module] = ("error", text)
            else:
                files[exercise.module] = path
        students.append(Student(folder.name, folder, files, problems))
    return students


def _copy_files(student: Student, into: Path) -> None:
    """Copy the student's exercise files (contents only, no links followed) into the empty ``into``."""
    for stem, path in student.files.items():
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(path, flags)
        except OSError:
            continue  # replaced by a link meanwhile: graded as an import error (file missing)
        with os.fdopen(fd, "rb") as src:
            data = src.read(MAX_FILE_BYTES + 1)[:MAX_FILE_BYTES]
        (into / f"{stem}.py").write_bytes(data)


# ---------------------------------------------------------------------------------------------------
# outcomes the parent writes itself


def _outcome(exercise: Exercise, check: Check, state: str, message: str, lang: str, source: str) -> Outcome:
    return Outcome(
        exercise=exercise.id,
        check_id=check.id,
        part=check.part,
        state=state,
        points=0.0,
        max_points=float(check.points),
        message=message[:MAX_MESSAGE_CHARS],
        kind=check.check_kind,
        visibility=check.visibility,
        number=exercise.number(check.id),
        title=exercise.title(lang),
        source=source,
    )


def _trusted(exercise: Exercise, check: Check, data: Any, lang: str, source: str) -> Outcome | None:
    """The worker's outcome rebuilt from the registry, or None when it is inconsistent with it."""
    if not isinstance(data, dict):
        return None
    state, message, deferred = data.get("state"), data.get("message"), data.get("deferred", False)
    if data.get("exercise") != exercise.id or data.get("check_id") != check.id:
        return None
    if state not in STATES or not isinstance(message, str) or not isinstance(deferred, bool):
        return None
    expected_points = float(check.points) if state == "passed" else 0.0
    points = data.get("points")
    if isinstance(points, bool) or not isinstance(points, (int, float)) or float(points) != expected_points:
        return None
    if data.get("max_points") != float(check.points) or (deferred and state != "skipped"):
        return None
    base = _outcome(exercise, check, state, message, lang, source)
    return Outcome(**{**base.to_dict(), "points": expected_points, "deferred": deferred})


# ---------------------------------------------------------------------------------------------------
# one child


@dataclass
class _Cursor:
    """Where a child is in its plan: ``stage`` is startup, prepare, import, check or done."""

    plan: list[tuple[Exercise, list[Check]]]
    exercise: int = 0
    check: int = 0
    stage: str = "startup"
    student_code_ran: bool = False
    finished: bool = False

    def current(self) -> tuple[Exercise, list[Check]]:
        return self.plan[self.exercise]

    def advance(self) -> None:
        if self.stage == "done":
            self.finished = True
        elif self.stage == "startup":
            self.stage = "prepare" if self.plan else "done"
        elif self.stage == "prepare":
            self.stage = "import"
        elif self.stage == "import":
            self.stage, self.check, self.student_code_ran = "check", 0, True
        elif self.stage == "check":
            self.check += 1
            if self.check >= len(self.current()[1]):
                self.exercise, self.check = self.exercise + 1, 0
                self.stage = "prepare" if self.exercise < len(self.plan) else "done"

    def expects(self, message: Any) -> bool:
        kind = message.get("type") if isinstance(message, dict) else None
        if self.stage == "startup":
            return kind == "hello"
        if self.stage == "done":
            return kind == "done"
        exercise_id = self.current()[0].id
        if self.stage in ("prepare", "import"):
            wanted = "prepared" if self.stage == "prepare" else "loaded"
            return kind == wanted and message.get("exercise") == exercise_id
        return kind == "outcome"

    def budget(self, limits: Limits) -> float:
        """Seconds the current step may take (wall clock)."""
        if self.stage == "startup":
            return limits.startup_s
        if self.stage == "prepare":
            return limits.prepare_s
        if self.stage == "import":
            return self.current()[0].import_timeout_s + limits.grace_s
        if self.stage == "check":
            return self.current()[1][self.check].timeout_s + limits.grace_s
        return limits.grace_s

    def rest(self) -> list[tuple[Exercise, list[Check]]]:
        """The plan from the current step on (for a new child), the current step included."""
        if self.stage == "done" or self.exercise >= len(self.plan):
            return []
        exercise, checks = self.current()
        first = checks[self.check :] if self.stage == "check" else checks
        return [(exercise, first), *self.plan[self.exercise + 1 :]]


@dataclass
class _Environment:
    """What every child shares: the config, bwrap (or None), hidden paths, the cache, the scratch folder."""

    config: BatchConfig
    bwrap: str | None
    hidden: tuple[str, ...]
    cache_dir: str | None
    scratch: Path
    active: set[subprocess.Popen[bytes]] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: bool = False

    def stop(self) -> None:
        """Kill every running child (the grader is interrupted); no new child starts."""
        with self.lock:
            self.stopping = True
            procs = list(self.active)
        for proc in procs:
            _kill(proc)


def _step_name(cursor: _Cursor, lang: str) -> str:
    if cursor.stage == "startup" or cursor.exercise >= len(cursor.plan):
        return render("step_startup", lang)
    exercise, checks = cursor.current()
    if cursor.stage == "prepare":
        return render("step_prepare", lang, exercise=exercise.id)
    if cursor.stage == "import":
        return render("step_import", lang, file=f"{exercise.module}.py")
    return render("step_check", lang, check=f"{exercise.id}::{checks[cursor.check].id}")


def _child_env(env: _Environment, copy_dir: Path, parallel: bool) -> dict[str, str]:
    home = "/tmp" if env.bwrap else str(copy_dir / ".home")
    if not env.bwrap:
        os.makedirs(home, exist_ok=True)
    child = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "HOME": home,
        "TMPDIR": home,
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": home,
    }
    if env.cache_dir:
        child["PERFKIT_CACHE_DIR"] = env.cache_dir
    if parallel:  # formula checks: one thread each, so that parallel children do not oversubscribe the cores
        child.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    return child


def _log_tail(path: Path) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - LOG_TAIL_CHARS))
            return fh.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except ProcessLookupError:
        pass
    proc.wait()


def _run_child(
    env: _Environment,
    student: Student,
    plan: list[tuple[Exercise, list[Check]]],
    parallel: bool,
    on_outcome: Callable[[Outcome], None],
) -> tuple[_Cursor, str | None, str, float]:
    """Run one worker over ``plan``; return where it stopped, why (None when it finished), its log and its
    CPU-time limit."""
    config = env.config
    cursor = _Cursor(plan)
    copy_dir = Path(tempfile.mkdtemp(prefix="s-", dir=env.scratch))
    _copy_files(student, copy_dir)
    log_path = Path(tempfile.mkstemp(prefix="log-", dir=env.scratch)[1])
    worker_plan = json.dumps([[e.id, [c.id for c in checks]] for e, checks in plan])
    cpu_s = config.limits.startup_s + sum(
        config.limits.prepare_s
        + e.import_timeout_s
        + sum(c.timeout_s + config.limits.grace_s for c in checks)
        for e, checks in plan
    )
    read_fd, write_fd = os.pipe()
    worker = [config.python, "-I", "-m", "grader.worker", "--fd", str(write_fd), "--dir", str(copy_dir)]
    worker += ["--plan", worker_plan, "--lang", config.lang, "--max-noise", repr(config.max_noise)]
    for module in config.grader_checks:
        worker += ["--grader-checks", module]
    cmd = launcher(config.python, config.limits, cpu_s)
    if env.bwrap:
        readonly = [env.cache_dir] if env.cache_dir else []
        cmd += bwrap_command(env.bwrap, str(copy_dir), env.hidden, readonly)
    cmd += worker
    why: str | None = None
    with open(log_path, "wb") as log, env.lock:
        try:
            if env.stopping:
                raise KeyboardInterrupt
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                pass_fds=(write_fd,),
                start_new_session=True,
                cwd=copy_dir,
                env=_child_env(env, copy_dir, parallel),
            )
        finally:
            os.close(write_fd)
        env.active.add(proc)
    buffer = b""
    deadline = time.monotonic() + cursor.budget(config.limits)
    try:
        while not cursor.finished:
            timeout = deadline - time.monotonic()
            if timeout <= 0:
                why = "timeout"
                break
            ready, _, _ = select.select([read_fd], [], [], timeout)
            if not ready:
                continue
            chunk = os.read(read_fd, 65536)
            if not chunk:
                why = None if cursor.stage == "done" else "died"
                break
            buffer += chunk
            if len(buffer) > MAX_LINE_BYTES and b"\n" not in buffer:
                why = "tampered:line too long"
                break
            while b"\n" in buffer and why is None:
                line, buffer = buffer.split(b"\n", 1)
                why = _receive(cursor, line, config.lang, student, on_outcome)
                deadline = time.monotonic() + cursor.budget(config.limits)
            if why is not None:
                break
    finally:
        os.close(read_fd)
        if why == "timeout" or why is not None and why.startswith("tampered"):
            _kill(proc)
        else:
            try:
                proc.wait(timeout=config.limits.grace_s)
            except subprocess.TimeoutExpired:
                _kill(proc)
            _kill(proc)  # whatever the worker left behind in its process group
        with env.lock:
            env.active.discard(proc)
    if why == "died":
        kind, detail = describe_exit(proc.returncode, env.bwrap is not None)
        why = f"died:{kind}:{detail}"
    tail = _log_tail(log_path)
    shutil.rmtree(copy_dir, ignore_errors=True)
    log_path.unlink(missing_ok=True)
    return cursor, why, tail, cpu_s


def _receive(
    cursor: _Cursor, line: bytes, lang: str, student: Student, on_outcome: Callable[[Outcome], None]
) -> str | None:
    """Take one line from the worker; return a reason to stop (tampering) or None."""
    try:
        message = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return "tampered:not JSON"
    if not cursor.expects(message):
        kind = message.get("type") if isinstance(message, dict) else type(message).__name__
        return f"tampered:{str(kind)[:40]!r} during {cursor.stage}"
    if cursor.stage == "check":
        exercise, checks = cursor.current()
        check = checks[cursor.check]
        source = _source(student, exercise)
        outcome = _trusted(exercise, check, message.get("outcome"), lang, source)
        if outcome is None:
            return f"tampered:an outcome inconsistent with {exercise.id}::{check.id}"
        on_outcome(outcome)
    cursor.advance()
    return None


def _source(student: Student, exercise: Exercise) -> str:
    return f"{student.name}/{exercise.module}.py"


def _failure_message(why: str, cursor: _Cursor, config: BatchConfig, tail: str, cpu_s: float) -> str:
    lang = config.lang
    step = _step_name(cursor, lang)
    if why == "timeout":
        text = render("died_timeout", lang, step=step, limit=f"{cursor.budget(config.limits):g}")
    elif why.startswith("tampered:"):
        text = render("tampered", lang, detail=why.split(":", 1)[1])
    else:
        _, kind, detail = why.split(":", 2)
        limit_fields = {
            "cpu": {"limit": f"{cpu_s:g}"},
            "memory": {"limit": f"{config.limits.memory_bytes / (1 << 30):g} GiB"},
            "output": {"limit": f"{config.limits.file_bytes >> 20} MiB"},
        }
        if kind == "signal":
            text = render("died_signal", lang, step=step, signal=detail)
        elif kind in limit_fields:
            text = render(f"died_{kind}", lang, step=step, **limit_fields[kind])
        else:
            text = render("died_exit", lang, step=step, code=detail)
    if tail and not why.startswith("tampered"):
        text += "\n" + render("log", lang, log=tail[-LOG_TAIL_CHARS:])
    return text


def grade_plan(
    env: _Environment,
    student: Student,
    plan: list[tuple[Exercise, list[Check]]],
    parallel: bool,
    on_exercise: Callable[[], None] = lambda: None,
) -> list[Outcome]:
    """Grade ``plan`` for ``student``, restarting a worker after each failed step; one outcome per check."""
    config, lang = env.config, env.config.lang
    outcomes: list[Outcome] = []
    remaining = list(plan)
    fresh_retry = False
    while remaining and not env.stopping:
        cursor, why, tail, cpu_s = _run_child(env, student, remaining, parallel, outcomes.append)
        done_exercises = cursor.exercise
        for _ in range(done_exercises):
            on_exercise()
        if why is None:
            break
        rest = cursor.rest()
        if not rest:
            break
        exercise, checks = rest[0]
        source = _source(student, exercise)
        if cursor.stage == "prepare" and cursor.student_code_ran and not fresh_retry:
            fresh_retry = True  # the student code of an earlier exercise may be to blame: try a fresh child
            remaining = rest
            continue
        if cursor.stage in ("startup", "prepare"):  # no student code ran in that child: the grader failed
            detail = f"{why}; {tail[-LOG_TAIL_CHARS:]}" if tail else why
            message = render("grader_failed", lang, detail=detail)
            failed = rest if cursor.stage == "startup" else rest[:1]
            for e, cs in failed:
                outcomes.extend(_outcome(e, c, "error", message, lang, _source(student, e)) for c in cs)
                on_exercise()
            remaining = rest[len(failed) :]
            fresh_retry = False
            continue
        fresh_retry = False
        message = _failure_message(why, cursor, config, tail, cpu_s)
        state = "timeout" if why == "timeout" else "error"
        if cursor.stage == "import":
            outcomes.extend(_outcome(exercise, c, state, message, lang, source) for c in checks)
            on_exercise()
            remaining = rest[1:]
        else:
            outcomes.append(_outcome(exercise, checks[0], state, message, lang, source))
            remaining = [(exercise, checks[1:])] if len(checks) > 1 else []
            if not remaining:
                on_exercise()
            remaining += rest[1:]
    return outcomes


# ---------------------------------------------------------------------------------------------------
# the whole batch


@dataclass(frozen=True)
class StudentResult:
    """One student's outcomes (in registry order) and the log of anything that went wrong."""

    name: str
    outcomes: tuple[Outcome, ...]


@dataclass(frozen=True)
class BatchResult:
    """Every student's result, and how they were graded."""

    students: tuple[StudentResult, ...]
    exercises: tuple[Exercise, ...]
    config: BatchConfig
    sandbox: str
    elapsed_s: float


def is_serial(exercise: Exercise) -> bool:
    """Whether an exercise has a check that needs the machine to itself (a measurement)."""
    return any(c.requires.serial for c in exercise.checks)


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class _Progress:
    """``[####....] done/total exercises graded`` on stderr: one updating line on a terminal, else a line
    per exercise graded (a log)."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.done, self.enabled = total, 0, enabled
        self.tty = enabled and sys.stderr.isatty()
        self._lock = threading.Lock()

    def step(self, label: str = "", n: int = 1) -> None:
        with self._lock:
            self.done += n
            if not self.enabled:
                return
            width = 30
            filled = width * self.done // max(1, self.total)
            bar = "#" * filled + "." * (width - filled)
            line = f"[{bar}] {self.done}/{self.total} exercises graded {label}"
            if self.tty:
                sys.stderr.write("\r" + line[:120].ljust(120))
                sys.stderr.flush()
            elif label:
                _say(line)

    def stepper(self, label: str) -> Callable[[], None]:
        """A function that counts one exercise graded, labelled ``label``."""

        def step() -> None:
            self.step(label)

        return step

    def close(self) -> None:
        if self.enabled and self.tty:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _measure_profile(config: BatchConfig) -> str | None:
    """Measure (or read) the machine profile once, in a trusted process; return its cache folder."""
    code = (
        "from perfcore.measure.profile import cache_dir, machine_profile\n"
        "machine_profile()\nprint(cache_dir())\n"
    )
    try:
        result = subprocess.run(
            [config.python, "-I", "-c", code], capture_output=True, text=True, timeout=600, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        _say(f"grader: could not measure the machine profile ({exc}); measurement checks measure it")
        return None
    if result.returncode != 0:
        _say(f"grader: could not measure the machine profile: {result.stderr.strip()[-500:]}")
        return None
    return result.stdout.strip().splitlines()[-1]


def _hidden_paths(config: BatchConfig, submissions: Path, out: Path | None, scratch: Path) -> tuple[str, ...]:
    kit = [str(_KIT_ROOT / name) for name in KIT_HIDDEN]
    extra = [str(submissions), str(scratch), *config.hide]
    if out is not None:
        extra.append(str(out))
    needed = [
        sys.prefix,
        os.path.dirname(os.path.realpath(config.python)),
        str(_KIT_ROOT / "grader"),
        str(scratch),
    ]
    needed += [str(_KIT_ROOT / "perfcore")]
    hidden = [os.path.realpath(p) for p in [*kit, *extra]]
    # never hide what the worker needs: an --out or --hide of the kit's root, say, would hide the grader
    return tuple(p for p in hidden if p == str(scratch) or not any(_inside(n, p) for n in needed))


def _inside(path: str, folder: str) -> bool:
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def grade_batch(
    submissions: str | os.PathLike[str],
    config: BatchConfig = BatchConfig(),
    out: str | os.PathLike[str] | None = None,
) -> BatchResult:
    """Grade every student under ``submissions`` (see the module docstring)."""
    started = time.monotonic()
    exercises = selected_exercises(config)
    students = find_students(submissions, exercises, config.lang)
    bwrap: str | None = None
    if config.sandbox:
        bwrap, why_not = find_bwrap()
        if bwrap is None:
            _say(
                f"grader: {why_not}; grading with resource limits alone (no file-system or network isolation)"
            )
    else:
        _say("grader: --no-sandbox: grading with resource limits alone (no file-system or network isolation)")
    sandbox = "bwrap" if bwrap else "limits only"
    formula = [e for e in exercises if not is_serial(e)]
    serial = [e for e in exercises if is_serial(e)]
    results: dict[str, list[Outcome]] = {s.name: [] for s in students}
    missing: dict[str, list[Outcome]] = {s.name: [] for s in students}
    plans: dict[str, tuple[list, list]] = {}
    for s in students:
        for e in exercises:
            if e.module in s.problems:
                state, text = s.problems[e.module]
                missing[s.name] += [_outcome(e, c, state, text, config.lang, _source(s, e)) for c in e.checks]
        plans[s.name] = (
            [(e, list(e.checks)) for e in formula if e.module in s.files],
            [(e, list(e.checks)) for e in serial if e.module in s.files],
        )
    progress = _Progress(len(students) * len(exercises), config.progress)
    progress.step(n=sum(len({o.exercise for o in m}) for m in missing.values()))
    scratch = Path(tempfile.mkdtemp(prefix="perfkit-batch-"))
    out_path = Path(out).resolve() if out is not None else None
    hidden = _hidden_paths(config, Path(submissions).resolve(), out_path, scratch)
    env = _Environment(config, bwrap, hidden, None, scratch)
    pool = ThreadPoolExecutor(max_workers=config.workers)
    try:
        futures = {
            s.name: pool.submit(grade_plan, env, s, plans[s.name][0], True, progress.stepper(s.name))
            for s in students
            if plans[s.name][0]
        }
        for name, future in futures.items():
            results[name] += future.result()
        if any(plans[s.name][1] for s in students):
            needs_torch = any(c.requires.needs_torch for e in serial for c in e.checks)
            env.cache_dir = _measure_profile(config) if needs_torch else None
            for s in students:
                if plans[s.name][1]:
                    results[s.name] += grade_plan(env, s, plans[s.name][1], False, progress.stepper(s.name))
    except BaseException:  # Ctrl-C, or a grader bug: leave no child running
        env.stop()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    else:
        pool.shutdown()
    finally:
        progress.close()
        shutil.rmtree(scratch, ignore_errors=True)
    order = {(e.id, c.id): i for i, (e, c) in enumerate((e, c) for e in exercises for c in e.checks)}
    graded = tuple(
        StudentResult(
            s.name,
            tuple(sorted(results[s.name] + missing[s.name], key=lambda o: order[(o.exercise, o.check_id)])),
        )
        for s in students
    )
    return BatchResult(graded, tuple(exercises), config, sandbox, time.monotonic() - started)


def check_ids(exercises: Iterable[Exercise]) -> list[str]:
    """``exercise::check`` for every check, in registry order (the CSV's columns)."""
    return [f"{e.id}::{c.id}" for e in exercises for c in e.checks]
