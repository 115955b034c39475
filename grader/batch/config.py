"""How a batch is told to grade: its settings (:class:`BatchConfig`, checked as it is made) and the
exercises they select, in registry order. Every phase of a run (:mod:`grader.batch.engine`) reads them;
nothing here grades."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..judge import DEFAULT_MAX_NOISE, JudgeConfig
from ..registry import load_exercises
from ..results.outcome import DEFERRED_POLICIES
from ..sandbox.confinement import Limits
from ..specs.check import Exercise
from ..text.catalogue import LANGS
from .allotment import usable_cores
from .errors import BatchError

if TYPE_CHECKING:
    from .shard import Shard


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

    def judge_config(self) -> JudgeConfig:
        """The settings of each judge this run grades with: this config's own, under the judge's names."""
        return JudgeConfig(
            self.lang,
            max_noise=self.max_noise,
            sandbox=self.sandbox,
            limits=self.limits,
            allow=self.allow,
            extra_checks=self.grader_checks,
            python=self.python,
            deferred=self.deferred,
        )


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


def is_serial(exercise: Exercise) -> bool:
    """Whether an exercise has a check that needs the machine to itself (a measurement)."""
    return any(c.requires.serial for c in exercise.checks)


def say(text: str) -> None:
    """A line on stderr, at once: what a run tells its user beside the progress line."""
    print(text, file=sys.stderr, flush=True)
