"""The batch journal (issues 37 and 38): a killed run loses only the students in hand and a rerun resumes
from OUT's journal; ``--retry-deferred`` grades only the deferred checks; a decided verdict is never
replaced by a deferral, by a retry, a ``--student`` regrade or a merge.

A deferral is had cheaply and for sure: the fake exercise's ``v_memory`` needs 1.5 GiB, more than a worker
has under ``--memory-gib 1`` (deferred before the student's file is looked at) and less than under 4."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from grader.batch.engine import SCRATCH_PREFIX
from grader.batch.journal import JOURNAL, Entry, Journal, journal_settings, read_journal
from tests.grader.batch.helpers import _cli, _json, _merge

CHECKS = textwrap.dedent(
    """
    from grader.specs.check import Exercise, ValueCheck
    from grader.specs.requirements import Requirements

    EXERCISE = Exercise(
        id="jr",
        module="journal_student",
        title_zh="日志",
        title_en="Journal",
        import_timeout_s=60.0,
        checks=(
            ValueCheck(id="v_plain", part="a", points=1, func="one", expected=lambda: 1, rtol=1e-9),
            ValueCheck(id="v_memory", part="a", points=2, func="two", expected=lambda: 2, rtol=1e-9,
                       timeout_s=30.0, requires=Requirements(memory_bytes=3 << 29)),
        ),
    )
    """
)
RIGHT = "import time\ntime.sleep({sleep})\n\ndef one():\n    return 1\n\ndef two():\n    return 2\n"
WRONG_TWO = RIGHT.replace("return 2", "return 3")


@pytest.fixture
def kit(tmp_path, monkeypatch):
    """The fake checks module importable here and in the processes a run starts."""
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / "journal_checks.py").write_text(CHECKS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(modules))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(modules), os.environ.get("PYTHONPATH", "")]))
    return modules


def _students(subs: Path, names=("alice", "bob", "carol"), sleep: float = 0.0, text: str = RIGHT) -> Path:
    for name in names:
        (subs / name).mkdir(parents=True, exist_ok=True)
        (subs / name / "journal_student.py").write_text(text.format(sleep=sleep), encoding="utf-8")
    return subs


def _grade(subs: Path, out: Path, *more: str, memory: str = "4") -> int:
    return _cli(
        str(subs), "--out", str(out), "--grader-checks", "journal_checks", "--exercises", "jr", "--lang", "en",
        "--memory-gib", memory, "--quiet", *more,
    )  # fmt: skip


def _states(out: Path) -> dict[str, dict[str, str]]:
    data = _json(out / "grades.json")
    return {
        name: {o["check_id"]: ("deferred" if o["deferred"] else o["state"]) for o in record["outcomes"]}
        for name, record in data["students"].items()
    }


def _entries(out: Path) -> list[Entry]:
    return read_journal(out / JOURNAL)[1]


def test_a_killed_run_loses_only_the_student_in_hand_and_the_rerun_resumes(tmp_path, kit):
    """SIGKILL once the first student is journaled; the rerun grades only the others (the first student's
    one journal entry proves it is not graded again) and grades.json holds everyone."""
    subs = _students(tmp_path / "subs", sleep=3.0)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "grader", "grade", str(subs), "--out", str(out), "--grader-checks"]
    command += ["journal_checks", "--exercises", "jr", "--lang", "en", "--memory-gib", "4", "--jobs", "1"]
    command += ["--quiet"]
    proc = subprocess.Popen(command, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if (out / JOURNAL).exists() and _entries(out):
                break
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    first = _entries(out)
    assert len(first) == 1 and not (out / "grades.json").exists()
    # the killed run's copy of the student in hand: left, as no cleanup of its own ran
    left = list(Path(tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}{proc.pid}-*"))
    assert left and any(left[0].glob("s-*/journal_student.py"))
    done = first[0].student
    rerun = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert "resuming from" in rerun.stderr and "not graded again" in rerun.stderr
    assert not any(p.exists() for p in left)  # removed by the next run, its owner gone
    entries = _entries(out)
    assert [e.student for e in entries].count(done) == 1  # not graded again
    assert sorted(e.student for e in entries) == ["alice", "bob", "carol"]
    data = _json(out / "grades.json")
    assert sorted(data["students"]) == ["alice", "bob", "carol"]
    assert all(r["score"] == 3.0 for r in data["students"].values())
    assert data["students"][done]["graded_at"] == first[0].graded_at  # the journal's grade, kept as it was
    with open(out / "grades.csv", encoding="utf-8") as fh:
        assert [row["student"] for row in csv.DictReader(fh)] == ["alice", "bob", "carol"]


def test_retry_deferred_grades_only_the_deferred_checks_and_refreshes_every_file(tmp_path, kit):
    subs = _students(tmp_path / "subs", names=("alice", "bob"))
    out, html = tmp_path / "out", tmp_path / "html"
    assert _grade(subs, out, "--gradescope", memory="1") == 0
    assert _states(out) == {n: {"v_plain": "passed", "v_memory": "deferred"} for n in ("alice", "bob")}
    before = len(_entries(out))
    assert _grade(subs, out, "--gradescope", "--html", str(html), "--retry-deferred") == 0
    retried = _entries(out)[before:]
    assert sorted(e.student for e in retried) == ["alice", "bob"]
    assert all([o.check_id for o in e.outcomes] == ["v_memory"] for e in retried)  # only the deferred one
    assert _states(out) == {n: {"v_plain": "passed", "v_memory": "passed"} for n in ("alice", "bob")}
    with open(out / "grades.csv", encoding="utf-8") as fh:
        assert {row["student"]: row["score"] for row in csv.DictReader(fh)} == {"alice": "3", "bob": "3"}
    gradescope = _json(out / "gradescope" / "alice" / "results.json")
    assert gradescope["score"] == 3.0
    assert (html / "index.html").exists()
    # nothing deferred is left: a second retry grades nothing
    count = len(_entries(out))
    assert _grade(subs, out, "--retry-deferred") == 0
    assert len(_entries(out)) == count


def test_retry_deferred_for_one_student_leaves_the_others(tmp_path, kit):
    subs = _students(tmp_path / "subs", names=("alice", "bob"))
    out = tmp_path / "out"
    assert _grade(subs, out, memory="1") == 0
    assert _grade(subs, out, "--retry-deferred", "--student", "bob") == 0
    assert _states(out) == {
        "alice": {"v_plain": "passed", "v_memory": "deferred"},
        "bob": {"v_plain": "passed", "v_memory": "passed"},
    }


def test_a_decided_verdict_is_never_replaced_by_a_deferral(tmp_path, kit, capsys):
    subs = _students(tmp_path / "subs", names=("alice", "bob"))
    out = tmp_path / "out"
    assert _grade(subs, out) == 0
    # a retry on a machine where the check defers: nothing deferred to retry, nothing lost
    assert _grade(subs, out, "--retry-deferred", memory="1") == 0
    # --student regrading an unchanged file where the check defers: the decided grade stays
    assert _grade(subs, out, "--student", "alice", memory="1") == 0
    assert _states(out)["alice"] == {"v_plain": "passed", "v_memory": "passed"}
    assert _json(out / "grades.json")["students"]["alice"]["score"] == 3.0
    # the whole class resumed, its files written from the journal alone: still the decided grade
    assert _grade(subs, out, memory="1") == 0
    assert _states(out)["alice"] == {"v_plain": "passed", "v_memory": "passed"}
    # a changed file's checks are graded anew: its deferral is not the old file's pass
    (subs / "alice" / "journal_student.py").write_text(WRONG_TWO.format(sleep=0), encoding="utf-8")
    assert _grade(subs, out, "--student", "alice", memory="1") == 0
    assert _states(out)["alice"] == {"v_plain": "passed", "v_memory": "deferred"}
    assert _grade(subs, out, "--student", "alice") == 0
    assert _states(out)["alice"] == {"v_plain": "passed", "v_memory": "wrong"}
    assert _states(out)["bob"] == {"v_plain": "passed", "v_memory": "passed"}


def test_merge_keeps_a_decided_verdict_over_a_newer_deferral(tmp_path, kit):
    subs = _students(tmp_path / "subs", names=("alice", "bob"))
    whole, again, merged = tmp_path / "whole", tmp_path / "again", tmp_path / "merged"
    assert _grade(subs, whole, "--shard", "1/1") == 0
    assert _grade(subs, again, "--shard", "1/1", "--student", "alice", memory="1") == 0
    assert _states(again)["alice"]["v_memory"] == "deferred"
    assert _merge(whole, again, "--out", merged) == 0
    assert _states(merged)["alice"] == {"v_plain": "passed", "v_memory": "passed"}
    assert _json(merged / "grades.json")["students"]["alice"]["score"] == 3.0
    with open(merged / "grades.csv", encoding="utf-8") as fh:
        rows = {row["student"]: row for row in csv.DictReader(fh)}
    assert rows["alice"]["jr::v_memory"] == "2" and rows["alice"]["deferred_points"] == "0"


def test_retry_deferred_without_an_earlier_run_is_refused(tmp_path, kit, capsys):
    subs = _students(tmp_path / "subs", names=("alice",))
    assert _grade(subs, tmp_path / "empty", "--retry-deferred") == 2
    err = capsys.readouterr().err
    assert "--retry-deferred" in err and "--out" in err and "holds no journal" in err
    assert not (tmp_path / "empty" / "grades.json").exists()


def test_a_journal_of_other_settings_is_set_aside_not_resumed(tmp_path, kit, capsys):
    subs = _students(tmp_path / "subs", names=("alice",))
    out = tmp_path / "out"
    assert _grade(subs, out) == 0
    capsys.readouterr()
    assert _grade(subs, out, "--retry-deferred", "--lang", "zh") == 2
    assert "graded with other lang" in capsys.readouterr().err
    assert _grade(subs, out, "--lang", "zh") == 0
    assert "not resumed" in capsys.readouterr().err
    assert (out / (JOURNAL + ".old")).exists() and len(_entries(out)) == 1


def test_a_torn_last_line_is_skipped_and_ended_before_the_next(tmp_path):
    settings = journal_settings("en", 1.0, (), ())
    journal = Journal(tmp_path, settings).open()
    entry = Entry("alice", "jr", "k", "2026-01-01T00:00:00+00:00", 1.0, ("a note",), ())
    journal.append(entry)
    with open(journal.path, "ab") as fh:  # a kill in the middle of the next line
        fh.write(b'{"student": "bob", "exer')
    header, entries = read_journal(journal.path)
    assert header == {"perfkit_journal": 1, "settings": settings} and entries == [entry]
    again = Journal(tmp_path, settings).open()
    assert again.entries == [entry] and not again.set_aside
    again.append(Entry("bob", "jr", "k", "2026-01-01T00:00:01+00:00", 1.0, (), ()))
    assert [e.student for e in read_journal(journal.path)[1]] == ["alice", "bob"]
    assert json.loads(journal.path.read_bytes().splitlines()[-1])["student"] == "bob"


def test_an_out_that_cannot_hold_the_journal_is_refused_before_grading(tmp_path, kit, capsys):
    subs = _students(tmp_path / "subs", names=("alice",))
    out = tmp_path / "a-file"
    out.write_text("not a folder\n", encoding="utf-8")
    assert _grade(subs, out) == 2
    err = capsys.readouterr().err
    assert "--out" in err and "cannot write the journal" in err


def test_a_regrade_into_an_output_without_a_journal_keeps_decided_verdicts_too(tmp_path, kit):
    """An output of an older kit, or a merged one, holds no journal: grades.json's file keys decide."""
    subs = _students(tmp_path / "subs", names=("alice", "bob"))
    out = tmp_path / "out"
    assert _grade(subs, out) == 0
    (out / JOURNAL).unlink()
    assert _grade(subs, out, "--student", "alice", memory="1") == 0
    assert _states(out)["alice"] == {"v_plain": "passed", "v_memory": "passed"}
    with open(out / "grades.csv", encoding="utf-8") as fh:
        assert {row["student"]: row["score"] for row in csv.DictReader(fh)} == {"alice": "3", "bob": "3"}
    (subs / "alice" / "journal_student.py").write_text(WRONG_TWO.format(sleep=0), encoding="utf-8")
    (out / JOURNAL).unlink()
    assert _grade(subs, out, "--student", "alice", memory="1") == 0
    assert _states(out)["alice"] == {"v_plain": "passed", "v_memory": "deferred"}  # another file's grade
