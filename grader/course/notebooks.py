"""An nbgrader course folder written from ``solutions/``: one notebook per exercise, graded by the same checks.

``python -m grader notebooks OUT_DIR [--course-id perfkit] [--assignment perfkit]`` writes

- ``OUT_DIR/nbgrader_config.py``: the course id, a per-cell time limit long enough for the measurement
  checks (nbgrader's default is 30 s), and hidden checks' code cleared from the feedback;
- ``OUT_DIR/source/<assignment>/<exercise module>.ipynb`` for every exercise (``ex01_ridge_point.ipynb`` ...).

Each notebook holds, in order: a read-only setup cell that imports the grader before any student code; the
question (the solution module's docstring) as a read-only markdown cell; for exercises whose checks need
something of the machine (torch, CUDA, a large enough last-level cache, a serial run), a read-only note
saying so; ONE solution cell with the solution module's code, its ``### BEGIN SOLUTION`` / ``### END
SOLUTION`` regions kept for nbgrader's ``generate_assignment`` to replace; and one autograder cell per check,
worth the check's points, that calls ``grader.check(globals(), "<exercise>", "<check>")``, the same check the
pytest plugin runs: the notebook's executed code cells are graded in a worker process (see ``grader.api``).
A check whose ``visibility`` is not ``"visible"`` has its call between ``### BEGIN HIDDEN TESTS`` / ``### END
HIDDEN TESTS``: the released notebook shows only a comment, ``autograde`` restores the call from the
gradebook.

Scores agree with the pytest plugin: a check is worth its points when it passes and nothing otherwise, and
``grader.check`` raises unless the check passed, which nbgrader scores 0. The one difference: where a check's
requirement is unmet (or a measurement is too noisy), pytest skips the check and defers its points, while
the nbgrader cell raises and scores 0. Grade measurement tasks on a machine that meets their requirements.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from ..outcome import LANGS
from ..requirements import Requirements
from ..spec import Check, Exercise
from .stubs import BEGIN, END

#: nbgrader's markers of the autograder code students must not see.
BEGIN_HIDDEN = "### BEGIN HIDDEN TESTS"
END_HIDDEN = "### END HIDDEN TESTS"

#: The seconds a cell may run under ``nbgrader autograde`` unless asked otherwise; raised to twice the
#: longest check's own limit where that is longer (a measurement check retries once before it fails).
DEFAULT_CELL_TIMEOUT_S = 300

#: The assignment's name unless asked otherwise (the lecture is P3).
DEFAULT_ASSIGNMENT = "p3"

#: The characters nbgrader allows in a ``grade_id``.
_GRADE_ID_BAD = re.compile(r"[^A-Za-z0-9_\-]")

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}

SETUP_SOURCE = (
    "# 只读：先导入评分器，再运行你的代码。请勿修改。\n"
    "# Read-only: imports the grader before any of your code. Do not edit.\n"
    "import grader"
)


def grade_id(*parts: str) -> str:
    """An nbgrader ``grade_id`` from ``parts``: joined by ``_``, each character outside [A-Za-z0-9_-] as ``_``."""
    return _GRADE_ID_BAD.sub("_", "_".join(parts))


def nbgrader_metadata(
    cell_id: str, *, grade: bool, solution: bool, locked: bool, points: float | None = None
) -> dict[str, object]:
    """The ``nbgrader`` cell metadata (schema 3); ``points`` for grade cells only."""
    meta: dict[str, object] = {
        "grade": grade,
        "solution": solution,
        "locked": locked,
        "task": False,
        "grade_id": cell_id,
        "schema_version": 3,
    }
    if grade:
        if points is None:
            raise ValueError(f"grade cell {cell_id!r} needs points")
        meta["points"] = points
    return meta


def split_solution(source: str, name: str = "<solution>") -> tuple[str, str]:
    """``(question, code)`` of a solution module: its docstring, and its source without the docstring.

    A ValueError names the file when it has no module docstring or no solution region.
    """
    tree = ast.parse(source, filename=name)
    first = tree.body[0] if tree.body else None
    question = ast.get_docstring(tree, clean=True)
    if question is None or first is None or first.end_lineno is None:
        raise ValueError(f"{name}: a solution module starts with its question as the module docstring")
    if BEGIN not in source or END not in source:
        raise ValueError(f"{name}: no {BEGIN} / {END} region to answer")
    lines = source.splitlines()
    code = "\n".join(lines[: first.lineno - 1] + lines[first.end_lineno :]).strip("\n")
    return question, code


def question_markdown(question: str) -> str:
    """The docstring ``question`` as markdown that shows it as written: its line breaks kept (two trailing
    spaces, except inside a code span), leading indentation dropped (it would make a code block), ``*``
    escaped outside code spans."""
    parts = "\n".join(line.strip() for line in question.splitlines()).split("`")
    text = "`".join(p if j % 2 else p.replace("*", r"\*") for j, p in enumerate(parts))
    lines = text.split("\n")
    out = []
    ticks = 0
    for i, line in enumerate(lines):
        ticks += line.count("`")
        follows = i + 1 < len(lines) and lines[i + 1] != ""
        out.append(line + "  " if line and follows and ticks % 2 == 0 else line)
    return "\n".join(out)


def _points(value: float) -> str:
    return f"{value:g}"


def _mib(n_bytes: int) -> str:
    return f"{n_bytes / 1024**2:g} MiB"


def describe_requirements(req: Requirements) -> tuple[list[str], list[str]]:
    """What ``req`` asks of the grading machine, as (Chinese, English) phrases; empty lists for nothing."""
    zh: list[str] = []
    en: list[str] = []
    if req.needs_torch:
        spec = f" {req.torch}" if req.torch else ""
        zh.append(f"torch{spec}")
        en.append(f"torch{spec}")
    if req.cuda:
        zh.append("CUDA GPU")
        en.append("a CUDA GPU")
    if req.mps:
        zh.append("Apple MPS")
        en.append("Apple MPS")
    if req.min_llc_bytes:
        zh.append(f"最后一级缓存至少 {_mib(req.min_llc_bytes)}")
        en.append(f"a last-level cache of at least {_mib(req.min_llc_bytes)}")
    if req.serial:
        zh.append("串行运行（机器空闲，一次只评一个笔记本）")
        en.append("a serial run (an idle machine, one notebook at a time)")
    return zh, en


def requirements_note(exercise: Exercise) -> str | None:
    """The markdown note on what ``exercise``'s checks need from the grading machine, or None if nothing."""
    rows = []
    for check in exercise.checks:
        zh, en = describe_requirements(check.requires)
        if zh:
            rows.append(f"| `{check.id}` | {_points(check.points)} | {'；'.join(zh)} | {'; '.join(en)} |")
    if not rows:
        return None
    return "\n".join(
        [
            "**评分机器的要求 · What grading needs from the machine**",
            "",
            "| 检查 check | 分 points | 需要 | needs |",
            "|---|---|---|---|",
            *rows,
            "",
            "评分机器不满足某项检查的要求时（或测量时机器噪声太大），这项检查会抛出异常，在 nbgrader 里得 0 分；"
            "pytest 里则是跳过、分数延后。请在满足要求的空闲机器上评分。",
            "",
            "Where the grading machine does not meet a check's requirement (or is too noisy to measure on), the "
            "check raises and scores 0 in nbgrader; pytest would skip it and defer its points instead. Grade "
            "on an idle machine that meets the requirements.",
        ]
    )


