"""What a run leaves deferred, said at its end: how many checks of how many students, grouped by why, and for
each group whether a retry on this machine can decide it, and where to send it where none can.

A check is deferred either by the machine whatever the student hands in (a requirement unmet: a CUDA GPU,
Apple MPS, torch, the caches it reads; or more memory than a worker is given, the same test the engine
makes, :func:`grader.batch.engine.machine_deferral`), or as it was graded (the machine too busy or its
figures too noisy to measure fairly). Only the last two a retry here can decide: ``--retry-deferred`` again
on a quieter machine, or with more memory a worker. The others go to a machine that has what they need:
the output copied to a GPU node and the same ``--retry-deferred`` run there (docs/instructors.md, "The GPU
task on GPU nodes", is the Slurm recipe that grades m6 on a GPU partition from the start).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..judge import Prepared
from ..reports.table import fmt_points
from ..specs.check import Check, Exercise
from ..specs.requirements import installed_torch_version, unmet_reason
from ..text.catalogue import render, render_count
from .engine import BatchConfig, BatchResult, machine_deferral

#: One deferred check of one student: the student, the exercise, the check and its points.
Deferred = tuple[str, str, str, float]
#: Where no retry on this machine can decide a check: what it needs, by the kind :func:`kind_of` gives.
UNDECIDABLE_HERE = ("gpu", "mps", "torch", "machine")
#: The order the groups are said in: those no retry here decides first (the next command is elsewhere).
ORDER = (*UNDECIDABLE_HERE, "memory", "busy")


@dataclass
class Group:
    """The deferred checks of one reason."""

    kind: str
    reason: str
    checks: int = 0
    points: float = 0.0
    students: dict[str, None] = field(default_factory=dict)
    exercises: dict[str, None] = field(default_factory=dict)


def deferred_of(result: BatchResult, data: Mapping[str, Any] | None = None) -> list[Deferred]:
    """Every deferred check of the output: of ``data`` (grades.json's, the whole output after a regrade
    into it) where given, else of ``result``'s students."""
    if data is None:
        return [
            (s.name, o.exercise, o.check_id, o.max_points)
            for s in result.students
            for o in s.outcomes
            if o.deferred
        ]
    return [
        (name, str(o["exercise"]), str(o["check_id"]), float(o["max_points"]))
        for name, record in data["students"].items()
        for o in record["outcomes"]
        if o.get("deferred")
    ]


def kind_of(exercise: Exercise, check: Check, config: BatchConfig) -> tuple[str, str]:
    """Why this machine defers ``check`` and what kind of reason that is: ``gpu``, ``mps``, ``torch``,
    ``machine`` (caches, free memory: no retry here decides it), ``memory`` (more than a worker is given:
    ``--memory-gib`` decides it) or ``busy`` (deferred as it was graded: a retry on a quieter machine)."""
    unmet = unmet_reason(check.requires, config.lang)
    reason = machine_deferral(Prepared(exercise, check, unmet=unmet), config)
    if reason is None:
        return "busy", render("batch_reason_busy", config.lang)
    if unmet is None:
        return "memory", reason
    if check.requires.cuda:
        return "gpu", reason
    if check.requires.mps:
        return "mps", reason
    if check.requires.torch is not None and installed_torch_version() is None:
        return "torch", reason
    return "machine", reason


def grouped(deferred: Iterable[Deferred], exercises: Sequence[Exercise], config: BatchConfig) -> list[Group]:
    """``deferred`` grouped by reason (:func:`kind_of`, asked once per check), in :data:`ORDER`."""
    checks = {(e.id, c.id): (e, c) for e in exercises for c in e.checks}
    kinds: dict[tuple[str, str], tuple[str, str]] = {}
    groups: dict[tuple[str, str], Group] = {}
    for student, exercise, check_id, points in deferred:
        key = (exercise, check_id)
        if key not in kinds:
            found = checks.get(key)
            kinds[key] = (
                kind_of(*found, config) if found else ("busy", render("batch_reason_busy", config.lang))
            )
        group = groups.setdefault(kinds[key], Group(*kinds[key]))
        group.checks += 1
        group.points += points
        group.students[student] = None
        group.exercises[exercise] = None
    return sorted(groups.values(), key=lambda g: (ORDER.index(g.kind), g.reason))


def deferred_lines(
    deferred: Sequence[Deferred],
    exercises: Sequence[Exercise],
    config: BatchConfig,
    out: str,
    retried: bool,
) -> list[str]:
    """What the run leaves deferred (``deferred``: every deferred check of the output, after this run), one
    line for all and one per reason with what decides it; after a retry (``retried``) with nothing left,
    one line that says so; nothing otherwise."""
    lang = config.lang
    if not deferred:
        return [render("batch_deferred_none", lang)] if retried else []
    students = len({d[0] for d in deferred})
    head = render(
        "batch_deferred_still" if retried else "batch_deferred",
        lang,
        checks=render_count("batch_checks", lang, len(deferred)),
        students=render_count("batch_students", lang, students),
        points=fmt_points(sum(d[3] for d in deferred)),
    )
    lines = [head]
    for group in grouped(deferred, exercises, config):
        names = list(group.students)
        who = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
        lines.append(
            "  - "
            + render(
                "batch_deferred_group",
                lang,
                reason=group.reason,
                checks=render_count("batch_checks", lang, group.checks),
                exercises=", ".join(group.exercises),
                students=render_count("batch_students", lang, len(names)),
                who=who,
                todo=render(f"batch_todo_{group.kind}", lang, out=out, exercises=", ".join(group.exercises)),
            )
        )
    return lines
