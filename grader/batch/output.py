"""What batch grading writes: ``grades.csv``, ``grades.json`` and per-student Gradescope results.

``grades.csv``: one row per student; columns ``student``, ``score``, ``max_score``, ``deferred_points``,
``percent``, then one column per ``exercise::check`` (the points earned), in registry order. A deferred check's cell is
empty (:func:`grader.reports.files.csv_points`), never 0: it was not graded on this machine; ``deferred_points`` sums such
checks' points, and ``max_score`` leaves them out under ``--deferred defer``. ``percent`` is ``score`` over
``max_score`` (the points counted for that student), in percent: what the class is ranked by, since two
students' maxima differ where one had checks deferred (:func:`grader.reports.files.percent`; empty where
nothing was counted). The column is added as the file is written (:func:`grader.reports.files.write_grades`):
the rows a run builds, merges and regrades have their checks from the fifth column.

``grades.json``: ``{"students": {name: {"score", "max_score", "deferred_points", "percent", "notes", "graded_at", "outcomes": [...]}},
"checks": [...], "sandbox", "limits", "deferred_policy", "lang", "elapsed_s", "environment", "judged_on"}``;
``judged_on`` names, for each exercise graded, the ``node`` (host name) it was judged on, the ``device``
(the GPU for a GPU exercise, else the CPU) and the machine ``profile`` (the key of perfcore's profile the
measurement exercises were judged against; null for a formula exercise); each outcome
has ``exercise``, ``check_id``, ``part``, ``state``, ``points``, ``max_points``, ``deferred`` and
``message`` (what the student would read). A deferred check (not graded on this machine: a requirement
unmet, or a machine too busy to measure fairly) has ``"state": "skipped"``, kept as it was for the scripts
that read it, and ``"deferred": true``, which is what marks it; every view a person reads (the terminal's
table, the HTML pages, Gradescope's tests) names that state "deferred" / "暂缓计分"; ``notes`` are what looks malformed in the student's folder and
what copying it left out (``grader.batch.submissions``), each a sentence in the run's language, also shown
first on the student's HTML page and in Gradescope's output; ``graded_at`` is when the run that graded the
student started (ISO 8601, UTC; the newest of its grades where some come from the run's journal,
``grader.batch.journal``), which tells a regrade from an older grade (``grader.batch.regrade``); ``files``
names, for each exercise graded from a file, the key of the content graded (``grader.batch.journal.content_keys``),
which tells whether two grades of a check are of the same file (``grader.batch.keep``); ``file_errors``, where
several checks of one exercise share one message of several lines (a file that does not import: its
traceback), holds that message once by exercise, and each of those outcomes' ``message`` is its first line
and where to read the rest, its ``file_error`` the exercise (``grader.reports.files.shared_once``; put back
whole as the file is read). Graded with ``--shard K/N``, it also has ``"shard"``: ``{"index",
"count", "settings"}`` (``grader.batch.shard.shard_record``); ``python -m grader merge`` writes the two
files of one run from the shards' (``grader.batch.merging``, where the per-run fields' merging is described),
with ``"shards"`` and ``"missing_shards"`` in place of ``"shard"``.

``gradescope/<student>/results.json``: Gradescope's format (``grader.reports.gradescope.gradescope_results``).

With ``--html DIR``: grades.json's ``html`` names DIR (absolute; a rerun that writes no pages there removes
the earlier ones, :mod:`grader.batch.stale`), and ``index.html`` and ``students/<name>.html`` (:func:`write_pages`), from the same
grades as the two files: after a regrade (``--student``, ``--retry-deferred``) from the whole output's,
every student's, so the index always says what grades.csv says (:func:`page_students`).

Every student is named as ``grader.batch.engine`` names them (:func:`grader.results.outcome.shown_name` of the
folder's name: printable, valid UTF-8 and one name per folder); grades.csv also writes a name that a
spreadsheet would take for a formula as text (:func:`grader.reports.files.csv_text`).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from perfcore.measure.machine import cpu_model

from ..reports.files import csv_points, csv_text, write_grades, write_json
from ..reports.gradescope import gradescope_results
from ..reports.html import (
    INDEX,
    STUDENTS,
    check_folder,
    index_page,
    now,
    page_names,
    student_page,
    write_page,
)
from ..reports.table import fmt_points
from ..results.environment import environment, gpu_name
from ..results.outcome import Outcome, totals
from .engine import BatchResult, check_ids, is_serial
from .errors import BatchError
from .journal import JOURNAL, Entry, read_journal
from .shard import shard_record


def grades_table(result: BatchResult) -> list[list[str]]:
    """The rows of grades.csv, header first."""
    columns = check_ids(result.exercises)
    rows = [["student", "score", "max_score", "deferred_points", *columns]]
    for student in result.students:
        t = totals(student.outcomes, result.config.deferred)
        points = {o.name: csv_points(o.points, o.deferred) for o in student.outcomes}
        rows.append(
            [
                csv_text(student.name),
                fmt_points(t.score),
                fmt_points(t.max_score),
                fmt_points(t.deferred_points),
                *(points.get(c, "") for c in columns),
            ]
        )
    return rows


def judged_on(result: BatchResult) -> dict[str, dict[str, str | None]]:
    """For each exercise graded: the node, the device and the machine profile it was judged on."""
    node = socket.gethostname()
    records: dict[str, dict[str, str | None]] = {}
    for exercise in result.exercises:
        on_gpu = any(c.requires.cuda or c.requires.mps for c in exercise.checks)
        records[exercise.id] = {
            "node": node,
            "device": gpu_name() if on_gpu else cpu_model(),
            "profile": result.profile if is_serial(exercise) else None,
        }
    return records


def grades_json(result: BatchResult) -> dict[str, Any]:
    """The content of grades.json."""
    config = result.config
    students = {}
    for student in result.students:
        t = totals(student.outcomes, config.deferred)
        students[student.name] = {
            "score": t.score,
            "max_score": t.max_score,
            "deferred_points": t.deferred_points,
            "notes": list(student.notes),
            "graded_at": student.graded_at or result.graded_at,
            "files": dict(student.files),
            "notebooks": list(student.notebooks),
            "outcomes": [
                {
                    "exercise": o.exercise,
                    "check_id": o.check_id,
                    "part": o.part,
                    "state": o.state,
                    "points": o.points,
                    "max_points": o.max_points,
                    "deferred": o.deferred,
                    "message": o.message,
                }
                for o in student.outcomes
            ],
        }
    limits = config.limits
    data: dict[str, Any] = {
        "students": students,
        "checks": check_ids(result.exercises),
        "sandbox": result.sandbox,
        "limits": {
            "memory_bytes": limits.memory_bytes,
            "file_bytes": limits.file_bytes,
            "grace_s": limits.grace_s,
            "jobs": config.workers,
        },
        "deferred_policy": config.deferred,
        "lang": config.lang,
        "elapsed_s": round(result.elapsed_s, 3),
        "environment": environment(),
        "judged_on": judged_on(result),
    }
    if config.shard is not None:
        data["shard"] = shard_record(config.shard, config.max_noise, config.allow, config.grader_checks)
    return data


def write_outputs(
    result: BatchResult,
    out: str | os.PathLike[str],
    gradescope: bool = False,
    grades: tuple[list[list[str]], dict[str, Any]] | None = None,
    html: str | os.PathLike[str] | None = None,
) -> list[Path]:
    """Write grades.csv and grades.json (and Gradescope results) under ``out``; return the paths.
    ``grades``: the rows and data to write instead of ``result``'s alone (a regrade into an earlier run's
    output: ``grader.batch.regrade``); Gradescope's files are ``result``'s students' either way. ``html``:
    the folder the run writes its pages to, named in grades.json's ``html`` (the next run removes them
    where it does not write them again: :mod:`grader.batch.stale`)."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    rows, data = grades if grades is not None else (grades_table(result), grades_json(result))
    data = {k: v for k, v in data.items() if k != "html"}
    if html is not None:
        data["html"] = os.path.abspath(html)
    written = write_grades(folder, rows, data)
    if gradescope:
        env = environment()
        for student in result.students:
            path = folder / "gradescope" / student.name / "results.json"
            data = gradescope_results(
                student.outcomes, result.config.lang, result.config.deferred, student.elapsed_s, env
            )
            data["extra_data"]["sandbox"] = result.sandbox
            if student.notes:  # what was left out of the copy, before the table it explains
                data["output"] = "\n".join(student.notes) + "\n\n" + data["output"]
            write_json(path, data)
            written.append(path)
    return written


