"""grader.runner through small exercises built in the test: odd submissions and grader failures."""

from __future__ import annotations

import threading

from grader.runner import Submission, grade_submission, prepare_exercise, run_check
from grader.spec import Exercise, ValueCheck


def exercise(*checks: ValueCheck) -> Exercise:
    return Exercise(id="ex98", module="ex98_runner", title_zh="运行", title_en="Runner", checks=checks)


def value(check_id: str = "v", **kw: object) -> ValueCheck:
    base = dict(id=check_id, points=1, func="f", part="a", expected=lambda: (1.0, 2.0), rtol=1e-6)
    base.update(kw)
    return ValueCheck(**base)  # type: ignore[arg-type]


def grade(ex: Exercise, namespace: dict) -> list:
    return list(
        grade_submission(ex, prepare_exercise(ex, "en"), Submission.from_mapping(namespace), "en").outcomes
    )


def test_missing_and_uncallable_functions() -> None:
    ex = exercise(value())
    assert grade(ex, {})[0].state == "not_attempted"
    (o,) = grade(ex, {"f": 3})
    assert o.state == "error" and "not a function" in o.message


def test_a_doctored_result_object_is_the_students_error() -> None:
    class Sneaky(tuple):
        def __len__(self) -> int:
            raise RuntimeError("gotcha")

    (o,) = grade(exercise(value()), {"f": lambda: Sneaky((1.0, 2.0))})
    assert o.state in ("error", "wrong") and o.points == 0


def test_grader_failures_cost_the_check_not_the_session() -> None:
    ex = exercise(value("broken", expected=lambda: 1 / 0), value("fine", expected=lambda: 2.0))
    broken, fine = grade(ex, {"f": lambda: 2.0})
    assert (
        broken.state == "error"
        and "grader itself failed" in broken.message
        and "ZeroDivisionError" in broken.message
    )
    assert fine.state == "passed" and fine.points == 1.0


def test_expected_values_are_computed_before_the_submission_runs() -> None:
    calls: list[str] = []
    ex = exercise(value(expected=lambda: calls.append("expected") or 2.0))
    prepared = prepare_exercise(ex, "en")
    outcome = run_check(
        prepared[0], Submission.from_mapping({"f": lambda: calls.append("student") or 2.0}), "en"
    )
    assert calls == ["expected", "student"] and outcome.passed


def test_off_the_main_thread_the_outcome_says_no_time_limit() -> None:
    ex = exercise(value(expected=lambda: 2.0))
    seen: list = []
    t = threading.Thread(target=lambda: seen.extend(grade(ex, {"f": lambda: 2.0})))
    t.start()
    t.join()
    assert seen[0].passed and "no time limit" in seen[0].message
