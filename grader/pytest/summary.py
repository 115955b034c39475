"""What a pytest session ends with: the score table under pytest's own summary, Gradescope's JSON
(``--grader-json``) and the HTML page (``--grader-html``), all from the outcomes :mod:`grader.pytest.session`
kept, never from pytest's reports.

:class:`Summary` is registered beside the session's state as a plugin of the same config (the way
pytest-xdist registers its terminal reporter beside its session), and reports nothing on an xdist worker or
in a session that graded nothing. The workers are killed first, with anything they started.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import pytest

from ..reports.files import write_json
from ..reports.gradescope import gradescope_results
from ..reports.html import HtmlPathError, write_report
from ..reports.table import next_step, score_table
from ..results.outcome import Outcome
from ..text.catalogue import render, render_count
from ..text.lang import switch_line
from .session import SessionState, is_worker


def kept_lines(outcomes: Iterable[Outcome], lang: str) -> list[str]:
    """One line per file whose checks were shown from pytest's cache (``~``): how many, and when they were
    graded (the earliest to the latest where they differ). A rerun after one edit said a line per check of
    every other file, formula checks included, which buried the file that changed."""
    kept: dict[str, list[str]] = {}
    for o in sorted(outcomes, key=Outcome.sort_key):
        if o.reused:
            kept.setdefault(o.source or o.exercise, []).append(o.reused)
    lines = []
    for file, times in kept.items():
        first, last = min(times), max(times)
        when = first if first == last else f"{first} - {last}"
        lines.append("~ " + render_count("pytest_kept_file", lang, len(times), file=file, when=when))
    return lines


class Summary:
    """The table, the JSON and the page of one config's :class:`~grader.pytest.session.SessionState`."""

    def __init__(self, state: SessionState) -> None:
        self.state = state
        self.config = state.config

    def write_html(self, path: str) -> bool:
        """The HTML report (:mod:`grader.reports.html`) of the outcomes, and whether it was written; a failure to
        write it is said, not raised (the grade in the table and the JSON stands)."""
        untrusted = self.state.untrusted()
        notes = [render("untrusted_setup", self.state.lang, files=", ".join(untrusted))] if untrusted else []
        try:
            write_report(
                path,
                list(self.state.outcomes.values()),
                lang=self.state.lang,
                deferred=self.state.deferred,
                argument="--grader-html",
                extra_checks=self.state.extra_checks(),
                notes=notes,
            )
        except HtmlPathError as exc:
            sys.stderr.write(f"perfkit grader: {exc}\n")
            return False
        return True

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> Any:
        # A wrapper around the terminal reporter's own summary, so the score table comes last, after
        # pytest's short summary: the first thing a student reads at the bottom of the screen.
        result = yield
        if is_worker(self.config) or not self.state.outcomes:
            return result
        unconfined = self.state.unconfined_reason()
        self.state.close_judge()  # the workers are gone before anything is reported
        outcomes = list(self.state.outcomes.values())
        terminalreporter.write_sep("=", render("table_title", self.state.lang))
        # a kept verdict is said once for its file below, not once per check (issue 39 item 6)
        rows = [replace(o, reused="") for o in outcomes]
        for line in score_table(rows, self.state.lang, self.state.deferred):
            terminalreporter.write_line(line)
        for line in kept_lines(outcomes, self.state.lang):
            terminalreporter.write_line(line)
        if unconfined is not None:  # once, under the table: never inside a check's captured output
            terminalreporter.write_line(render("not_confined", self.state.lang, reason=unconfined))
        untrusted = self.state.untrusted()
        if untrusted:
            terminalreporter.write_line(
                render("untrusted_setup", self.state.lang, files=", ".join(untrusted))
            )
        if self.state.unverified:
            terminalreporter.write_line(render("cache_unverified", self.state.lang, n=self.state.unverified))
        path = self.config.getoption("grader_json")
        if path:
            terminalreporter.write_line(f"Gradescope results.json: {path}")
        terminalreporter.write_line(switch_line(self.state.chosen_lang, "--grader-lang"))
        step = next_step(outcomes, self.state.exercise_files(), self.state.lang)
        if step is not None:  # the last line of the screen: what to do next
            terminalreporter.write_line(step, bold=True)
        return result

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self) -> None:
        self.state.close_judge()
        html_path = self.config.getoption("grader_html")
        if not is_worker(self.config) and html_path and self.write_html(html_path):
            # said once it is there (the summary is printed before the session ends and the page is written)
            reporter = self.config.pluginmanager.get_plugin("terminalreporter")
            if reporter is not None:
                reporter.write_line(f"HTML report: {html_path}")
        path = self.config.getoption("grader_json")
        if is_worker(self.config) or not path:
            return
        outcomes = list(self.state.outcomes.values())
        elapsed = time.monotonic() - self.state.started
        data = gradescope_results(outcomes, self.state.lang, self.state.deferred, elapsed)
        untrusted = self.state.untrusted()
        if untrusted:
            data["untrusted_setup"] = untrusted
            data["output"] = render("untrusted_setup", self.state.lang, files=", ".join(untrusted))
        write_json(path, data)
