"""The judge: the trusted side of grading, as a package.

- :mod:`.config`: :class:`~.config.JudgeConfig`, the judge's settings, which every front end builds;
- :mod:`.prepare`: a check's requirements and reference side, computed before any student code runs;
- :mod:`.core`: :class:`~.core.Judge`, which composes the two sides below, runs a check's order and turns
  verdicts into outcomes;
- :mod:`.student`: the student's side: the workers, the file's import, the calls, each exercise's time
  budget, the verdicts for a worker's failures;
- :mod:`.reference_side`: perfcore's side: the reference process asked, the student's trees stopped while
  it measures, the machine's bounds;
- :mod:`.runners`: one module per kind of check, each asking the judge only what
  :class:`~.runners.protocol.JudgeSide` lists, and returning what it measured;
- :mod:`.verdicts`: how a check ends other than passing, and the feedback's shared parts;
- :mod:`.reference_server`: perfcore's side of a measurement, in a trusted process of its own, and
  :mod:`.reference`: the judge's handle on that process;
- :mod:`.cells`: the student's code of a notebook, its code cells as both of a notebook's judges read them
  (``grader.check`` in the kernel, the autograde step outside it).

Inside the package the order is ``verdicts`` (and ``untouched``, ``cells``, ``config``) < ``prepare`` <
``reference`` (and ``reference_server``) < ``runners`` (beside them ``student`` and ``reference_side``) <
``core``. May import: the text, sandbox, comparison, specs, checks/registry and results layers; never the
reports, batch, course or a front end. The names below are what the front ends use.
"""

from __future__ import annotations

from .config import DEFAULT_MAX_NOISE, JudgeConfig
from .core import Judge
from .prepare import Prepared, prepare, prepare_exercise
from .student import time_budget_s
from .verdicts import GraderError

__all__ = [
    "DEFAULT_MAX_NOISE",
    "GraderError",
    "Judge",
    "JudgeConfig",
    "Prepared",
    "prepare",
    "prepare_exercise",
    "time_budget_s",
]
