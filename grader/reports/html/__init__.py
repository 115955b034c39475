"""The HTML report: self-contained pages a student would rather look at than read.

``pytest exercises/ --grader-html report.html``, ``python -m grader file ... --html report.html`` and
``python -m grader grade ... --html DIR`` write them. This package owns the paths and the writing;
:mod:`grader.reports.html.page` the pages (the class's index :mod:`grader.reports.html.index`), :mod:`grader.reports.html.plots` the plots; the words are the
catalogue's (:mod:`grader.text.report`). A batch's pages are put together by :mod:`grader.batch.output`.

A page needs nothing but itself: CSS inline, plots as inline SVG, no script and no URL outside it, so it
reads offline, prints, and can be mailed. Files are written as every report of the grader is
(:func:`grader.reports.files.write_text`: a new file, then ``os.replace``, so a link planted at the path is
replaced, never followed). A path that cannot be written is refused before grading where the front end
can check it, with the argument's name in the message.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from ...results.outcome import Outcome
from ..files import write_text
from .index import index_page
from .page import student_page

#: Where a batch's pages go inside ``--html DIR``: the index, and one page per student below it.
INDEX = "index.html"
STUDENTS = "students"


class HtmlPathError(ValueError):
    """A report path that cannot be written; the message names the argument that gave it."""


def now() -> str:
    """The time a report is written, in UTC to the second (it labels every plot)."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _writable_ancestor(path: Path, argument: str) -> None:
    """The nearest existing folder above ``path`` must be a folder we may write in (the others are made)."""
    parent = path.parent
    while not parent.exists():
        if parent == parent.parent:
            break
        parent = parent.parent
    if not parent.is_dir():
        raise HtmlPathError(f"{argument}: {parent} is not a folder, so {path} cannot be written")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise HtmlPathError(f"{argument}: cannot write in {parent} (permission denied), so not {path}")


def check_file(path: str | os.PathLike[str], argument: str) -> Path:
    """``path`` as a file the report can be written to, or :class:`HtmlPathError` naming ``argument``."""
    target = Path(os.path.abspath(os.fspath(path)))
    if os.fspath(path) == "" or target.is_dir():
        raise HtmlPathError(f"{argument}: {path!s} is a folder; give the file to write, e.g. report.html")
    _writable_ancestor(target, argument)
    return target


def check_folder(path: str | os.PathLike[str], argument: str) -> Path:
    """``path`` as a folder the pages can be written in, or :class:`HtmlPathError` naming ``argument``."""
    target = Path(os.path.abspath(os.fspath(path)))
    if target.exists() and not target.is_dir():
        raise HtmlPathError(f"{argument}: {path!s} is a file; give a folder for index.html and the pages")
    if target.is_dir():
        if not os.access(target, os.W_OK | os.X_OK):
            raise HtmlPathError(f"{argument}: cannot write in {target} (permission denied)")
    else:
        _writable_ancestor(target, argument)
    return target


def write_page(path: Path, text: str, argument: str) -> Path:
    """Write one page to ``path``; HtmlPathError naming ``argument`` where it cannot be written."""
    try:
        write_text(path, text)
    except OSError as exc:
        raise HtmlPathError(f"{argument}: cannot write {path}: {exc.strerror or exc}") from exc
    return path


def write_report(
    path: str | os.PathLike[str],
    outcomes: Sequence[Outcome],
    *,
    lang: str,
    deferred: str,
    argument: str = "--html",
    heading: str = "",
    extra_checks: Iterable[str] = (),
    notes: Sequence[str] = (),
) -> Path:
    """Write one student's page to ``path`` (see :func:`grader.reports.html.page.student_page`)."""
    target = check_file(path, argument)
    page = student_page(
        outcomes,
        lang=lang,
        deferred=deferred,
        when=now(),
        heading=heading,
        extra_checks=extra_checks,
        notes=notes,
    )
    return write_page(target, page, argument)


#: Names Windows keeps for devices, whatever the extension: a page called ``CON.html`` cannot be opened there.
_DEVICES = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(10)), *(f"LPT{i}" for i in range(10))}
#: Between a hashed page name's plain letters and its digest: never in a plain name, so a student named like
#: another's hashed page (``bob-be1b495986`` beside ``bob!``) can never be given that page.
_HASHED = "~"


def _plain(student: str) -> bool:
    return (
        re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,100}", student) is not None
        and student.split(".")[0].upper() not in _DEVICES
    )


def _hashed(student: str, digits: int = 10) -> str:
    # no dot: Windows reads what comes before the first one as a device name (``con.x~...`` is CON)
    plain = re.sub(r"[^A-Za-z0-9_-]+", "_", student).strip("_")[:60]
    digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:digits]
    return f"{plain or 'student'}{_HASHED}{digest}.html"


def page_name(student: str) -> str:
    """A student's page's file name on its own: the name where it is plain (letters, digits, ``._-``), else
    its plain letters, ``~`` and a hash; no name leaves the folder. A batch names its pages with
    :func:`page_names`, which also keeps two students from ever sharing one."""
    return f"{student}.html" if _plain(student) else _hashed(student)


def page_names(students: Iterable[str]) -> dict[str, str]:
    """Every student's page's file name, assigned once for the whole batch: :func:`page_name`, unless
    another student already has that name, compared without case (macOS and Windows do not tell
    ``Bob.html`` from ``bob.html``); then a longer hash, then a number. The students are taken in sorted
    order, so the same students get the same pages whatever order they come in, and no two share one."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    for student in sorted(set(students)):
        candidates = [page_name(student), *(_hashed(student, d) for d in (16, 32, 64))]
        name = next((c for c in candidates if c.casefold() not in taken), None)
        number = 2
        while name is None or name.casefold() in taken:  # every hash taken: only by construction, never seen
            name = _hashed(student, 64)[: -len(".html")] + f"-{number}.html"
            number += 1
        taken.add(name.casefold())
        names[student] = name
    return names


__all__ = [
    "HtmlPathError",
    "check_file",
    "check_folder",
    "index_page",
    "page_name",
    "page_names",
    "student_page",
    "write_page",
    "write_report",
]
