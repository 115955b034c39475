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

A run is four named phases, each a function of what the one before gave: the intake and the plan
(:mod:`grader.batch.planning`: steps 1 and 2, and which checks each student's lanes grade), the lanes
(:mod:`grader.batch.lanes`: step 3, the only phase with threads), and the assembly here (each student's
outcomes in registry order, with what the journal held). The settings are :mod:`grader.batch.config`'s.

Deferred checks (requirements unmet on this machine, or a machine too noisy to measure) are listed as
deferred and left out of the maximum, as in the pytest plugin, or count as zero with ``--deferred zero``.
A check the machine defers for everyone is deferred for a missing file too (:func:`file_outcome`), so a
student's maximum never depends on which files the folder holds.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..results.outcome import Outcome
from ..specs.check import Exercise
from .config import BatchConfig, is_serial, selected_exercises
from .errors import BatchError
from .journal import assembled
from .lanes import SCRATCH_PREFIX, Graded, LaneResults, grade_student, grader_error, run_lanes
from .planning import Intake, Plan, file_outcome, intake, machine_deferral, plan, progress_for
from .progress import BatchProgress
from .submissions import Student, find_students

#: What the engine's callers import from it, wherever it now lives
__all__ = [
    "SCRATCH_PREFIX",
    "BatchConfig",
    "BatchError",
    "BatchResult",
    "Graded",
    "Intake",
    "Plan",
    "Student",
    "StudentResult",
    "assemble",
    "check_ids",
    "file_outcome",
    "find_students",
    "grade_batch",
    "grade_student",
    "grader_error",
    "is_serial",
    "machine_deferral",
    "selected_exercises",
]

#: The progress's name before it had a module of its own (:mod:`grader.batch.progress`)
_Progress = BatchProgress


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


def assemble(taken: Intake, planned: Plan, got: LaneResults) -> list[StudentResult]:
    """The assembly phase: each student's outcomes, in registry order, from what the lanes graded, what the
    journal held and the files that could not be graded, with the notes and seconds of both."""
    order = {(e.id, c.id): i for i, (e, c) in enumerate((e, c) for e in taken.exercises for c in e.checks)}
    graded = []
    for s in taken.students:
        keys = taken.keys[s.name]
        got_s = assembled(s, taken.exercises, keys, taken.earlier, got.outcomes[s.name], taken.graded_at)
        outcomes = sorted(
            got_s.outcomes + planned.missing[s.name], key=lambda o: order[(o.exercise, o.check_id)]
        )
        graded.append(
            StudentResult(
                s.name,
                tuple(outcomes),
                tuple({**got.notes[s.name], **dict.fromkeys(got_s.notes)}),
                got.elapsed[s.name] + got_s.elapsed_s,
                got_s.graded_at,
                {e.id: keys[e.module] for e in taken.exercises if e.module in s.files},
                got_s.reused,
                s.notebooks,
            )
        )
    return graded


def grade_batch(
    submissions: str | os.PathLike[str],
    config: BatchConfig = BatchConfig(),  # noqa: B008 - frozen: one shared default cannot change
    out: str | os.PathLike[str] | None = None,
) -> BatchResult:
    """Grade every student under ``submissions`` (see the module docstring): intake, plan, lanes, assembly."""
    started = time.monotonic()
    taken = intake(submissions, config, out)
    planned = plan(taken, config)
    got = run_lanes(taken, planned, config, progress_for(taken, planned, config))
    graded = assemble(taken, planned, got)
    took = time.monotonic() - started
    return BatchResult(
        tuple(graded), tuple(taken.exercises), config, taken.sandbox, took, got.profile, taken.graded_at
    )


def check_ids(exercises: Iterable[Exercise]) -> list[str]:
    """``exercise::check`` for every check, in registry order (the CSV's columns)."""
    return [f"{e.id}::{c.id}" for e in exercises for c in e.checks]
