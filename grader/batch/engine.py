"""Batch grading: every student's folder of ``.py`` files, each in its own confined process.

``python -m grader grade SUBMISSIONS_DIR`` (one sub-folder per student, each a copy of ``exercises/``):

1. **Files.** For each student, the exercise files are found and the folder that holds them is copied into
   a private temporary folder, within limits (:mod:`grader.batch.submissions`, which owns a submission's
   intake; what a limit left out is said in the student's notes: grades.json, the HTML page).
2. **References, once.** Every selected check is prepared (references computed, inputs drawn) once, in
   this process, before any student code runs; every student is graded against the same prepared checks.
3. **Judges.** Each student gets a :class:`~grader.judge.Judge` whose worker runs in the copy, confined by
   bubblewrap where it works (:mod:`grader.sandbox.confinement`): the same judge and worker as under pytest, so
   the same folder gets the same score. An exception the grading of one check raises (a grader bug) is
   that check's outcome, an error saying so (``grader_bug``), and the batch goes on: one student never
   costs the others their grades. Formula exercises of different students run in parallel,
   ``--jobs`` judges at a time (default: the cores it may run on), each worker with one BLAS thread. Then the
   exercises with measurement checks run one student at a time (``--measure-jobs N``: N students at a
   time, each lane on cores of its own), after the machine profile has been measured (or read) once.
4. **Output.** ``grades.csv`` (one row per student: score, maximum, deferred points, then the points of
   every ``exercise::check``), ``grades.json`` (every outcome with its state, message and fields, the
   limits and the sandbox used) and, with ``--gradescope``, ``gradescope/<student>/results.json``.

While it grades, stderr says how far it is (:mod:`grader.batch.progress`, told by each student's phase
as an exercise begins and ends): students done and in flight, and an ETA; ``--quiet`` says nothing.

With ``out`` (the command line's ``--out``), each exercise graded is written to ``OUT/journal.jsonl`` at
once, and what the journal holds for the same files is not graded again (:mod:`grader.batch.journal`):
a run that dies loses only the students in hand. ``--student`` grades the named students anew, and
``--retry-deferred`` only the checks the journal holds deferred; a check's decided grade is kept over a
deferral (:mod:`grader.batch.keep`). The scratch folder names its owner, and a dead run's is removed by the
next (:mod:`grader.sandbox.scratch`).

With ``--shard K/N`` only the students whose folder name hashes to shard K are graded (step 1 leaves the
others out before looking at their files); ``python -m grader merge`` joins the shards' outputs into those
of one run (``grader.batch.merging``).

Deferred checks (requirements unmet on this machine, or a machine too noisy to measure) are listed as
deferred and left out of the maximum, as in the pytest plugin, or count as zero with ``--deferred zero``.
A check the machine defers for everyone is deferred for a missing file too (:func:`file_outcome`), so a
student's maximum never depends on which files the folder holds.
"""

from __future__ import annotations

import dataclasses
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from ..judge import DEFAULT_MAX_NOISE, Judge, Prepared, prepare_exercise
from ..judge.core import WORKER_OWN_BYTES
from ..registry import load_exercises
from ..results.outcome import DEFERRED_POLICIES, Outcome, State, printable, shown_name
from ..sandbox.confinement import GRADER_DIR, Limits, find_bwrap
from ..sandbox.scratch import WORKER_PREFIXES, make_owned, remove_orphans
from ..specs.check import Exercise
from ..text.catalogue import LANGS, render, render_count
from .allotment import lane_cores, usable_cores
from .console import resumed_lines
from .errors import BatchError
from .journal import Entry, Journal, assembled, content_keys, journal_settings, run_journal, to_grade
from .progress import BatchProgress, Lane
from .submissions import Copied, Student, copy_folder, find_students, loose_files

if TYPE_CHECKING:
    from .shard import Shard

