"""Merging shards (``python -m grader merge``, :mod:`grader.batch.merging`).

A small batch (right, stub, wrong and partial submissions) is graded whole and in 3 shards: each shard holds
its students, the merge must equal the whole run, and shards that are not one sharding are refused; shards
graded for different exercises combine into one grade per student. Which shard a student is in is
``test_shard.py``'s.
"""

from __future__ import annotations

import csv
import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from grader.batch import merging
from grader.judge import DEFAULT_MAX_NOISE
from grader.results.environment import gpu_name
from grader.specs.requirements import installed_torch_version
from perfcore.measure.machine import cpu_model
from tests.grader.batch.helpers import (
    EX01_POINTS,
    EX02_POINTS,
    ROOT,
    SHARD_OF_3,
    _cli,
    _json,
    _merge,
    _shard_submissions,
    _without_times,
)

SHARD_EXERCISES = "ex01,ex02"


@pytest.fixture(scope="module")
def sharded(tmp_path_factory):
    """The batch graded once whole and once in 3 shards, through the command line."""
    base = tmp_path_factory.mktemp("sharded")
    subs = _shard_submissions(base / "subs")
    common = ["--exercises", SHARD_EXERCISES, "--lang", "en", "--grace", "3", "--quiet"]
    assert _cli(str(subs), "--out", str(base / "whole"), *common) == 0
    for k in (1, 2, 3):
        assert _cli(str(subs), "--out", str(base / f"out{k}"), "--shard", f"{k}/3", *common) == 0
    return {
        "base": base,
        "subs": subs,
        "whole": base / "whole",
        "shards": [base / f"out{k}" for k in (1, 2, 3)],
    }


def test_each_shard_grades_its_students(sharded):
    seen = []
    for k, out in enumerate(sharded["shards"], start=1):
        data = _json(out / "grades.json")
        names = list(data["students"])
        assert names == sorted(n for n, s in SHARD_OF_3.items() if s == k) and names
        settings = {"max_noise": DEFAULT_MAX_NOISE, "allow": [], "grader_checks": []}
        assert data["shard"] == {"index": k, "count": 3, "settings": settings}
        seen += names
    assert sorted(seen) == sorted(SHARD_OF_3)
    whole = _json(sharded["whole"] / "grades.json")
    assert "shard" not in whole
    points = {name: s["score"] for name, s in whole["students"].items()}
    assert points["right_1"] == points["李雷"] == EX01_POINTS + EX02_POINTS
    assert points["stub_1"] == 0
    assert 0 < points["wrong_1"] < EX01_POINTS + EX02_POINTS and 0 < points["partial"] <= EX01_POINTS


def test_merged_shards_equal_one_run(sharded, tmp_path):
    merged = tmp_path / "merged"
    assert _merge(*reversed(sharded["shards"]), "--out", merged) == 0  # any order
    whole_csv = (sharded["whole"] / "grades.csv").read_bytes()
    assert (merged / "grades.csv").read_bytes() == whole_csv
    whole, data = _json(sharded["whole"] / "grades.json"), _json(merged / "grades.json")
    shards = data.pop("shards")
    assert data.pop("missing_shards") == []
    # the documented per-run fields: elapsed_s is the shards' sum; sandbox, limits and environment agree
    assert data.pop("elapsed_s") == pytest.approx(sum(s["elapsed_s"] for s in shards), abs=0.002)
    whole.pop("elapsed_s")
    assert _without_times(data) == _without_times(whole)
    assert list(data["students"]) == list(whole["students"])
    assert [(s["index"], s["count"], s["students"]) for s in shards] == [(1, 3, 3), (2, 3, 2), (3, 3, 2)]
    assert all(s["environment"] == whole["environment"] and s["sandbox"] == whole["sandbox"] for s in shards)
    # the files themselves, named one by one, merge the same; python -m grader merge is the same command
    again = tmp_path / "again"
    files = [out / name for out in sharded["shards"] for name in ("grades.json", "grades.csv")]
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "merge", *map(str, files), "--out", str(again)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "merged shards 1/3, 2/3, 3/3 (7 students)" in proc.stdout
    assert (again / "grades.csv").read_bytes() == whole_csv