def grade_cell_source(exercise: Exercise, check: Check, lang: str, extra_checks: Sequence[str] = ()) -> str:
    """The code of ``check``'s autograder cell: a comment, then the call (inside a hidden region if hidden)."""
    extra = f", extra_checks={list(extra_checks)!r}" if extra_checks else ""
    call = f"print(grader.check(globals(), {exercise.id!r}, {check.id!r}, lang={lang!r}{extra}).message)"
    label = f"{exercise.id}::{check.id}"
    points = _points(check.points)
    if check.visibility == "visible":
        return f"# 检查 {label}（{check.part}，{points} 分）· Check {label} (part {check.part}, {points} points)\n{call}"
    return (
        f"# 隐藏检查 {label}（{check.part}，{points} 分）：提交后评分。"
        f"· Hidden check {label} (part {check.part}, {points} points): graded after submission.\n"
        f"{BEGIN_HIDDEN}\n{call}\n{END_HIDDEN}"
    )


def _cell_ids(exercise: Exercise) -> list[str]:
    ids = [grade_id(exercise.id, kind) for kind in ("setup", "question", "requirements", "solution")]
    ids += [grade_id(exercise.id, check.id) for check in exercise.checks]
    seen: set[str] = set()
    for cell_id in ids:
        if cell_id in seen:
            raise ValueError(
                f"exercise {exercise.id}: two cells would get the grade_id {cell_id!r}; rename a check "
                "(nbgrader allows letters, digits, _ and - only, so other characters become _)"
            )
        seen.add(cell_id)
    return ids


