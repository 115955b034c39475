"""The nbgrader course written by ``python -m grader notebooks``: its notebooks' structure, its config, the
command, and what a check cell shows. Real nbgrader runs the course in test_nbgrader.py."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip(
    "nbformat", reason="the nbgrader extra is not installed: pip install -e '.[nbgrader]'"
)

from grader.__main__ import main as grader_main  # noqa: E402
from grader.course import notebooks  # noqa: E402
from grader.course.stubs import BEGIN, END  # noqa: E402
from grader.specs.check import Exercise, ValueCheck  # noqa: E402
from grader.specs.requirements import Requirements  # noqa: E402
from tests.grader.course.helpers import (  # noqa: E402
    ASSIGNMENT,
    EXERCISES,
    SOLUTIONS,
    strip_ansi,
)


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


def test_requirements_note_says_what_a_deferred_check_scores():
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
    assert all(w in note for w in ("CUDA", "4 MiB", "torch >=2.0", "serial", "串行"))
    # as the course chose: by default left to be graded by hand, with --deferred zero scored 0
    assert "手动评分" in note and "grade by hand" in note and "scores it 0" not in note
    zero = notebooks.requirements_note(exercise, deferred="zero")
    assert zero is not None and "0 分" in zero and "scores it 0" in zero and "by hand" not in zero
    with pytest.raises(ValueError, match="deferred"):
        notebooks.requirements_note(exercise, deferred="full")
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


def test_command_takes_a_list_of_exercises(tmp_path, capsys):
    out = tmp_path / "course"
    assert grader_main(["notebooks", str(out), "--exercises", "ex05, ex01", "--exercise", "ex05"]) == 0
    assert sorted(p.name for p in (out / "source" / ASSIGNMENT).iterdir()) == [
        f"{EXERCISES['ex01'].module}.ipynb",
        f"{EXERCISES['ex05'].module}.ipynb",
    ]
    capsys.readouterr()
    assert grader_main(["notebooks", str(out), "--exercises", "ex05"]) == 0  # ex01's notebook stays: say so
    stale = out / "source" / ASSIGNMENT / f"{EXERCISES['ex01'].module}.ipynb"
    assert f"not written by this run, still in the assignment: {stale}" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        grader_main(["notebooks", str(tmp_path / "other"), "--exercises", "ex01,nope"])
    assert not (tmp_path / "other").exists()


#: What the instructor adds to the generated config (README: "set c.Exchange.root").
EXCHANGE_LINE = 'c.Exchange.root = "/srv/exchange"'


def load_config(course: Path):
    """The config nbgrader reads from ``course/nbgrader_config.py`` (traitlets' loader, as nbgrader's)."""
    pytest.importorskip("nbgrader", reason="the config imports nbgrader: pip install -e '.[nbgrader]'")
    from traitlets.config.loader import PyFileConfigLoader

    return PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()


def test_regenerating_keeps_the_instructors_config_lines(tmp_path, capsys):
    course = tmp_path / "course"
    assert grader_main(["notebooks", str(course), "--exercises", "ex05", "--course-id", "c1"]) == 0
    config = course / "nbgrader_config.py"
    text = config.read_text(encoding="utf-8")
    assert text.startswith(notebooks.CONFIG_BEGIN + "\n") and text.endswith(notebooks.CONFIG_END + "\n")
    mine_before = "# the instructor's note above the block\n"
    config.write_text(mine_before + text + EXCHANGE_LINE + "\n", encoding="utf-8")

    # again, with another course id and cell limit: the block changes, the instructor's lines stay
    argv = ["notebooks", str(course), "--exercises", "ex05", "--course-id", "c2", "--timeout", "999"]
    assert grader_main(argv) == 0
    again = config.read_text(encoding="utf-8")
    assert again.count(EXCHANGE_LINE) == 1 and again.startswith(mine_before)
    assert again.index(notebooks.CONFIG_END) < again.index(EXCHANGE_LINE)  # after the block: it overrides
    assert "'c2'" in again and "'c1'" not in again and "c.Execute.timeout = 999" in again
    assert again.count(notebooks.CONFIG_BEGIN) == again.count(notebooks.CONFIG_END) == 1
    cfg = load_config(course)
    assert cfg.Exchange.root == "/srv/exchange"
    assert (cfg.CourseDirectory.course_id, cfg.Execute.timeout) == ("c2", 999)
    assert [p.__name__ for p in cfg.GenerateFeedback.preprocessors] == [
        "GetGrades",
        "ClearHiddenTestsInFeedback",
        "CSSHTMLHeaderPreprocessor",
    ]
    # the same input, the same bytes: a third run changes nothing
    assert grader_main(argv) == 0
    assert config.read_text(encoding="utf-8") == again


def test_a_config_without_the_block_is_refused_unless_forced(tmp_path, capsys):
    course = tmp_path / "course"
    course.mkdir()
    config = course / "nbgrader_config.py"
    own = f"c = get_config()\nc.CourseDirectory.course_id = 'mine'\n{EXCHANGE_LINE}\n"
    config.write_text(own, encoding="utf-8")
    with pytest.raises(SystemExit):
        grader_main(["notebooks", str(course), "--exercises", "ex05"])
    err = capsys.readouterr().err
    assert str(config) in err and "--force" in err
    assert config.read_text(encoding="utf-8") == own and not (course / "source").exists()  # nothing written
    with pytest.raises(ValueError, match="--force"):  # markers that do not pair up are refused too
        notebooks.merged_config(notebooks.CONFIG_BEGIN + "\nx = 1\n", notebooks.config_text("c", 300))
    assert grader_main(["notebooks", str(course), "--exercises", "ex05", "--force"]) == 0
    timeout = notebooks.cell_timeout([EXERCISES["ex05"]])
    assert config.read_text(encoding="utf-8") == notebooks.config_text("perfkit", timeout)


def test_points_are_singular_or_plural():
    one, two, half = (
        ValueCheck(id=f"c{i}", part="a", points=p, func="answer", expected=lambda: 1.0)
        for i, p in enumerate((1, 2, 0.5))
    )
    exercise = fake_exercise(one, two, half)
    assert "(part a, 1 point)" in notebooks.grade_cell_source(exercise, one, "en")
    assert "(part a, 2 points)" in notebooks.grade_cell_source(exercise, two, "en")
    assert "(part a, 0.5 points)" in notebooks.grade_cell_source(exercise, half, "en")
    hidden = dataclasses.replace(one, visibility="hidden")
    assert "(part a, 1 point): graded" in notebooks.grade_cell_source(exercise, hidden, "en")
    for exercise in EXERCISES.values():
        for check in exercise.checks:
            assert " 1 points" not in notebooks.grade_cell_source(exercise, check, "zh")


#: A stand-in for ``grader``: its check raises from a frame of its own, as ``grader.check`` does.
FAKE_GRADER = """
class _Outcome:
    message = "ok"


