"""The judge's settings, one frozen record that every front end builds: :class:`JudgeConfig`.

The pytest plugin, ``grader.grade()``, batch grading and the course's autograde step each build one from
their own options and hand it to :class:`~grader.judge.core.Judge`; what a setting means, and which values
it may take, is said here once. What is not a setting stays out: a front end's display (the judge's
``say`` and ``on_progress``) is handed to the judge beside the record.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from ..sandbox import confinement
from ..text.catalogue import LANGS

#: The round-to-round spread (IQR/median) past which a student's own figures count as scattered.
DEFAULT_MAX_NOISE = 0.25
#: The kit's packages a course may let the student's code import.
ALLOWABLE = ("perfcore", "grader")


@dataclass(frozen=True)
class JudgeConfig:
    """How a judge grades.

    ``lang``: the feedback's language; ``max_noise``: the spread past which the student's figures are
    scattered; ``sandbox``: confine workers with bubblewrap where it works (see
    :mod:`grader.sandbox.confinement`); ``limits``: each worker's resource limits; ``allow``: kit packages
    the student's code may import (``("perfcore",)``, a course's choice); ``extra_checks``: checks modules
    beside the kit's; ``python``: the interpreter of the workers and the reference process; ``deferred``:
    what a deferred check counts, ``"defer"`` or ``"zero"`` (:class:`~grader.results.outcome.ExerciseResult`).
    ``allow`` and ``extra_checks`` may be given as any iterable; they are kept as tuples.
    """

    lang: str = "zh"
    max_noise: float = DEFAULT_MAX_NOISE
    sandbox: bool = True
    limits: confinement.Limits = field(default_factory=confinement.Limits)
    allow: tuple[str, ...] = ()
    extra_checks: tuple[str, ...] = ()
    python: str = sys.executable
    deferred: str = "defer"

    def __post_init__(self) -> None:
        if self.lang not in LANGS:
            raise ValueError(f"lang must be one of {LANGS}, got {self.lang!r}")
        # a frozen record: its iterables are made tuples once, here (a front end hands lists)
        object.__setattr__(self, "allow", tuple(self.allow))
        object.__setattr__(self, "extra_checks", tuple(self.extra_checks))
        if self.limits is None:  # the judge's keyword form took None for the default limits
            object.__setattr__(self, "limits", confinement.Limits())
        unknown = [name for name in self.allow if name not in ALLOWABLE]
        if unknown:
            raise ValueError(f"allow may name perfcore and grader only, got {unknown}")
