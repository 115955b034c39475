"""Writing reports to disk: replaced atomically, never through a planted link; text for spreadsheets that
cannot be read as a formula, and a check's cell that cannot be read as a grade it did not get.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from typing import Any

from .table import fmt_points

#: What a spreadsheet reads as the start of a formula (OWASP's CSV injection list): a cell (a student's
#: folder name) that begins so is written with a leading apostrophe, which spreadsheets show as text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_text(cell: str) -> str:
    """``cell`` as grades.csv writes it: never a formula a spreadsheet would evaluate. Spreadsheets skip
    leading blanks before they look for a formula (``" =1+1"`` is evaluated), so the start is looked for
    past any leading whitespace, the tab and CR being formula starts themselves."""
    formula = cell.startswith(FORMULA_STARTS) or cell.lstrip().startswith(FORMULA_STARTS)
    return "'" + cell if formula else cell


def csv_points(points: float, deferred: bool) -> str:
    """A check's cell in grades.csv: its points, or an empty cell where it was deferred (not graded on this
    machine; 0 would read as a wrong answer), under either ``--deferred`` policy."""
    return "" if deferred else fmt_points(points)


def _new_file(directory: str) -> tuple[int, str]:
    """A new file in ``directory``, opened for writing, with the mode the user's umask gives a new file
    (0666 less the umask, as an editor's would be: a report is for reading by others, and tempfile's 0600
    kept a course's web server and the student's group out). ``O_EXCL`` refuses a name already there,
    a link among them, so nothing planted is opened."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        temporary = os.path.join(directory, f".perfkit-{secrets.token_hex(8)}")
        try:
            return os.open(temporary, flags, 0o666), temporary
        except FileExistsError:
            continue


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` by replacing it: a new file beside it, then ``os.replace``. A link planted
    at ``path`` is replaced, never followed, so a report cannot be steered to a file elsewhere. The file's
    mode is what the user's umask gives a new file."""
    target = os.path.abspath(os.fspath(path))
    directory = os.path.dirname(target)
    os.makedirs(directory, exist_ok=True)
    fd, temporary = _new_file(directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_json(path: str | os.PathLike[str], data: dict[str, Any]) -> None:
    """Write ``data`` as UTF-8 JSON (Chinese kept readable), creating the folder (see :func:`write_text`)."""
    write_text(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")
