"""Real nbgrader end to end on the course ``python -m grader notebooks`` writes (generate_assignment,
release, autograde, feedback), scoring exactly what ``grader.grade`` gives the same code."""

from __future__ import annotations

import dataclasses
import html
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
from grader.course.stubs import BEGIN  # noqa: E402
from tests.grader.course.helpers import (  # noqa: E402
    ASSIGNMENT,
    EXERCISES,
    ROOT,
    WRONG,
    strip_ansi,
    without_markers,
)

STUDENTS = ("alice", "bob", "carol")  # right, the released stub as is, partly right


#: A check of ex01 graded as hidden in this course, to follow a hidden region through nbgrader.
HIDDEN = ("ex01", "1a_ridge_formula")
#: Who replaces every autograder cell of which notebook with ``pass`` in their submission.
TAMPERED = {("carol", "ex01"), ("bob", "ex05")}


#: A path into the grader's package (``.../grader/api.py``), as a traceback frame would show it; not nbgrader's.
GRADER_FRAME = re.compile(r"[/\\]grader[/\\]")


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


def run_nbgrader(course: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """``nbgrader ARGS`` in the course folder; fails the test with its output when it fails."""
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=course,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"nbgrader {' '.join(args)}:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    return done


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
        done = run_nbgrader(course, env, *args)
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
    # the instructor sets an exchange of their own (README), then writes the course again: the line stays,
    # and nbgrader reads it (release_assignment below puts the notebooks there)
    exchange = tmp_path / "exchange"
    config = course / "nbgrader_config.py"
    exchange_line = f"c.Exchange.root = {str(exchange)!r}\n"
    config.write_text(config.read_text(encoding="utf-8") + exchange_line, encoding="utf-8")
    notebooks.write_course(course, exercises=chosen, assignment=ASSIGNMENT)
    assert config.read_text(encoding="utf-8").endswith(notebooks.CONFIG_END + "\n" + exchange_line)
    nbgrader("db", "assignment", "add", ASSIGNMENT)
    for student in STUDENTS:
        nbgrader("db", "student", "add", student)
    nbgrader("generate_assignment", ASSIGNMENT, "--force")
    if sys.platform != "win32":  # nbgrader's exchange is for Linux and macOS
        nbgrader("release_assignment", ASSIGNMENT, "--force")
        outbound = exchange / "perfkit" / "outbound" / ASSIGNMENT
        assert sorted(p.name for p in outbound.glob("*.ipynb")) == sorted(f"{e.module}.ipynb" for e in chosen)

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
    done = nbgrader("generate_feedback", ASSIGNMENT, "--force")
    logged = done.stdout + done.stderr
    assert "display_data_priority" not in logged and "not recognized" not in logged, logged[-3000:]

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

    # a failing check shows its id and message, from the cell's own line: no frame of the grader's code
    failed = next(o for o in expected["carol", "ex05"].outcomes if not o.passed)
    module = EXERCISES["ex05"].module
    graded = nbformat.read(course / "autograded" / "carol" / ASSIGNMENT / f"{module}.ipynb", as_version=4)
    cell_id = notebooks.grade_id("ex05", failed.check_id)
    check_cell = next(c for c in graded.cells if c.metadata["nbgrader"]["grade_id"] == cell_id)
    errors = [o for o in check_cell.outputs if o.output_type == "error"]
    assert len(errors) == 1 and errors[0].ename == "AssertionError"
    assert errors[0].evalue.startswith(f"{failed.name}: {failed.message.splitlines()[0]}")
    shown = strip_ansi("\n".join(errors[0].traceback))
    assert failed.name in shown and not GRADER_FRAME.search(shown), shown
    page = (course / "feedback" / "carol" / ASSIGNMENT / f"{module}.html").read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]*>", "", page))
    assert f"{failed.name}: {failed.message.splitlines()[0]}" in text
    assert not GRADER_FRAME.search(text), GRADER_FRAME.search(text)
    print(f"nbgrader end to end: {time.monotonic() - started:.1f} s")


def test_nbgrader_maximum_without_a_gpu_is_pytests(tmp_path):
    """The course the command writes by default, as nbgrader counts it: the maximum pytest gives the
    solutions on a machine without CUDA or MPS (their checks deferred), from the registry, not a constant."""
    pytest.importorskip(
        "nbgrader", reason="the nbgrader extra is not installed: pip install -e '.[nbgrader]'"
    )
    from nbgrader.api import Gradebook

    course = tmp_path / "course"
    assert grader_main(["notebooks", str(course), "--assignment", ASSIGNMENT]) == 0
    env = nbgrader_env(tmp_path)
    for args in (["db", "assignment", "add", ASSIGNMENT], ["generate_assignment", ASSIGNMENT, "--force"]):
        run_nbgrader(course, env, *args)
    expected = sum(
        c.points for e in EXERCISES.values() for c in e.checks if not (c.requires.cuda or c.requires.mps)
    )
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        assert gb.find_assignment(ASSIGNMENT).max_score == expected