MAX_MESSAGE_CHARS = 4000
#: The batch's scratch folder in the temporary folder (owned: :mod:`grader.sandbox.scratch`), which holds
#: the private copies of the students' folders
SCRATCH_PREFIX = "perfkit-batch-"


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
    #: Measurement exercises of this many students at a time, each lane on cores of its own
    measure_jobs: int = 1
    #: Grade only these students (``--student``: names as reports show them, or their folders' names)
    students: tuple[str, ...] = ()
    #: Grade again the checks the journal holds deferred (``--retry-deferred``; :mod:`.journal`)
    retry_deferred: bool = False

    def __post_init__(self) -> None:
        if self.lang not in LANGS:
            raise BatchError(f"lang must be one of {LANGS}, got {self.lang!r}")
        if self.deferred not in DEFERRED_POLICIES:
            raise BatchError(f"deferred must be one of {DEFERRED_POLICIES}, got {self.deferred!r}")
        if not self.max_noise > 0:
            raise BatchError(f"max_noise must be positive, got {self.max_noise!r}")
        if self.jobs < 0:
            raise BatchError(f"jobs must be >= 0 (0: one per core), got {self.jobs}")
        if (
            isinstance(self.measure_jobs, bool)
            or not isinstance(self.measure_jobs, int)
            or self.measure_jobs < 1
        ):
            raise BatchError(f"measure_jobs must be a whole number >= 1, got {self.measure_jobs!r}")
        if self.measure_jobs > usable_cores():
            raise BatchError(
                f"--measure-jobs {self.measure_jobs}: each lane needs a core of its own; this run may use "
                f"{usable_cores()}"
            )

    @property
    def workers(self) -> int:
        return self.jobs or usable_cores()


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


def _source(student: Student, exercise: Exercise) -> str:
    return f"{student.name}/{exercise.module}.py"


def machine_deferral(p: Prepared, config: BatchConfig) -> str | None:
    """Why this machine defers ``p`` whatever a student hands in (its requirement unmet, or more memory than
    a worker is given), as the judge's ``run_check`` decides it before it looks at the file; None where it
    grades it."""
    if p.unmet is not None:
        return p.unmet
    need = p.check.requires.memory_bytes
    if need and need + WORKER_OWN_BYTES > config.limits.memory_bytes:
        gib = 1 << 30
        limit = f"{config.limits.memory_bytes / gib:g} GiB"
        return render("req_memory_limit", config.lang, need=f"{need / gib:.2f} GiB", limit=limit)
    return None


def file_outcome(p: Prepared, state: State, text: str, config: BatchConfig, source: str) -> Outcome:
    """The outcome of a check whose file could not be graded (missing, a link, too big): ``state`` with
    ``text``, unless this machine defers the check whatever the file (:func:`machine_deferral`), as the
    judge defers it for the stub. So a student's maximum is the kit's on this machine whatever files the
    folder lacks (a folder without m6_gpu.py was out of 104 on a machine without CUDA, the stub out of 98)."""
    reason = machine_deferral(p, config)
    if reason is None:
        return Outcome.of(p.exercise, p.check, state, text, lang=config.lang, source=source)
    message = render("deferred", config.lang, reason=reason)
    return Outcome.of(
        p.exercise, p.check, State.SKIPPED, message, lang=config.lang, deferred=True, source=source
    )


def grader_error(p: Prepared, exc: BaseException, lang: str, source: str) -> Outcome:
    """The outcome of a check whose grading raised ``exc``: an error the grader's (``grader_bug``, as for a
    check that could not be prepared), worth nothing, naming the exception."""
    error = f"{p.exercise.id}::{p.check.id}: {type(exc).__name__}: {exc}"
    _say(f"grader: a grader bug while grading {printable(source)}: {printable(error)[:500]}")
    message = render("grader_bug", lang, error=error)
    return Outcome.of(p.exercise, p.check, State.ERROR, message, lang=lang, source=source)


#: What is told each exercise's outcomes, the copy's notes and its seconds as soon as it is graded
Recorder = Callable[[Exercise, list[Outcome], tuple[str, ...], float], None]


