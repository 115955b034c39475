"""grader.judge.sides: the two sides composed as the runners' JudgeSide, each question asked of its side."""

from __future__ import annotations

from typing import Any

from grader.judge.sides import Sides
from grader.sandbox import load


class Recorder:
    """A side that records every question asked of it by name and answers with that name."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.asked: list[tuple[str, tuple]] = []

    def __getattr__(self, method: str) -> Any:
        def answer(*args: Any, **kwargs: Any) -> str:
            self.asked.append((method, args))
            return f"{self.name}.{method}"

        return answer


def test_each_question_goes_to_the_side_that_answers_it_and_pin_to_both() -> None:
    student, reference = Recorder("student"), Recorder("reference")
    sides = Sides(student, reference, "en", 0.2)  # type: ignore[arg-type]
    assert (sides.lang, sides.max_noise) == ("en", 0.2)
    assert sides.call(None, "f.py", (), {}, 5.0) == "student.call"  # type: ignore[arg-type]
    assert sides.cpu_reading("f.py") == "student.cpu_reading"
    assert sides.measure_reference(None, {}, also=True) == "reference.measure"  # type: ignore[arg-type]
    assert sides.reference_value(None, {}, also=True) == "reference.value"  # type: ignore[arg-type]
    assert sides.reference_cpu_reading() == "reference.cpu_reading"
    assert sides.bounds() == "reference.bounds"
    sides.pin("f.py", {1})
    assert student.asked[-1] == ("pin", ("f.py", {1})) and reference.asked[-1] == ("pin", ({1},))
    assert [m for m, _ in student.asked] == ["call", "cpu_reading", "pin"]
    assert [m for m, _ in reference.asked] == ["measure", "value", "cpu_reading", "bounds", "pin"]


def test_the_load_is_the_machine_s_read_now_of_neither_side() -> None:
    """A span of the machine from ``before`` to now, asked of neither side: a second ago to now reads a
    second; the core not pinned or our CPU time unknown, it is no evidence (unread)."""
    student, reference = Recorder("student"), Recorder("reference")
    sides = Sides(student, reference, "en", 0.2)  # type: ignore[arg-type]
    now = load.reading()
    before = load.MachineTicks(now.cpus, now.at - 1.0, now.quiet)  # a span of a second, no tick in it
    span = sides.load_span(before, {min(now.cpus)}, 0.0)
    assert span.known and 1.0 <= span.wall < 1.5
    assert sides.load_span(before, None, 0.5) == load.UNREAD
    assert sides.load_span(before, {min(now.cpus)}, None) == load.UNREAD
    assert student.asked == [] and reference.asked == []
