"""What ``python -m grader grade`` says of the work it did (``grader.batch.console``, issue 47): counts in the
singular where there is one, ``again`` only of a student the output held before, and what the journal
spared said so that it reads."""

from __future__ import annotations

import shutil
from pathlib import Path

from grader.batch.console import graded_line, notebook_lines, resumed_lines
from grader.batch.submissions import Student
from grader.registry import load_exercises
from grader.results.outcome import Outcome, State
from tests.grader.batch.helpers import EX01_POINTS, SOLUTIONS, _cli, _json, _shard_submissions

EXERCISES = load_exercises()
EX01, EX02 = EXERCISES["ex01"], EXERCISES["ex02"]


def _passed(name: str) -> tuple[str, tuple[Outcome, ...]]:
    check = EX01.checks[0]
    return name, (Outcome.of(EX01, check, State.PASSED, "", lang="en"),)


def _line(students, **given) -> str:
    settings = {"deferred": "defer", "lang": "en", "elapsed_s": 1.0, "sandbox": "bwrap", "out": "grades"}
    return graded_line(students, **{**settings, **given})


def test_one_student_is_one_student_and_again_is_said_only_of_a_regrade() -> None:
    alice, bob = _passed("alice"), _passed("bob")
    assert _line([alice]).startswith("graded 1 student in 1.0 s (bwrap): alice 2/2")
    assert _line([alice, bob]).startswith("graded 2 students in ")
    # into an output that held alice and carol: alice is graded again, bob is new there
    held = {"alice", "carol"}
    assert _line([alice], earlier=held, total=2).startswith(
        "graded 1 student again, into grades's 2 students"
    )
    assert _line([bob], earlier=held, total=3).startswith("graded 1 student, into grades's 3 students")
    mixed = _line([alice, bob], earlier=held, total=3)
    assert mixed.startswith("graded 2 students (1 again, 1 new), into grades's 3 students"), mixed
    assert "again" not in _line([bob], earlier=held, total=3)
    zh = _line([alice], lang="zh", earlier=held, total=2)
    assert zh.startswith("重评了 1 个学生") and "alice 2/2" in zh


def test_what_the_journal_spared_says_whose_exercises_it_kept() -> None:
    """``45 exercises of 3 students (0 of them wholly)`` read as a riddle: the line says how many exercises
    were kept, of how many students every exercise, of how many some."""
    files = {EX01.module: Path("a.py"), EX02.module: Path("b.py")}
    students = [Student(n, Path(n), files) for n in ("whole", "part", "none")]
    todo = {
        "whole": {"ex01": [], "ex02": []},
        "part": {"ex01": [], "ex02": ["a check"]},
        "none": {"ex01": ["a check"], "ex02": ["a check"]},
    }
    (line,) = resumed_lines("out/journal.jsonl", students, [EX01, EX02], todo, "en")
    assert "kept 3 exercises graded there with the same files" in line, line
    assert "every exercise of 1 student; some exercises of 1 student" in line, line
    assert "wholly" not in line
    only_part = {**todo, "whole": todo["none"]}
    (line,) = resumed_lines("j", students, [EX01, EX02], only_part, "en")
    assert "kept 1 exercise graded" in line and "every exercise" not in line, line
    nothing = {name: todo["none"] for name in todo}
    assert resumed_lines("j", students, [EX01, EX02], nothing, "en") == []
    (zh,) = resumed_lines("j", students, [EX01, EX02], todo, "zh")
    assert "3 个练习" in zh and "1 个学生的全部练习" in zh


def test_a_regrade_of_new_students_does_not_call_them_graded_again(tmp_path, capsys):
    subs = _shard_submissions(tmp_path / "subs", names=("right_1", "wrong_1"))
    out = tmp_path / "out"
    common = ["--exercises", "ex01", "--lang", "en", "--quiet"]
    assert _cli(str(subs), "--out", str(out), "--student", "right_1", *common) == 0
    assert "graded 1 student in " in capsys.readouterr().out
    for name in ("new_1", "new_2"):
        shutil.copytree(subs / "right_1", subs / name)
    shutil.copy(SOLUTIONS / "ex01_ridge_point.py", subs / "wrong_1")
    assert _cli(str(subs), "--out", str(out), "--student", "new_1", "--student", "new_2", *common) == 0
    said = capsys.readouterr().out
    assert "graded 2 students, into " in said and "again" not in said, said
    assert _cli(str(subs), "--out", str(out), "--student", "new_1", "--student", "wrong_1", *common) == 0
    said = capsys.readouterr().out
    assert "graded 2 students (1 again, 1 new), into " in said and "4 students" in said, said
    assert f"wrong_1 {EX01_POINTS:g}/{EX01_POINTS:g}" in said


def test_a_notebook_only_folder_is_told_apart_from_an_empty_one(tmp_path, capsys):
    """Issue 47 item 1: ``nina 0/98`` and ``adam 0/98`` alike, nina's notebooks said only in her notes. Now
    her score is marked, a line after the scores says who handed in notebooks and what to do, and
    grades.json's ``notebooks`` lists hers (the class index reads it)."""
    subs = tmp_path / "subs"
    for name in ("nina", "adam", "alice"):
        (subs / name).mkdir(parents=True)
    (subs / "nina" / "ex01_ridge_point.ipynb").write_text("{}", encoding="utf-8")
    shutil.copy(SOLUTIONS / "ex01_ridge_point.py", subs / "alice")
    out = tmp_path / "out"
    assert _cli(str(subs), "--out", str(out), "--exercises", "ex01", "--lang", "en", "--quiet") == 0
    said = capsys.readouterr().out
    assert "nina 0/10 (notebooks: not graded)" in said and "adam 0/10," in said, said
    (line,) = [s for s in said.splitlines() if "handed in notebooks" in s]
    assert line.startswith("1 student handed in notebooks (.ipynb)") and ": nina." in line, line
    assert "adam" not in line and "nbconvert" in line and "docs/instructors.md" in line
    students = _json(out / "grades.json")["students"]
    assert students["nina"]["notebooks"] == ["ex01_ridge_point.ipynb"]
    assert students["adam"]["notebooks"] == [] == students["alice"]["notebooks"]


def test_the_notebook_line_names_every_such_student_in_both_languages() -> None:
    assert notebook_lines({"a": (), "b": ()}, "en") == []
    (two,) = notebook_lines({"nina": ("x.ipynb",), "adam": (), "li": ("y/z.ipynb",)}, "en")
    assert two.startswith("2 students handed in notebooks") and ": nina, li." in two
    (zh,) = notebook_lines({"nina": ("x.ipynb",)}, "zh")
    assert zh.startswith("1 个学生交了笔记本") and "nina" in zh and "nbconvert" in zh
    assert "docs/instructors.md" in zh