@dataclass(frozen=True)
class Graded:
    """What :func:`grade_student` gave: the outcomes, the notes of the copy (:class:`Copied`), and the
    seconds it took."""

    outcomes: list[Outcome]
    notes: tuple[str, ...] = ()
    elapsed_s: float = 0.0


def grade_student(
    student: Student,
    plan: list[tuple[Exercise, list[Prepared]]],
    config: BatchConfig,
    scratch: Path,
    *,
    lane: Lane | None = None,
    active: set[Judge] | None = None,
    stop: threading.Event | None = None,
    record: Recorder | None = None,
) -> Graded:
    """Grade ``plan`` for ``student`` with a judge of its own, in a fresh copy of the student's folder.

    Raises nothing but what stops the whole batch (Ctrl-C, SIGTERM: a BaseException): an exception while
    preparing the copy or grading a check is that check's outcome (:func:`grader_error`). ``lane`` is told
    each exercise as it begins and ends (:mod:`grader.batch.progress`). With ``stop`` set
    (the batch is ending), it returns at the next check instead of starting another worker. ``record`` is
    given each exercise's outcomes, the copy's notes and the seconds it took as soon as its planned checks
    are graded (the journal's entry: :mod:`grader.batch.journal`)."""
    started = time.monotonic()
    outcomes: list[Outcome] = []
    notes: tuple[str, ...] = ()
    copy: Path | None = None
    judge: Judge | None = None
    copied = Copied({})
    failed: Exception | None = None  # the copy or the judge could not be made: every check says why
    try:
        try:
            copy = Path(tempfile.mkdtemp(prefix="s-", dir=scratch))
            os.chmod(copy, 0o755)
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
            copied = copy_folder(student, copy, config.lang)
            notes = copied.notes
        except Exception as exc:  # noqa: BLE001 - a grader bug, or a folder that breaks it: this student's
            failed = exc
        for exercise, prepared in plan:
            source = _source(student, exercise)
            begun, first = time.monotonic(), len(outcomes)
            if lane is not None:
                lane.begin(exercise.id)
            for p in prepared:
                if stop is not None and stop.is_set():
                    return Graded(outcomes, notes, time.monotonic() - started)
                if failed is not None or judge is None or copy is None:
                    outcome = grader_error(p, failed or RuntimeError("no judge"), config.lang, source)
                else:
                    file = copied.files.get(exercise.module, copy / f"{exercise.module}.py")
                    try:
                        outcome = judge.run_check(p, file, source=source)
                    except Exception as exc:  # noqa: BLE001 - a grader bug costs this check, not the batch
                        outcome = grader_error(p, exc, config.lang, source)
                        judge.close()  # fresh workers: a reply this check left unread is no next answer
                if len(outcome.message) > MAX_MESSAGE_CHARS:
                    outcome = dataclasses.replace(outcome, message=outcome.message[:MAX_MESSAGE_CHARS])
                outcomes.append(outcome)
            if record is not None and failed is None:
                record(exercise, outcomes[first:], notes, time.monotonic() - begun)
            if lane is not None:
                lane.done(time.monotonic() - begun)
    finally:
        if judge is not None:
            judge.close()
            if active is not None:
                active.discard(judge)
        if copy is not None:
            shutil.rmtree(copy, ignore_errors=True)
    return Graded(outcomes, notes, time.monotonic() - started)


# ---------------------------------------------------------------------------------------------------
# the whole batch


@dataclass(frozen=True)
class StudentResult:
    """One student's outcomes, in registry order, the notes of the copy of their folder (what a limit left
    out), and the seconds spent grading this student alone (both phases; Gradescope's ``execution_time``)."""

    name: str
    outcomes: tuple[Outcome, ...]
    notes: tuple[str, ...] = ()
    elapsed_s: float = 0.0
    #: When the newest grade among the outcomes was given ("": by this run); the content keys of the files
    #: graded, by exercise id (:func:`grader.batch.journal.content_keys`)
    graded_at: str = ""
    files: Mapping[str, str] = dataclasses.field(default_factory=dict)
    #: How many exercises were taken from the journal instead of graded by this run
    reused: int = 0
    #: The notebooks found where exercise files are missing, none graded (:class:`Student`'s)
    notebooks: tuple[str, ...] = ()


