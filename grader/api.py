"""Grading outside pytest: one call for a file, a module or a notebook's namespace.

``grade(target, "ex01")`` returns an :class:`~grader.results.outcome.ExerciseResult` (outcomes and points) for
``target``, graded by a :class:`~grader.judge.Judge` exactly as the pytest plugin and the batch grader
grade it: the references are computed first, in this process; the student's code runs only in the
judge's worker process. ``target`` is

- the path of a student's file (its folder is the worker's working folder, so helper modules work);
- a module: its file is graded afresh in a worker (the module already loaded here is not called);
- a notebook's ``globals()`` (a mapping with IPython's input history ``In``): the code cells that ran are
  written, in order, to a module in a private folder and graded from there, in a worker. Cells that call
  the grader are left out.

``check(namespace, "ex01", "1a_ridge_fp32")`` runs one check and raises ``AssertionError`` with the
feedback unless it passed, which is what an nbgrader grade cell needs (a cell that raises scores 0; a
skipped check raises too, saying why, since a grade needs a machine that meets the requirements).

In a notebook the judge called by ``check`` runs inside the student's kernel, so the student's cells could
patch it before a check cell runs: its answer is the student's feedback while working. Under ``nbgrader
autograde`` the grade is decided outside the kernel, from the submitted notebook's file, by
:class:`grader.course.judgecells.JudgeCheckCells` (see docs/instructors.md).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import types
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .judge import DEFAULT_MAX_NOISE, Judge, JudgeConfig
from .judge.cells import cells_source
from .registry import find_exercise
from .results.outcome import ExerciseResult, Outcome
from .text.lang import resolve_lang


def notebook_source(namespace: Mapping[str, Any]) -> str:
    """The code cells a notebook ran (IPython's ``In``), in order, without the cells that call the grader.

    IPython's own syntax (``%timeit``, ``!ls``) is turned into plain Python where IPython is installed.
    """
    cells = namespace.get("In")
    if not isinstance(cells, list) or not all(isinstance(c, str) for c in cells):
        raise TypeError(
            "a mapping can be graded only when it is a notebook's globals() (with IPython's history In); "
            "pass a file path or a module instead"
        )
    return cells_source(cells)


def grade(
    target: types.ModuleType | str | os.PathLike[str] | Mapping[str, Any],
    exercise_id: str,
    *,
    checks: list[str] | None = None,
    lang: str | None = None,
    deferred: str = "defer",
    max_noise: float = DEFAULT_MAX_NOISE,
    extra_checks: Iterable[str] = (),
    sandbox: bool = True,
    allow: Iterable[str] = (),
) -> ExerciseResult:
    """Run the checks of ``exercise_id`` (all, or those named in ``checks``) on ``target``.

    ``extra_checks`` names modules with more exercises, as the pytest option ``grader_checks`` does;
    ``allow`` the kit packages graded code may import (``("perfcore",)``; none by default). ``lang``: the
    feedback's language; by default the course's ``[tool.perfkit] lang`` in a ``pyproject.toml`` from the
    graded file's folder (the working folder, for a notebook) upwards, else the locale.
    """
    exercise = find_exercise(exercise_id, extra_checks)
    folder: str | None = None
    if isinstance(target, types.ModuleType):
        file = getattr(target, "__file__", None)
        if not file:
            raise TypeError(f"target module {target.__name__!r} has no file to grade")
        path, source = Path(file), os.fspath(file)
    elif isinstance(target, (str, os.PathLike)):
        path, source = Path(target), os.fspath(target)
    elif isinstance(target, Mapping):
        folder = tempfile.mkdtemp(prefix="perfkit-notebook-")
        path = Path(folder) / f"{exercise.module}.py"
        path.write_text(notebook_source(target), encoding="utf-8")
        source = f"{exercise.module}.ipynb"
    else:
        raise TypeError(
            "target must be a module, a file path or a mapping (a notebook's globals()), "
            f"got {type(target).__name__}"
        )
    lang = resolve_lang(lang, Path.cwd() if folder is not None else path.resolve().parent)
    try:
        config = JudgeConfig(
            lang,
            max_noise=max_noise,
            sandbox=sandbox,
            allow=tuple(allow),
            extra_checks=tuple(extra_checks),
            deferred=deferred,
        )
        with Judge(config) as judge:
            return judge.grade(exercise, path, checks, source=source)
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def check(
    namespace: types.ModuleType | str | os.PathLike[str] | Mapping[str, Any],
    exercise_id: str,
    check_id: str,
    *,
    lang: str | None = None,
    extra_checks: Iterable[str] = (),
) -> Outcome:
    """Run one check; return its Outcome when passed, else raise AssertionError with the feedback."""
    result = grade(namespace, exercise_id, checks=[check_id], lang=lang, extra_checks=extra_checks)
    outcome = result.outcomes[0]
    if not outcome.passed:
        raise AssertionError(f"{outcome.name}: {outcome.message}")
    return outcome
