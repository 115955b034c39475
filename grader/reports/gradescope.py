"""Gradescope's results.json, built from outcomes.

``gradescope_results`` builds the dict Gradescope's autograder expects (top level ``score``,
``max_score``, ``execution_time``, ``output``, ``visibility``, ``stdout_visibility``, ``extra_data``,
``tests``; each test ``name``, ``number``, ``score``, ``max_score``, ``status``, ``output``, ``tags``,
``visibility``), so a course can upload it as is. Under the ``defer`` policy a deferred check appears with
``max_score`` 0 and an output saying why. Gradescope's ``status`` takes "passed" or "failed" and, where
absent, is inferred from the scores, which reads 0/0 as passed: a deferred check was not graded, so it is
never "passed" (it is "failed", its output saying it was deferred; the top level's ``extra_data`` lists
the deferred checks).
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
    return {
        "name": f"{o.name} ({o.title})" if o.title else o.name,
        "number": o.number,
        "score": float(o.points),
        "max_score": float(max_score),
        # explicit, never inferred: Gradescope would read a deferred check's 0/0 as passed
        "status": "passed" if o.passed and not o.deferred else "failed",
        "output": f"[{state_label(o.state, lang)}] {o.message}",
        "tags": [o.exercise, f"part {o.part}", o.kind or "check", o.state],
        "visibility": o.visibility,
        # the comparison's parts as fields beside the prose (Gradescope keeps extra keys as they are)
        "extra_data": {"state": o.state, **(dict(o.details) if o.details else {})},
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
