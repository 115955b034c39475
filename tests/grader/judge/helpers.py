"""What the judge's tests share: a small exercise built in the test, a student's file written to a temporary
folder, and grading it with a :class:`~grader.judge.Judge`, so the student's code runs where it always runs:
in the judge's worker process."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

from grader.judge import Judge
from grader.specs.check import ChoiceCheck, Exercise, ValueCheck

MODULE = "ex98_judge"


def exercise(*checks: ValueCheck | ChoiceCheck) -> Exercise:
    return Exercise(
        id="ex98", module=MODULE, title_zh="评判", title_en="Judge", checks=checks, import_timeout_s=10
    )


def value(check_id: str = "v", **kw: object) -> ValueCheck:
    base = dict(
        id=check_id, points=1, func="f", part="a", expected=lambda: (1.0, 2.0), rtol=1e-6, timeout_s=5
    )
    base.update(kw)
    return ValueCheck(**base)  # type: ignore[arg-type]


def student(tmp_path: Path, code: str) -> Path:
    path = tmp_path / f"{MODULE}.py"
    path.write_text(textwrap.dedent(code), encoding="utf-8")
    return path


def grade(ex: Exercise, path: Path, **judge_kw: object) -> list:
    with Judge("en", **judge_kw) as judge:  # type: ignore[arg-type]
        return list(judge.grade(ex, path).outcomes)


def alive(marker: str) -> list[str]:
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True, check=False).stdout
    return [line for line in out.splitlines() if marker in line and "ps -eo" not in line]


def requests(waits: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """The waits for requests, leaving out the workers' startups."""
    return [(op, s) for op, s in waits if op != "start"]