#: The exercise the students below answer (its five checks are formulas: quick to grade).
CHEATED = "ex05"


def cheat_cells(right: str) -> dict[str, list[tuple[int, str]]]:
    """What each student adds to the released notebook: ``(index, code cell)``s, inserted in order, the
    index counted in the released notebook (0: before the setup cell). Their answer cell stays the stub,
    except ``history``'s hidden copy and the honest students'."""
    return {
        # the first cell replaces grader.check: in the kernel every check cell then prints and passes
        "check": [(0, "import grader\ngrader.check = lambda *a, **k: type('R', (), {'message': 'ok'})()")],
        # the judge's own objects rewritten (imported without the words the grader's cells are known by):
        # in the kernel every outcome then says passed, with full points
        "judge": [
            (
                -1,
                "import dataclasses\n"
                "core = __import__('grader.judge.core', fromlist=['Judge'])\n"
                "graded = core.Judge.run_check\n"
                "def forged(self, *args, **kwargs):\n"
                "    o = graded(self, *args, **kwargs)\n"
                "    return dataclasses.replace(o, state='passed', points=o.max_points)\n"
                "core.Judge.run_check = forged",
            )
        ],
        # In (IPython's history, which grader.check reads in the kernel) replaced by the right answer: in the
        # kernel the check cells grade code that never ran
        "history": [(-1, f"In = [{right!r}]")],
    }


