"""Which students a shard grades (``--shard K/N``, :mod:`grader.batch.shard`): a student's shard depends on
the folder name alone, bad ``--shard`` values are refused, and an empty shard still writes its files.
Merging the shards is ``test_merge.py``'s.
"""

from __future__ import annotations

import shutil

import pytest

from grader.batch.engine import BatchConfig, find_students, selected_exercises
from grader.batch.shard import Shard, shard_of
from tests.grader.batch.helpers import SHARD_OF_3, _cli, _json, _shard_submissions


def test_a_students_shard_depends_on_the_name_alone(tmp_path):
    assert {name: shard_of(name, 3) for name in SHARD_OF_3} == SHARD_OF_3
    exercises = selected_exercises(BatchConfig(exercises=("ex01",), progress=False))
    subs = _shard_submissions(tmp_path / "subs", names=("right_1", "stub_1", "wrong_2"))

    def shards_of_folder() -> dict[str, int]:
        return {s.name: k for k in range(1, 6) for s in find_students(subs, exercises, "en", Shard(k, 5))}

    before = shards_of_folder()
    assert set(before) == {"right_1", "stub_1", "wrong_2"}
    _shard_submissions(subs, names=("amy", "ben", "cho", "0_first", "zz_last"))  # more students arrive
    shutil.rmtree(subs / "stub_1")  # and one leaves
    after = shards_of_folder()
    assert set(after) == {"right_1", "wrong_2", "amy", "ben", "cho", "0_first", "zz_last"}
    assert all(after[name] == k for name, k in before.items() if name in after)
    assert after == {name: shard_of(name, 5) for name in after}
    counts = [sum(shard_of(f"student{i:05d}", 8) == k for i in range(8000)) for k in range(1, 9)]
    assert min(counts) > 850 and max(counts) < 1150  # about 1000 each


@pytest.mark.parametrize("value", ["0/3", "4/3", "3", "a/b", "1/0", "-1/3", "1/3/4", "", "2.0/3"])
def test_a_bad_shard_is_named(tmp_path, capsys, value):
    (tmp_path / "alice").mkdir()
    assert _cli(str(tmp_path), "--out", str(tmp_path / "o"), "--exercises", "ex01", f"--shard={value}") == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m grader grade: --shard must be K/N") and "1 <= K <= N" in err
    assert "Traceback" not in err and not (tmp_path / "o").exists()


def test_an_empty_shard_still_writes_its_files(tmp_path, capsys):
    subs = _shard_submissions(tmp_path / "subs", names=("right_1",))  # in shard 3 of 3
    argv = ["--exercises", "ex01", "--shard", "1/3", "--lang", "en", "--quiet"]
    assert _cli(str(subs), "--out", str(tmp_path / "o"), *argv) == 0
    assert "graded 0 students of shard 1/3" in capsys.readouterr().out  # the console speaks --lang
    assert (tmp_path / "o" / "grades.csv").read_text(encoding="utf-8").count("\n") == 1  # the header alone
    data = _json(tmp_path / "o" / "grades.json")
    assert data["students"] == {} and data["shard"]["index"] == 1
