"""An instructor's daily operations: a note where a submission looks malformed, no student found (exit
status 2 and why, in both languages), ``--student`` regrading named students into an earlier run's output
(and merge keeping each student's newest grade)."""

from __future__ import annotations

import csv
import json
import shutil
import tarfile
import zipfile

import pytest

from grader.batch.engine import BatchConfig, selected_exercises
from grader.batch.submissions import find_students
from tests.grader.batch.helpers import (
    EXERCISES,
    SHARD_OF_3,
    SOLUTIONS,
    _cli,
    _json,
    _merge,
    _shard_submissions,
)

EX01 = "ex01_ridge_point.py"


def _rows(path) -> dict[str, list[str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        return {row[0]: row for row in csv.reader(fh)}


def _malformed(subs):
    """One student per way a folder goes wrong, one that is right, and a file loose at the top."""
    for name in ("notebook", "zipped", "tarred", "misnamed", "by_id", "nested", "right"):
        (subs / name).mkdir(parents=True)
    (subs / "notebook" / "ex01_ridge_point.ipynb").write_text(json.dumps({"cells": []}), encoding="utf-8")
    with zipfile.ZipFile(subs / "zipped" / "homework.zip", "w") as zf:
        zf.write(SOLUTIONS / EX01, EX01)
    with tarfile.open(subs / "tarred" / "homework.tar.gz", "w:gz") as tf:
        tf.add(SOLUTIONS / EX01, EX01)
    shutil.copy(SOLUTIONS / EX01, subs / "misnamed" / "Ex01_Ridge_Point (1).py")
    shutil.copy(SOLUTIONS / EX01, subs / "by_id" / "ex01.py")
    (subs / "nested" / "hw" / "work").mkdir(parents=True)
    shutil.copy(SOLUTIONS / EX01, subs / "nested" / "hw" / "work")
    shutil.copy(SOLUTIONS / EX01, subs / "right")
    shutil.copy(SOLUTIONS / EX01, subs)  # loose: nobody's
    return subs


def test_a_malformed_submission_gets_a_note_saying_what_looks_wrong(tmp_path, capsys):
    subs = _malformed(tmp_path / "subs")
    out = tmp_path / "out"
    assert _cli(str(subs), "--out", str(out), "--exercises", "ex01", "--lang", "en", "--quiet") == 0
    printed = capsys.readouterr()
    # the loose file, said to the instructor in both languages
    assert f"1 files at the top of {subs} belong to no student and were not graded: {EX01}" in printed.err
    assert "顶层的 1 个文件不属于任何学生" in printed.err
    students = _json(out / "grades.json")["students"]
    notes = {name: "\n".join(s["notes"]) for name, s in students.items()}
    assert "found a notebook (ex01_ridge_point.ipynb)" in notes["notebook"] and EX01 in notes["notebook"]
    assert "found an archive (homework.zip)" in notes["zipped"]
    assert "found an archive (homework.tar.gz)" in notes["tarred"]
    assert f"Ex01_Ridge_Point (1).py looks like {EX01}" in notes["misnamed"]
    assert f"ex01.py looks like {EX01}" in notes["by_id"]
    assert "not at the top of your folder but in hw/work: graded from there" in notes["nested"]
    assert notes["right"] == ""
    scores = {name: s["score"] for name, s in students.items()}
    assert scores["nested"] == scores["right"] == 10 and scores["misnamed"] == scores["notebook"] == 0
    # the same notes in Chinese, for a course that speaks it
    exercises = selected_exercises(BatchConfig(exercises=("ex01",), progress=False))
    by_name = {s.name: s for s in find_students(subs, exercises, "zh")}
    assert "笔记本" in by_name["notebook"].notes[0] and "压缩包" in by_name["zipped"].notes[0]
    assert "名字不对" in by_name["misnamed"].notes[0] and "hw/work" in by_name["nested"].notes[0]


def test_an_empty_folder_is_one_empty_submission_note(tmp_path):
    """A student folder with nothing in it: one note says the submission is empty, every exercise is not
    attempted and points at it, in place of a "was not found" per check; a folder with any file is not
    called empty."""
    subs = tmp_path / "subs"
    (subs / "empty").mkdir(parents=True)
    (subs / "other").mkdir()
    (subs / "other" / "notes.txt").write_text("my answers are on paper", encoding="utf-8")
    exercises = selected_exercises(BatchConfig(exercises=("ex01", "ex02"), progress=False))
    for lang, said in (("en", "empty submission"), ("zh", "空的提交")):
        by_name = {s.name: s for s in find_students(subs, exercises, lang)}
        empty, other = by_name["empty"], by_name["other"]
        assert len(empty.notes) == 1 and said in empty.notes[0]
        assert all(said not in note for note in other.notes)
        assert set(empty.problems) == {e.module for e in exercises}
        for state, message in empty.problems.values():
            assert state == "not_attempted" and "was not found" not in message and "没有找到" not in message
        assert all("was not found" in m or "没有找到" in m for _, m in other.problems.values())


@pytest.mark.parametrize("what", ["empty", "one_students_folder"])
def test_no_student_found_exits_2_saying_why_in_both_languages(tmp_path, capsys, what):
    folder = tmp_path / "subs"
    folder.mkdir()
    if what == "one_students_folder":  # grade run on one student's folder: its files are loose
        shutil.copy(SOLUTIONS / EX01, folder)
    assert _cli(str(folder), "--out", str(tmp_path / "out"), "--exercises", "ex01", "--quiet") == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and not (tmp_path / "out").exists()
    zh, en = err.index("没有学生"), err.index("holds no student")
    assert zh < en  # Chinese first, then English
    if what == "one_students_folder":
        assert f"only files (1: {EX01})" in err and "--student" in err


def test_student_regrades_named_students_into_the_earlier_output(tmp_path, capsys):
    subs = _shard_submissions(tmp_path / "subs", names=("right_1", "wrong_1", "stub_1"))
    out = tmp_path / "out"
    common = ["--exercises", "ex01", "--lang", "en", "--quiet"]
    assert _cli(str(subs), "--out", str(out), "--gradescope", *common) == 0
    before_rows, before = _rows(out / "grades.csv"), _json(out / "grades.json")
    kept_gradescope = (out / "gradescope" / "right_1" / "results.json").read_bytes()
    # the stub's student hands in the solution; wrong_1 is regraded unchanged
    shutil.copy(SOLUTIONS / EX01, subs / "stub_1")
    capsys.readouterr()
    argv = ["--student", "stub_1", "--student", "wrong_1", "--gradescope", *common]
    assert _cli(str(subs), "--out", str(out), *argv) == 0
    assert "graded 2 students again, into" in capsys.readouterr().out
    rows, after = _rows(out / "grades.csv"), _json(out / "grades.json")
    assert list(rows) == list(before_rows)  # every student, in the same order
    assert rows["right_1"] == before_rows["right_1"] and rows["wrong_1"] == before_rows["wrong_1"]
    assert float(before_rows["stub_1"][1]) == 0 and float(rows["stub_1"][1]) == 10
    assert after["students"]["right_1"] == before["students"]["right_1"]
    assert after["students"]["stub_1"]["graded_at"] > before["students"]["stub_1"]["graded_at"]
    assert [(r["students"], r["graded_at"]) for r in after["regraded"]] == [
        (["stub_1", "wrong_1"], after["students"]["stub_1"]["graded_at"])
    ]
    assert after["elapsed_s"] > before["elapsed_s"]
    assert (out / "gradescope" / "right_1" / "results.json").read_bytes() == kept_gradescope
    assert _json(out / "gradescope" / "stub_1" / "results.json")["score"] == 10
    # refused before grading, the output left as it was: another language, an unknown student
    for extra, words in (
        (["--lang", "zh"], "different --lang"),
        (["--student", "nobody"], "has no folder nobody"),
    ):
        assert _cli(str(subs), "--out", str(out), "--student", "stub_1", *common, *extra) == 2
        assert words in capsys.readouterr().err
        assert _rows(out / "grades.csv") == rows


def test_merge_keeps_each_students_newest_grade(tmp_path, capsys):
    """A student of shard K regraded on their own (``--student NAME --shard K/N`` into a new folder) merges
    beside the shard's first output: the newest grade is kept, given in any order."""
    names = ("right_2", "stub_1", "wrong_2", "partial")  # shards 1, 1, 2, 2 of 3
    subs = _shard_submissions(tmp_path / "subs", names=names)
    common = ["--exercises", "ex01", "--lang", "en", "--quiet"]
    for k in (1, 2, 3):
        assert _cli(str(subs), "--out", str(tmp_path / f"out{k}"), "--shard", f"{k}/3", *common) == 0
    shutil.copy(SOLUTIONS / EX01, subs / "stub_1")
    regrade = tmp_path / "regrade"
    assert SHARD_OF_3["stub_1"] == 1
    argv = ["--student", "stub_1", "--shard", "1/3", *common]
    assert _cli(str(subs), "--out", str(regrade), *argv) == 0
    # a student outside the shard named is refused, not left out without a word
    assert (
        _cli(str(subs), "--out", str(tmp_path / "no"), "--student", "wrong_2", "--shard", "1/3", *common) == 2
    )
    assert "is not in shard 1/3" in capsys.readouterr().err
    shards = [tmp_path / f"out{k}" for k in (1, 2, 3)]
    for order in ([*shards, regrade], [regrade, *shards]):
        assert _merge(*order, "--out", tmp_path / "merged") == 0
        rows = _rows(tmp_path / "merged" / "grades.csv")
        assert float(rows["stub_1"][1]) == 10 and float(rows["right_2"][1]) == 10
        assert set(rows) == {"student", *names}
    # the same grade given twice is still refused
    shutil.copytree(shards[0], tmp_path / "copy")
    assert _merge(shards[0], tmp_path / "copy", *shards[1:], "--out", tmp_path / "m2") == 2
    assert "is in both" in capsys.readouterr().err


def test_exercises_folder_is_never_a_malformed_submission():
    """The kit's own stubs, handed in as they are, give no note (nothing there looks wrong)."""
    exercises = selected_exercises(BatchConfig(progress=False))
    (student,) = find_students(EXERCISES.parent, exercises, "en", only=("exercises",))
    assert student.notes == () and set(student.files) == {e.module for e in exercises}