def _same_grade(full: Outcome, recorded: Outcome) -> bool:
    return (full.state, full.points, full.max_points, full.deferred, full.message) == (
        recorded.state,
        recorded.points,
        recorded.max_points,
        recorded.deferred,
        recorded.message,
    )


def page_students(
    result: BatchResult, data: Mapping[str, Any], out: str | os.PathLike[str] | None = None
) -> list[tuple[str, tuple[Outcome, ...], tuple[str, ...]]]:
    """Every student of grades.json's ``data`` (a regrade's whole output), as the pages show them: each
    check's grade the record's, the one grades.csv shows, told with the whole outcome (its title, its fields,
    its measured rounds) where this run or ``out``'s journal holds that same grade of the same file, else
    as the record has it. ``(name, outcomes, notes)``, in grades.json's order."""
    graded = {s.name: s.outcomes for s in result.students}
    entries: list[Entry] = []
    journal = Path(out) / JOURNAL if out is not None else None
    if journal is not None and journal.is_file():
        try:
            entries = read_journal(journal)[1]
        except BatchError:  # not this kit's journal: the records alone are still the grades
            entries = []
    students = []
    for name, record in data["students"].items():
        files = record.get("files") or {}
        candidates: dict[str, list[Outcome]] = {}
        for o in graded.get(name, ()):
            candidates.setdefault(o.name, []).append(o)
        for entry in reversed(entries):  # the newest first
            if entry.student == name and files.get(entry.exercise) in (None, entry.key):
                for o in entry.outcomes:
                    candidates.setdefault(o.name, []).append(o)
        outcomes = []
        for item in record["outcomes"]:
            recorded = Outcome.from_dict(item)
            full = next((o for o in candidates.get(recorded.name, ()) if _same_grade(o, recorded)), None)
            outcomes.append(full or recorded)
        students.append((name, tuple(outcomes), tuple(record.get("notes") or ())))
    return students