@dataclass(frozen=True)
class BatchResult:
    """Every student's result, and how they were graded."""

    students: tuple[StudentResult, ...]
    exercises: tuple[Exercise, ...]
    config: BatchConfig
    sandbox: str
    elapsed_s: float
    #: The key of the machine profile the measurement exercises were judged against (None: none measured)
    profile: str | None = None
    #: When the run started (ISO 8601, UTC): which of two gradings of a student is the newer
    graded_at: str = ""


def is_serial(exercise: Exercise) -> bool:
    """Whether an exercise has a check that needs the machine to itself (a measurement)."""
    return any(c.requires.serial for c in exercise.checks)


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


#: The progress's name before it had a module of its own (:mod:`grader.batch.progress`)
_Progress = BatchProgress


#: What the profile's process runs after its path is set (:func:`_measure_profile`): the profile's key, then
#: its cache folder.
_PROFILE_CODE = (
    "from perfcore.measure.profile import cache_dir, machine_profile\n"
    "print(machine_profile().key)\nprint(cache_dir())\n"
)
#: The folder holding the kit's packages (``grader`` and its sibling ``perfcore``): a checkout's root, or
#: the ``site-packages`` it is installed in.
_KIT_ROOT = os.path.dirname(GRADER_DIR)


def _measure_profile(config: BatchConfig) -> tuple[str, str] | None:
    """Measure (or read) the machine profile once, in a trusted process; return its cache folder and key.

    The process is isolated (``-I``: no ``PYTHONPATH``, no working folder on its path), so the kit's own
    folder is put first on its path, as the reference process is given the judge's: a kit run from its
    checkout without being installed (``PYTHONPATH``, or ``python -m grader`` in its root) did not find
    ``perfcore`` there, said "could not measure the machine profile", and its grades named no profile
    (seen on a GPU host, 2026-12-05)."""
    code = "import sys\nsys.path.insert(0, sys.argv[1])\n" + _PROFILE_CODE
    try:
        result = subprocess.run(
            [config.python, "-I", "-c", code, _KIT_ROOT],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        _say(f"grader: could not measure the machine profile ({exc}); measurement checks measure it")
        return None
    if result.returncode != 0:
        _say(f"grader: could not measure the machine profile: {result.stderr.strip()[-500:]}")
        return None
    *_, key, folder = ["", *result.stdout.strip().splitlines()]
    return folder, key


def _measure_in_lanes(
    students: list[Student],
    plans: dict[str, tuple[list, list]],
    config: BatchConfig,
    scratch: Path,
    progress: BatchProgress,
    active: set[Judge],
    stop: threading.Event,
    record_for: Callable[[Student], Recorder] | None = None,
) -> Iterator[tuple[str, Graded]]:
    """Grade the measurement exercises of ``students``, ``config.measure_jobs`` students at a time.

    Each lane is a thread whose CPU affinity is a group of cores of its own (``lane_cores``); the worker
    and perfcore's reference it starts inherit that affinity, and the judge picks its core for a
    measurement among them, so the two sides of a measurement still alternate on one core and see the
    same neighbours, while lanes never share a core. One lane is the serial grading of before."""
    if config.measure_jobs == 1 or len(students) < 2:
        for s in students:
            yield (
                s.name,
                grade_student(
                    s,
                    plans[s.name][1],
                    config,
                    scratch,
                    lane=progress.lane(s.name, "serial"),
                    record=record_for(s) if record_for else None,
                ),
            )
        return
    try:
        groups = lane_cores(config.measure_jobs)
    except ValueError as exc:
        raise BatchError(f"--measure-jobs {config.measure_jobs}: {exc}") from None
    lanes: queue.SimpleQueue[set[int]] = queue.SimpleQueue()
    for group in groups or []:
        lanes.put(group)

    def enter_lane() -> None:  # once per pool thread: that thread is one lane from then on
        if groups:
            os.sched_setaffinity(0, lanes.get())

    with ThreadPoolExecutor(max_workers=config.measure_jobs, initializer=enter_lane) as pool:
        futures = {
            s.name: pool.submit(
                grade_student,
                s,
                plans[s.name][1],
                config,
                scratch,
                lane=progress.lane(s.name, "serial"),
                active=active,
                stop=stop,
                record=record_for(s) if record_for else None,
            )
            for s in students
        }
        try:
            for name, future in futures.items():
                yield name, future.result()
        except BaseException:
            stop.set()
            for judge in list(active):
                judge.close()
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def _say_resumed(
    journal: Journal,
    students: list[Student],
    exercises: list[Exercise],
    todo: dict[str, dict[str, list[Prepared]]],
    config: BatchConfig,
) -> None:
    """Say what the journal spares this run (:func:`grader.batch.console.resumed_lines`) and, with
    ``--retry-deferred``, how many checks it grades again."""
    for line in resumed_lines(str(journal.path), students, exercises, todo, config.lang):
        _say(line)
    if config.retry_deferred:
        retried = sum(len(v) for s in students for v in todo[s.name].values())
        _say(render_count("batch_retried", config.lang, retried))


def grade_batch(
    submissions: str | os.PathLike[str],
    config: BatchConfig = BatchConfig(),
    out: str | os.PathLike[str] | None = None,
) -> BatchResult:
    """Grade every student under ``submissions`` (see the module docstring)."""
    started = time.monotonic()
    graded_at = datetime.now(timezone.utc).isoformat(timespec="microseconds")
    exercises = selected_exercises(config)
    students = find_students(submissions, exercises, config.lang, config.shard, config.students)
    loose = loose_files(submissions)
    if loose:
        root = shown_name(os.fspath(submissions))
        examples = ", ".join(shown_name(p.name) for p in loose[:5]) + (", ..." if len(loose) > 5 else "")
        for lang in LANGS:
            _say(
                "grader: "
                + render("intake_loose_files", lang, root=root, count=len(loose), examples=examples)
            )
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
    # what the intake found first, then what each copy left out (both phases copy: each note once)
    notes: dict[str, dict[str, None]] = {s.name: dict.fromkeys(s.notes) for s in students}
    elapsed: dict[str, float] = dict.fromkeys(results, 0.0)
    missing: dict[str, list[Outcome]] = {s.name: [] for s in students}
    modules = [e.module for e in load_exercises(config.grader_checks).values()]
    keys = {s.name: content_keys(s, modules) for s in students}
    settings = journal_settings(config.lang, config.max_noise, config.allow, config.grader_checks)
    journal = run_journal(out, settings, config.retry_deferred, _say)
    earlier = list(journal.entries) if journal is not None else []
    todo: dict[str, dict[str, list[Prepared]]] = {}
    for s in students:
        todo[s.name] = {}
        for e in exercises:
            if e.module in s.problems:
                state, text = s.problems[e.module]
                missing[s.name] += [
                    file_outcome(p, state, text, config, _source(s, e)) for p in prepared[e.id]
                ]
            elif e.module in s.files:
                todo[s.name][e.id] = to_grade(
                    prepared[e.id],
                    earlier,
                    s.name,
                    keys[s.name][e.module],
                    anew=bool(config.students),
                    retry=config.retry_deferred,
                )
    plans: dict[str, tuple[list, list]] = {
        s.name: (
            [(e, todo[s.name][e.id]) for e in formula if todo[s.name].get(e.id)],
            [(e, todo[s.name][e.id]) for e in serial if todo[s.name].get(e.id)],
        )
        for s in students
    }
    if journal is not None:
        _say_resumed(journal, students, exercises, todo, config)
    progress = BatchProgress(
        len(students) * len(exercises),
        config.progress,
        students={s.name: len(exercises) for s in students},
        lanes={"formula": config.workers, "serial": config.measure_jobs},
        lang=config.lang,
    )
    for s in students:  # what this run need not grade: files missing, and exercises the journal holds
        kept = sum(1 for e in exercises if todo[s.name].get(e.id) == [])
        progress.settled(s.name, len({o.exercise for o in missing[s.name]}) + kept)
        planned = [e for e in exercises if todo[s.name].get(e.id)]
        # a student's exercises with no file and no problem (not handed in at all) are counted done too
        unseen = len(exercises) - kept - len({o.exercise for o in missing[s.name]}) - len(planned)
        progress.settled(s.name, unseen)
        progress.plan("formula", sum(1 for e in planned if not is_serial(e)))
        progress.plan("serial", sum(1 for e in planned if is_serial(e)))
    for prefix in (SCRATCH_PREFIX, *WORKER_PREFIXES):  # a killed run's copies and workers' files: its own
        remove_orphans(prefix)  # cleanup never ran
    scratch = make_owned(SCRATCH_PREFIX)
    os.chmod(scratch, 0o755)
    active: set[Judge] = set()
    profile: str | None = None
    stop = threading.Event()
    pool = ThreadPoolExecutor(max_workers=config.workers)

    unwritable: list[OSError] = []

    def record_for(s: Student) -> Recorder:
        def record(exercise: Exercise, outcomes: list[Outcome], notes: tuple[str, ...], took: float) -> None:
            if journal is None or unwritable:
                return
            key = keys[s.name][exercise.module]
            try:
                journal.append(Entry(s.name, exercise.id, key, graded_at, took, notes, tuple(outcomes)))
            except OSError as exc:  # a full disk: the grades are still written at the end, if they can be
                unwritable.append(exc)
                _say(f"grader: cannot write the journal {journal.path} ({exc}); grading goes on without it")

        return record

    def collect(name: str, graded: Graded) -> None:
        results[name] += graded.outcomes
        notes[name].update(dict.fromkeys(graded.notes))
        elapsed[name] += graded.elapsed_s

    try:
        progress.start()  # its ticker ends with the close below
        futures = {
            s.name: pool.submit(
                grade_student,
                s,
                plans[s.name][0],
                config,
                scratch,
                lane=progress.lane(s.name, "formula"),
                active=active,
                stop=stop,
                record=record_for(s),
            )
            for s in students
            if plans[s.name][0]
        }
        for name, future in futures.items():
            collect(name, future.result())
        if any(plans[s.name][1] for s in students):
            needs_torch = any(c.requires.needs_torch for e in serial for c in e.checks)
            found = _measure_profile(config) if needs_torch else None
            if found:
                os.environ["PERFKIT_CACHE_DIR"], profile = found
            lanes = [s for s in students if plans[s.name][1]]
            measured = _measure_in_lanes(lanes, plans, config, scratch, progress, active, stop, record_for)
            for name, done in measured:
                collect(name, done)
    except BaseException:  # Ctrl-C, SIGTERM, or a grader bug: leave no worker running
        stop.set()  # the pool's running students start no further check
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
    graded = []
    for s in students:
        got = assembled(s, exercises, keys[s.name], earlier, results[s.name], graded_at)
        graded.append(
            StudentResult(
                s.name,
                tuple(sorted(got.outcomes + missing[s.name], key=lambda o: order[(o.exercise, o.check_id)])),
                tuple({**notes[s.name], **dict.fromkeys(got.notes)}),
                elapsed[s.name] + got.elapsed_s,
                got.graded_at,
                {e.id: keys[s.name][e.module] for e in exercises if e.module in s.files},
                got.reused,
                s.notebooks,
            )
        )
    took = time.monotonic() - started
    return BatchResult(tuple(graded), tuple(exercises), config, sandbox, took, profile, graded_at)


def check_ids(exercises: Iterable[Exercise]) -> list[str]:
    """``exercise::check`` for every check, in registry order (the CSV's columns)."""
    return [f"{e.id}::{c.id}" for e in exercises for c in e.checks]
