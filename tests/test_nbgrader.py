"""The nbgrader course written by ``python -m grader notebooks``: its notebooks' structure, and real nbgrader
end to end (generate_assignment, autograde, feedback) scoring exactly what ``grader.grade`` gives the same
code."""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip(
    "nbformat", reason="the nbgrader extra is not installed: pip install -e '.[nbgrader]'"
)

import grader  # noqa: E402
from grader.__main__ import main as grader_main  # noqa: E402
from grader.course import notebooks  # noqa: E402
from grader.course.stubs import BEGIN, END  # noqa: E402
from grader.registry import load_exercises  # noqa: E402
from grader.requirements import Requirements  # noqa: E402
from grader.spec import Exercise, ValueCheck  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
EXERCISES = load_exercises()
ASSIGNMENT = "p3"


def nbgrader_cells(nb) -> list[tuple[object, dict]]:
    return [(cell, cell.metadata["nbgrader"]) for cell in nb.cells]


def grade_calls(source: str) -> list[tuple[str, str, str]]:
    """The (exercise, check, lang) of every ``grader.check(globals(), ...)`` call in ``source``."""
    calls = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "grader.check":
            assert ast.unparse(node.args[0]) == "globals()"
            exercise, check = (a.value for a in node.args[1:3])  # type: ignore[attr-defined]
            lang = {k.arg: k.value.value for k in node.keywords}["lang"]  # type: ignore[attr-defined]
            calls.append((exercise, check, lang))
    return calls


def hidden_region(source: str) -> str | None:
    match = re.search(
        rf"^{re.escape(notebooks.BEGIN_HIDDEN)}\n(.*?)^{re.escape(notebooks.END_HIDDEN)}$",
        source,
        re.M | re.S,
    )
    return None if match is None else match.group(1)


# ---------------------------------------------------------------------------------------------------
# the notebooks' structure (fast)


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("course")
    notebooks.write_course(out, course_id="perfkit-test", assignment=ASSIGNMENT)
    return out


def test_one_valid_notebook_per_exercise(course):
    written = {p.stem for p in (course / "source" / ASSIGNMENT).glob("*.ipynb")}
    assert written == {e.module for e in EXERCISES.values()}
    assert {f"ex{i:02d}" for i in range(1, 11)} | {f"m{i}" for i in range(1, 7)} <= set(EXERCISES)
    for exercise in EXERCISES.values():
        nb = nbformat.read(course / "source" / ASSIGNMENT / f"{exercise.module}.ipynb", as_version=4)
        nbformat.validate(nb)
        assert nb.metadata["kernelspec"]["name"] == "python3"


