"""The pytest plugin: ``pytest exercises/`` grades the student's modules and prints a score table.

Registered through the ``pytest11`` entry point ``perfkit_grader``. This module holds the options and the
hooks' entry points; the parts they call are :mod:`grader.pytest`'s, the way pytest-xdist keeps its options
(``plugin.py``) apart from its session (``dsession.py``): the session's state (:mod:`grader.pytest.session`),
the collected files and checks (:mod:`grader.pytest.items`), a failed check's report
(:mod:`grader.pytest.feedback`) and the table, JSON and page at the end (:mod:`grader.pytest.summary`).

It does nothing visible in a session that collects no exercise module: no table, no JSON unless
``--grader-json`` is given, no change to other tests, no global hypothesis profile.

How a session goes:

- ``pytest_collect_file``: a ``.py`` file whose stem is a registered exercise's ``module`` (the exercises
  of ``grader.checks`` plus the modules named by the ini option ``grader_checks`` / ``--grader-checks``)
  becomes an :class:`~grader.pytest.items.ExerciseModule`; such files do not match ``test_*.py``, so pytest's own collection
  ignores them. Its collection prepares every check (reference values, hypothesis inputs) *before* any
  student code is imported, and yields one :class:`~grader.pytest.items.CheckItem` per check
  (``exercises/ex01_ridge_point.py::1a_ridge_fp32``).
- ``CheckItem.runtest``: the session's :class:`~grader.judge.Judge` runs the check; the student's file is
  imported and called only in the judge's worker process, confined by bubblewrap where it works. Passed:
  the test passes; skipped: ``pytest.skip`` with the reason (counted in pytest's summary line as the
  table counts it, "deferred"); otherwise the test fails and its report is the feedback alone (no pytest
  traceback). While a measuring check runs, a terminal shows a live line after pytest's own: the check,
  its round, its seconds (:mod:`grader.pytest.live`). Points are recorded in ``user_properties`` (``points``,
  ``max_points``, ``state``, ``deferred``), which ``--junitxml`` writes as properties.
- The table is the report. A check still raising NotImplementedError fails (pytest's exit status stays
  non-zero while a check has not passed, and ``--junitxml`` writes its failure) but is shown as a table
  line only: ``pytest_report_teststatus`` files it under "not attempted" (progress letter ``n``), not
  under "failed", so it gets no FAILURES block. A wrong or erroring check keeps one block, its feedback
  cut to :data:`~grader.pytest.feedback.BRIEF_LINES` lines unless ``-v``; a failure said already for the same file (an import
  error, which every check of the exercise meets) is said once, the other checks "same as above".
  Items are collected in the table's order, so the progress, the blocks and the table agree.
- The grade comes from the judge's own records of the outcomes, never from pytest's reports, so a plugin
  or hook that rewrites reports changes no point. Under pytest-xdist the outcomes travel to the controller
  on the reports (``report.grader_outcome``, builtins only), rebuilt there from the trusted registry.
  Serial-only checks (measurements) are skipped with a reason under more than one xdist worker (see
  ``grader.specs.requirements``).
- A ``conftest.py``, ``pytest.ini`` or other pytest settings inside an exercise folder run inside pytest,
  beside the judge: the table and the JSON flag them as an *untrusted setup*. Grades for credit come from
  the batch grader, Gradescope or nbgrader on the instructor's side.
- Measure what changed: a measurement's verdict (passed or wrong) is kept in pytest's cache, keyed by the
  bytes of the exercise's file and the files beside it that it imports, the kit, torch and the machine
  profile (:mod:`grader.results.reuse`); the next run on unchanged files shows it again, one line under the
  table per file saying how many checks and when they were graded, and does not start the student's code
  or perfcore's for it (a check not attempted is kept too, but never said to be an earlier run's).
  ``--grader-remeasure`` or ``--cache-clear`` measure again. A run writing ``--grader-json`` measures
  everything, as batch, Gradescope and nbgrader do: a submission could carry a cache of its own.
- At the end the workers are killed first (with anything they started), then the table and the JSON are
  written.

Options: ``--grader-lang {zh,en}`` (default: ini ``grader_lang``, else the course's ``[tool.perfkit] lang``
in the rootdir's ``pyproject.toml`` or above, else the locale: :mod:`grader.text.lang`), ``--grader-json PATH``,
``--grader-html PATH`` (a self-contained page: :mod:`grader.reports.html`),
``--grader-deferred {defer,zero}``, ``--grader-max-noise`` (default 0.25), ``--grader-remeasure``,
``--grader-checks MODULE``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .judge import DEFAULT_MAX_NOISE
from .pytest.items import CheckItem, ExerciseModule, NotATestModule
from .pytest.session import STATE, SessionState, is_worker, session_state
from .pytest.summary import Summary
from .reports.html import HtmlPathError, check_file
from .reports.table import state_label
from .results.outcome import DEFERRED_POLICIES, State
from .text.catalogue import LANGS, render


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("perfkit-grader", "perfkit grader (grades exercise modules)")
    group.addoption(
        "--grader-lang",
        choices=LANGS,
        default=None,
        help="language of feedback: zh or en (default: ini grader_lang, else [tool.perfkit] lang of the "
        "pyproject.toml, else the locale: zh* Chinese, otherwise English)",
    )
    group.addoption(
        "--grader-json", metavar="PATH", default=None, help="write Gradescope's results.json to PATH"
    )
    group.addoption(
        "--grader-html",
        metavar="PATH",
        default=None,
        help="write a self-contained HTML report (scores, feedback, measurement plots) to PATH",
    )
    group.addoption(
        "--grader-deferred",
        choices=DEFERRED_POLICIES,
        default="defer",
        help="points of skipped checks: defer (left out of the maximum, default) or zero (counted as 0)",
    )
    group.addoption(
        "--grader-max-noise",
        type=float,
        default=DEFAULT_MAX_NOISE,
        help="skip a measurement when the reference's IQR/median exceeds this (default 0.25)",
    )
    group.addoption(
        "--grader-remeasure",
        action="store_true",
        default=False,
        help="measure every measurement check again, even where its files are unchanged since a run whose "
        "outcome pytest's cache keeps (--cache-clear forgets them all)",
    )
    group.addoption(
        "--grader-checks",
        action="append",
        default=[],
        metavar="MODULE",
        help="also register the exercises of these importable modules (comma-separated, repeatable)",
    )
    parser.addini(
        "grader_checks", type="args", default=[], help="modules with more exercises (EXERCISE objects)"
    )
    parser.addini("grader_lang", default="", help="language of the grader's feedback: zh or en")
    parser.addini(
        "grader_allow",
        type="args",
        default=[],
        help="kit packages graded code may import (a course's choice: perfcore); none by default",
    )


def pytest_configure(config: pytest.Config) -> None:
    html_path = config.getoption("grader_html", None)
    if html_path and not is_worker(config):  # refused before grading, not after it
        try:
            check_file(html_path, "--grader-html")
        except HtmlPathError as exc:
            raise pytest.UsageError(f"perfkit grader: {exc}") from exc
    state = SessionState(config)
    config.stash[STATE] = state
    # plugins of this config alone, so nested sessions (pytester) never see each other's outcomes
    config.pluginmanager.register(state, "perfkit_grader_session")
    config.pluginmanager.register(Summary(state), "perfkit_grader_summary")


def pytest_unconfigure(config: pytest.Config) -> None:
    for name in ("perfkit_grader_summary", "perfkit_grader_session"):
        plugin = config.pluginmanager.get_plugin(name)
        if plugin is not None:
            config.pluginmanager.unregister(plugin)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix != ".py" or file_path.name in ("conftest.py", "__init__.py"):
        return None
    exercise = session_state(parent.config).exercises_by_module().get(file_path.stem)
    if exercise is None:
        return None
    return ExerciseModule.from_parent(parent, path=file_path, exercise=exercise)


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """An exercise file named on the command line (``pytest exercises/ex01_ridge_point.py``) would also
    go to pytest's own Python collector, which collects initial paths whatever their name: it would import
    the student's code into pytest's own process, outside the worker, before the references are computed.
    It gets an empty collector instead; ``pytest_collect_file`` above grades the file."""
    if module_path.name in ("conftest.py", "__init__.py"):
        return None
    if session_state(parent.config).exercises_by_module().get(module_path.stem) is None:
        return None
    return NotATestModule.from_parent(parent, path=module_path)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Keep what the reference process is for: it is started (:meth:`SessionState.started_work`) once a
    check shows the student has done some work, to import torch while the checks before the first
    measurement run. On a fresh kit nothing is attempted and nothing asks perfcore, so starting it would
    only compete for the machine with the student's own run (the judge still starts it when a measurement
    asks)."""
    state = session_state(session.config)
    prepared = [item.prepared for item in session.items if isinstance(item, CheckItem)]
    if prepared and not session.config.option.collectonly:
        state.reference_for = (prepared, [str(f) for f in state.folders])


@pytest.hookimpl(tryfirst=True)
def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    """A failed check shown as a table line only gets a status of its own, so the terminal reporter gives it
    no FAILURES block and no short-summary line; it still failed (exit status, ``--junitxml``). A deferred
    check (skipped for pytest) is counted under the table's word for it, "deferred" (progress letter ``d``),
    so that pytest's summary line and the table agree."""
    data = getattr(report, "grader_outcome", None)
    if report.when == "call" and report.skipped and isinstance(data, dict) and data.get("deferred") is True:
        word = state_label("deferred", session_state(config).lang)
        return word, "d", (word, {"yellow": True})
    shown = getattr(report, "grader_shown", None)
    if report.when != "call" or shown not in ("line", "again"):
        return None
    lang = session_state(config).lang
    if shown == "line":
        word = state_label(State.NOT_ATTEMPTED, lang)
        return word, "n", (word, {"yellow": True})
    word = render("pytest_said_above", lang)
    return word, "F", (word, {"red": True})


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if call.when == "call" and isinstance(item, CheckItem) and item.outcome is not None:
        report.grader_outcome = {**item.outcome.to_dict(), "folder": str(Path(item.path).resolve().parent)}
    return report
