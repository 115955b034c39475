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
