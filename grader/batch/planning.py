"""A batch run's first two phases, before any student code runs: the intake (the exercises selected, the
students found, the checks prepared once, the journal opened) and the plan (which checks each student's
lanes grade, what the journal already holds, the outcomes of files that cannot be graded).

Both are plain functions of their inputs, tested without a thread pool; the lanes that grade the plan are
:mod:`grader.batch.lanes`, the assembly of what they give :mod:`grader.batch.engine`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from perfcore.measure.profile import cache_dir

from ..judge import Prepared, prepare_exercise
from ..judge.core import WORKER_OWN_BYTES
from ..registry import load_exercises
from ..results.outcome import Outcome, State, shown_name
from ..sandbox.confinement import find_bwrap
from ..specs.check import Exercise
from ..text.catalogue import LANGS, render, render_count
from .config import BatchConfig, is_serial, say, selected_exercises
from .console import resumed_lines
from .journal import Entry, Journal, content_keys, journal_settings, run_journal, to_grade
from .progress import BatchProgress
from .submissions import Student, find_students, loose_files

#: One lane's work for one student: each exercise with the prepared checks it grades
Work = list[tuple[Exercise, list[Prepared]]]


def source_name(student: Student, exercise: Exercise) -> str:
    """How an outcome names the file it graded: ``student/module.py``."""
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


@dataclass(frozen=True)
class Intake:
    """What a run starts from: the exercises, the students, every check prepared once (by exercise id), the
    content keys of each student's files (by module), the journal and what it held, the sandbox used."""

    exercises: list[Exercise]
    students: list[Student]
    prepared: dict[str, list[Prepared]]
    keys: dict[str, dict[str, str]]
    journal: Journal | None
    earlier: list[Entry]
    sandbox: str
    #: When the run started (ISO 8601, UTC)
    graded_at: str
    #: The folder of perfcore's cache (its machine profile) as the run began, handed to the profile's
    #: process (:mod:`grader.batch.lanes`) rather than set in this process's environment mid-run
    cache: Path


def _say_loose(submissions: str | os.PathLike[str]) -> None:
    """Name the files beside the students' folders, which no student owns, in every language."""
    loose = loose_files(submissions)
    if not loose:
        return
    root = shown_name(os.fspath(submissions))
    examples = ", ".join(shown_name(p.name) for p in loose[:5]) + (", ..." if len(loose) > 5 else "")
    for lang in LANGS:
        say("grader: " + render("intake_loose_files", lang, root=root, count=len(loose), examples=examples))


def _sandbox(config: BatchConfig) -> str:
    """The sandbox the judges will use, said where it is less than bubblewrap."""
    if not config.sandbox:
        say("grader: --no-sandbox: grading with resource limits alone (no file-system or network isolation)")
        return "limits only"
    bwrap, why_not = find_bwrap()
    if bwrap is None:
        say(f"grader: {why_not}; grading with resource limits alone (no file-system or network isolation)")
        return "limits only"
    return "bwrap"


def intake(
    submissions: str | os.PathLike[str], config: BatchConfig, out: str | os.PathLike[str] | None
) -> Intake:
    """The intake phase: the students under ``submissions`` and the checks prepared for them, before any
    student code runs; ``out``'s journal opened."""
    graded_at = datetime.now(timezone.utc).isoformat(timespec="microseconds")
    exercises = selected_exercises(config)
    students = find_students(submissions, exercises, config.lang, config.shard, config.students)
    _say_loose(submissions)
    sandbox = _sandbox(config)
    prepared = {e.id: prepare_exercise(e, config.lang) for e in exercises}  # before any student code runs
    modules = [e.module for e in load_exercises(config.grader_checks).values()]
    keys = {s.name: content_keys(s, modules) for s in students}
    settings = journal_settings(config.lang, config.max_noise, config.allow, config.grader_checks)
    journal = run_journal(out, settings, config.retry_deferred, say)
    earlier = list(journal.entries) if journal is not None else []
    return Intake(exercises, students, prepared, keys, journal, earlier, sandbox, graded_at, cache_dir())


@dataclass(frozen=True)
class Plan:
    """What each student's lanes grade: ``todo`` the checks to grade by exercise id (an empty list where the
    journal holds them all), ``missing`` the outcomes of files that cannot be graded, ``lanes`` the formula
    and the measurement work."""

    todo: dict[str, dict[str, list[Prepared]]]
    missing: dict[str, list[Outcome]]
    lanes: dict[str, tuple[Work, Work]]

    def measures(self) -> bool:
        """Whether any student has measurement work."""
        return any(serial for _, serial in self.lanes.values())


def plan(taken: Intake, config: BatchConfig) -> Plan:
    """The plan phase: which checks each student of ``taken`` is graded on, and what needs no grading."""
    todo: dict[str, dict[str, list[Prepared]]] = {}
    missing: dict[str, list[Outcome]] = {s.name: [] for s in taken.students}
    for s in taken.students:
        todo[s.name] = {}
        for e in taken.exercises:
            if e.module in s.problems:
                state, text = s.problems[e.module]
                source = source_name(s, e)
                missing[s.name] += [
                    file_outcome(p, state, text, config, source) for p in taken.prepared[e.id]
                ]
            elif e.module in s.files:
                todo[s.name][e.id] = to_grade(
                    taken.prepared[e.id],
                    taken.earlier,
                    s.name,
                    taken.keys[s.name][e.module],
                    anew=bool(config.students),
                    retry=config.retry_deferred,
                )
    lanes = {
        s.name: (
            [(e, todo[s.name][e.id]) for e in taken.exercises if not is_serial(e) and todo[s.name].get(e.id)],
            [(e, todo[s.name][e.id]) for e in taken.exercises if is_serial(e) and todo[s.name].get(e.id)],
        )
        for s in taken.students
    }
    if taken.journal is not None:
        _say_resumed(taken.journal, taken.students, taken.exercises, todo, config)
    return Plan(todo, missing, lanes)


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
        say(line)
    if config.retry_deferred:
        retried = sum(len(v) for s in students for v in todo[s.name].values())
        say(render_count("batch_retried", config.lang, retried))


def progress_for(taken: Intake, planned: Plan, config: BatchConfig) -> BatchProgress:
    """The run's progress, told what the plan leaves each lane and what needs no grading."""
    exercises = taken.exercises
    progress = BatchProgress(
        len(taken.students) * len(exercises),
        config.progress,
        students={s.name: len(exercises) for s in taken.students},
        lanes={"formula": config.workers, "serial": config.measure_jobs},
        lang=config.lang,
    )
    for s in taken.students:  # what this run need not grade: files missing, and exercises the journal holds
        todo = planned.todo[s.name]
        kept = sum(1 for e in exercises if todo.get(e.id) == [])
        unusable = len({o.exercise for o in planned.missing[s.name]})
        progress.settled(s.name, unusable + kept)
        graded = [e for e in exercises if todo.get(e.id)]
        # a student's exercises with no file and no problem (not handed in at all) are counted done too
        progress.settled(s.name, len(exercises) - kept - unusable - len(graded))
        progress.plan("formula", sum(1 for e in graded if not is_serial(e)))
        progress.plan("serial", sum(1 for e in graded if is_serial(e)))
    return progress
