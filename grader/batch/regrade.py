"""Regrading named students into an existing output folder: ``python -m grader grade SUBMISSIONS_DIR
--student NAME [--student NAME ...] --out OUT``.

The named students are graded as any run grades them (the same judge, copies and limits). Where ``OUT``
already holds a run's ``grades.csv`` and ``grades.json`` (a whole run's, a shard's or a merged one's), their
rows and records replace those students' (each student's newest grade is kept: the regrade's, but for a
check the regrade deferred, whose decided grade of the same file is kept: ``grader.batch.keep``), every other
student's are kept as they were, in the order ``grade`` sorts them, and both files are rewritten whole,
never half written. The regrade must grade what ``OUT`` graded: the same checks, ``--deferred`` and
``--lang``, and for a shard's folder the same ``--shard`` (taken from ``OUT`` when not given); a BatchError
says what differs. The fields of one run (``grader.batch.merging.PER_RUN``) are combined as a merge combines
them: ``elapsed_s`` adds the regrade's; ``sandbox``, ``limits``, ``environment`` and ``judged_on`` keep what
both runs recorded, ``null`` where they differ. ``regraded`` lists every regrade: its ``students``,
``graded_at``, ``elapsed_s``, ``sandbox`` and ``environment``. With ``--gradescope`` the named students'
``results.json`` are rewritten and the others' left as they are. With ``--html DIR`` the class's pages are
written anew from the rewritten grades, every student's (``grader.batch.output.page_students``), so the
index says what grades.csv says.

A regrade into a new folder (or with ``--shard K/N`` into one of its own) writes that run's files alone;
``python -m grader merge`` then takes it beside the shard's first output and keeps, for each student, the
newest grade (``grader.batch.merging.newest``, by each student's ``graded_at``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .errors import BatchError
from .keep import record_row, with_kept
from .merging import PER_RUN, SETTING_NAMES, agreed, read_output
from .shard import Shard

#: What a regrade must share with the output it goes into.
MUST_AGREE = ("checks", "deferred_policy", "lang")


def existing_output(out: str | os.PathLike[str]) -> tuple[list[list[str]], dict[str, Any]] | None:
    """The rows and data of the run already in ``out`` (None where it holds none); a BatchError says what is
    wrong with a folder that holds one file of the two, or files no grade run wrote."""
    folder = Path(out)
    csv_path, json_path = folder / "grades.csv", folder / "grades.json"
    if not csv_path.exists() and not json_path.exists():
        return None
    if not (csv_path.is_file() and json_path.is_file()):
        raise BatchError(
            f"--out {os.fspath(out)!r} holds one of grades.csv and grades.json: regrade into both"
        )
    return read_output(csv_path, json_path)


def recorded_shard(data: dict[str, Any]) -> Shard | None:
    """The shard an output was graded as (None: a whole or merged run)."""
    record = data.get("shard")
    if not isinstance(record, dict):
        return None
    try:
        return Shard(int(record["index"]), int(record["count"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise BatchError(f"a broken shard record {record!r} ({exc})") from None


def check_alike(old: dict[str, Any], new: dict[str, Any], out: str | os.PathLike[str] = "") -> None:
    """Refuse, saying what differs, a regrade whose settings (``new``: grades.json's fields, or those of
    them known before grading) are not those ``old`` was graded with."""
    where = f"--out {os.fspath(out)!r}" if out else "the output"
    for key in MUST_AGREE:
        if old.get(key) != new.get(key):
            raise BatchError(
                f"{where} was graded with different {SETTING_NAMES.get(key, key)}: {old.get(key)!r}, and "
                f"this regrade {new.get(key)!r}; regrade with the settings of that run"
            )
    if old.get("shard") != new.get("shard"):
        raise BatchError(
            f"{where} was graded as {old.get('shard') or 'no shard'}, this regrade as "
            f"{new.get('shard') or 'no shard'}: regrade with that run's --shard (and its --max-noise, "
            "--allow, --grader-checks)"
        )


def regraded_into(
    old_rows: list[list[str]],
    old: dict[str, Any],
    rows: list[list[str]],
    new: dict[str, Any],
    out: str | os.PathLike[str] = "",
) -> tuple[list[list[str]], dict[str, Any]]:
    """The rows and data of ``old`` with the regraded students of ``new`` in place of their former grades
    (see the module docstring); a BatchError says why they cannot go together."""
    check_alike(old, new, out)
    by_name = dict(zip(old["students"], old_rows[1:], strict=True))
    regraded = {}
    for name, record in new["students"].items():  # a decided verdict of the same file is never lost
        former = old["students"].get(name)
        regraded[name] = with_kept(record, [former] if former else [], new.get("deferred_policy", "defer"))
        by_name[name] = record_row(name, regraded[name], old_rows[0][4:])
    students = {**old["students"], **regraded}
    order = sorted(students)  # as grade sorts the folders
    merged: dict[str, Any] = {}
    for key, value in old.items():
        if key == "students":
            merged[key] = {name: students[name] for name in order}
        elif key == "elapsed_s":
            merged[key] = round(float(value or 0) + float(new.get(key) or 0), 3)
        elif key in PER_RUN:
            merged[key] = agreed([value, new.get(key)])
        else:
            merged[key] = value
    merged["regraded"] = [
        *old.get("regraded", []),
        {
            "students": list(new["students"]),
            "graded_at": next((s.get("graded_at") for s in new["students"].values()), None),
            **{key: new.get(key) for key in ("elapsed_s", "sandbox", "environment")},
        },
    ]
    return [old_rows[0], *(by_name[name] for name in order)], merged
