"""The class view's numbers, apart from any page: each student's standing (total and percentage, ranked) and
each check's outcomes over the class; the index page (:mod:`grader.reports.html.index`) only shows them.

Who counts as graded on a check is one rule, :func:`graded_on`: a check deferred for a student (a
requirement this machine lacks, a measurement too noisy) was not graded, and is no zero of theirs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..results.outcome import STATES, Outcome, Totals, totals
from .files import percent

#: A student's name and outcomes, as the front ends hand the class over.
Students = Sequence[tuple[str, Sequence[Outcome]]]


def graded_on(outcome: Outcome) -> bool:
    """Whether the student was graded on this check: not where it was deferred (or skipped)."""
    return not outcome.deferred and outcome.state != "skipped"


@dataclass(frozen=True)
class Standing:
    """A student's place in the class: their rank by percentage (their score over the maximum counted for
    them, which differs where checks were deferred), the percentage (None where nothing counted), the totals."""

    rank: int
    name: str
    share: float | None
    totals: Totals


def standings(students: Students, deferred: str) -> list[Standing]:
    """The students ranked by percentage, highest first; those with no percentage last; ties by name."""
    ranked = []
    for name, outcomes in students:
        tt = totals(outcomes, deferred)
        ranked.append((percent(tt.score, tt.max_score), name, tt))
    ranked.sort(key=lambda r: (r[0] is None, -(r[0] or 0.0), r[1]))
    return [Standing(number, name, share, tt) for number, (share, name, tt) in enumerate(ranked, 1)]


@dataclass(frozen=True)
class CheckCounts:
    """One check over the class: the number of students in each state, how many had it, how many were
    graded on it (:func:`graded_on`), the mean points of those graded (None where none was), its points."""

    name: str
    counts: Mapping[str, int]
    students: int
    graded: int
    mean: float | None
    max_points: float


def check_counts(students: Students, checks: Iterable[str]) -> list[CheckCounts]:
    """Every check of ``checks`` (in that order, even one no student had), then any other a student had."""
    by_check: dict[str, list[Outcome]] = {name: [] for name in checks}
    for _, outcomes in students:
        for o in outcomes:
            by_check.setdefault(o.name, []).append(o)
    rows = []
    for name, items in by_check.items():
        graded = [o for o in items if graded_on(o)]
        rows.append(
            CheckCounts(
                name=name,
                counts={s: sum(1 for o in items if o.state == s) for s in STATES},
                students=len(items),
                graded=len(graded),
                mean=sum(o.points for o in graded) / len(graded) if graded else None,
                max_points=max((o.max_points for o in items), default=0.0),
            )
        )
    return rows


@dataclass(frozen=True)
class Cell:
    """One student's exercise in the grid: the points and the maximum counted for them, the percentage
    (None where nothing counted: every check deferred), how many checks were deferred, whether any was
    attempted, and the file it was graded from (the student's page names its section by it)."""

    exercise: str
    score: float
    max_score: float
    share: float | None
    deferred: int
    attempted: bool
    source: str


@dataclass(frozen=True)
class GridRow:
    """A student's row of the grid: their name, their percentage over every exercise, a cell per exercise
    they were graded on (an exercise they have no outcome of has none)."""

    name: str
    share: float | None
    cells: Mapping[str, Cell]


def exercises_of(students: Students, checks: Iterable[str]) -> list[str]:
    """The exercises of ``checks`` (``exercise::check``, in their order), then any other a student had."""
    found = dict.fromkeys(name.split("::")[0] for name in checks)
    for _, outcomes in students:
        found.update(dict.fromkeys(o.exercise for o in sorted(outcomes, key=Outcome.sort_key)))
    return list(found)


def grid(students: Students, deferred: str) -> list[GridRow]:
    """The student × exercise grid, the students by name: where each student stopped."""
    rows = []
    for name, outcomes in sorted(students, key=lambda s: s[0]):
        by_exercise: dict[str, list[Outcome]] = {}
        for o in sorted(outcomes, key=Outcome.sort_key):
            by_exercise.setdefault(o.exercise, []).append(o)
        cells = {}
        for exercise, items in by_exercise.items():
            tt = totals(items, deferred)
            cells[exercise] = Cell(
                exercise=exercise,
                score=tt.score,
                max_score=tt.max_score,
                share=percent(tt.score, tt.max_score),
                deferred=sum(1 for o in items if o.deferred),
                attempted=any(o.state != "not_attempted" for o in items),
                source=items[0].source,
            )
        tt = totals(outcomes, deferred)
        rows.append(GridRow(name, percent(tt.score, tt.max_score), cells))
    return rows
