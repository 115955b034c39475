"""The one message catalogue of every front end: the languages, the message tables, and rendering.

``render(key, lang, **fields)`` looks a message up in the catalogue and formats it; Chinese (``"zh"``) is the
default, as in the lecture. ``render_count(key, lang, n)`` says a message of ``n`` things, its singular form
(``key_one``) where ``n`` is 1. The tables are data, one module each (:mod:`grader.text.grading` for what the
checks and the table say, :mod:`grader.text.measuring` for what a measuring check says, :mod:`grader.text.batch` for batch grading's own notes, :mod:`grader.text.report`
for the HTML report's words, :mod:`grader.text.course` for the notes of the course's notebooks,
:mod:`grader.text.watching` for what the watch says); a key is
in exactly one of them. ``Text`` is a message not yet rendered, for code (such as the comparisons) that
does not know the language it will be shown in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from .batch import BATCH
from .course import COURSE
from .grading import GRADING
from .measuring import MEASURING
from .report import REPORT
from .watching import WATCHING

#: The languages of every message, in the order of each table's pairs: Chinese first, as in the lecture.
LANGS = ("zh", "en")


def _merged(*tables: Mapping[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    merged: dict[str, tuple[str, str]] = {}
    for table in tables:
        twice = merged.keys() & table.keys()
        if twice:  # a key in two tables would say one thing in one front end and another elsewhere
            raise RuntimeError(f"message keys in two tables: {sorted(twice)}")
        merged.update(table)
    return merged


MESSAGES: Mapping[str, tuple[str, str]] = _merged(GRADING, MEASURING, BATCH, REPORT, COURSE, WATCHING)


def render_from(
    catalog: Mapping[str, tuple[str, str]], key: str, lang: str, fields: Mapping[str, Any]
) -> str:
    """The message ``key`` of ``catalog`` (``{key: (zh, en)}``) in ``lang``, with ``fields`` filled in."""
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}, got {lang!r}")
    try:
        template = catalog[key][LANGS.index(lang)]
    except KeyError:
        raise KeyError(f"no grader message named {key!r}") from None
    return template.format(**fields)


def render(key: str, lang: str = "zh", **fields: Any) -> str:
    """The message ``key`` in ``lang`` with ``fields`` filled in."""
    return render_from(MESSAGES, key, lang, fields)


def render_count(key: str, lang: str, n: int, **fields: Any) -> str:
    """The message ``key`` said of ``n`` things (``n`` is one of its fields): its ``key_one`` form where ``n``
    is 1 and the catalogue has one (English's singular: ``1 check``, not ``1 checks``; Chinese says both
    alike), else ``key``."""
    one = f"{key}_one"
    return render(one if n == 1 and one in MESSAGES else key, lang, n=n, **fields)


class Text(NamedTuple):
    """A message not yet rendered: its key and its fields."""

    key: str
    fields: Mapping[str, Any] = {}

    def render(self, lang: str = "zh") -> str:
        return render(self.key, lang, **dict(self.fields))
