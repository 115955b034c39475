"""The pytest plugin: ``pytest exercises/`` grades the student's modules and prints a score table.

Registered through the ``pytest11`` entry point ``perfkit_grader``. It does nothing visible in a session
that collects no exercise module: no table, no JSON unless ``--grader-json`` is given, no change to other
tests, no global hypothesis profile.

How a session goes:

- ``pytest_collect_file``: a ``.py`` file whose stem is a registered exercise's ``module`` (the exercises
  of ``grader.checks`` plus the modules named by the ini option ``grader_checks`` / ``--grader-checks``)
  becomes an :class:`ExerciseModule`; such files do not match ``test_*.py``, so pytest's own collection
  ignores them. Its collection prepares every check (reference values, hypothesis inputs) *before* any
  student code is imported, and yields one :class:`CheckItem` per check
  (``exercises/ex01_ridge_point.py::1a_ridge_fp32``).
- ``CheckItem.runtest``: the session's :class:`~grader.judge.Judge` runs the check; the student's file is
  imported and called only in the judge's worker process, confined by bubblewrap where it works. Passed:
  the test passes; skipped: ``pytest.skip`` with the reason; otherwise the test fails and its report is the
  feedback alone (no pytest traceback). Points are recorded in ``user_properties`` (``points``,
  ``max_points``, ``state``, ``deferred``), which ``--junitxml`` writes as properties.
- The table is the report. A check still raising NotImplementedError fails (pytest's exit status stays
  non-zero while a check has not passed, and ``--junitxml`` writes its failure) but is shown as a table
  line only: ``pytest_report_teststatus`` files it under "not attempted" (progress letter ``n``), not
  under "failed", so it gets no FAILURES block. A wrong or erroring check keeps one block, its feedback
  cut to :data:`BRIEF_LINES` lines unless ``-v``; a failure said already for the same file (an import
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
  profile (:mod:`grader.results.reuse`); the next run on unchanged files shows it again, marked in the table
  with when it was measured, and does not start the student's code or perfcore's for it.
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

import re
import sys
import time
from collections.abc import Container, Iterator
from pathlib import Path
from typing import Any

import pytest

from .judge import DEFAULT_MAX_NOISE, Judge, Prepared
from .judge.prepare import measures, prepare
from .judge.untouched import untouched_in
from .registry import RegistryError, by_module, load_exercises
from .reports.files import write_json
from .reports.gradescope import gradescope_results
from .reports.html import HtmlPathError, check_file, write_report
from .reports.table import fmt_points, score_table, state_label
from .results.outcome import DEFERRED_POLICIES, Outcome, State
from .results.reuse import CACHE_PREFIX, FORMULA_KINDS, entry, readable, reuse_key, reused, verified
from .sandbox import confinement
from .specs.check import Check, Exercise
from .text.catalogue import LANGS, render
from .text.lang import CourseLangError, resolve_lang
from .untrusted import unshadow, untrusted_files

#: Lines of a failing check's feedback shown without ``-v``; the rest is one line saying how many.
BRIEF_LINES = 12
#: A traceback frame of no file (``<frozen importlib._bootstrap>``, ``<string>``): not the student's line,
#: and the guide promises only the student's own lines.
_PSEUDO_FRAME = re.compile(r'^\s*File "<[^>\n]*>", line \d+, in [^\n]*\n?', re.MULTILINE)


class _SessionState:
    """Per-config state: the registry (loaded lazily), the outcomes seen in reports, the start time."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.started = time.monotonic()
        self._exercises: dict[str, Exercise] | None = None
        self.outcomes: dict[tuple[str, str], Outcome] = {}
        self.folders: set[Path] = set()
        self.flagged: set[str] = set()
        self._judge: Judge | None = None
        #: (file, state, feedback) of the failures shown in a block: the same one again gets a line only
        self.shown: set[tuple[str, str, str]] = set()
        #: Kept measurements whose signature did not verify (forged, or another account's): measured again.
        self.unverified = 0
        #: The cache keys of this session's checks (:meth:`reuse_key`).
        self.keys: dict[tuple[str, str, str], str | None] = {}
        #: Why the student's code ran unconfined (kept once a judge says so), for one line in the summary.
        self.unconfined: str | None = None
        #: the checks and folders to start the reference process for, once a check shows some work done
        self.reference_for: tuple[list[Prepared], list[str]] | None = None
        self._lang: str | None = None

    def judge(self) -> Judge:
        if self._judge is None:
            extra = list(self.config.getini("grader_checks")) + [
                name for value in self.config.getoption("grader_checks") or [] for name in value.split(",")
            ]
            allow = [
                name for value in self.config.getini("grader_allow") for name in value.split(",") if name
            ]
            try:
                self._judge = Judge(self.lang, max_noise=self.max_noise, extra_checks=extra, allow=allow)
            except ValueError as exc:
                raise pytest.UsageError(f"perfkit grader: grader_allow: {exc}") from exc
        return self._judge

    def unconfined_reason(self) -> str | None:
        """Why the student's code that ran in this session ran unconfined; None where it was confined or
        none ran. Under xdist the controller has no judge: it reads the machine as its workers did."""
        if self._judge is not None and self._judge.ran_unconfined:
            self.unconfined = self._judge.unconfined_reason
        if self.unconfined is not None:
            return self.unconfined
        if not _is_xdist_controller(self.config) or all(o.reused for o in self.outcomes.values()):
            return None
        if all(o.state == State.NOT_ATTEMPTED for o in self.outcomes.values()):
            return None
        bwrap, reason = confinement.find_bwrap()
        return None if bwrap is not None else reason

    def close_judge(self) -> None:
        if self._judge is not None:
            self.unconfined_reason()  # kept: the summary is printed after the session's end closed the judge
            self._judge.close()
            self._judge = None

    def record(self, outcome: Outcome) -> None:
        """Keep ``outcome``, rebuilt from the trusted registry: one per check, never above its points."""
        exercise = next((e for e in self.exercises_by_module().values() if e.id == outcome.exercise), None)
        if exercise is None or outcome.check_id not in {c.id for c in exercise.checks}:
            return
        check = exercise.check(outcome.check_id)
        self.outcomes[(exercise.id, check.id)] = Outcome.of(
            exercise,
            check,
            outcome.state,
            outcome.message,
            lang=self.lang,
            deferred=outcome.deferred,
            source=outcome.source,
            details=outcome.details,
            measured=outcome.measured,
            reused=outcome.reused,
        )

    def kept_key(self, p: Prepared, path: Path) -> str | None:
        """The key an outcome of ``p`` from the file at ``path`` is kept under in pytest's cache: a measured
        one, or a formula check's (issue 30); None where nothing is kept (no cache: ``-p no:cacheprovider``;
        a record for Gradescope; a check that neither measures nor is a formula's)."""
        if getattr(self.config, "cache", None) is None:
            return None
        if not (measures(p) or p.lazy or p.check.check_kind in FORMULA_KINDS):
            return None
        if self.config.getoption("grader_json"):  # a record for Gradescope: measured, whatever a cache says
            return None
        return self.reuse_key(p.exercise, p.check, Path(path).resolve())

    def reuse_key(self, exercise: Exercise, check: Check, path: Path) -> str | None:
        """:func:`grader.results.reuse.reuse_key`, once per check and file in a session (collection and the
        run ask alike; the files do not change between them)."""
        memo = (exercise.id, check.id, str(path))
        if memo not in self.keys:
            formula = check.check_kind in FORMULA_KINDS
            self.keys[memo] = reuse_key(exercise.id, check.id, path, self.lang, self.max_noise, formula)
        return self.keys[memo]

    def kept_checks(self, exercise: Exercise, path: Path, untouched: Container[str] = ()) -> set[str]:
        """The ids of ``exercise``'s checks whose outcome from the file at ``path`` the cache keeps and will
        show (verified, not a retry): their collection prepares nothing. A function still the stub's needs
        no key: its check costs nothing anyway."""
        if getattr(self.config, "cache", None) is None or self.config.option.collectonly:
            return set()
        if (
            self.config.getoption("grader_json")
            or self.config.getoption("grader_remeasure")
            or not readable()
        ):
            return set()
        found = set()
        for check in exercise.checks:
            if check.func in untouched:
                continue
            key = self.reuse_key(exercise, check, path.resolve())
            kept = self.config.cache.get(f"{CACHE_PREFIX}/{key}", None) if key is not None else None
            if isinstance(kept, dict) and kept.get("retry") is not True and verified(kept, key or ""):
                found.add(check.id)
        return found

    def reused_outcome(self, p: Prepared, key: str | None, source: str) -> Outcome | None:
        """The outcome of ``p`` graded by an earlier run on the same files (:mod:`grader.results.reuse`),
        unless ``--grader-remeasure``."""
        if key is None or self.config.getoption("grader_remeasure") or not readable():
            return None
        kept = self.config.cache.get(f"{CACHE_PREFIX}/{key}", None)
        if kept is not None and not verified(kept, key):  # not written by this kit on this account
            self.unverified += 1
            return None
        formula = p.check.check_kind in FORMULA_KINDS
        return reused(kept, p.exercise.id, p.check.id, source, self.lang, formula)

    def keep(self, key: str | None, p: Prepared, outcome: Outcome) -> None:
        """Keep a verdict for the next run on the same files."""
        kept = entry(outcome, key, formula=p.check.check_kind in FORMULA_KINDS) if key is not None else None
        if kept is not None:
            self.config.cache.set(f"{CACHE_PREFIX}/{key}", kept)

    def write_html(self, path: str) -> bool:
        """The HTML report (:mod:`grader.reports.html`) of the outcomes, and whether it was written; a failure to
        write it is said, not raised (the grade in the table and the JSON stands)."""
        untrusted = self.untrusted()
        notes = [render("untrusted_setup", self.lang, files=", ".join(untrusted))] if untrusted else []
        try:
            write_report(
                path,
                list(self.outcomes.values()),
                lang=self.lang,
                deferred=self.deferred,
                argument="--grader-html",
                extra_checks=self.extra_checks(),
                notes=notes,
            )
        except HtmlPathError as exc:
            sys.stderr.write(f"perfkit grader: {exc}\n")
            return False
        return True

    def extra_checks(self) -> list[str]:
        """The modules of more exercises named by the ini option and ``--grader-checks``."""
        return list(self.config.getini("grader_checks")) + [
            name for value in self.config.getoption("grader_checks") or [] for name in value.split(",")
        ]

    def untrusted(self) -> list[str]:
        """The files in the graded folders that run or configure pytest beside the judge (looked for when
        the folder was collected, and again now)."""
        root = Path(str(self.config.rootpath))
        found = set(self.flagged)
        for folder in self.folders:
            found.update(untrusted_files(folder, root))
        return sorted(found)

    def exercises_by_module(self) -> dict[str, Exercise]:
        if self._exercises is None:
            extra = list(self.config.getini("grader_checks")) + [
                name for value in self.config.getoption("grader_checks") or [] for name in value.split(",")
            ]
            try:
                self._exercises = by_module(load_exercises(extra))
            except RegistryError as exc:
                raise pytest.UsageError(f"perfkit grader: {exc}") from exc
        return self._exercises

    @property
    def lang(self) -> str:
        """``--grader-lang``, else the ini's ``grader_lang``, else the course's setting, else the locale."""
        if self._lang is None:
            given = self.config.getoption("grader_lang") or self.config.getini("grader_lang")
            try:
                lang = resolve_lang(given, Path(str(self.config.rootpath)))
            except CourseLangError as exc:
                raise pytest.UsageError(f"perfkit grader: {exc}") from exc
            if lang not in LANGS:
                raise pytest.UsageError(f"grader_lang must be one of {LANGS}, got {lang!r}")
            self._lang = lang
        return self._lang

    @property
    def deferred(self) -> str:
        return self.config.getoption("grader_deferred")

    @property
    def max_noise(self) -> float:
        return self.config.getoption("grader_max_noise")

    # hooks: this object is registered as a plugin of its own config, so nested sessions (pytester)
    # never see each other's outcomes

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Keep what the reference process is for: it is started (:meth:`started_work`) once a check shows
        the student has done some work, to import torch while the checks before the first measurement run.
        On a fresh kit nothing is attempted and nothing asks perfcore, so starting it would only compete
        for the machine with the student's own run (the judge still starts it when a measurement asks)."""
        prepared = [item.prepared for item in session.items if isinstance(item, CheckItem)]
        if prepared and not session.config.option.collectonly:
            self.reference_for = (prepared, [str(f) for f in self.folders])

    def started_work(self, outcome: Outcome) -> None:
        """Start the reference process after the first check that ran the student's code (not a stub's, and
        not one skipped for a requirement the machine lacks)."""
        if outcome.reused:  # shown from the cache: the student's code did not run
            return
        if self.reference_for is not None and outcome.state not in (State.NOT_ATTEMPTED, State.SKIPPED):
            prepared, folders = self.reference_for
            self.reference_for = None
            self.judge().start_reference(prepared, folders)

    @pytest.hookimpl(tryfirst=True)  # before the terminal reporter files the report under its status
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = getattr(report, "grader_outcome", None)
        if report.when == "call" and report.failed and isinstance(data, dict) and not _is_worker(self.config):
            report.grader_shown = self.shown_as(data)  # type: ignore[attr-defined]  # travels like grader_outcome
        # Only the controller of an xdist run takes outcomes from reports; elsewhere the judge's own
        # records (CheckItem.runtest) are the grade.
        if report.when == "call" and isinstance(data, dict) and _is_xdist_controller(self.config):
            try:
                self.record(Outcome.from_dict(data))
            except (TypeError, ValueError):
                pass
            folder = data.get("folder")
            if isinstance(folder, str):
                self.folders.add(Path(folder))

    def shown_as(self, data: dict[str, Any]) -> str:
        """How a failed check is shown: ``"line"`` (not attempted: the table line says it), ``"again"``
        (the same failure of the same file was shown already: an import error reaches every check of its
        exercise) or ``"block"``. Decided here, where reports arrive in the order they are printed (on an
        xdist controller too), and kept on the report, since pytest asks for a report's status more than once."""
        if data.get("state") == State.NOT_ATTEMPTED:
            return "line"
        key = (str(data.get("source", "")), str(data.get("state", "")), str(data.get("message", "")))
        if key in self.shown:
            return "again"
        self.shown.add(key)
        return "block"

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> Any:
        # A wrapper around the terminal reporter's own summary, so the score table comes last, after
        # pytest's short summary: the first thing a student reads at the bottom of the screen.
        result = yield
        if _is_worker(self.config) or not self.outcomes:
            return result
        unconfined = self.unconfined_reason()
        self.close_judge()  # the workers are gone before anything is reported
        outcomes = list(self.outcomes.values())
        terminalreporter.write_sep("=", render("table_title", self.lang))
        for line in score_table(outcomes, self.lang, self.deferred):
            terminalreporter.write_line(line)
        if unconfined is not None:  # once, under the table: never inside a check's captured output
            terminalreporter.write_line(render("not_confined", self.lang, reason=unconfined))
        untrusted = self.untrusted()
        if untrusted:
            terminalreporter.write_line(render("untrusted_setup", self.lang, files=", ".join(untrusted)))
        if self.unverified:
            terminalreporter.write_line(render("cache_unverified", self.lang, n=self.unverified))
        path = self.config.getoption("grader_json")
        if path:
            terminalreporter.write_line(f"Gradescope results.json: {path}")
        return result

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self) -> None:
        self.close_judge()
        html_path = self.config.getoption("grader_html")
        if not _is_worker(self.config) and html_path and self.write_html(html_path):
            # said once it is there (the summary is printed before the session ends and the page is written)
            reporter = self.config.pluginmanager.get_plugin("terminalreporter")
            if reporter is not None:
                reporter.write_line(f"HTML report: {html_path}")
        path = self.config.getoption("grader_json")
        if _is_worker(self.config) or not path:
            return
        outcomes = list(self.outcomes.values())
        elapsed = time.monotonic() - self.started
        data = gradescope_results(outcomes, self.lang, self.deferred, elapsed)
        untrusted = self.untrusted()
        if untrusted:
            data["untrusted_setup"] = untrusted
            data["output"] = render("untrusted_setup", self.lang, files=", ".join(untrusted))
        write_json(path, data)


