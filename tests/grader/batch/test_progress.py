"""The batch's progress on stderr (issue 39 item 5): one line rewritten in place on a terminal (tqdm's), with
the students done and in flight, the exercise each has in hand and for how long, and an ETA from each
phase's own pace; plain whole lines in a log, each tenth and a heartbeat while a long measurement runs.

The times are tqdm's clock (``00:04``, ``1:02:03``); the hand-written line before it wrote ``0:04``."""

from __future__ import annotations

import io
import re

from tqdm.utils import disp_len

from grader.batch.engine import BatchConfig, grade_batch
from grader.batch.progress import HEARTBEAT_S, BatchProgress, clock_text
from grader.sandbox.confinement import Limits
from tests.grader.batch.helpers import _shard_submissions


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _screen(written: str) -> str:
    """The last line a terminal shows for ``written``: each ``\\r`` returns to its start, and the text
    after it is written over what was there (a shorter redraw leaves the rest unless it blanks it)."""
    row: list[str] = []
    for part in written.rstrip("\n").split("\r"):
        row[: len(part)] = list(part)
    return "".join(row).rstrip(" ")


def _progress(stream: io.StringIO, clock: _Clock, **kw) -> BatchProgress:
    students = {"alice": 2, "bob": 2, "carol": 2}
    lanes = {"formula": 2, "serial": 1}
    return BatchProgress(6, True, students=students, lanes=lanes, stream=stream, clock=clock, **kw)


def test_on_a_terminal_one_line_in_place_with_students_in_flight_and_an_eta(monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    clock, term = _Clock(), _Terminal()
    progress = _progress(term, clock)
    progress.plan("formula", 3)
    progress.plan("serial", 3)
    progress.begin("alice", "ex01")
    progress.begin("bob", "ex01")
    clock.now += 4
    progress.lane("alice", "formula").done(4.0)
    line = progress.line()
    assert line.startswith("[#####" + "." * 25 + "] 1/6 exercises graded; students 0/3 done, 1 in flight")
    assert line.endswith("00:04 elapsed: bob ex01 00:04")  # the counts and times first, the names last
    assert "left" not in line  # no measured exercise yet: its pace, and so the time left, is unknown
    progress.lane("bob", "formula").done(4.0)
    progress.lane("carol", "formula").done(2.0)
    progress.begin("alice", "m1")
    clock.now += 120
    progress.lane("alice", "serial").done(120.0)
    line = progress.line()
    assert "4/6 exercises graded; students 1/3 done, 0 in flight" in line
    # formula done; two measured exercises left at 120 s each, one lane: about 4 minutes
    assert line.endswith("02:04 elapsed; about 04:00 left"), line
    progress.close()
    shown = term.getvalue()
    assert "\n" not in shown.rstrip("\n") and shown.endswith("\n")  # one line, ended once at the close
    assert shown.count("\r") >= 6  # redrawn from the line's start each time
    # what the screen shows once every redraw has been written over the last: the last line, with nothing
    # left over from a longer line before it (the line was shortened: alice and bob left the flight)
    assert _screen(shown) == line


def test_on_a_narrow_terminal_the_line_is_cut_to_its_width(monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "50")
    term = _Terminal()
    progress = _progress(term, _Clock())
    progress.begin("alice", "ex01")
    redraws = [part.removesuffix("\x1b[K") for part in term.getvalue().split("\r") if part]
    assert redraws and all(len(part) <= 49 for part in redraws)  # never wraps into a new line per update


def test_a_chinese_line_is_cut_by_the_columns_it_takes_not_its_characters(monkeypatch) -> None:
    """A CJK character takes two columns: cut by characters, a Chinese line of 49 would take about 80 and wrap
    on a 50-column terminal, a new line per update."""
    monkeypatch.setenv("COLUMNS", "50")
    term = _Terminal()
    progress = _progress(term, _Clock(), lang="zh")
    progress.begin("alice", "ex01")
    progress.close()
    redraws = [part.rstrip("\n") for part in term.getvalue().split("\r") if part]
    assert redraws and all(disp_len(part) <= 49 for part in redraws), redraws
    assert redraws[-1].startswith("[" + "." * 30 + "] 已评 0/6 个练习")


def test_in_a_log_whole_lines_each_tenth_and_a_heartbeat_while_a_measurement_runs() -> None:
    clock, log = _Clock(), io.StringIO()
    progress = _progress(log, clock)
    progress.plan("serial", 6)
    progress.start()  # a ticker: in a log it only writes a heartbeat
    progress.begin("alice", "m1")
    progress.tick()
    assert log.getvalue() == ""  # nothing new, and not a minute yet
    clock.now += HEARTBEAT_S
    progress.tick()
    progress.tick()  # one heartbeat a minute, not one per tick
    lines = log.getvalue().splitlines()
    assert len(lines) == 1 and "0/6 exercises graded" in lines[0] and lines[0].endswith(": alice m1 01:00")
    for name in ("alice", "alice", "bob", "bob", "carol", "carol"):
        progress.begin(name, "m1")
        progress.lane(name, "serial").done(60.0)
    progress.close()
    lines = log.getvalue().splitlines()
    assert 1 < len(lines) <= 1 + 10 and "\r" not in log.getvalue() and "\x1b" not in log.getvalue()
    assert lines[-1].startswith("[" + "#" * 30 + "] 6/6 exercises graded; students 3/3 done, 0 in flight")


def test_the_line_speaks_the_runs_language() -> None:
    progress = _progress(io.StringIO(), _Clock(), lang="zh")
    progress.begin("alice", "ex01")
    line = progress.line()
    assert (
        line.endswith("已评 0/6 个练习; 学生 0/3 已完成，1 个进行中; 已用 00:00: alice ex01 00:00")
        and "约剩" not in line
    )
    assert clock_text(65) == "01:05" and clock_text(3723) == "1:02:03"


def test_a_batch_run_logs_its_students_done_and_its_end(tmp_path, capsys) -> None:
    """End to end, off a terminal: the batch's last progress line has every exercise and student done."""
    subs = _shard_submissions(tmp_path / "subs", names=("right_1", "stub_1", "partial"))
    config = BatchConfig(exercises=("ex01", "ex02"), lang="en", limits=Limits(grace_s=3.0))
    result = grade_batch(subs, config)
    assert len(result.students) == 3
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("[")]
    assert lines, "no progress line"
    assert re.match(
        r"\[#{30}\] 6/6 exercises graded; students 3/3 done, 0 in flight; \d\d:\d\d elapsed$", lines[-1]
    )


def test_past_three_students_in_flight_the_rest_are_counted() -> None:
    clock = _Clock()
    progress = BatchProgress(
        8, True, students={f"s{i}": 2 for i in range(4)}, stream=io.StringIO(), clock=clock
    )
    for i in range(4):
        progress.begin(f"s{i}", "m1")
    assert progress.line().endswith("4 in flight; 00:00 elapsed: s0 m1 00:00, s1 m1 00:00, s2 m1 00:00, +1")
