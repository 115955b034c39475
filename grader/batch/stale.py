"""No output of an earlier run left standing beside a rerun's: what ``python -m grader grade`` removes after it
has written its own files, and says it removed.

A run into ``--out`` rewrites ``grades.csv`` and ``grades.json`` whole and keeps ``journal.jsonl`` (what a
rerun resumes from). Its other outputs are written only when asked for, so an earlier run's could outlive
the grades they were made from: a rerun without ``--gradescope`` left ``gradescope/<student>/results.json``
of the earlier run, in the earlier language, ready to be uploaded (issue 47). So, once the run's own files
are written:

- ``OUT/gradescope/<student>/results.json`` that this run did not write is removed, unless it is of a
  student a regrade (``--student``) did not touch (that student's grade is the one it was made from);
- the HTML pages an earlier run wrote (grades.json's ``html`` names their folder) are removed where this
  run wrote none or wrote them elsewhere, and where it wrote them there, the student pages it did not
  write (a student no longer in the output);

each said on the console with the count and the option that writes them again. Removed rather than marked:
an instructor with 300 students uploads or opens what is there, and a marker inside a results.json or
beside a page is read by no one; a file that is not there cannot be sent by mistake, and the journal
writes it again, at once, with the option. Only files this kind of run writes are removed (a
``results.json`` in a student's folder of ``gradescope/``, ``index.html`` and ``students/*.html``), and
folders only where that leaves them empty.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from ..reports.html import INDEX, STUDENTS
from ..text.catalogue import render, render_count
from .engine import BatchResult

GRADESCOPE = "gradescope"
RESULTS = "results.json"
#: grades.json's field naming the folder the run's HTML pages were written to (absolute), where any were
HTML = "html"


def earlier_pages(out: str | os.PathLike[str]) -> Path | None:
    """The folder the run already in ``out`` wrote its HTML pages to (grades.json's ``html``), if any."""
    try:
        data: Any = json.loads((Path(out) / "grades.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    folder = data.get(HTML) if isinstance(data, dict) else None
    return Path(folder) if isinstance(folder, str) and folder else None


def _remove(path: Path) -> bool:
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True


def _rmdir_empty(*folders: Path) -> None:
    for folder in folders:
        with contextlib.suppress(OSError):  # not empty, or gone: left as it is
            folder.rmdir()


def stale_gradescope(out: str | os.PathLike[str], written: Collection[str], kept: Collection[str]) -> int:
    """Remove ``OUT/gradescope/<student>/results.json`` of every student neither in ``written`` (this run
    wrote it) nor in ``kept`` (a regrade left that student's grade as it was); return how many."""
    top = Path(out) / GRADESCOPE
    if not top.is_dir() or top.is_symlink():
        return 0
    removed = 0
    for folder in sorted(top.iterdir()):
        if folder.name in written or folder.name in kept or folder.is_symlink() or not folder.is_dir():
            continue
        if _remove(folder / RESULTS):
            removed += 1
            _rmdir_empty(folder)
    _rmdir_empty(top)
    return removed


def stale_pages(folder: Path, written: Collection[Path]) -> int:
    """Remove the pages of ``folder`` (``index.html``, ``students/*.html``) that are not in ``written``;
    return how many."""
    if not folder.is_dir() or folder.is_symlink():
        return 0
    kept = {Path(os.path.abspath(p)) for p in written}
    pages = [folder / INDEX]
    students = folder / STUDENTS
    if students.is_dir() and not students.is_symlink():
        pages += sorted(students.glob("*.html"))
    removed = sum(1 for p in pages if Path(os.path.abspath(p)) not in kept and p.is_file() and _remove(p))
    if removed:
        _rmdir_empty(students, folder)
    return removed


def tidied(
    out: str | os.PathLike[str],
    lang: str,
    *,
    gradescope: Collection[str],
    kept: Collection[str],
    pages: Path | None,
    written: Collection[Path],
    earlier: Path | None,
) -> list[str]:
    """Remove what an earlier run left that this one did not rewrite (see the module docstring) and say
    it: ``gradescope``, the students whose results.json this run wrote; ``kept``, those a regrade left;
    ``pages``, where this run wrote its HTML pages (``written``), if it did; ``earlier``, where the run
    before it wrote its own."""
    lines = []
    removed = stale_gradescope(out, gradescope, kept)
    if removed:
        files = render_count("stale_files", lang, removed)
        where = os.fspath(Path(out) / GRADESCOPE)
        lines.append(render("stale_gradescope", lang, files=files, folder=where))
    here = Path(os.path.abspath(pages)) if pages is not None else None
    folders: set[Path] = {Path(os.path.abspath(earlier))} if earlier is not None else set()
    folders |= {here} if here is not None else set()
    for folder in sorted(folders):
        removed = stale_pages(folder, written if folder == here else ())
        if removed:
            files = render_count("stale_files", lang, removed)
            lines.append(render("stale_pages", lang, files=files, folder=os.fspath(folder)))
    return lines


def tidy_run(
    out: str | os.PathLike[str],
    result: BatchResult,
    data: Mapping[str, Any] | None,
    *,
    gradescope: bool,
    html: str | None,
    written: Collection[Path],
    earlier: Path | None,
) -> list[str]:
    """:func:`tidied` for a grade run: ``result``, and ``data`` (grades.json's, the whole output) after a
    regrade into an earlier run's output, whose other students keep their Gradescope files; ``gradescope``
    and ``html``, the options given; ``written``, the pages written; ``earlier``, :func:`earlier_pages`
    read before the run wrote its grades."""
    names = {s.name for s in result.students}
    return tidied(
        out,
        result.config.lang,
        gradescope=names if gradescope else (),
        kept=set(data["students"]) - names if data is not None else (),
        pages=Path(html) if html is not None else None,
        written=written,
        earlier=earlier,
    )