_STATE = pytest.StashKey[_SessionState]()


def _state(config: pytest.Config) -> _SessionState:
    return config.stash[_STATE]


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _is_xdist_controller(config: pytest.Config) -> bool:
    return not _is_worker(config) and bool(getattr(config.option, "numprocesses", None))


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
    if html_path and not _is_worker(config):  # refused before grading, not after it
        try:
            check_file(html_path, "--grader-html")
        except HtmlPathError as exc:
            raise pytest.UsageError(f"perfkit grader: {exc}") from exc
    state = _SessionState(config)
    config.stash[_STATE] = state
    config.pluginmanager.register(state, "perfkit_grader_session")


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is not None and config.pluginmanager.is_registered(state):
        config.pluginmanager.unregister(state)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix != ".py" or file_path.name in ("conftest.py", "__init__.py"):
        return None
    exercise = _state(parent.config).exercises_by_module().get(file_path.stem)
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
    if _state(parent.config).exercises_by_module().get(module_path.stem) is None:
        return None
    return _NotATestModule.from_parent(parent, path=module_path)


class _NotATestModule(pytest.File):
    """Stands in for pytest's Module on an exercise file: collects nothing, imports nothing."""

    def collect(self) -> list[pytest.Item]:
        return []


class ExerciseModule(pytest.File):
    """A student's file graded as one exercise: one item per check."""

    def __init__(self, *, exercise: Exercise, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.exercise = exercise

    def collect(self) -> Iterator[CheckItem]:
        state = _state(self.config)
        folder = Path(self.path).resolve().parent
        if folder not in state.folders:
            state.folders.add(folder)
            state.flagged.update(untrusted_files(folder, Path(str(self.config.rootpath))))
            unshadow(folder)
        untouched = untouched_in(str(self.path))  # the stub's functions: nothing to prepare for their checks
        kept = state.kept_checks(
            self.exercise, Path(self.path), untouched
        )  # from the cache: nothing to prepare
        prepared = [
            Prepared(self.exercise, c, lazy=True)
            if c.id in kept
            else prepare(c, self.exercise, state.lang, untouched)
            for c in self.exercise.checks
        ]  # before any student import
        for one in sorted(prepared, key=lambda p: _table_order(self.exercise, p.check.id, p.check.part)):
            yield CheckItem.from_parent(self, name=one.check.id, prepared=one)


def _table_order(exercise: Exercise, check_id: str, part: str) -> tuple[Any, ...]:
    """Where the score table puts a check of ``exercise`` (``Outcome.sort_key`` within one file: by part,
    "1a" before "1b" before "10", then by position), so the progress and the blocks come in its order."""
    keys = tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.findall(r"\d+|\D+", part))
    return (keys, [c.id for c in exercise.checks].index(check_id))


