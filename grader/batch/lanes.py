"""A batch run's third phase, the lanes: each student's planned exercises graded with a judge of its own
(:func:`grade_student`), the formula exercises ``--jobs`` students at a time in a pool of threads, then the
measurement exercises in ``--measure-jobs`` lanes, each on cores of its own, after the machine profile has
been measured (or read) once in a trusted process.

:func:`run_lanes` owns the threads, the scratch folder of the copies and the judges still running when the
batch must stop; what it gives (:class:`LaneResults`) the engine assembles (:mod:`grader.batch.engine`).
Each exercise graded is told to the journal at once (:class:`Journaling`).
"""

from __future__ import annotations

import dataclasses
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..judge import Judge, Prepared
from ..results.outcome import Outcome, State, printable
from ..sandbox.confinement import GRADER_DIR
from ..sandbox.scratch import WORKER_PREFIXES, make_owned, remove_orphans
from ..specs.check import Exercise
from ..text.catalogue import render
from .allotment import lane_cores
from .config import BatchConfig, is_serial, say
from .errors import BatchError
from .journal import Entry, Journal
from .planning import Intake, Plan, Work, source_name
from .progress import BatchProgress, Lane
from .submissions import Copied, Student, copy_folder

MAX_MESSAGE_CHARS = 4000
#: The batch's scratch folder in the temporary folder (owned: :mod:`grader.sandbox.scratch`), which holds
#: the private copies of the students' folders
SCRATCH_PREFIX = "perfkit-batch-"


def grader_error(p: Prepared, exc: BaseException, lang: str, source: str) -> Outcome:
    """The outcome of a check whose grading raised ``exc``: an error the grader's (``grader_bug``, as for a
    check that could not be prepared), worth nothing, naming the exception."""
    error = f"{p.exercise.id}::{p.check.id}: {type(exc).__name__}: {exc}"
    say(f"grader: a grader bug while grading {printable(source)}: {printable(error)[:500]}")
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
    plan: Work,
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
            judge = Judge(config.judge_config())
            if active is not None:
                active.add(judge)
            copied = copy_folder(student, copy, config.lang)
            notes = copied.notes
        except Exception as exc:  # noqa: BLE001 - a grader bug, or a folder that breaks it: this student's
            failed = exc
        for exercise, prepared in plan:
            source = source_name(student, exercise)
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


#: What the profile's process runs after its path is set (:func:`_measure_profile`): the profile's key.
_PROFILE_CODE = "from perfcore.measure.profile import machine_profile\nprint(machine_profile().key)\n"
#: The folder holding the kit's packages (``grader`` and its sibling ``perfcore``): a checkout's root, or
#: the ``site-packages`` it is installed in.
_KIT_ROOT = os.path.dirname(GRADER_DIR)


