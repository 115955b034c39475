"""Batch grading: every student's folder of ``.py`` files, each in its own confined process.

``python -m grader grade SUBMISSIONS_DIR`` (one sub-folder per student, each a copy of ``exercises/``):

1. **Files.** For each student, the exercise files are found at the top of the folder (or, where none is
   there, in the shallowest sub-folder that has them). The folder that holds them is copied whole (other
   ``.py`` files and small data files: helper modules work, as they do under pytest; links are not
   followed, files over 1 MiB and hidden files are left out) into a private temporary folder.
2. **References, once.** Every selected check is prepared (references computed, inputs drawn) once, in
   this process, before any student code runs; every student is graded against the same prepared checks.
3. **Judges.** Each student gets a :class:`~grader.judge.Judge` whose worker runs in the copy, confined by
   bubblewrap where it works (:mod:`grader.confinement`): the same judge and worker as under pytest, so
   the same folder gets the same score. Formula exercises of different students run in parallel,
   ``--jobs`` judges at a time (default: the number of cores), each worker with one BLAS thread. Then the
   exercises with measurement checks run one student at a time, after the machine profile has been
   measured (or read) once.
4. **Output.** ``grades.csv`` (one row per student: score, maximum, deferred points, then the points of
   every ``exercise::check``), ``grades.json`` (every outcome with its state, message and fields, the
   limits and the sandbox used) and, with ``--gradescope``, ``gradescope/<student>/results.json``.

With ``--shard K/N`` only the students whose folder name hashes to shard K are graded (step 1 leaves the
others out before looking at their files); ``python -m grader merge`` joins the shards' outputs into those
of one run (``grader.batch.shard``).

Deferred checks (requirements unmet on this machine, or a machine too noisy to measure) are listed as
deferred and left out of the maximum, as in the pytest plugin, or count as zero with ``--deferred zero``.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..confinement import Limits, find_bwrap
from ..judge import DEFAULT_MAX_NOISE, Judge, Prepared, prepare_exercise
from ..outcome import DEFERRED_POLICIES, LANGS, Outcome, State
from ..registry import load_exercises
from ..spec import Exercise
from .messages import render

if TYPE_CHECKING:
    from .shard import Shard

#: Largest file of a submission that is copied (and so graded).
MAX_FILE_BYTES = 1 << 20
#: Most files and bytes copied from one submission's folder.
MAX_FILES = 200
MAX_FOLDER_BYTES = 16 << 20
MAX_MESSAGE_CHARS = 4000


class BatchError(ValueError):
    """A bad argument or folder given to the batch grader."""


# ---------------------------------------------------------------------------------------------------
# configuration and students


@dataclass(frozen=True)
class BatchConfig:
    """How to grade. ``exercises``: ids (or module stems) to grade, all when empty; ``shard``: grade only
    the students of that shard (``grader.batch.shard``), all when None."""

    exercises: tuple[str, ...] = ()
    lang: str = "zh"
    deferred: str = "defer"
    max_noise: float = DEFAULT_MAX_NOISE
    jobs: int = 0
    limits: Limits = Limits()
    sandbox: bool = True
    grader_checks: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()
    python: str = sys.executable
    progress: bool = True
    shard: Shard | None = None

    def __post_init__(self) -> None:
        if self.lang not in LANGS:
            raise BatchError(f"lang must be one of {LANGS}, got {self.lang!r}")
        if self.deferred not in DEFERRED_POLICIES:
            raise BatchError(f"deferred must be one of {DEFERRED_POLICIES}, got {self.deferred!r}")
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
    problems: dict[str, tuple[State, str]] = field(default_factory=dict)


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


def find_students(
    root: str | os.PathLike[str], exercises: Sequence[Exercise], lang: str, shard: Shard | None = None
) -> list[Student]:
    """The students under ``root`` (its sub-folders, sorted by name; with ``shard``, only those it holds)
    and their exercise files."""
    base = Path(root)
    if not base.is_dir():
        raise BatchError(f"SUBMISSIONS_DIR {os.fspath(root)!r} is not a folder")
    students = []
    folders = (p for p in base.iterdir() if p.is_dir() and not p.name.startswith("."))
    for folder in sorted(folders, key=lambda p: p.name):
        if shard is not None and not shard.holds(folder.name):
            continue
        files: dict[str, Path] = {}
        problems: dict[str, tuple[State, str]] = {}
        for exercise in exercises:
            name = f"{exercise.module}.py"
            path = _find_file(folder, exercise.module)
            if path is None:
                problems[exercise.module] = (State.NOT_ATTEMPTED, render("file_missing", lang, file=name))
            elif path.is_symlink() or not path.is_file():
                problems[exercise.module] = (State.ERROR, render("file_link", lang, file=name))
            elif path.stat().st_size > MAX_FILE_BYTES:
                size = path.stat().st_size
                text = render("file_too_big", lang, file=name, size=size, limit=MAX_FILE_BYTES)
                problems[exercise.module] = (State.ERROR, text)
            else:
                files[exercise.module] = path
        students.append(Student(folder.name, folder, files, problems))
    return students


def copy_folder(student: Student, into: Path) -> dict[str, Path]:
    """Copy the folder holding the student's exercise files into the empty ``into``: regular files only
    (no link followed), none hidden, none over 1 MiB, at most MAX_FILES and MAX_FOLDER_BYTES; the exercise
    files first. Returns ``{module stem: path of the copy}``."""
    if not student.files:
        return {}
    source = next(iter(student.files.values())).parent
    exercise_files = [p for p in student.files.values() if p.parent == source]
    others = sorted(
        p for p in source.rglob("*") if not any(part.startswith(".") for part in p.relative_to(source).parts)
    )
    copied: dict[str, Path] = {}
    total = 0
    for count, path in enumerate([*exercise_files, *[p for p in others if p not in exercise_files]]):
        if count >= MAX_FILES or path.is_symlink() or not path.is_file():
            continue
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(path, flags)
        except OSError:
            continue  # replaced by a link meanwhile: not copied
        with os.fdopen(fd, "rb") as src:
            data = src.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES or total + len(data) > MAX_FOLDER_BYTES:
            continue
        total += len(data)
        target = into / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    for stem, path in student.files.items():
        copy = into / path.relative_to(source) if path.parent == source else None
        if copy is not None and copy.exists():
            copied[stem] = copy
        else:  # an exercise file in another sub-folder than the first: copied beside the others
            try:
                (into / f"{stem}.py").write_bytes(path.read_bytes()[:MAX_FILE_BYTES])
                copied[stem] = into / f"{stem}.py"
            except OSError:
                continue
    return copied


def _source(student: Student, exercise: Exercise) -> str:
    return f"{student.name}/{exercise.module}.py"


def grade_student(
    student: Student,
    plan: list[tuple[Exercise, list[Prepared]]],
    config: BatchConfig,
    scratch: Path,
    *,
    on_exercise: Callable[[], None] = lambda: None,
    active: set[Judge] | None = None,
) -> list[Outcome]:
    """Grade ``plan`` for ``student`` with a judge of its own, in a fresh copy of the student's folder."""
    copy = Path(tempfile.mkdtemp(prefix="s-", dir=scratch))
    os.chmod(copy, 0o755)
    outcomes: list[Outcome] = []
    judge = Judge(
        config.lang,
        max_noise=config.max_noise,
        sandbox=config.sandbox,
        limits=config.limits,
        extra_checks=config.grader_checks,
        allow=config.allow,
        python=config.python,
    )
    if active is not None:
        active.add(judge)
    try:
        files = copy_folder(student, copy)
        for exercise, prepared in plan:
            file = files.get(exercise.module, copy / f"{exercise.module}.py")
            for p in prepared:
                outcome = judge.run_check(p, file, source=_source(student, exercise))
                if len(outcome.message) > MAX_MESSAGE_CHARS:
                    outcome = dataclasses.replace(outcome, message=outcome.message[:MAX_MESSAGE_CHARS])
                outcomes.append(outcome)
            on_exercise()
    finally:
        judge.close()
        if active is not None:
            active.discard(judge)
        shutil.rmtree(copy, ignore_errors=True)
    return outcomes