class CheckFailed(Exception):
    """A check that did not pass; its report is the outcome's feedback only."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.message)
        self.outcome = outcome


class _Crash:
    """What pytest's short summary and ``--junitxml``'s ``message`` read of a failure: its first line."""

    def __init__(self, message: str) -> None:
        self.message = message


class Feedback:
    """A failed check's report: the whole feedback as text (``--junitxml``, ``str()``, xdist), and on the
    terminal its first :data:`BRIEF_LINES` lines and how many more there are, unless ``-v``."""

    def __init__(self, text: str, lang: str, *, brief: bool) -> None:
        self.text = text
        self.lang = lang
        self.brief = brief
        lines = text.splitlines()
        self.reprcrash = _Crash(lines[1] if len(lines) > 1 else text)

    def __str__(self) -> str:
        return self.text

    def lines(self) -> list[str]:
        lines = self.text.splitlines()
        if not self.brief or len(lines) <= BRIEF_LINES + 1:  # a line saying "1 more" is no shorter
            return lines
        more = render("pytest_more_lines", self.lang, count=len(lines) - BRIEF_LINES)
        return [*lines[:BRIEF_LINES], more]

    def toterminal(self, tw: Any) -> None:
        for line in self.lines():
            tw.line(line)


class CheckItem(pytest.Item):
    """One check of an exercise, run by the session's judge on the student's file."""

    def __init__(self, *, prepared: Prepared, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.prepared = prepared
        self.outcome: Outcome | None = None

    def runtest(self) -> None:
        state = _state(self.config)
        parent = self.parent
        assert isinstance(parent, ExerciseModule)
        key = state.kept_key(self.prepared, self.path)
        outcome = state.reused_outcome(self.prepared, key, parent.nodeid)
        if outcome is None:
            if self.prepared.lazy:  # the kept outcome went (a retry on a quiet machine): prepared now
                p = self.prepared
                self.prepared = prepare(p.check, p.exercise, state.lang, untouched_in(str(self.path)))
            outcome = state.judge().run_check(self.prepared, self.path, source=parent.nodeid)
            state.keep(key, self.prepared, outcome)
        self.outcome = outcome
        state.record(outcome)
        state.started_work(outcome)
        self.user_properties.extend(
            [
                ("points", outcome.points),
                ("max_points", outcome.max_points),
                ("state", outcome.state),
                ("deferred", outcome.deferred),
            ]
        )
        if outcome.state == State.PASSED:
            return
        if outcome.state == State.SKIPPED:
            pytest.skip(outcome.message)
        raise CheckFailed(outcome)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CheckFailed):
            o = excinfo.value.outcome
            lang = _state(self.config).lang
            head = (
                f"{o.name} [{state_label(o.state, lang)}] {fmt_points(o.points)}/{fmt_points(o.max_points)}"
            )
            if o.reused:
                head += f" ({render('table_reused_at', lang, when=o.reused)})"
            full = f"{head}\n{_PSEUDO_FRAME.sub('', o.message)}"
            return Feedback(full, lang, brief=self.config.get_verbosity() < 1)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.prepared.exercise.id}::{self.prepared.check.id}"


@pytest.hookimpl(tryfirst=True)
def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    """A failed check shown as a table line only gets a status of its own, so the terminal reporter gives it
    no FAILURES block and no short-summary line; it still failed (exit status, ``--junitxml``)."""
    shown = getattr(report, "grader_shown", None)
    if report.when != "call" or shown not in ("line", "again"):
        return None
    lang = _state(config).lang
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


__all__ = ["CheckFailed", "CheckItem", "ExerciseModule", "Feedback"]
