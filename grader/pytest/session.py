"""The pytest front end's state, one per pytest config: the judge, the registry, the outcomes, the cache.

:class:`SessionState` is made by :func:`grader.plugin.pytest_configure`, kept in the config's stash
(:func:`session_state`) and registered as a plugin of that config, so nested sessions (pytester) never see
each other's outcomes. It owns:

- the session's :class:`~grader.judge.Judge` (started on first use) and the registry of exercises, both
  with the exercises named by ``grader_checks`` / ``--grader-checks`` (:meth:`SessionState.extra_checks`);
- the outcomes, one per check, rebuilt from the trusted registry (:meth:`SessionState.record`), and under
  pytest-xdist taken from the workers' reports on the controller;
- the verdicts kept in pytest's cache (:mod:`grader.results.reuse`): the keys, what a run may show again,
  and what it keeps;
- the graded folders and the untrusted files found in them, and how a failure is shown (a block, or a
  line once said);
- the live line of a measuring check in progress, which its judge is told of (:mod:`grader.pytest.live`).

The score table, the JSON and the HTML page are :mod:`grader.pytest.summary`'s.
"""

from __future__ import annotations

import time
from collections.abc import Container
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ..judge import Judge, JudgeConfig, Prepared
from ..judge.prepare import measures
from ..registry import RegistryError, by_module, load_exercises
from ..results.outcome import Outcome, State
from ..results.reuse import CACHE_PREFIX, FORMULA_KINDS, entry, readable, reuse_key, reused, verified
from ..sandbox import confinement
from ..specs.check import Check, Exercise
from ..text.catalogue import LANGS
from ..text.lang import Chosen, CourseLangError, choose_lang
from .live import LiveLine
from .untrusted import untrusted_files


class SessionState:
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
        self._lang: Chosen | None = None
        self._live: LiveLine | None = None

    @property
    def live(self) -> LiveLine:
        """The live line of a measuring check in progress (:mod:`grader.pytest.live`)."""
        if self._live is None:
            self._live = LiveLine(self.config, self.lang)
        return self._live

    def judge(self) -> Judge:
        if self._judge is None:
            allow = tuple(
                name for value in self.config.getini("grader_allow") for name in value.split(",") if name
            )
            try:
                config = JudgeConfig(
                    self.lang, max_noise=self.max_noise, allow=allow, extra_checks=tuple(self.extra_checks())
                )
                self._judge = Judge(config, on_progress=self.live.update if self.live.enabled() else None)
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
        if not is_xdist_controller(self.config) or all(o.reused for o in self.outcomes.values()):
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
        outcome = reused(kept, p.exercise.id, p.check.id, source, self.lang, formula)
        if outcome is not None and outcome.state == State.NOT_ATTEMPTED:
            # kept only so that collection prepares nothing: nothing was measured, nothing to say "as of"
            return replace(outcome, reused="")
        return outcome

    def keep(self, key: str | None, p: Prepared, outcome: Outcome) -> None:
        """Keep a verdict for the next run on the same files."""
        kept = entry(outcome, key, formula=p.check.check_kind in FORMULA_KINDS) if key is not None else None
        if kept is not None:
            self.config.cache.set(f"{CACHE_PREFIX}/{key}", kept)

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

    def exercise_files(self) -> dict[str, str]:
        """Exercise id -> the graded file of that exercise, as a student would type it (relative to the
        current folder where it lies below it), for the exercises found in the graded folders."""
        files: dict[str, str] = {}
        here = Path.cwd()
        for module, exercise in self.exercises_by_module().items():
            for folder in sorted(self.folders):
                path = folder / f"{module}.py"
                if path.is_file():
                    try:
                        files[exercise.id] = str(path.relative_to(here))
                    except ValueError:
                        files[exercise.id] = str(path)
                    break
        return files

    def exercises_by_module(self) -> dict[str, Exercise]:
        if self._exercises is None:
            try:
                self._exercises = by_module(load_exercises(self.extra_checks()))
            except RegistryError as exc:
                raise pytest.UsageError(f"perfkit grader: {exc}") from exc
        return self._exercises

    @property
    def lang(self) -> str:
        """``--grader-lang``, else the ini's ``grader_lang``, else the course's setting, else the locale."""
        return self.chosen_lang.lang

    @property
    def chosen_lang(self) -> Chosen:
        """The language and what chose it (:func:`grader.text.lang.choose_lang`), for the summary's line."""
        if self._lang is None:
            given = self.config.getoption("grader_lang") or self.config.getini("grader_lang")
            try:
                chosen = choose_lang(given, Path(str(self.config.rootpath)))
            except CourseLangError as exc:
                raise pytest.UsageError(f"perfkit grader: {exc}") from exc
            if chosen.lang not in LANGS:
                raise pytest.UsageError(f"grader_lang must be one of {LANGS}, got {chosen.lang!r}")
            self._lang = chosen
        return self._lang

    @property
    def deferred(self) -> str:
        return self.config.getoption("grader_deferred")

    @property
    def max_noise(self) -> float:
        return self.config.getoption("grader_max_noise")

    def started_work(self, outcome: Outcome) -> None:
        """Start the reference process after the first check that ran the student's code (not a stub's, and
        not one skipped for a requirement the machine lacks)."""
        if outcome.reused:  # shown from the cache: the student's code did not run
            return
        if self.reference_for is not None and outcome.state not in (State.NOT_ATTEMPTED, State.SKIPPED):
            prepared, folders = self.reference_for
            self.reference_for = None
            self.judge().reference_side.start(prepared, folders)

    @pytest.hookimpl(tryfirst=True)  # before the terminal reporter files the report under its status
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = getattr(report, "grader_outcome", None)
        if report.when == "call" and report.failed and isinstance(data, dict) and not is_worker(self.config):
            report.grader_shown = self.shown_as(data)  # type: ignore[attr-defined]  # travels like grader_outcome
        # Only the controller of an xdist run takes outcomes from reports; elsewhere the judge's own
        # records (CheckItem.runtest) are the grade.
        if report.when == "call" and isinstance(data, dict) and is_xdist_controller(self.config):
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


STATE = pytest.StashKey[SessionState]()


def session_state(config: pytest.Config) -> SessionState:
    return config.stash[STATE]


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def is_xdist_controller(config: pytest.Config) -> bool:
    return not is_worker(config) and bool(getattr(config.option, "numprocesses", None))
