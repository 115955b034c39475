"""An nbgrader course folder written from ``solutions/``: one notebook per exercise, graded by the same checks.

``python -m grader notebooks OUT_DIR [--course-id perfkit] [--assignment p3] [--exercises ex01,ex02]
[--gpu] [--mps] [--deferred defer|zero] [--force]`` writes

- ``OUT_DIR/nbgrader_config.py``: the course id, a per-cell time limit long enough for the measurement
  checks (nbgrader's default is 30 s), the autograde steps that decide the check cells' points outside the
  student's kernel (:mod:`grader.course.judgecells`, :mod:`grader.course.deferredgrades`), and hidden
  checks' code cleared from the feedback, as one marked block (``# >>> perfkit ...`` to ``# <<< perfkit ...``). A new run rewrites that block only and keeps every
  line outside it, so an instructor's own settings (``c.Exchange.root``) survive; settings after the block
  override it. A file without the block (written by hand, or before the markers existed) is left alone
  unless ``--force`` replaces it;
- ``OUT_DIR/source/<assignment>/<exercise module>.ipynb`` for every exercise (``ex01_ridge_point.ipynb`` ...),
  or those ``--exercises`` names. Notebooks of an earlier run that this one did not write are kept, and
  listed: nbgrader would still grade them.

Each notebook holds, in order: a read-only setup cell that imports the grader before any student code; the
question (the solution module's docstring) as a read-only markdown cell; for exercises whose checks need
something of the machine (torch, CUDA, a large enough last-level cache, a serial run), a read-only note
saying so; ONE solution cell with the solution module's code, its ``### BEGIN SOLUTION`` / ``### END
SOLUTION`` regions kept for nbgrader's ``generate_assignment`` to replace; and one autograder cell per check,
worth the check's points, that calls ``grader.check(globals(), "<exercise>", "<check>")``, the same check the
pytest plugin runs: the notebook's executed code cells are graded in a worker process (see ``grader.api``).
That call, in the student's kernel, is the student's feedback while working; under ``nbgrader autograde``
the points are decided outside the kernel, from the submitted notebook's cells, by
:class:`~grader.course.judgecells.JudgeCheckCells`, which replaces every check cell's outputs.
A failing check's cell re-raises ``grader.check``'s AssertionError ``from None``, so the traceback in the
notebook and the feedback is the cell's line and the message (check id and feedback), not the grader's
frames. A check whose ``visibility`` is not ``"visible"`` has its call between ``### BEGIN HIDDEN TESTS`` /
``### END HIDDEN TESTS``: the released notebook shows only a comment, ``autograde`` restores the call from
the gradebook.

Scores agree with batch grading: a check is worth its points when it passes and nothing otherwise. A check
whose requirement is unmet (or too noisy to measure) is deferred and scores as the course chose
(``--deferred``, as in batch): ``defer`` (default) leaves its cell to be graded by hand, since nbgrader's
maximum cannot leave it out; ``zero`` scores 0. The command leaves out the checks that need an accelerator
(CUDA, MPS) unless ``--gpu`` / ``--mps`` says the grading machine has it: without a GPU the course's maximum
is pytest's there (the notebook's note names the checks left out); ``write_course`` keeps every check
unless given ``accelerators``. Grade measurement tasks on a machine that meets their other requirements.
The command line is :mod:`grader.course.cli.nbcourse`'s.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import math
import re
import string
from collections.abc import Callable, Collection, Iterable, Sequence
from importlib import resources
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from ..registry import load_exercises
from ..results.outcome import DEFERRED_POLICIES
from ..specs.check import Check, Exercise
from ..specs.requirements import Requirements
from ..text.catalogue import LANGS, render
from .stubs import BEGIN, END

#: nbgrader's markers of the autograder code students must not see.
BEGIN_HIDDEN = "### BEGIN HIDDEN TESTS"
END_HIDDEN = "### END HIDDEN TESTS"

#: The seconds a cell may run under ``nbgrader autograde`` unless asked otherwise; raised to twice the
#: longest check's own limit where that is longer (a measurement check retries once before it fails).
DEFAULT_CELL_TIMEOUT_S = 300

#: The assignment's name unless asked otherwise (the lecture is P3).
DEFAULT_ASSIGNMENT = "p3"

#: The first and last lines of the generated block of ``nbgrader_config.py``: a new run rewrites what lies
#: between them (markers included) and keeps every other line of the file.
CONFIG_BEGIN = "# >>> perfkit: written by `python -m grader notebooks`, rewritten on every run >>>"
CONFIG_END = "# <<< perfkit: end of the generated block; lines outside it are yours and kept <<<"

#: The template of that block, shipped beside this module as package data (``string.Template``: ``$name``).
CONFIG_TEMPLATE = "nbgrader_config.tmpl"

#: The accelerators a check may need (``Requirements.cuda`` / ``.mps``), named as ``accelerators`` takes them.
ACCELERATORS = ("cuda", "mps")

#: The characters nbgrader allows in a ``grade_id``.
_GRADE_ID_BAD = re.compile(r"[^A-Za-z0-9_\-]")

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def both(key: str, **fields: object) -> tuple[str, str]:
    """The course message ``key`` (:mod:`grader.text.course`) in Chinese and in English: a notebook shows
    both."""
    zh, en = (render(key, lang, **fields) for lang in LANGS)
    return zh, en


SETUP_SOURCE = "\n".join([*both("nb_setup_comment"), "import grader"])


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


def _cell(
    make: Callable[..., NotebookNode],
    source: str,
    cell_id: str,
    *,
    solution: bool = False,
    points: float | None = None,
) -> NotebookNode:
    """A cell of an exercise's notebook (``make``: nbformat's ``new_code_cell`` or ``new_markdown_cell``) with
    its nbgrader metadata: the solution cell the only one unlocked, a grade cell the one with ``points``."""
    grade = points is not None
    meta = nbgrader_metadata(cell_id, grade=grade, solution=solution, locked=not solution, points=points)
    return make(source, metadata={"nbgrader": meta})


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


def points_en(value: float) -> str:
    """``1 point``, ``2 points``, ``0.5 points``."""
    return f"{_points(value)} point" if value == 1 else f"{_points(value)} points"


def _mib(n_bytes: int) -> str:
    return f"{n_bytes / 1024**2:g} MiB"


def describe_requirements(req: Requirements) -> tuple[list[str], list[str]]:
    """What ``req`` asks of the grading machine, as (Chinese, English) phrases; empty lists for nothing."""
    needs = []
    if req.needs_torch:
        needs.append(both("nb_needs_torch", spec=f" {req.torch}" if req.torch else ""))
    if req.cuda:
        needs.append(both("nb_needs_cuda"))
    if req.mps:
        needs.append(both("nb_needs_mps"))
    if req.min_llc_bytes:
        needs.append(both("nb_needs_llc", size=_mib(req.min_llc_bytes)))
    if req.serial:
        needs.append(both("nb_needs_serial"))
    return [zh for zh, _ in needs], [en for _, en in needs]


def needed_accelerators(check: Check) -> tuple[str, ...]:
    """The accelerators of :data:`ACCELERATORS` that ``check`` needs."""
    return tuple(name for name in ACCELERATORS if getattr(check.requires, name))


def for_machine(
    exercise: Exercise, accelerators: Collection[str] | None
) -> tuple[Exercise | None, tuple[Check, ...]]:
    """``(exercise, left out)``: ``exercise`` with the checks a grading machine with ``accelerators`` can run
    (None if it can run none of them), and the checks left out because they need another accelerator.

    ``accelerators`` None keeps every check. A ValueError names an accelerator not in :data:`ACCELERATORS`.
    """
    if accelerators is None:
        return exercise, ()
    unknown = sorted(set(accelerators) - set(ACCELERATORS))
    if unknown:
        raise ValueError(f"unknown accelerator(s) {unknown}; known: {list(ACCELERATORS)}")
    left_out = tuple(c for c in exercise.checks if not set(needed_accelerators(c)) <= set(accelerators))
    if not left_out:
        return exercise, ()
    gone = {c.id for c in left_out}
    kept = tuple(c for c in exercise.checks if c.id not in gone)
    return (dataclasses.replace(exercise, checks=kept) if kept else None), left_out


#: The deferred policies the note can describe (its words: ``nb_deferred_<policy>`` in :mod:`grader.text.course`).
_DEFERRED_NOTE = ("defer", "zero")


def requirements_note(
    exercise: Exercise, left_out: Sequence[Check] = (), deferred: str = "defer"
) -> str | None:
    """The markdown note on what ``exercise``'s checks need from the grading machine (and what becomes of
    a check deferred there, by the course's ``deferred`` policy), and on the checks ``left_out`` of the
    notebook because that machine lacks their accelerator; None if neither."""
    if deferred not in _DEFERRED_NOTE:
        raise ValueError(f"deferred must be one of {sorted(_DEFERRED_NOTE)}, got {deferred!r}")
    rows = []
    join_zh, join_en = both("nb_needs_join")
    for check in exercise.checks:
        zh, en = describe_requirements(check.requires)
        if zh:
            rows.append(
                f"| `{check.id}` | {_points(check.points)} | {join_zh.join(zh)} | {join_en.join(en)} |"
            )
    if not rows and not left_out:
        return None
    title_zh, title_en = both("nb_needs_title")
    lines = [f"**{title_zh} · {title_en}**"]
    if rows:
        columns = [both(f"nb_column_{name}") for name in ("check", "points")]
        needs_zh, needs_en = both("nb_column_needs")
        lines += [
            "",
            "| " + " | ".join(f"{zh} {en}" for zh, en in columns) + f" | {needs_zh} | {needs_en} |",
            "|---|---|---|---|",
            *rows,
            "",
            both(f"nb_deferred_{deferred}")[0],
            "",
            both(f"nb_deferred_{deferred}")[1],
        ]
    if left_out:
        kinds = [k for k in ACCELERATORS if any(k in needed_accelerators(c) for c in left_out)]
        total = sum(c.points for c in left_out)
        for lang, points in (("zh", _points(total)), ("en", points_en(total))):
            name = render("nb_accelerator_or", lang).join(render(f"nb_accelerator_{k}", lang) for k in kinds)
            ids = render("nb_ids_join", lang).join(f"`{c.id}`" for c in left_out)
            lines += ["", render("nb_left_out", lang, name=name, ids=ids, points=points)]
    return "\n".join(lines)


#: The name a check cell gives the AssertionError of ``grader.check`` while raising it again.
_FAILURE = "_check_failure"


def grade_cell_source(exercise: Exercise, check: Check, lang: str, extra_checks: Sequence[str] = ()) -> str:
    """The code of ``check``'s autograder cell: a comment, then the call (inside a hidden region if hidden).

    The call's AssertionError is raised again ``from None``: the traceback nbgrader keeps in the notebook
    and shows in the feedback is then the cell's line and the message (``exercise::check: feedback``), not
    the frames of ``grader.check``, which say nothing to a student.
    """
    extra = f", extra_checks={list(extra_checks)!r}" if extra_checks else ""
    call = f"print(grader.check(globals(), {exercise.id!r}, {check.id!r}, lang={lang!r}{extra}).message)"
    code = (
        f"try:\n    {call}\n"
        f"except AssertionError as {_FAILURE}:  # {' · '.join(both('nb_feedback_alone'))}\n"
        f"    raise AssertionError(str({_FAILURE})) from None"
    )
    label = f"{exercise.id}::{check.id}"
    key = "nb_check_heading" if check.visibility == "visible" else "nb_hidden_heading"
    zh = render(key, "zh", label=label, part=check.part, points=_points(check.points))
    en = render(key, "en", label=label, part=check.part, points=points_en(check.points))
    if check.visibility == "visible":
        return f"{zh}· {en}\n{code}"
    return f"{zh}· {en}\n{BEGIN_HIDDEN}\n{code}\n{END_HIDDEN}"


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
    exercise: Exercise,
    solution_source: str,
    *,
    lang: str = "zh",
    extra_checks: Sequence[str] = (),
    left_out: Sequence[Check] = (),
    deferred: str = "defer",
) -> NotebookNode:
    """The nbgrader source notebook of ``exercise``, with ``solution_source`` (the solution module's text);
    its note names the checks ``left_out`` of the course (see :func:`for_machine`) and says what becomes of
    a deferred check (the course's ``deferred`` policy)."""
    question, code = split_solution(solution_source, f"{exercise.module}.py")
    _cell_ids(exercise)  # a clash of sanitized ids fails here, naming the exercise
    title = f"# {exercise.id} · {exercise.title_zh} · {exercise.title_en}".rstrip(" ·")
    cells = [
        _cell(new_code_cell, SETUP_SOURCE, grade_id(exercise.id, "setup")),
        _cell(
            new_markdown_cell,
            f"{title}\n\n{question_markdown(question)}\n\n" + "\n".join(both("nb_answer_below")),
            grade_id(exercise.id, "question"),
        ),
    ]
    note = requirements_note(exercise, left_out, deferred)
    if note is not None:
        cells.append(_cell(new_markdown_cell, note, grade_id(exercise.id, "requirements")))
    cells.append(_cell(new_code_cell, code, grade_id(exercise.id, "solution"), solution=True))
    for check in exercise.checks:
        source = grade_cell_source(exercise, check, lang, extra_checks)
        cells.append(_cell(new_code_cell, source, grade_id(exercise.id, check.id), points=check.points))
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


def config_text(
    course_id: str,
    timeout_s: int,
    *,
    lang: str = "zh",
    deferred: str = "defer",
    extra_checks: Sequence[str] = (),
) -> str:
    """The generated block of the course's ``nbgrader_config.py`` (all of a new one), markers included:
    the package's template :data:`CONFIG_TEMPLATE` filled in; ``lang``, ``deferred`` and ``extra_checks``
    are the judge's under ``autograde``."""
    template = resources.files(__package__).joinpath(CONFIG_TEMPLATE).read_text(encoding="utf-8")
    return string.Template(template).substitute(
        begin=CONFIG_BEGIN,
        end=CONFIG_END,
        course_id=repr(course_id),
        timeout_s=int(timeout_s),
        lang=repr(lang),
        deferred=repr(deferred),
        extra_checks=repr(list(extra_checks)),
    )


def merged_config(
    current: str | None, block: str, *, name: str = "nbgrader_config.py", force: bool = False
) -> str:
    """The config file's new text: ``block`` in place of the generated block of ``current`` (the file's text,
    None if there is none), every line outside that block kept as it is.

    A ``current`` without exactly one block (no markers, or markers that do not pair up) was written by hand
    or before the markers existed: a ValueError names the file ``name``, unless ``force`` replaces it whole.
    """
    if current is None:
        return block
    lines = current.splitlines(keepends=True)
    begins = [i for i, line in enumerate(lines) if line.strip() == CONFIG_BEGIN]
    ends = [i for i, line in enumerate(lines) if line.strip() == CONFIG_END]
    if len(begins) == 1 and len(ends) == 1 and begins[0] < ends[0]:
        before = "".join(lines[: begins[0]])
        after = "".join(lines[ends[0] + 1 :])
        if before and not before.endswith("\n"):
            before += "\n"
        return before + block + after
    if force:
        return block
    raise ValueError(
        f"{name} exists but has no block written by `python -m grader notebooks` (from the line "
        f"{CONFIG_BEGIN!r} to {CONFIG_END!r}): it was written by hand or by an older version, so rewriting "
        "it would lose your settings. Pass --force to replace it (then add your own settings again after "
        "the block), or move it away first."
    )


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
    accelerators: Collection[str] | None = None,
    deferred: str = "defer",
    force: bool = False,
) -> list[Path]:
    """Write the course folder (see the module docstring); return the files written, config first.

    ``exercises`` defaults to every registered exercise; each needs ``<solutions_dir>/<module>.py``.
    ``accelerators``: those of :data:`ACCELERATORS` the grading machine has; the checks that need another
    are left out (an exercise left with none, too). None keeps every check. ``deferred``: what a deferred
    check scores under ``autograde`` (``"defer"``: graded by hand; ``"zero"``). ``force`` replaces a config
    file that has no generated block (see :func:`merged_config`). Nothing is written when a ValueError is
    raised.
    """
    if not re.fullmatch(r"[A-Za-z0-9_\-.]+", assignment) or assignment in (".", ".."):
        raise ValueError(
            f"assignment must be a plain folder name (letters, digits, _ - .), got {assignment!r}"
        )
    if deferred not in DEFERRED_POLICIES:
        raise ValueError(f"deferred must be one of {list(DEFERRED_POLICIES)}, got {deferred!r}")
    if exercises is None:
        exercises = load_exercises(extra_checks).values()
    given = sorted(exercises, key=lambda e: e.module)
    if not given:
        raise ValueError("no exercises to write")
    chosen: list[tuple[Exercise, tuple[Check, ...]]] = []
    for exercise in given:
        kept, left_out = for_machine(exercise, accelerators)
        if kept is not None:
            chosen.append((kept, left_out))
    if not chosen:
        raise ValueError(
            "no exercises to write: every check of the chosen exercises needs an accelerator the grading "
            "machine lacks (--gpu: it has a CUDA GPU; --mps: Apple MPS)"
        )
    solutions = Path(solutions_dir) if solutions_dir is not None else default_solutions_dir()
    notebooks = {}
    for exercise, left_out in chosen:
        path = solutions / f"{exercise.module}.py"
        if not path.is_file():
            raise ValueError(f"exercise {exercise.id}: no solution {path}")
        text = path.read_text(encoding="utf-8")
        notebooks[exercise.module] = exercise_notebook(
            exercise, text, lang=lang, extra_checks=extra_checks, left_out=left_out, deferred=deferred
        )
    out = Path(out_dir)
    config = out / "nbgrader_config.py"
    block = config_text(
        course_id,
        cell_timeout((e for e, _ in chosen), timeout_s),
        lang=lang,
        deferred=deferred,
        extra_checks=extra_checks,
    )
    current = config.read_text(encoding="utf-8") if config.is_file() else None
    config_source = merged_config(current, block, name=str(config), force=force)
    source = out / "source" / assignment
    source.mkdir(parents=True, exist_ok=True)
    config.write_text(config_source, encoding="utf-8")
    written = [config]
    for module, nb in notebooks.items():
        path = source / f"{module}.ipynb"
        nbformat.write(nb, str(path))
        written.append(path)
    return written