def test_nbgrader_grades_hold_against_the_students_kernel(tmp_path):
    """Through a real generate_assignment, release, submit, collect, autograde and the gradebook: notebooks that fool the check cells in
    their own kernel score what their code earns (0: their answers are stubs), an honest one full, and every
    notebook what ``python -m grader grade`` gives the code its student wrote. What nbgrader does with an
    altered, a missing and a duplicated check cell is said too."""
    pytest.importorskip(
        "nbgrader", reason="the nbgrader extra is not installed: pip install -e '.[nbgrader]'"
    )
    pytest.importorskip(
        "ipykernel", reason="nbgrader runs the notebooks in an ipykernel: pip install ipykernel"
    )
    from nbgrader.api import Gradebook

    course = tmp_path / "course"
    env = nbgrader_env(tmp_path)
    exercise = EXERCISES[CHEATED]
    notebooks.write_course(course, exercises=[exercise], assignment=ASSIGNMENT)
    exchange = tmp_path / "exchange"  # nbgrader's exchange is for Linux and macOS: elsewhere, copied by hand
    exchanged = sys.platform != "win32"
    config = course / "nbgrader_config.py"
    config.write_text(f"{config.read_text(encoding='utf-8')}c.Exchange.root = {str(exchange)!r}\n", "utf-8")
    run_nbgrader(course, env, "db", "assignment", "add", ASSIGNMENT)
    run_nbgrader(course, env, "generate_assignment", ASSIGNMENT, "--force")
    if exchanged:
        run_nbgrader(course, env, "release_assignment", ASSIGNMENT, "--force")
    name = f"{exercise.module}.ipynb"
    source = nbformat.read(course / "source" / ASSIGNMENT / name, as_version=4)
    index = next(i for i, c in enumerate(source.cells) if c.metadata["nbgrader"]["solution"])
    right = without_markers(source.cells[index].source)
    check_ids = [notebooks.grade_id(exercise.id, c.id) for c in exercise.checks]

    def released() -> nbformat.NotebookNode:
        nb = nbformat.read(course / "release" / ASSIGNMENT / name, as_version=4)
        assert "raise NotImplementedError()" in nb.cells[index].source
        return nb

    def check_cell(nb: nbformat.NotebookNode, grade_id: str) -> int:
        return next(
            i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id
        )

    submitted: dict[str, nbformat.NotebookNode] = {}
    for student, added in cheat_cells(right).items():
        nb = released()
        for at, code in added:
            nb.cells.insert(at if at >= 0 else index + 1, nbformat.v4.new_code_cell(code))
        submitted[student] = nb
    honest = released()
    honest.cells[index].source = right
    submitted["honest"] = honest
    # right answers, and a check cell's code replaced (nbgrader puts a locked cell's code back from the
    # gradebook before anything runs) ...
    altered = released()
    altered.cells[index].source = right
    altered.cells[check_cell(altered, check_ids[0])].source = "pass"
    submitted["altered"] = altered
    # ... a check cell deleted (nbgrader leaves its grade unscored: 0, flagged for grading by hand) ...
    missing = released()
    missing.cells[index].source = right
    del missing.cells[check_cell(missing, check_ids[0])]
    submitted["missing"] = missing
    # ... and (graded apart, below) a second cell with a check's grade id, that prints instead of checking
    twice = released()
    at = check_cell(twice, check_ids[0])
    forged = nbformat.v4.new_code_cell("print('passed')", metadata=dict(twice.cells[at].metadata))
    twice.cells.insert(at + 1, forged)

    batch = tmp_path / "batch"
    for student, nb in submitted.items():
        # each student's own folder, submitted to the exchange as that student; collected below
        home = tmp_path / "students" / student if exchanged else course / "submitted" / student
        (home / ASSIGNMENT).mkdir(parents=True)
        nbformat.write(nb, str(home / ASSIGNMENT / name))
        if exchanged:
            run_nbgrader(
                home, env, "submit", ASSIGNMENT, "--course", "perfkit", "--student", student,
                f"--Exchange.root={exchange}",
            )  # fmt: skip
        # the code the student wrote (every cell not the kit's locked ones), as batch grading gets a file
        own = [
            c.source
            for c in nb.cells
            if c.cell_type == "code" and not c.metadata.get("nbgrader", {}).get("locked")
        ]
        (batch / student).mkdir(parents=True)
        (batch / student / f"{exercise.module}.py").write_text("\n\n".join(own) + "\n", encoding="utf-8")

    if exchanged:
        run_nbgrader(course, env, "collect", ASSIGNMENT)
        assert sorted(p.name for p in (course / "submitted").iterdir()) == sorted(submitted)
    t0 = time.monotonic()
    run_nbgrader(course, env, "autograde", ASSIGNMENT, "--force")
    print(f"nbgrader autograde of {len(submitted)} notebooks: {time.monotonic() - t0:.1f} s")
    out = tmp_path / "grades"
    argv = ["grade", str(batch), "--out", str(out), "--exercises", exercise.id, "--quiet"]
    assert grader_main(argv) == 0
    grades = json.loads((out / "grades.json").read_text(encoding="utf-8"))["students"]

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        scores = {s: gb.find_submission_notebook(exercise.module, ASSIGNMENT, s).score for s in submitted}
        first = {s: gb.find_grade(check_ids[0], exercise.module, ASSIGNMENT, s) for s in submitted}
        flagged = {s: g.needs_manual_grade for s, g in first.items()}
        first_auto = {s: g.auto_score for s, g in first.items()}
    print("nbgrader:", scores, "batch:", {s: g["score"] for s, g in grades.items()})
    maximum = exercise.max_points
    for student in ("check", "judge", "history"):
        assert scores[student] == 0 == grades[student]["score"], student
    assert scores["honest"] == scores["altered"] == maximum == grades["honest"]["score"]
    assert grades["altered"]["score"] == grades["missing"]["score"] == maximum
    # the deleted check cell: nbgrader gave it no automatic score and flagged it; the rest scored
    assert first_auto["missing"] is None and flagged["missing"]
    assert scores["missing"] == maximum - exercise.checks[0].points
    # the cells the judge decided show its outcome, whatever the kernel printed
    graded = nbformat.read(course / "autograded" / "check" / ASSIGNMENT / name, as_version=4)
    for grade_id in check_ids:
        outputs = graded.cells[check_cell(graded, grade_id)].outputs
        assert [o.output_type for o in outputs] == ["error"], outputs
        assert outputs[0].evalue.startswith(f"{exercise.id}::"), outputs[0].evalue

    # nbgrader refuses a notebook with two cells of one grade id: it keeps the last and strips the other's
    # metadata, then stops, calling that metadata too old; the student gets no score from it
    folder = course / "submitted" / "twice" / ASSIGNMENT
    folder.mkdir(parents=True)
    nbformat.write(twice, str(folder / name))
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT, "--student", "twice", "--force"],
        cwd=course,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    logged = done.stdout + done.stderr
    assert done.returncode != 0 and "exists multiple times" in logged, logged[-3000:]
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        assert gb.find_submission_notebook(exercise.module, ASSIGNMENT, "twice").score == 0
