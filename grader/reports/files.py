"""Writing reports to disk: replaced atomically, never through a planted link; text for spreadsheets that
cannot be read as a formula, and a check's cell that cannot be read as a grade it did not get; a batch's
grades.csv and grades.json written together, each student's percentage added to both.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..text.catalogue import LANGS, render
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


#: grades.csv's percentage column: after ``deferred_points``, before the checks' columns. The rows a run
#: builds, merges and regrades hold no such column (their checks start at the fifth): it is added as the
#: file is written (:func:`write_grades`) and taken out as it is read (:func:`without_percent`).
PERCENT = "percent"
#: The column it follows.
PERCENT_AFTER = "deferred_points"


def percent(score: float, max_score: float) -> float | None:
    """``score`` as a percentage of ``max_score`` (the points counted for that student: a deferred check's
    are left out under ``--deferred defer``), what the class is ranked by; None where nothing was counted."""
    return 100.0 * float(score) / float(max_score) if max_score else None


def fmt_percent(value: float | None) -> str:
    """``96.3`` (two decimals at most, no trailing zeros); empty where there is no percentage."""
    return "" if value is None else f"{round(value, 2):g}"


def with_percent(rows: Sequence[Sequence[str]], records: Mapping[str, Mapping[str, Any]]) -> list[list[str]]:
    """grades.csv's rows with the percentage column: each row's from its student's record in ``records``
    (grades.json's ``students``, in the rows' order), so the column is exact, not read back from rounded
    cells."""
    header = list(rows[0])
    at = header.index(PERCENT_AFTER) + 1
    out = [[*header[:at], PERCENT, *header[at:]]]
    for row, record in zip(rows[1:], records.values(), strict=True):
        cell = fmt_percent(percent(record["score"], record["max_score"]))
        out.append([*row[:at], cell, *row[at:]])
    return out


def without_percent(rows: Sequence[Sequence[str]]) -> list[list[str]]:
    """grades.csv's rows as read, with the percentage column taken out (an output from before it is
    returned as it is)."""
    if not rows or PERCENT not in rows[0]:
        return [list(r) for r in rows]
    at = list(rows[0]).index(PERCENT)
    return [[*r[:at], *r[at + 1 :]] for r in rows]


#: A student's record in grades.json: a message that several checks of one exercise share, the import's
#: traceback of a file that does not import (nine times over for ex01), is written once, under
#: ``file_errors`` by exercise; each of those checks' ``message`` is then its first line and where to read
#: the rest, and its ``file_error`` names the exercise (:func:`shared_once`). Put back as the file is read
#: (:func:`shared_back`), so the grades a merge or a regrade compares are the checks' whole messages.
FILE_ERRORS = "file_errors"
FILE_ERROR = "file_error"


def shared_once(record: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """``record`` (a student's, in grades.json) with each message of several lines that two or more checks
    of one exercise share written once, in ``file_errors`` (see :data:`FILE_ERRORS`)."""
    outcomes = list(record.get("outcomes") or [])
    seen: dict[tuple[str, str], int] = {}
    for o in outcomes:
        if "\n" in str(o.get("message", "")):
            key = (str(o["exercise"]), str(o["message"]))
            seen[key] = seen.get(key, 0) + 1
    shared: dict[str, str] = {}
    for (exercise, message), count in seen.items():
        if count > 1 and exercise not in shared:
            shared[exercise] = message
    if not shared:
        return dict(record)
    said = lang if lang in LANGS else "en"
    written = []
    for o in outcomes:
        exercise = str(o.get("exercise"))
        if shared.get(exercise) == o.get("message"):
            first = o["message"].split("\n", 1)[0].rstrip()
            see = render("json_file_error_ref", said, field=FILE_ERRORS, exercise=exercise)
            o = {**o, "message": first + ("" if said == "zh" else " ") + see, FILE_ERROR: exercise}
        written.append(o)
    return {**record, "outcomes": written, FILE_ERRORS: shared}


def shared_back(record: Mapping[str, Any]) -> dict[str, Any]:
    """``record`` as :func:`shared_once` found it: each check's whole message in place of its reference to
    ``file_errors``, which is taken out (a record without one is returned as it is)."""
    shared = record.get(FILE_ERRORS)
    if not isinstance(shared, Mapping):
        return dict(record)
    outcomes = []
    for o in record.get("outcomes") or []:
        if isinstance(o, Mapping) and o.get(FILE_ERROR) in shared:
            o = {k: v for k, v in o.items() if k != FILE_ERROR} | {"message": shared[o[FILE_ERROR]]}
        outcomes.append(o)
    return {k: v for k, v in record.items() if k != FILE_ERRORS} | {"outcomes": outcomes}


def _with_percent(record: Mapping[str, Any]) -> dict[str, Any]:
    """A student's record with its ``percent`` after its ``deferred_points`` (where a reader looks for it)."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        if key != PERCENT:
            out[key] = value
        if key == PERCENT_AFTER:
            out[PERCENT] = percent(record["score"], record["max_score"])
    out.setdefault(PERCENT, percent(record["score"], record["max_score"]))
    return out


def write_grades(
    folder: str | os.PathLike[str], rows: Sequence[Sequence[str]], data: Mapping[str, Any]
) -> list[Path]:
    """Write a batch's grades.csv (``rows``, the percentage column added) and grades.json (``data``, each
    student's ``percent`` added: null where nothing was counted; a traceback several checks share written
    once, :func:`shared_once`) under ``folder``, each replaced whole; return their paths."""
    target = Path(folder)
    lang = str(data.get("lang", "en"))
    students = {name: shared_once(_with_percent(record), lang) for name, record in data["students"].items()}
    buffer = io.StringIO()
    csv.writer(buffer).writerows(with_percent(rows, students))
    csv_path, json_path = target / "grades.csv", target / "grades.json"
    write_text(csv_path, buffer.getvalue())
    write_json(json_path, {**data, "students": students})
    return [csv_path, json_path]
