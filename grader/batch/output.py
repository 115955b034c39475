"""What batch grading writes: ``grades.csv``, ``grades.json`` and per-student Gradescope results.

``grades.csv``: one row per student; columns ``student``, ``score``, ``max_score``, ``deferred_points``,
then one column per ``exercise::check`` (the points earned), in registry order. A deferred check's cell is
empty (:func:`grader.reports.files.csv_points`), never 0: it was not graded on this machine; ``deferred_points`` sums such
checks' points, and ``max_score`` leaves them out under ``--deferred defer``.

``grades.json``: ``{"students": {name: {"score", "max_score", "deferred_points", "notes", "graded_at", "outcomes": [...]}},
"checks": [...], "sandbox", "limits", "deferred_policy", "lang", "elapsed_s", "environment", "judged_on"}``;
``judged_on`` names, for each exercise graded, the ``node`` (host name) it was judged on, the ``device``
(the GPU for a GPU exercise, else the CPU) and the machine ``profile`` (the key of perfcore's profile the
measurement exercises were judged against; null for a formula exercise); each outcome
has ``exercise``, ``check_id``, ``part``, ``state``, ``points``, ``max_points``, ``deferred`` and
``message`` (what the student would read); ``notes`` are what looks malformed in the student's folder and
what copying it left out (``grader.batch.submissions``), each a sentence in the run's language, also shown
first on the student's HTML page and in Gradescope's output; ``graded_at`` is when the run that graded the
student started (ISO 8601, UTC; the newest of its grades where some come from the run's journal,
``grader.batch.journal``), which tells a regrade from an older grade (``grader.batch.regrade``); ``files``
names, for each exercise graded from a file, the key of the content graded (``grader.batch.journal.content_keys``),
which tells whether two grades of a check are of the same file (``grader.batch.keep``). Graded with ``--shard K/N``, it also has ``"shard"``: ``{"index",
"count", "settings"}`` (``grader.batch.shard.shard_record``); ``python -m grader merge`` writes the two
files of one run from the shards' (``grader.batch.shard``, where the per-run fields' merging is described),
with ``"shards"`` and ``"missing_shards"`` in place of ``"shard"``.

``gradescope/<student>/results.json``: Gradescope's format (``grader.reports.gradescope.gradescope_results``).

With ``--html DIR``: ``index.html`` and ``students/<name>.html`` (:func:`write_pages`).

Every student is named as ``grader.batch.engine`` names them (:func:`grader.results.outcome.shown_name` of the
folder's name: printable, valid UTF-8 and one name per folder); grades.csv also writes a name that a
spreadsheet would take for a formula as text (:func:`grader.reports.files.csv_text`).
"""

from __future__ import annotations

import csv
import io
import os
import socket
from pathlib import Path
from typing import Any

from perfcore.measure.machine import cpu_model

from ..reports.files import csv_points, csv_text, write_json, write_text
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
from ..results.outcome import totals
from .engine import BatchResult, check_ids, is_serial
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
) -> list[Path]:
    """Write grades.csv and grades.json (and Gradescope results) under ``out``; return the paths.
    ``grades``: the rows and data to write instead of ``result``'s alone (a regrade into an earlier run's
    output: ``grader.batch.regrade``); Gradescope's files are ``result``'s students' either way."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    rows, data = grades if grades is not None else (grades_table(result), grades_json(result))
    csv_path = folder / "grades.csv"
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    write_text(csv_path, buffer.getvalue())
    json_path = folder / "grades.json"
    write_json(json_path, data)
    written = [csv_path, json_path]
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


def write_pages(folder: str | os.PathLike[str], result: BatchResult, argument: str = "--html") -> list[Path]:
    """Write a batch's HTML pages: ``index.html`` and ``students/<name>.html`` under ``folder``."""
    target = check_folder(folder, argument)
    config = result.config
    when = now()
    written = []
    pages = {}
    names = page_names(s.name for s in result.students)
    for student in result.students:
        name = names[student.name]
        pages[student.name] = f"{STUDENTS}/{name}"
        page = student_page(
            student.outcomes,
            lang=config.lang,
            deferred=config.deferred,
            when=when,
            heading=student.name,
            extra_checks=config.grader_checks,
            notes=student.notes,
        )
        written.append(write_page(target / STUDENTS / name, page, argument))
    index = index_page(
        [(s.name, s.outcomes) for s in result.students],
        check_ids(result.exercises),
        pages,
        lang=config.lang,
        deferred=config.deferred,
        when=when,
    )
    written.insert(0, write_page(target / INDEX, index, argument))
    return written