@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_notebook_cells(course, exercise_id):
    exercise = EXERCISES[exercise_id]
    nb = nbformat.read(course / "source" / ASSIGNMENT / f"{exercise.module}.ipynb", as_version=4)
    cells = nbgrader_cells(nb)
    for _, meta in cells:
        assert set(meta) >= {"grade", "solution", "locked", "task", "grade_id", "schema_version"}
        assert meta["schema_version"] == 3 and meta["task"] is False
        assert re.fullmatch(r"[A-Za-z0-9_\-]+", meta["grade_id"])
        assert ("points" in meta) == meta["grade"]
    assert len({meta["grade_id"] for _, meta in cells}) == len(cells)

    # 1. the grader is imported, read-only, before any student code
    setup, meta = cells[0]
    assert setup.cell_type == "code" and "import grader" in setup.source
    assert (meta["locked"], meta["grade"], meta["solution"]) == (True, False, False)

    # 2. the question: the solution module's docstring, read-only
    question, code = notebooks.split_solution(
        (SOLUTIONS / f"{exercise.module}.py").read_text(encoding="utf-8")
    )
    shown = notebooks.question_markdown(question)
    assert cells[1][0].cell_type == "markdown" and shown in cells[1][0].source and cells[1][1]["locked"]

    # 3. one solution cell: the module's code without its docstring, the regions kept for nbgrader
    solutions = [(c, m) for c, m in cells if m["solution"]]
    assert len(solutions) == 1
    solution, meta = solutions[0]
    assert (meta["locked"], meta["grade"]) == (False, False)
    assert solution.source == code and BEGIN in code and END in code and question not in code
    defined = {n.name for n in ast.parse(code).body if isinstance(n, ast.FunctionDef)}
    assert {c.func for c in exercise.checks} <= defined

    # 4. one locked autograder cell per check, worth its points, calling the pytest plugin's check
    graded = [(c, m) for c, m in cells if m["grade"]]
    assert [(m["grade_id"], m["points"]) for _, m in graded] == [
        (notebooks.grade_id(exercise.id, c.id), c.points) for c in exercise.checks
    ]
    assert sum(m["points"] for _, m in graded) == exercise.max_points
    for (cell, meta), check in zip(graded, exercise.checks, strict=True):
        assert (meta["locked"], meta["solution"]) == (True, False)
        assert grade_calls(cell.source) == [(exercise.id, check.id, "zh")]
        assert (hidden_region(cell.source) is not None) == (check.visibility != "visible")
    assert cells.index(solutions[0]) < cells.index(graded[0])

    # measurement tasks: a note on what they need, saying that an unmet requirement scores 0
    needs = any(c.requires != Requirements() for c in exercise.checks)
    notes = [c.source for c, _ in cells[2:] if c.cell_type == "markdown"]
    assert bool(notes) == needs
    if needs:
        assert "0" in notes[0] and "nbgrader" in notes[0]
        assert all(f"`{c.id}`" in notes[0] for c in exercise.checks if c.requires != Requirements())


def test_measurement_notes_name_the_requirements(course):
    m6 = nbformat.read(course / "source" / ASSIGNMENT / f"{EXERCISES['m6'].module}.ipynb", as_version=4)
    ex10 = nbformat.read(course / "source" / ASSIGNMENT / f"{EXERCISES['ex10'].module}.ipynb", as_version=4)
    assert "CUDA" in m6.cells[2].source and "torch >=2.0" in m6.cells[2].source
    assert (
        "MiB" in ex10.cells[2].source and "串行" in ex10.cells[2].source and "serial" in ex10.cells[2].source
    )


def test_config_sets_course_and_a_long_cell_timeout(course):
    text = (course / "nbgrader_config.py").read_text(encoding="utf-8")
    assert "c.CourseDirectory.course_id = 'perfkit-test'" in text
    timeout = int(re.search(r"^c\.Execute\.timeout = (\d+)$", text, re.M).group(1))
    longest = max(c.timeout_s for e in EXERCISES.values() for c in e.checks)
    assert timeout >= max(notebooks.DEFAULT_CELL_TIMEOUT_S, 2 * longest)
    compile(text, "nbgrader_config.py", "exec")


def fake_exercise(*checks: ValueCheck) -> Exercise:
    return Exercise(id="fx1", module="fx1_fake", title_zh="假题", title_en="A fake", checks=checks)


FAKE_SOLUTION = f'''"""假题 · A fake question."""

import math

def answer():
    """一个数。A number."""
    {BEGIN}
    return math.pi
    {END}
'''