def test_merge_records_shards_from_different_machines(sharded, tmp_path):
    shards = [tmp_path / f"s{k}" for k in (1, 2, 3)]
    for source, copy in zip(sharded["shards"], shards, strict=True):
        shutil.copytree(source, copy)
    data = _json(shards[1] / "grades.json")
    data["environment"] = {**data["environment"], "cpu": "Another CPU", "cpu_count": 128}
    # another sandbox than this machine gave the others (they ran with bwrap or without it, as it is here)
    data["sandbox"] = "limits only" if data["sandbox"] == "bwrap" else "bwrap"
    (shards[1] / "grades.json").write_text(json.dumps(data), encoding="utf-8")
    assert _merge(*shards, "--out", tmp_path / "merged") == 0
    merged = _json(tmp_path / "merged" / "grades.json")
    assert merged["environment"]["cpu"] is None and merged["environment"]["cpu_count"] is None
    assert merged["environment"]["python"] == data["environment"]["python"]
    assert merged["sandbox"] is None
    assert [s["environment"]["cpu"] for s in merged["shards"]][1] == "Another CPU"
    assert [s["sandbox"] for s in merged["shards"]][1] == data["sandbox"]


def _edited_copy(source: Path, into: Path, edit) -> Path:
    shutil.copytree(source, into)
    data = _json(into / "grades.json")
    edit(data)
    (into / "grades.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return into


def _refusal(capsys, *argv) -> str:
    capsys.readouterr()
    assert _merge(*argv, "--out", argv[0].parent / "merged-refused") == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m grader merge: ") and "Traceback" not in err
    assert not (argv[0].parent / "merged-refused").exists()
    return err


def test_merge_refuses_what_is_not_one_sharding(sharded, tmp_path, capsys):
    one, two, three = sharded["shards"]
    # a student in two shards
    twice = tmp_path / "twice"
    shutil.copytree(one, twice)
    assert "is in both" in _refusal(capsys, one, twice, two, three)
    # shards of different N
    four = _edited_copy(two, tmp_path / "four", lambda d: d["shard"].update(count=4))
    assert "different N" in _refusal(capsys, one, four, three)
    # a missing shard, unless --allow-partial
    err = _refusal(capsys, one, three)
    assert "shard 2/3 missing" in err and "--allow-partial" in err
    assert _merge(one, three, "--allow-partial", "--out", tmp_path / "partial") == 0
    assert "shard 2/3 missing" in capsys.readouterr().err
    partial = _json(tmp_path / "partial" / "grades.json")
    assert partial["missing_shards"] == [2]
    assert sorted(partial["students"]) == sorted(n for n, k in SHARD_OF_3.items() if k != 2)
    # different settings, where the files record them
    edits = {
        "--lang": lambda d: d.update(lang="zh"),
        "--deferred": lambda d: d.update(deferred_policy="zero"),
        "--max-noise": lambda d: d["shard"]["settings"].update(max_noise=0.123),
        "--allow": lambda d: d["shard"]["settings"].update(allow=["perfcore"]),
        "kit version": lambda d: d["environment"].update(perfkit="0.0.1"),
    }
    for i, (name, edit) in enumerate(edits.items()):
        edited = _edited_copy(two, tmp_path / f"edited{i}", edit)
        assert name in _refusal(capsys, one, edited, three), name
    # other exercises: the checks differ (the CSV columns follow the JSON's checks)
    other = tmp_path / "other"
    subs = _shard_submissions(tmp_path / "subs1", names=("wrong_2",))
    assert _cli(str(subs), "--out", str(other), "--exercises", "ex01", "--shard", "2/3", "--quiet") == 0
    assert "different exercises" in _refusal(capsys, one, other, three)

    # a student name no batch writes (a control character): its row could not be written back as it is
    def rename(data: dict) -> None:
        data["students"] = {"\x1b[2J" + name: s for name, s in data["students"].items()}

    assert "not one python -m grader grade writes" in _refusal(
        capsys, one, _edited_copy(two, tmp_path / "renamed", rename), three
    )
    # a student in a shard its name does not hash to
    moved = _edited_copy(one, tmp_path / "moved", lambda d: d["shard"].update(index=2))
    assert "belongs to shard 1/3" in _refusal(capsys, moved, three)
    # an unsharded run, and a folder without the files
    assert "not graded with --shard" in _refusal(capsys, sharded["whole"], two)
    (tmp_path / "empty").mkdir()
    assert "not found" in _refusal(capsys, one, tmp_path / "empty")
    # the output folder must not be a shard's own
    assert _merge(one, two, three, "--out", one) == 2
    assert "would overwrite" in capsys.readouterr().err


def test_shards_of_different_exercises_combine_into_one_grade(sharded, tmp_path, capsys):
    """The CPU exercises in 3 shards and m6 in one job of its own (as on a GPU partition; here m6 defers)
    give the grades of one run of all three exercises: one row per student, the points added up."""
    subs = tmp_path / "subs"
    shutil.copytree(sharded["subs"], subs)
    shutil.copy(ROOT / "solutions" / "m6_gpu.py", subs / "right_1")
    common = ["--lang", "en", "--grace", "3", "--quiet"]
    gpu, whole = tmp_path / "gpu", tmp_path / "whole"
    assert _cli(str(subs), "--out", str(gpu), "--exercises", "m6", "--shard", "1/1", *common) == 0
    assert _cli(str(subs), "--out", str(whole), "--exercises", f"{SHARD_EXERCISES},m6", *common) == 0
    merged = tmp_path / "merged"
    assert _merge(gpu, *sharded["shards"], "--out", merged) == 0  # any order
    assert (merged / "grades.csv").read_bytes() == (whole / "grades.csv").read_bytes()
    data, alone = _json(merged / "grades.json"), _json(whole / "grades.json")
    m6 = [o for o in data["students"]["right_1"]["outcomes"] if o["exercise"] == "m6"]
    assert m6 and all(o["deferred"] for o in m6)  # no GPU here: the course's --deferred policy decides
    # a deferred check stays an empty cell through the merge (never 0), in every student's row
    rows = list(csv.reader((merged / "grades.csv").read_text(encoding="utf-8").splitlines()))
    m6_columns = [i for i, c in enumerate(rows[0]) if c.startswith("m6::")]
    assert m6_columns and all(row[i] == "" for row in rows[1:] for i in m6_columns)
    # each exercise names the node, device and machine profile it was judged on
    judged = data["judged_on"]
    assert list(judged) == ["ex01", "ex02", "m6"]
    assert {r["node"] for r in judged.values()} == {socket.gethostname()}
    assert judged["ex01"]["profile"] is None and judged["ex01"]["device"] == cpu_model()
    assert judged["m6"]["device"] == gpu_name()
    if installed_torch_version() is not None:  # the profile is measured where torch can measure it
        assert isinstance(judged["m6"]["profile"], str) and len(judged["m6"]["profile"]) == 16
    shards = data.pop("shards")
    assert [(s["index"], s["count"], s["exercises"]) for s in shards] == [
        (1, 3, ["ex01", "ex02"]),
        (2, 3, ["ex01", "ex02"]),
        (3, 3, ["ex01", "ex02"]),
        (1, 1, ["m6"]),
    ]  # in the registry's order of the exercises, whatever the order given
    assert data.pop("missing_shards") == []
    data.pop("elapsed_s")
    alone.pop("elapsed_s")
    assert _without_times(data) == _without_times(alone)

    # an exercise graded twice is refused, naming a shard of each grading
    twice = tmp_path / "twice"
    assert _cli(str(subs), "--out", str(twice), "--exercises", "ex02,m6", "--shard", "1/1", *common) == 0
    err = _refusal(capsys, twice, *sharded["shards"])
    assert "exercise ex02 is graded in both" in err and str(twice) in err and "different exercises" in err
    # sets holding different students, and a partial merge of sets, are refused
    fewer = tmp_path / "fewer"
    shutil.copytree(subs, fewer)
    shutil.rmtree(fewer / "stub_1")
    few = tmp_path / "few"
    assert _cli(str(fewer), "--out", str(few), "--exercises", "m6", "--shard", "1/1", *common) == 0
    assert "hold different students ('stub_1')" in _refusal(capsys, few, *sharded["shards"])
    err = _refusal(capsys, gpu, *sharded["shards"][:2], "--allow-partial")
    assert "--allow-partial cannot combine" in err


def _outcome(exercise: str, check: str, points: float, most: float, deferred: bool = False) -> dict:
    return {
        "exercise": exercise,
        "check_id": check,
        "points": points,
        "max_points": most,
        "deferred": deferred,
    }


def test_a_students_grades_of_two_exercise_sets_combine_into_one_record():
    """Without grading: the outcomes in the checks' order, the points added up as one run adds them under
    each deferred policy, the notes and files of both, the newest graded_at."""
    cpu = {
        "outcomes": [_outcome("ex02", "b", 1.0, 2.0), _outcome("ex01", "a", 3.0, 3.0)],
        "notes": ["slow"],
        "graded_at": "2026-01-02T00:00:00",
        "files": {"ex01": "k1", "ex02": "k2"},
    }
    gpu = {"outcomes": [_outcome("m6", "c", 0.0, 4.0, deferred=True)], "notes": ["slow", "no GPU"]}
    column = {"ex01::a": 0, "ex02::b": 1, "m6::c": 2}
    record = merging.combined_record([gpu, cpu], column, "defer")
    assert [o["check_id"] for o in record["outcomes"]] == ["a", "b", "c"]
    assert (record["score"], record["max_score"], record["deferred_points"]) == (4.0, 5.0, 4.0)
    assert record["notes"] == ["slow", "no GPU"] and record["graded_at"] == "2026-01-02T00:00:00"
    assert record["files"] == {"ex01": "k1", "ex02": "k2"}
    assert merging.combined_record([gpu, cpu], column, "zero")["max_score"] == 9.0  # a deferral scores 0 of 4


def test_the_combined_rows_leave_a_deferred_check_and_an_ungraded_one_empty():
    students = {
        "amy": {
            "score": 1.5,
            "max_score": 2.0,
            "deferred_points": 4.0,
            "outcomes": [_outcome("ex01", "a", 1.5, 2.0)],
        },
        "=ben": {
            "score": 0.0,
            "max_score": 2.0,
            "deferred_points": 4.0,
            "outcomes": [_outcome("ex01", "a", 0.0, 2.0), _outcome("m6", "c", 0.0, 4.0, deferred=True)],
        },
    }
    rows = merging.combined_rows(students, ["ex01::a", "m6::c"])
    assert rows[0] == ["student", "score", "max_score", "deferred_points", "ex01::a", "m6::c"]
    assert rows[1] == ["amy", "1.5", "2", "4", "1.5", ""]  # m6 not among amy's outcomes: an empty cell
    assert rows[2][1:] == ["0", "2", "4", "0", ""]  # deferred: empty, never 0
    assert rows[2][0] != "=ben"  # a name that a spreadsheet would take for a formula is written as text


def test_exercise_sets_are_ordered_as_the_registry_orders_them():
    order = merging.registry_order(())
    assert sorted(["m6", "ex10", "ex02", "ex01"], key=order) == ["ex01", "ex02", "ex10", "m6"]
    assert sorted(["zz_unknown", "ex01"], key=order) == ["ex01", "zz_unknown"]  # the unknown last
