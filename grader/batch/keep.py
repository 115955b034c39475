"""Which of a check's grades is kept: decided verdicts only accumulate.

A check graded more than once for the same file (a run resumed, ``--retry-deferred``, ``--student``
regrading, shards and regrades merged) keeps its newest *decided* grade (passed, wrong, an error: anything
but a deferral), and its newest grade only where none was decided. So a retry on a busy machine, a regrade
with less memory or a merge that takes a newer deferral never costs a student a verdict already reached.
A grade of another file (the student handed in again: its key differs, :mod:`grader.batch.journal`) is
never kept over the new file's.

The records are grades.json's: a student's ``{"score", "max_score", "deferred_points", "files",
"outcomes": [...], ...}``, each outcome ``{"exercise", "check_id", "points", "max_points", "deferred", ...}``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from ..reports.files import csv_points, csv_text
from ..reports.table import fmt_points

T = TypeVar("T")


def kept(newest_first: Iterable[T], deferred: Callable[[T], bool]) -> T:
    """Of one check's grades, newest first: the newest that is not a deferral, else the newest."""
    grades = list(newest_first)
    if not grades:
        raise ValueError("kept: no grade of the check given")
    return next((g for g in grades if not deferred(g)), grades[0])


def _name(outcome: Mapping[str, Any]) -> str:
    return f"{outcome['exercise']}::{outcome['check_id']}"


def same_file(newer: Mapping[str, Any], older: Mapping[str, Any], exercise: str) -> bool:
    """Whether two records graded the same file of ``exercise``: their keys agree, or either has none (an
    output of a kit from before the keys, whose grades are taken to be of the same file)."""
    one, other = (newer.get("files") or {}).get(exercise), (older.get("files") or {}).get(exercise)
    return one is None or other is None or one == other


def with_kept(newer: dict[str, Any], older: Sequence[Mapping[str, Any]], policy: str) -> dict[str, Any]:
    """``newer`` (a student's record) with each deferred check's grade replaced by the newest decided one
    among ``older`` (newest first) of the same file, its totals added up again; ``newer`` itself where
    nothing changes."""
    outcomes = []
    changed = False
    for outcome in newer["outcomes"]:
        if outcome.get("deferred"):
            name = _name(outcome)
            earlier = [
                o
                for record in older
                if same_file(newer, record, outcome["exercise"])
                for o in record.get("outcomes", [])
                if _name(o) == name
            ]
            chosen = kept([outcome, *earlier], lambda o: bool(o.get("deferred")))
            changed |= chosen is not outcome
            outcome = chosen
        outcomes.append(outcome)
    if not changed:
        return newer
    return {**newer, **record_totals(outcomes, policy), "outcomes": outcomes}


def record_totals(outcomes: Sequence[Mapping[str, Any]], policy: str) -> dict[str, float]:
    """``score``, ``max_score`` and ``deferred_points`` of a record's outcomes, as ``totals()`` adds them."""
    return {
        "score": float(sum(o["points"] for o in outcomes)),
        "max_score": float(
            sum(0.0 if o["deferred"] and policy == "defer" else float(o["max_points"]) for o in outcomes)
        ),
        "deferred_points": float(sum(o["max_points"] for o in outcomes if o["deferred"])),
    }


def record_row(name: str, record: Mapping[str, Any], checks: Sequence[str]) -> list[str]:
    """A student's row of grades.csv from their record in grades.json."""
    points = {_name(o): csv_points(o["points"], bool(o["deferred"])) for o in record["outcomes"]}
    return [
        csv_text(name),
        fmt_points(record["score"]),
        fmt_points(record["max_score"]),
        fmt_points(record["deferred_points"]),
        *(points.get(c, "") for c in checks),
    ]