def write_pages(
    folder: str | os.PathLike[str],
    result: BatchResult,
    argument: str = "--html",
    grades: Mapping[str, Any] | None = None,
    out: str | os.PathLike[str] | None = None,
) -> list[Path]:
    """Write a batch's HTML pages: ``index.html`` and ``students/<name>.html`` under ``folder``; from
    ``result``, or where a regrade wrote ``grades`` (grades.json's data into ``out``), from those of every
    student (:func:`page_students`)."""
    target = check_folder(folder, argument)
    config = result.config
    when = now()
    written = []
    pages = {}
    students = (
        [(s.name, s.outcomes, s.notes) for s in result.students]
        if grades is None
        else page_students(result, grades, out)
    )
    names = page_names(name for name, _, _ in students)
    for student, outcomes, notes in students:
        name = names[student]
        pages[student] = f"{STUDENTS}/{name}"
        page = student_page(
            outcomes,
            lang=config.lang,
            deferred=config.deferred,
            when=when,
            heading=student,
            extra_checks=config.grader_checks,
            notes=notes,
        )
        written.append(write_page(target / STUDENTS / name, page, argument))
    index = index_page(
        [(name, outcomes) for name, outcomes, _ in students],
        check_ids(result.exercises) if grades is None else list(grades.get("checks", [])),
        pages,
        lang=config.lang,
        deferred=config.deferred,
        when=when,
    )
    written.insert(0, write_page(target / INDEX, index, argument))
    return written