def check(namespace, exercise_id, check_id, lang="zh"):
    return _inner(exercise_id, check_id, namespace["answer"])


def _inner(exercise_id, check_id, answer):
    if answer != 42:
        raise AssertionError(f"{exercise_id}::{check_id}: 答案应为 42 · the answer is 42, got {answer}")
    return _Outcome()
"""


@pytest.mark.parametrize("visibility", ["visible", "hidden"])
def test_a_failing_check_cell_shows_the_message_not_the_graders_frames(tmp_path, visibility):
    """The cell raises the check's message from its own line: no frame of the grader in the traceback,
    neither Python's nor IPython's (what the kernel puts in the notebook and nbgrader in the feedback)."""
    import importlib.util
    import traceback

    fake = tmp_path / "site" / "grader" / "api.py"
    fake.parent.mkdir(parents=True)
    fake.write_text(FAKE_GRADER, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("fake_grader_api", fake)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    check = ValueCheck(id="1a", part="a", points=1, func="answer", expected=lambda: 42, visibility=visibility)
    code = compile(notebooks.grade_cell_source(fake_exercise(check), check, "zh"), "<check cell>", "exec")
    exec(code, {"grader": module, "answer": 42})  # a right answer: no exception
    with pytest.raises(AssertionError) as info:
        exec(code, {"grader": module, "answer": 7})
    exc = info.value
    assert str(exc) == "fx1::1a: 答案应为 42 · the answer is 42, got 7"
    assert exc.__suppress_context__ and exc.__cause__ is None
    frames = traceback.extract_tb(exc.__traceback__)
    assert frames[-1].filename == "<check cell>" and all(f.filename != str(fake) for f in frames)
    shown = "".join(traceback.format_exception(exc))
    assert str(exc) in shown and str(fake) not in shown and "_inner" not in shown
    ultratb = pytest.importorskip("IPython.core.ultratb")  # as the kernel formats it (xmode Context)
    text = ultratb.FormattedTB(mode="Context").text(type(exc), exc, exc.__traceback__)
    text = strip_ansi(text)
    assert str(exc) in text and str(fake) not in text and "_inner" not in text


def test_no_gpu_course_has_the_maximum_pytest_gives_without_a_gpu(tmp_path, capsys):
    """By default the command leaves out the checks that need CUDA or MPS, which pytest defers on a machine
    without them: the course's maximum is pytest's there. ``--gpu --mps`` keeps every check."""

    def gpu(check) -> bool:
        return check.requires.cuda or check.requires.mps

    checks = [c for e in EXERCISES.values() for c in e.checks]
    assert any(gpu(c) for c in checks), "no check needs a GPU any more: this test proves nothing"
    assert grader_main(["notebooks", str(tmp_path / "cpu")]) == 0
    printed = capsys.readouterr().out
    assert course_maximum(tmp_path / "cpu") == sum(c.points for c in checks if not gpu(c))
    for exercise in EXERCISES.values():
        for check in exercise.checks:
            assert (f"left out: {exercise.id}::{check.id} " in printed) == gpu(check)
    assert grader_main(["notebooks", str(tmp_path / "gpu"), "--gpu", "--mps"]) == 0
    assert course_maximum(tmp_path / "gpu") == sum(c.points for c in checks)


def course_maximum(course: Path) -> float:
    """The points of every autograder cell of the course's source notebooks (nbgrader's maximum)."""
    total = 0.0
    for path in (course / "source" / ASSIGNMENT).glob("*.ipynb"):
        nb = nbformat.read(path, as_version=4)
        total += sum(m["points"] for _, m in nbgrader_cells(nb) if m["grade"])
    return total


def test_checks_left_out_are_named_in_the_notebook(tmp_path):
    gpu = ValueCheck(
        id="gpu",
        part="a",
        points=3,
        func="answer",
        expected=lambda: 1.0,
        requires=Requirements(torch=">=2.0", cuda=True),
    )
    plain = ValueCheck(id="plain", part="a", points=1, func="answer", expected=lambda: 1.0)
    only_gpu = Exercise(id="fx2", module="fx2_gpu", title_zh="", title_en="", checks=(gpu,))
    (tmp_path / "sol").mkdir()
    for module in ("fx1_fake", "fx2_gpu"):
        (tmp_path / "sol" / f"{module}.py").write_text(FAKE_SOLUTION, encoding="utf-8")
    written = notebooks.write_course(
        tmp_path / "cpu",
        exercises=[fake_exercise(gpu, plain), only_gpu],
        solutions_dir=tmp_path / "sol",
        accelerators=(),
    )
    assert [p.name for p in written] == ["nbgrader_config.py", "fx1_fake.ipynb"]  # fx2: nothing left
    nb = nbformat.read(written[1], as_version=4)
    assert [m["grade_id"] for _, m in nbgrader_cells(nb) if m["grade"]] == ["fx1_plain"]
    note = next(c.source for c, m in nbgrader_cells(nb) if m["grade_id"] == "fx1_requirements")
    assert "`gpu`" in note and "CUDA GPU" in note and "not in the maximum" in note and "不计入满分" in note
    assert "(3 points," in note
    assert notebooks.for_machine(only_gpu, ["cuda"]) == (only_gpu, ())
    assert notebooks.for_machine(only_gpu, None) == (only_gpu, ())
    with pytest.raises(ValueError, match="unknown accelerator"):
        notebooks.for_machine(only_gpu, ["rocm"])
    with pytest.raises(ValueError, match="--gpu"):
        notebooks.write_course(
            tmp_path / "none", exercises=[only_gpu], solutions_dir=tmp_path / "sol", accelerators=()
        )