def test_hidden_checks_are_in_hidden_regions(tmp_path):
    exercise = fake_exercise(
        ValueCheck(id="open", part="a", points=1, func="answer", expected=lambda: 3.14159),
        ValueCheck(
            id="secret.one",
            part="a",
            points=2.5,
            func="answer",
            expected=lambda: 3.14159,
            visibility="hidden",
        ),
        ValueCheck(
            id="later",
            part="b",
            points=1,
            func="answer",
            expected=lambda: 3.14159,
            visibility="after_due_date",
        ),
    )
    (tmp_path / "sol").mkdir()
    (tmp_path / "sol" / "fx1_fake.py").write_text(FAKE_SOLUTION, encoding="utf-8")
    written = notebooks.write_course(
        tmp_path / "out", exercises=[exercise], solutions_dir=tmp_path / "sol", assignment="hw1", lang="en"
    )
    assert written == [
        tmp_path / "out" / "nbgrader_config.py",
        tmp_path / "out" / "source" / "hw1" / "fx1_fake.ipynb",
    ]
    nb = nbformat.read(written[1], as_version=4)
    graded = [(c, m) for c, m in nbgrader_cells(nb) if m["grade"]]
    assert [(m["grade_id"], m["points"]) for _, m in graded] == [
        ("fx1_open", 1),
        ("fx1_secret_one", 2.5),
        ("fx1_later", 1),
    ]
    visible, hidden, later = (c.source for c, _ in graded)
    assert hidden_region(visible) is None and grade_calls(visible) == [("fx1", "open", "en")]
    for source, check_id in ((hidden, "secret.one"), (later, "later")):
        region = hidden_region(source)
        assert region is not None and grade_calls(region) == [("fx1", check_id, "en")]
        outside = source.replace(region, "")
        assert "grader.check" not in outside  # all a student sees is the comment
    assert "import math" in nb.cells[2].source and "A fake question" not in nb.cells[2].source


def test_grade_ids_are_sanitized_and_must_stay_unique():
    assert notebooks.grade_id("ex01", "1a.ridge fp32") == "ex01_1a_ridge_fp32"
    clash = fake_exercise(
        ValueCheck(id="a.b", part="a", points=1, func="answer", expected=lambda: 1.0),
        ValueCheck(id="a_b", part="a", points=1, func="answer", expected=lambda: 1.0),
    )
    with pytest.raises(ValueError, match="grade_id 'fx1_a_b'"):
        notebooks.exercise_notebook(clash, FAKE_SOLUTION)


def test_requirements_note_says_unmet_scores_zero():
    exercise = fake_exercise(
        ValueCheck(
            id="gpu",
            part="a",
            points=3,
            func="answer",
            expected=lambda: 1.0,
            requires=Requirements(torch=">=2.0", cuda=True, min_llc_bytes=4 * 1024**2, serial=True),
        ),
        ValueCheck(id="plain", part="a", points=1, func="answer", expected=lambda: 1.0),
    )
    note = notebooks.requirements_note(exercise)
    assert note is not None
    assert "`gpu`" in note and "`plain`" not in note
    assert all(w in note for w in ("CUDA", "4 MiB", "torch >=2.0", "serial", "串行", "0 分", "scores 0"))
    assert notebooks.requirements_note(fake_exercise(exercise.checks[1])) is None


def test_question_markdown_keeps_lines_and_code():
    text = "(a) 2**30 bytes, `x**2` stays\n    continued `f(a,\n  b**2)` c*d\n\n(b) last"
    assert notebooks.question_markdown(text) == (
        "(a) 2\\*\\*30 bytes, `x**2` stays  \ncontinued `f(a,\nb**2)` c\\*d\n\n(b) last"
    )


def test_split_solution_needs_a_question_and_a_region():
    question, code = notebooks.split_solution(FAKE_SOLUTION)
    assert question == "假题 · A fake question." and code.startswith("import math") and BEGIN in code
    with pytest.raises(ValueError, match="docstring"):
        notebooks.split_solution(f"def f():\n    {BEGIN}\n    return 1\n    {END}\n", "x.py")
    with pytest.raises(ValueError, match="region"):
        notebooks.split_solution('"""Q."""\nX = 1\n', "x.py")


