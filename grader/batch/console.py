"""What ``python -m grader grade`` says on the console of the work it did, in the run's language: what the
journal spared the run (:func:`resumed_lines`), the line that ends it, how many students were graded, new
or again, and their scores (:func:`graded_line`), and who handed in notebooks, which batch grading does
not grade (:func:`notebook_lines`).

Counts are said with :func:`grader.text.catalogue.render_count` (``1 student``, ``2 students``), and a
regrade tells the students graded again from those new to the output it goes into: ``again`` is said only
of a student the output held before.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from ..results.outcome import Outcome, printable, totals
from ..specs.check import Exercise
from ..text.catalogue import render, render_count
from .submissions import Student


def _score(outcomes: Iterable[Outcome], deferred: str, name: str, lang: str, notebooks: bool) -> str:
    """``alice 12/18``: a student's score with its maximum, under the run's deferred-points policy; where
    notebooks were handed in for exercise files, ``nina 0/98 (notebooks: not graded)``, never alike an
    empty folder's."""
    t = totals(outcomes, deferred)
    said = render("batch_score_notebooks", lang) if notebooks else ""
    return f"{printable(name)} {t.score:g}/{t.max_score:g}{said}"  # the names are shown_name's already


def resumed_lines(
    journal: str,
    students: Sequence[Student],
    exercises: Sequence[Exercise],
    todo: Mapping[str, Mapping[str, Sequence[object]]],
    lang: str,
) -> list[str]:
    """What the journal spares this run, where it spares anything: how many exercises it holds graded for the
    same files, and of how many students every exercise, of how many some (``todo``: by student, by
    exercise, the checks still to grade; an empty list is an exercise the journal holds)."""
    kept = {s.name: [e for e in exercises if todo[s.name].get(e.id) == []] for s in students}
    count = sum(len(v) for v in kept.values())
    if not count:
        return []
    whole = sum(
        1
        for s in students
        if kept[s.name] and all(todo[s.name].get(e.id) == [] for e in exercises if e.module in s.files)
    )
    part = sum(1 for s in students if kept[s.name]) - whole
    who = [
        render("batch_resumed_" + which, lang, students=render_count("batch_students", lang, n))
        for which, n in (("whole", whole), ("part", part))
        if n
    ]
    exercises_said = render_count("batch_exercises", lang, count)
    joiner = "；" if lang == "zh" else "; "
    return [render("batch_resumed", lang, journal=journal, exercises=exercises_said, who=joiner.join(who))]


def graded_line(
    students: Sequence[tuple[str, tuple[Outcome, ...]]],
    *,
    deferred: str,
    lang: str,
    elapsed_s: float,
    sandbox: str,
    out: str,
    shard: str | None = None,
    reused: int = 0,
    earlier: Collection[str] | None = None,
    total: int = 0,
    notebooks: Collection[str] = (),
) -> str:
    """The line that ends a run: how many ``students`` (name and outcomes) it graded, of which shard, how
    many of them in part from the journal (``reused``), and where it regraded into an earlier output
    (``earlier``: the students that output held; ``total``: how many it holds now) which of them were graded
    again and which are new there; then the first ten scores, each of ``notebooks`` (students who handed in
    notebooks for exercise files) marked."""
    n = len(students)
    said = render_count("batch_students", lang, n)
    if earlier is None:
        who = render("batch_who", lang, students=said)
    else:
        again = sum(1 for name, _ in students if name in earlier)
        key = "batch_who_again" if again == n else "batch_who" if not again else "batch_who_mixed"
        who = render(key, lang, students=said, again=again, new=n - again)
    which = render("batch_of_shard", lang, shard=shard) if shard is not None else ""
    if reused:
        which += render("batch_from_journal", lang, n=reused, out=out)
    if earlier is not None:
        which += render("batch_into", lang, out=out, total=render_count("batch_students", lang, total))
    scores = ", ".join(
        _score(outcomes, deferred, name, lang, name in notebooks) for name, outcomes in students[:10]
    )
    scores += " ..." if n > 10 else ""
    return render(
        "batch_graded", lang, who=who, which=which, elapsed=f"{elapsed_s:.1f}", sandbox=sandbox, scores=scores
    )


def notebook_lines(notebooks: Mapping[str, Sequence[str]], lang: str) -> list[str]:
    """What the run says of the students who handed in notebooks (``notebooks``: by student, the notebooks
    found where exercise files are missing; none graded): who, and what to do about it, the way
    docs/instructors.md describes (convert to the exercise's ``.py``, or grade notebooks with nbgrader)."""
    names = [printable(name) for name, found in notebooks.items() if found]
    if not names:
        return []
    shown = ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")
    said = render_count("batch_students", lang, len(names))
    return [render("batch_notebooks", lang, students=said, names=shown)]
