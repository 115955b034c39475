"""grader.pytest.summary, end to end on fake exercises (tests/grader/fakes.py) in pytester sessions: what a
session ends with: the next step, the score the API and the file command agree with, the untrusted files
flagged and a planted link not followed, the note of an unconfined run once under the table."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import grader
from tests.grader.pytest.graded import CORRECT, FAKE_MAX, PARTLY, QUIET, ROOT, stubs

pytest_plugins = ["pytester"]


def test_a_run_with_checks_awaiting_an_answer_ends_saying_which_file_to_open(
    pytester: pytest.Pytester,
) -> None:
    """Issue 39: the last lines of a first run say how many checks await an answer and which file to open
    first (the first exercise in the course's order with one), in the run's language; once every check has
    an answer, nothing is said."""
    from grader.registry import load_exercises

    root = ROOT
    exercises = load_exercises()
    pytester.mkdir("exercises")
    for module in ("ex01_ridge_point", "ex02_memory_bound"):
        stub = (root / "exercises" / f"{module}.py").read_text("utf-8")
        (pytester.path / "exercises" / f"{module}.py").write_text(stub, "utf-8")
    waiting = len(exercises["ex01"].checks) + len(exercises["ex02"].checks)
    result = pytester.runpytest(*QUIET, "exercises", "--grader-lang=en")
    said = [line for line in result.stdout.lines if "await your answer" in line]
    assert said == [
        f"{waiting} checks await your answer: open exercises/ex01_ridge_point.py first, then run this again "
        "(until every exercise is answered the command exits with a non-zero status)."
    ]
    solution = (root / "solutions" / "ex01_ridge_point.py").read_text("utf-8")
    (pytester.path / "exercises" / "ex01_ridge_point.py").write_text(solution, "utf-8")
    result = pytester.runpytest(*QUIET, "exercises", "--grader-lang=zh")
    result.stdout.fnmatch_lines(
        [f"*还有 {len(exercises['ex02'].checks)} 个检查等你作答：先打开 exercises/ex02_memory_bound.py*"]
    )
    (pytester.path / "exercises" / "ex02_memory_bound.py").unlink()
    result = pytester.runpytest(*QUIET, "exercises", "--grader-lang=en")
    assert not [line for line in result.stdout.lines if "await your answer" in line]


def test_grade_api_matches_the_plugin(
    session, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    graded = session(fake_student=PARTLY)
    monkeypatch.syspath_prepend(str(pytester.path))
    # a notebook's globals(): IPython's history In holds the cells that ran (the first one imports the grader)
    namespace: dict[str, Any] = {"In": ["", "import grader", PARTLY]}
    exec(compile(PARTLY, "<notebook cell>", "exec"), namespace)
    try:
        result = grader.grade(namespace, "fk", extra_checks=["fake_checks"])
        by_path = grader.grade(pytester.path / "fake_student.py", "fk", extra_checks=["fake_checks"])
        with pytest.raises(AssertionError, match="p_double"):
            grader.check(namespace, "fk", "p_double", extra_checks=["fake_checks"])
        assert grader.check(namespace, "fk", "v_ratio", extra_checks=["fake_checks"]).points == 1.0
    finally:
        sys.modules.pop("fake_checks", None)
    assert result.score == by_path.score == graded.json["score"] == 3.0
    assert result.max_score == graded.json["max_score"]
    assert [(o.check_id, o.points) for o in result.outcomes] == [
        (o.check_id, o.points) for o in by_path.outcomes
    ]


def test_files_that_run_inside_pytest_are_flagged_and_a_planted_link_is_not_followed(
    session, pytester: pytest.Pytester, tmp_path: Path
) -> None:
    decoy = tmp_path / "decoy.txt"
    decoy.write_text("keep me")
    pytester.makepyfile(test_helper="def test_x():\n    assert True\n", cmath="pi = 3\n")
    json_link = pytester.path / "results.json"
    (pytester.path / "fake_student.py").write_text(CORRECT, encoding="utf-8")
    json_link.symlink_to(decoy)
    result = pytester.runpytest(*QUIET, f"--grader-json={json_link}")
    assert decoy.read_text() == "keep me"
    assert not json_link.is_symlink()
    data = json.loads(json_link.read_text(encoding="utf-8"))
    assert {"test_helper.py", "cmath.py", "tox.ini"} <= set(data["untrusted_setup"])
    assert data["score"] == FAKE_MAX
    result.stdout.fnmatch_lines(["*不可信的设置*cmath.py*"])


def test_the_file_command_gives_the_plugins_score(session, pytester: pytest.Pytester) -> None:
    import subprocess

    graded = session(fake_student=PARTLY)
    env = {**dict(__import__("os").environ), "PYTHONPATH": str(pytester.path)}
    done = subprocess.run(
        [sys.executable, "-m", "grader", "file", "fk", "fake_student.py", "--lang", "en"]
        + ["--grader-checks", "fake_checks"],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,  # a guard against a hang: a few seconds idle, far more on a busy machine
        check=False,
    )
    assert done.returncode == 1, done.stderr[-2000:]  # not every check passed
    total = [line for line in done.stdout.splitlines() if line.startswith("total")]
    assert total and total[0].split()[-3:] == [
        f"{graded.json['score']:g}",
        "/",
        f"{graded.json['max_score']:g}",
    ]


def test_a_run_that_is_not_confined_says_so_once_under_the_table(
    session, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 30: the note was written when the first worker started, inside that check's captured output
    (unseen where it passed) and through the progress line; now once, under the score table."""
    from grader.sandbox import confinement

    monkeypatch.setenv("PERFKIT_NO_BWRAP", "1")
    confinement.find_bwrap.cache_clear()
    try:
        graded = session("--grader-lang=en", fake_student=CORRECT)
        lines = graded.text.splitlines()
        notes = [i for i, line in enumerate(lines) if "this run is not confined" in line]
        table = next(i for i, line in enumerate(lines) if "perfkit score" in line)
        assert len(notes) == 1 and notes[0] > table, graded.text[-2000:]
        assert all("not confined" not in t["output"] for t in graded.json["tests"])
        # nothing of the student's ran (every function the stub's): nothing to say
        untouched = stubs(pytester.path / "fake_checks.py")
        assert "not confined" not in session("--grader-lang=en", fake_student=untouched).text
    finally:
        confinement.find_bwrap.cache_clear()