def _measure_profile(config: BatchConfig, cache: Path, code: str | None = None) -> str | None:
    """Measure (or read) the machine profile once, in a trusted process, in the cache folder ``cache``;
    return its key.

    The process is isolated (``-I``: no ``PYTHONPATH``, no working folder on its path), so the kit's own
    folder is put first on its path, as the reference process is given the judge's: a kit run from its
    checkout without being installed (``PYTHONPATH``, or ``python -m grader`` in its root) did not find
    ``perfcore`` there, said "could not measure the machine profile", and its grades named no profile
    (seen on a GPU host, 2026-12-05).

    ``cache`` is handed to that process alone, as the variable perfcore reads (``PERFKIT_CACHE_DIR``, the
    outside override it honours): the run once set it in its own environment mid-run, which every thread
    and process started after inherited. The judges read the same folder, perfcore's ``cache_dir()``
    being what it was as the run began (:attr:`grader.batch.planning.Intake.cache`).

    ``code`` is what the process runs once its path is set (default :data:`_PROFILE_CODE`; a test hands code
    that measures nothing)."""
    # read at the call, not bound at the definition: a test that sets the module's code is heard
    code = "import sys\nsys.path.insert(0, sys.argv[1])\n" + (_PROFILE_CODE if code is None else code)
    try:
        result = subprocess.run(
            [config.python, "-I", "-c", code, _KIT_ROOT],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
            env={**os.environ, "PERFKIT_CACHE_DIR": os.fspath(cache)},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        say(f"grader: could not measure the machine profile ({exc}); measurement checks measure it")
        return None
    if result.returncode != 0:
        say(f"grader: could not measure the machine profile: {result.stderr.strip()[-500:]}")
        return None
    lines = result.stdout.strip().splitlines()
    return lines[-1] if lines else ""


def _measure_in_lanes(
    students: list[Student],
    plans: dict[str, tuple[Work, Work]],
    config: BatchConfig,
    scratch: Path,
    progress: BatchProgress,
    active: set[Judge],
    stop: threading.Event,
    record_for: Callable[[Student], Recorder] | None = None,
    grade: Callable[..., Graded] = grade_student,
) -> Iterator[tuple[str, Graded]]:
    """Grade the measurement exercises of ``students``, ``config.measure_jobs`` students at a time, each
    with ``grade`` (:func:`grade_student`; a test hands one that grades nothing).

    Each lane is a thread whose CPU affinity is a group of cores of its own (``lane_cores``); the worker
    and perfcore's reference it starts inherit that affinity, and the judge picks its core for a
    measurement among them, so the two sides of a measurement still alternate on one core and see the
    same neighbours, while lanes never share a core. One lane is the serial grading of before."""
    if config.measure_jobs == 1 or len(students) < 2:
        for s in students:
            yield (
                s.name,
                grade(
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
                grade,
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


class Journaling:
    """Each exercise graded, appended to the run's journal at once (a :data:`Recorder` per student); after a
    write fails (a full disk) it journals no more, said once, and the grades are still written at the end."""

    def __init__(self, journal: Journal | None, keys: dict[str, dict[str, str]], graded_at: str) -> None:
        self.journal = journal
        self.keys = keys
        self.graded_at = graded_at
        self.unwritable: list[OSError] = []

    def recorder(self, s: Student) -> Recorder:
        def record(exercise: Exercise, outcomes: list[Outcome], notes: tuple[str, ...], took: float) -> None:
            journal = self.journal
            if journal is None or self.unwritable:
                return
            key = self.keys[s.name][exercise.module]
            try:
                journal.append(Entry(s.name, exercise.id, key, self.graded_at, took, notes, tuple(outcomes)))
            except OSError as exc:  # a full disk: the grades are still written at the end, if they can be
                self.unwritable.append(exc)
                say(f"grader: cannot write the journal {journal.path} ({exc}); grading goes on without it")

        return record


@dataclass
class LaneResults:
    """What the lanes gave each student: outcomes, the notes of the intake and of each copy (each once, in
    order), seconds spent; and the key of the machine profile the measurements were judged against."""

    outcomes: dict[str, list[Outcome]]
    notes: dict[str, dict[str, None]]
    elapsed: dict[str, float]
    profile: str | None = None

    @classmethod
    def empty(cls, students: list[Student]) -> LaneResults:
        # what the intake found first, then what each copy left out (both phases copy: each note once)
        return cls(
            {s.name: [] for s in students},
            {s.name: dict.fromkeys(s.notes) for s in students},
            {s.name: 0.0 for s in students},
        )

    def collect(self, name: str, graded: Graded) -> None:
        self.outcomes[name] += graded.outcomes
        self.notes[name].update(dict.fromkeys(graded.notes))
        self.elapsed[name] += graded.elapsed_s


@dataclass
class _Run:
    """What the lanes of one run share: where the copies go, the judges running, the stop signal."""

    config: BatchConfig
    scratch: Path
    progress: BatchProgress
    record_for: Callable[[Student], Recorder]
    active: set[Judge] = dataclasses.field(default_factory=set)
    stop: threading.Event = dataclasses.field(default_factory=threading.Event)


def _formula(run: _Run, pool: ThreadPoolExecutor, taken: Intake, planned: Plan, got: LaneResults) -> None:
    """The formula exercises, ``--jobs`` students at a time in ``pool``."""
    futures = {
        s.name: pool.submit(
            grade_student,
            s,
            planned.lanes[s.name][0],
            run.config,
            run.scratch,
            lane=run.progress.lane(s.name, "formula"),
            active=run.active,
            stop=run.stop,
            record=run.record_for(s),
        )
        for s in taken.students
        if planned.lanes[s.name][0]
    }
    for name, future in futures.items():
        got.collect(name, future.result())


def _measurements(run: _Run, taken: Intake, planned: Plan, got: LaneResults) -> None:
    """The measurement exercises, in their lanes, after the machine profile is measured (or read) once."""
    if not planned.measures():
        return
    serial = [e for e in taken.exercises if is_serial(e)]
    needs_torch = any(c.requires.needs_torch for e in serial for c in e.checks)
    if needs_torch:
        got.profile = _measure_profile(run.config, taken.cache)
    lanes = [s for s in taken.students if planned.lanes[s.name][1]]
    measured = _measure_in_lanes(
        lanes, planned.lanes, run.config, run.scratch, run.progress, run.active, run.stop, run.record_for
    )
    for name, done in measured:
        got.collect(name, done)


def run_lanes(taken: Intake, planned: Plan, config: BatchConfig, progress: BatchProgress) -> LaneResults:
    """The lanes phase: grade ``planned`` for the students of ``taken``; ``progress`` is started here and
    closed, and the scratch folder of the copies removed, whatever happens. On any exception (Ctrl-C,
    SIGTERM, a grader bug) no worker is left running."""
    for prefix in (SCRATCH_PREFIX, *WORKER_PREFIXES):  # a killed run's copies and workers' files: its own
        remove_orphans(prefix)  # cleanup never ran
    scratch = make_owned(SCRATCH_PREFIX)
    os.chmod(scratch, 0o755)
    journaling = Journaling(taken.journal, taken.keys, taken.graded_at)
    run = _Run(config, scratch, progress, journaling.recorder)
    got = LaneResults.empty(taken.students)
    pool = ThreadPoolExecutor(max_workers=config.workers)
    try:
        progress.start()  # its ticker ends with the close below
        _formula(run, pool, taken, planned, got)
        _measurements(run, taken, planned, got)
    except BaseException:  # Ctrl-C, SIGTERM, or a grader bug: leave no worker running
        run.stop.set()  # the pool's running students start no further check
        for judge in list(run.active):
            judge.close()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    else:
        pool.shutdown()
    finally:
        progress.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return got