def test_command_writes_the_course(tmp_path, capsys):
    out = tmp_path / "course"
    assert (
        grader_main(["notebooks", str(out), "--course-id", "c1", "--assignment", "hw", "--exercise", "ex05"])
        == 0
    )
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        "nbgrader_config.py",
        "source/hw/ex05_waves.ipynb",
    ]
    assert "wrote:" in capsys.readouterr().out
    again = tmp_path / "again"
    notebooks.write_course(again, exercises=[EXERCISES["ex05"]], course_id="c1", assignment="hw")
    for name in ("nbgrader_config.py", "source/hw/ex05_waves.ipynb"):  # the same input writes the same bytes
        assert (out / name).read_bytes() == (again / name).read_bytes()
    with pytest.raises(SystemExit):
        grader_main(["notebooks", str(out), "--exercise", "nope"])
    with pytest.raises(SystemExit):
        grader_main(["notebooks", str(out), "--assignment", "../up"])


# ---------------------------------------------------------------------------------------------------
# real nbgrader, end to end

STUDENTS = ("alice", "bob", "carol")  # right, the released stub as is, partly right
#: One function of each exercise made wrong for carol: (exercise id, right line, wrong line).
WRONG = {
    "ex01": ("return peak_flops / bandwidth", "return bandwidth / peak_flops"),
    "ex05": ("return -(-blocks // num_sms)", "return blocks // num_sms"),
}
#: A check of ex01 graded as hidden in this course, to follow a hidden region through nbgrader.
HIDDEN = ("ex01", "1a_ridge_formula")
#: Who replaces every autograder cell of which notebook with ``pass`` in their submission.
TAMPERED = {("carol", "ex01"), ("bob", "ex05")}


def without_markers(source: str) -> str:
    """A student's answer: the solution with nbgrader's region markers gone."""
    return "\n".join(line for line in source.splitlines() if line.strip() not in (BEGIN, END))


def nbgrader_env(tmp_path: Path) -> dict[str, str]:
    """An environment where nbgrader's kernels are this interpreter and no user-level jupyter config applies."""
    kernels = tmp_path / "jupyter_data" / "kernels" / "python3"
    kernels.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    (kernels / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    (tmp_path / "jupyter_config").mkdir()
    # nbgrader runs `alembic` from PATH when it creates a gradebook: this interpreter's scripts come first
    bin_dir = str(Path(sys.executable).parent)
    # not pytest's variables: a kernel under a pytest-xdist worker would think it shares the machine
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return {
        **inherited,
        "PATH": os.pathsep.join([bin_dir, os.environ.get("PATH", "")]),
        "JUPYTER_PATH": str(tmp_path / "jupyter_data"),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "jupyter_config"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "jupyter_runtime"),
        "PYTHONPATH": os.pathsep.join(p for p in [str(ROOT), os.environ.get("PYTHONPATH", "")] if p),
        "PERFKIT_CACHE_DIR": str(tmp_path / "perfkit_cache"),
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    }


