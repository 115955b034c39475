"""What pytest collects of a student's file: one :class:`ExerciseModule` per exercise file, one
:class:`CheckItem` per check, in the score table's order.

Collection prepares every check (reference values, hypothesis inputs) *before* any student code is
imported; a check whose outcome pytest's cache keeps, or whose function is still the stub's, is prepared
only if it must run. ``CheckItem.runtest`` asks the session's judge, which imports and calls the student's
file only in its worker process; an exercise file named on the command line gets a
:class:`NotATestModule`, so pytest's own Python collector never imports it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..judge import Prepared
from ..judge.prepare import prepare
from ..judge.untouched import untouched_in
from ..results.outcome import Outcome, State
from ..specs.check import Exercise
from .feedback import failure_report
from .session import session_state
from .untrusted import unshadow, untrusted_files


class NotATestModule(pytest.File):
    """Stands in for pytest's Module on an exercise file: collects nothing, imports nothing."""

    def collect(self) -> list[pytest.Item]:
        return []


class ExerciseModule(pytest.File):
    """A student's file graded as one exercise: one item per check."""

    def __init__(self, *, exercise: Exercise, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.exercise = exercise

    def collect(self) -> Iterator[CheckItem]:
        state = session_state(self.config)
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


class CheckItem(pytest.Item):
    """One check of an exercise, run by the session's judge on the student's file."""

    def __init__(self, *, prepared: Prepared, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.prepared = prepared
        self.outcome: Outcome | None = None

    def runtest(self) -> None:
        state = session_state(self.config)
        parent = self.parent
        assert isinstance(parent, ExerciseModule)
        key = state.kept_key(self.prepared, self.path)
        outcome = state.reused_outcome(self.prepared, key, parent.nodeid)
        if outcome is None:
            if self.prepared.lazy:  # the kept outcome went (a retry on a quiet machine): prepared now
                p = self.prepared
                self.prepared = prepare(p.check, p.exercise, state.lang, untouched_in(str(self.path)))
            try:
                outcome = state.judge().run_check(self.prepared, self.path, source=parent.nodeid)
            finally:
                state.live.erase()  # before pytest writes the check's result where the live line was
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
            lang = session_state(self.config).lang
            return failure_report(excinfo.value.outcome, lang, brief=self.config.get_verbosity() < 1)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.prepared.exercise.id}::{self.prepared.check.id}"