def exercise_notebook(
    exercise: Exercise, solution_source: str, *, lang: str = "zh", extra_checks: Sequence[str] = ()
) -> NotebookNode:
    """The nbgrader source notebook of ``exercise``, with ``solution_source`` (the solution module's text)."""
    question, code = split_solution(solution_source, f"{exercise.module}.py")
    _cell_ids(exercise)  # a clash of sanitized ids fails here, naming the exercise
    title = f"# {exercise.id} · {exercise.title_zh} · {exercise.title_en}".rstrip(" ·")
    cells = [
        new_code_cell(
            SETUP_SOURCE,
            metadata={
                "nbgrader": nbgrader_metadata(
                    grade_id(exercise.id, "setup"), grade=False, solution=False, locked=True
                ),
            },
        ),
        new_markdown_cell(
            f"{title}\n\n{question_markdown(question)}\n\n"
            "在下面的单元格里把 `# YOUR CODE HERE` 和 `raise NotImplementedError()` 换成你的代码；"
            "其后的检查单元格是只读的，运行它们可以看到反馈。\n"
            "Answer in the cell below, replacing `# YOUR CODE HERE` and `raise NotImplementedError()`; the "
            "check cells after it are read-only: run them for feedback.",
            metadata={
                "nbgrader": nbgrader_metadata(
                    grade_id(exercise.id, "question"), grade=False, solution=False, locked=True
                )
            },
        ),
    ]
    note = requirements_note(exercise)
    if note is not None:
        cells.append(
            new_markdown_cell(
                note,
                metadata={
                    "nbgrader": nbgrader_metadata(
                        grade_id(exercise.id, "requirements"), grade=False, solution=False, locked=True
                    )
                },
            )
        )
    cells.append(
        new_code_cell(
            code,
            metadata={
                "nbgrader": nbgrader_metadata(
                    grade_id(exercise.id, "solution"), grade=False, solution=True, locked=False
                )
            },
        )
    )
    for check in exercise.checks:
        cells.append(
            new_code_cell(
                grade_cell_source(exercise, check, lang, extra_checks),
                metadata={
                    "nbgrader": nbgrader_metadata(
                        grade_id(exercise.id, check.id),
                        grade=True,
                        solution=False,
                        locked=True,
                        points=check.points,
                    ),
                },
            )
        )
    for cell in cells:  # stable cell ids (nbformat draws random ones): the same solutions, the same files
        cell_id = cell.metadata["nbgrader"]["grade_id"]
        cell.id = cell_id if len(cell_id) <= 64 else hashlib.sha1(cell_id.encode()).hexdigest()
    nb = new_notebook(
        cells=cells,
        metadata={"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}},
    )
    nbformat.validate(nb)
    return nb


def cell_timeout(exercises: Iterable[Exercise], minimum: int = DEFAULT_CELL_TIMEOUT_S) -> int:
    """Seconds per cell: ``minimum``, or twice the longest check's limit where that is longer."""
    longest = max((c.timeout_s for e in exercises for c in e.checks), default=0.0)
    return max(int(minimum), math.ceil(2 * longest))


def config_text(course_id: str, timeout_s: int) -> str:
    """The course's ``nbgrader_config.py``."""
    return f'''"""nbgrader configuration of the course {course_id!r}, written by `python -m grader notebooks`."""

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import ClearHiddenTests, GetGrades

c = get_config()  # noqa: F821 (nbgrader provides it)

c.CourseDirectory.course_id = {course_id!r}

# Measurement checks time code for seconds, up to their own limit and one retry: nbgrader's default of 30 s
# per cell would cut them off. A cell that runs out of time raises and scores 0.
c.Execute.timeout = {int(timeout_s)}

# The grader's property checks (hypothesis) leave a .hypothesis cache next to the notebook they run in:
# keep it out of what nbgrader copies around (feedback included), with nbgrader's own defaults.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", ".hypothesis"]

# Feedback shows each check's result but not the code of hidden checks.
c.GenerateFeedback.preprocessors = [GetGrades, ClearHiddenTests, CSSHTMLHeaderPreprocessor]
'''


def default_solutions_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "solutions"


def write_course(
    out_dir: str | Path,
    *,
    exercises: Iterable[Exercise] | None = None,
    solutions_dir: str | Path | None = None,
    course_id: str = "perfkit",
    assignment: str = DEFAULT_ASSIGNMENT,
    lang: str = "zh",
    timeout_s: int = DEFAULT_CELL_TIMEOUT_S,
    extra_checks: Sequence[str] = (),
) -> list[Path]:
    """Write the course folder (see the module docstring); return the files written, config first.

    ``exercises`` defaults to every registered exercise; each needs ``<solutions_dir>/<module>.py``.
    """
    if not re.fullmatch(r"[A-Za-z0-9_\-.]+", assignment) or assignment in (".", ".."):
        raise ValueError(
            f"assignment must be a plain folder name (letters, digits, _ - .), got {assignment!r}"
        )
    if exercises is None:
        from ..registry import load_exercises

        exercises = load_exercises(extra_checks).values()
    chosen = sorted(exercises, key=lambda e: e.module)
    if not chosen:
        raise ValueError("no exercises to write")
    solutions = Path(solutions_dir) if solutions_dir is not None else default_solutions_dir()
    notebooks = {}
    for exercise in chosen:
        path = solutions / f"{exercise.module}.py"
        if not path.is_file():
            raise ValueError(f"exercise {exercise.id}: no solution {path}")
        text = path.read_text(encoding="utf-8")
        notebooks[exercise.module] = exercise_notebook(exercise, text, lang=lang, extra_checks=extra_checks)
    out = Path(out_dir)
    source = out / "source" / assignment
    source.mkdir(parents=True, exist_ok=True)
    config = out / "nbgrader_config.py"
    config.write_text(config_text(course_id, cell_timeout(chosen, timeout_s)), encoding="utf-8")
    written = [config]
    for module, nb in notebooks.items():
        path = source / f"{module}.ipynb"
        nbformat.write(nb, str(path))
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m grader notebooks",
        description="Write an nbgrader course folder (config and source notebooks) from solutions/.",
    )
    parser.add_argument("out_dir", type=Path, help="the course folder to write (nbgrader's course root)")
    parser.add_argument("--course-id", default="perfkit", help="nbgrader's course id (default: perfkit)")
    parser.add_argument(
        "--assignment",
        default=DEFAULT_ASSIGNMENT,
        help=f"the assignment's name (default: {DEFAULT_ASSIGNMENT})",
    )
    parser.add_argument(
        "--exercise",
        action="append",
        default=None,
        metavar="ID",
        help="only this exercise (id or module, e.g. ex01); repeat for more (default: all)",
    )
    parser.add_argument(
        "--solutions", type=Path, default=None, help="the solutions folder (default: solutions/)"
    )
    parser.add_argument("--lang", choices=LANGS, default="zh", help="the language of the checks' feedback")
    parser.add_argument(
        "--timeout",
        type=int,
        default=DEFAULT_CELL_TIMEOUT_S,
        help=f"seconds a cell may run under autograde (default {DEFAULT_CELL_TIMEOUT_S})",
    )
    args = parser.parse_args(argv)
    exercises = None
    if args.exercise:
        from ..registry import find_exercise

        try:
            exercises = [find_exercise(e) for e in dict.fromkeys(args.exercise)]
        except KeyError as exc:
            parser.error(str(exc.args[0]))
    try:
        written = write_course(
            args.out_dir,
            exercises=exercises,
            solutions_dir=args.solutions,
            course_id=args.course_id,
            assignment=args.assignment,
            lang=args.lang,
            timeout_s=args.timeout,
        )
    except ValueError as exc:
        parser.error(str(exc))
    for path in written:
        print(f"wrote: {path}")
    return 0
