"""A failed check's report in pytest: the outcome's feedback alone, no pytest traceback.

:class:`Feedback` is what :meth:`grader.pytest.items.CheckItem.repr_failure` returns: the whole feedback as
text (``--junitxml``, ``str()``, xdist), and on the terminal its first :data:`BRIEF_LINES` lines and how many
more there are, unless ``-v``. Its first line names the check, its state and its points, as the table does.
"""

from __future__ import annotations

import re
from typing import Any

from ..reports.table import fmt_points, state_label
from ..results.outcome import Outcome
from ..text.catalogue import render

#: Lines of a failing check's feedback shown without ``-v``; the rest is one line saying how many.
BRIEF_LINES = 12
#: A traceback frame of no file (``<frozen importlib._bootstrap>``, ``<string>``): not the student's line,
#: and the guide promises only the student's own lines.
_PSEUDO_FRAME = re.compile(r'^\s*File "<[^>\n]*>", line \d+, in [^\n]*\n?', re.MULTILINE)


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


def failure_report(o: Outcome, lang: str, *, brief: bool) -> Feedback:
    """The report of a check that did not pass: a head line (name, state, points, when a kept verdict was
    measured), then the feedback without the traceback frames of no file."""
    head = f"{o.name} [{state_label(o.state, lang)}] {fmt_points(o.points)}/{fmt_points(o.max_points)}"
    if o.reused:
        head += f" ({render('pytest_kept_at', lang, when=o.reused)})"
    full = f"{head}\n{_PSEUDO_FRAME.sub('', o.message)}"
    return Feedback(full, lang, brief=brief)
