"""Gradescope's results.json, built from outcomes.

``gradescope_results`` builds the dict Gradescope's autograder expects (top level ``score``,
``max_score``, ``execution_time``, ``output``, ``visibility``, ``stdout_visibility``, ``extra_data``,
``tests``; each test ``name``, ``number``, ``score``, ``max_score``, ``status``, ``output``, ``tags``,
``visibility``), so a course can upload it as is.

A deferred check (not graded on this machine: a requirement unmet, or a machine too noisy to measure) is
neither passed nor failed, and Gradescope's ``status`` knows only "passed" and "failed" (where absent it is
inferred from the scores, which reads 0/0 as passed). So a deferred check's test is named as deferred (its
name ends with the state's word, ``[deferred]`` / ``[暂缓计分]``) and, under the ``defer`` policy, kept out
of the student's score and sight: ``max_score`` 0 and ``visibility`` "hidden" (the student reads it, with
its reason, in the top-level ``output``'s table of deferred checks; the instructor still sees the test). Its
``status`` is "failed", never inferred, so that no view shows it as passed; its ``output`` begins
``[deferred]`` (``[暂缓计分]``), the name every view gives the state (its ``tags`` and ``extra_data``
keep the state's value, ``skipped``, with ``"deferred": true`` beside it in ``extra_data``, only there). Under ``zero`` it counts as zero
of its points: a visible failed test, named as deferred. The top level's ``extra_data`` lists the deferred
checks. ``execution_time`` is the caller's: the one student's grading time (batch grading times each
student apart).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..results.environment import environment
from ..results.outcome import Outcome, totals
from ..text.catalogue import render
from .table import score_table, state_label


def gradescope_test(o: Outcome, lang: str = "zh", deferred: str = "defer") -> dict[str, Any]:
    """One entry of ``tests[]``."""
    max_score = o.counted_max(deferred)
    name = f"{o.name} ({o.title})" if o.title else o.name
    visibility = o.visibility
    if o.deferred:  # neither passed nor failed: said in its name, and out of sight where out of the score
        name += f" [{state_label('deferred', lang)}]"
        if deferred == "defer":
            visibility = "hidden"
    return {
        "name": name,
        "number": o.number,
        "score": float(o.points),
        "max_score": float(max_score),
        # explicit, never inferred: Gradescope would read a deferred check's 0/0 as passed
        "status": "passed" if o.passed and not o.deferred else "failed",
        "output": f"[{state_label(o.state, lang)}] {o.message}",
        "tags": [o.exercise, f"part {o.part}", o.kind or "check", o.state],
        "visibility": visibility,
        # the comparison's parts as fields beside the prose (Gradescope keeps extra keys as they are)
        "extra_data": {
            "state": o.state,
            **({"deferred": True} if o.deferred else {}),  # what marks the state, where it is deferred
            **(dict(o.details) if o.details else {}),
        },
    }


def gradescope_results(
    outcomes: Sequence[Outcome],
    lang: str = "zh",
    deferred: str = "defer",
    execution_time: float = 0.0,
    env: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Gradescope's results.json as a dict (see the module docstring)."""
    t = totals(outcomes, deferred)
    table = (
        "\n".join(score_table(outcomes, lang, deferred)) if outcomes else render("report_no_exercise", lang)
    )
    return {
        "score": t.score,
        "max_score": t.max_score,
        "execution_time": round(float(execution_time), 3),
        "output": table,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {
            "environment": env if env is not None else environment(),
            "deferred_policy": deferred,
            "deferred_points": t.deferred_points,
            "deferred": [o.name for o in outcomes if o.deferred],
            "lang": lang,
        },
        "tests": [gradescope_test(o, lang, deferred) for o in sorted(outcomes, key=Outcome.sort_key)],
    }
