"""Three outcomes of one exercise (passed, wrong, deferred), for the tests of totals, the score table and
Gradescope's JSON."""

from __future__ import annotations

from grader.results.outcome import Outcome


def outcome(check_id: str, state: str, points: float, max_points: float, deferred: bool = False) -> Outcome:
    return Outcome(
        "ex02",
        check_id,
        "2a",
        state,
        points,
        max_points,
        f"{state} message",
        deferred,
        "value",
        "visible",
        f"2.{check_id[-1]}",
        "访存受限",
    )


OUTCOMES = [
    outcome("c1", "passed", 2, 2),
    outcome("c2", "wrong", 0, 1),
    outcome("c3", "skipped", 0, 3, deferred=True),
]