def test_nbgrader_scores_what_the_grader_scores(tmp_path):
    pytest.importorskip(
        "nbgrader", reason="the nbgrader extra is not installed: pip install -e '.[nbgrader]'"
    )
    pytest.importorskip(
        "ipykernel", reason="nbgrader runs the notebooks in an ipykernel: pip install ipykernel"
    )
    from nbgrader.api import Gradebook

    started = time.monotonic()
    course = tmp_path / "course"
    env = nbgrader_env(tmp_path)

    def nbgrader(*args: str) -> subprocess.CompletedProcess:
        t0 = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "nbgrader", *args],
            cwd=course,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, (
            f"nbgrader {' '.join(args)}:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
        )
        print(f"nbgrader {' '.join(args)}: {time.monotonic() - t0:.1f} s")
        return done

    hidden_ex, hidden_check = HIDDEN
    chosen = [
        dataclasses.replace(
            EXERCISES[e],
            checks=tuple(
                dataclasses.replace(c, visibility="hidden") if (e, c.id) == HIDDEN else c
                for c in EXERCISES[e].checks
            ),
        )
        for e in WRONG
    ]
    notebooks.write_course(course, exercises=chosen, assignment=ASSIGNMENT)
    nbgrader("db", "assignment", "add", ASSIGNMENT)
    for student in STUDENTS:
        nbgrader("db", "student", "add", student)
    nbgrader("generate_assignment", ASSIGNMENT, "--force")

    hidden_call = f"grader.check(globals(), {hidden_ex!r}, {hidden_check!r}"
    expected: dict[tuple[str, str], grader.ExerciseResult] = {}
    for exercise in chosen:
        source = nbformat.read(course / "source" / ASSIGNMENT / f"{exercise.module}.ipynb", as_version=4)
        released = nbformat.read(course / "release" / ASSIGNMENT / f"{exercise.module}.ipynb", as_version=4)
        index = next(i for i, c in enumerate(released.cells) if c.metadata["nbgrader"]["solution"])
        stub = released.cells[index].source
        assert BEGIN not in stub and "raise NotImplementedError()" in stub
        released_text = nbformat.writes(released)
        assert hidden_call not in released_text and notebooks.BEGIN_HIDDEN not in released_text

        right = without_markers(source.cells[index].source)
        good, bad = WRONG[exercise.id]
        assert right.count(good) == 1, f"solutions/{exercise.module}.py changed: update WRONG"
        answers = {"alice": right, "bob": stub, "carol": right.replace(good, bad)}
        for student, code in answers.items():
            nb = nbformat.read(course / "release" / ASSIGNMENT / f"{exercise.module}.ipynb", as_version=4)
            nb.cells[index].source = code
            if (student, exercise.id) in TAMPERED:
                for cell in nb.cells:
                    if cell.metadata["nbgrader"]["grade"]:
                        cell.source = "pass"
            folder = course / "submitted" / student / ASSIGNMENT
            folder.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, str(folder / f"{exercise.module}.ipynb"))
            # the same code as a .py file, graded by grader.grade as pytest would
            py = tmp_path / "py" / student / f"{exercise.module}.py"
            py.parent.mkdir(parents=True, exist_ok=True)
            py.write_text(code + "\n", encoding="utf-8")
            expected[student, exercise.id] = grader.grade(py, exercise.id)

    nbgrader("autograde", ASSIGNMENT, "--force")
    nbgrader("generate_feedback", ASSIGNMENT, "--force")

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for (student, exercise_id), result in expected.items():
            exercise = EXERCISES[exercise_id]
            submitted = gb.find_submission_notebook(exercise.module, ASSIGNMENT, student)
            assert submitted.max_score == exercise.max_points
            assert submitted.score == result.score, (student, exercise_id, [o.state for o in result.outcomes])
            for outcome in result.outcomes:  # check by check, too
                cell = gb.find_grade(
                    notebooks.grade_id(exercise_id, outcome.check_id), exercise.module, ASSIGNMENT, student
                )
                assert cell.auto_score == outcome.points, (student, outcome.name, outcome.state)
    # the three kinds of submission are what they claim to be
    for exercise_id in WRONG:
        maximum = EXERCISES[exercise_id].max_points
        assert expected["alice", exercise_id].score == maximum
        assert expected["bob", exercise_id].score == 0
        assert 0 < expected["carol", exercise_id].score < maximum
    # autograde ran the hidden check from the gradebook; the feedback does not show its code
    hidden_module = EXERCISES[hidden_ex].module
    autograded = (course / "autograded" / "alice" / ASSIGNMENT / f"{hidden_module}.ipynb").read_text(
        encoding="utf-8"
    )
    assert hidden_call in autograded
    feedback = (course / "feedback" / "alice" / ASSIGNMENT / f"{hidden_module}.html").read_text(
        encoding="utf-8"
    )
    assert "'matmul_intensity'" in feedback  # a visible check's call is shown (alice's passed: no traceback)
    assert repr(hidden_check) not in feedback and hidden_check in feedback  # the hidden one's comment only
    assert not list((course / "feedback").rglob(".hypothesis"))  # the grader's cache stays out of feedback
    print(f"nbgrader end to end: {time.monotonic() - started:.1f} s")