# ---------------------------------------------------------------------------------------------------
# the whole batch


@dataclass(frozen=True)
class StudentResult:
    """One student's outcomes, in registry order."""

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
    each time another tenth of the work is done (a log, not a line per exercise)."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.done, self.enabled = total, 0, enabled
        self.tty = enabled and sys.stderr.isatty()
        self._tenths = 0  # the tenths of the total already logged
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
            elif label and 10 * self.done // max(1, self.total) > self._tenths:
                self._tenths = 10 * self.done // max(1, self.total)
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


def grade_batch(
    submissions: str | os.PathLike[str],
    config: BatchConfig = BatchConfig(),
    out: str | os.PathLike[str] | None = None,
) -> BatchResult:
    """Grade every student under ``submissions`` (see the module docstring)."""
    started = time.monotonic()
    exercises = selected_exercises(config)
    students = find_students(submissions, exercises, config.lang, config.shard)
    if config.sandbox:
        bwrap, why_not = find_bwrap()
        if bwrap is None:
            _say(
                f"grader: {why_not}; grading with resource limits alone (no file-system or network isolation)"
            )
    else:
        bwrap = None
        _say("grader: --no-sandbox: grading with resource limits alone (no file-system or network isolation)")
    sandbox = "bwrap" if bwrap else "limits only"
    prepared = {e.id: prepare_exercise(e, config.lang) for e in exercises}  # before any student code runs
    formula = [e for e in exercises if not is_serial(e)]
    serial = [e for e in exercises if is_serial(e)]
    results: dict[str, list[Outcome]] = {s.name: [] for s in students}
    missing: dict[str, list[Outcome]] = {s.name: [] for s in students}
    plans: dict[str, tuple[list, list]] = {}
    for s in students:
        for e in exercises:
            if e.module in s.problems:
                state, text = s.problems[e.module]
                missing[s.name] += [
                    Outcome.of(e, c, state, text, lang=config.lang, source=_source(s, e)) for c in e.checks
                ]
        plans[s.name] = (
            [(e, prepared[e.id]) for e in formula if e.module in s.files],
            [(e, prepared[e.id]) for e in serial if e.module in s.files],
        )
    progress = _Progress(len(students) * len(exercises), config.progress)
    progress.step(n=sum(len({o.exercise for o in m}) for m in missing.values()))
    scratch = Path(tempfile.mkdtemp(prefix="perfkit-batch-"))
    os.chmod(scratch, 0o755)
    active: set[Judge] = set()
    pool = ThreadPoolExecutor(max_workers=config.workers)
    try:
        futures = {
            s.name: pool.submit(
                grade_student,
                s,
                plans[s.name][0],
                config,
                scratch,
                on_exercise=progress.stepper(s.name),
                active=active,
            )
            for s in students
            if plans[s.name][0]
        }
        for name, future in futures.items():
            results[name] += future.result()
        if any(plans[s.name][1] for s in students):
            needs_torch = any(c.requires.needs_torch for e in serial for c in e.checks)
            cache_dir = _measure_profile(config) if needs_torch else None
            if cache_dir:
                os.environ["PERFKIT_CACHE_DIR"] = cache_dir
            for s in students:
                if plans[s.name][1]:
                    results[s.name] += grade_student(
                        s,
                        plans[s.name][1],
                        config,
                        scratch,
                        on_exercise=progress.stepper(s.name),
                    )
    except BaseException:  # Ctrl-C, or a grader bug: leave no worker running
        for judge in list(active):
            judge.close()
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
