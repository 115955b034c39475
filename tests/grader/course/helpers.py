"""What the tests of the course's notebooks, real nbgrader and Gradescope's bundle share: the kit's folders, the
exercises, the assignment's name, the wrong lines of a partly right student, and the text of an answer."""

from __future__ import annotations

import re
from pathlib import Path

from grader.course.stubs import BEGIN, END
from grader.registry import load_exercises

ROOT = Path(__file__).resolve().parents[3]
SOLUTIONS = ROOT / "solutions"
EXERCISES = load_exercises()
ASSIGNMENT = "p3"


#: One function of each exercise made wrong for carol: (exercise id, right line, wrong line).
WRONG = {
    "ex01": ("return peak_flops / bandwidth", "return bandwidth / peak_flops"),
    "ex05": ("return -(-blocks // num_sms)", "return blocks // num_sms"),
}


def without_markers(source: str) -> str:
    """A student's answer: the solution with nbgrader's region markers gone."""
    return "\n".join(line for line in source.splitlines() if line.strip() not in (BEGIN, END))


def strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)
