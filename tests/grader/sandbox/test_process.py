"""grader.sandbox.process's WorkerProcess, the judge's side of a worker, through a Judge grading small
exercises built in the test: time limits held whatever the student's code blocks, nothing it started
outliving grading, whatever it writes on the channel costing that check only, and the worker's folders
gone when it ends."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from grader.judge import Judge
from grader.sandbox import confinement
from grader.sandbox.process import WorkerProcess
from grader.specs.check import ChoiceCheck
from tests.grader.judge.helpers import alive, exercise, grade, requests, student, value
from tests.hostile.suite import FORGE_SEND, OVERSIZED_REPLIES


def test_an_endless_loop_that_blocks_signals_times_out_and_the_next_check_runs(
    tmp_path: Path, waits: list[tuple[str, float]]
) -> None:
    code = """
    import signal
    def spin():
        for sig in (signal.SIGALRM, signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)
        signal.setitimer(signal.ITIMER_REAL, 0)
        while True:
            try:
                pass
            except BaseException:
                pass
    def f():
        return (1.0, 2.0)
    """
    ex = exercise(value("loop", func="spin", timeout_s=1), value("after"))
    loop, after = grade(ex, student(tmp_path, code))
    assert loop.state == "timeout" and "1" in loop.message
    assert after.state == "passed"
    # the loop cost its own limit once: one more worker, no request waited on past its check's limit
    assert [op for op, _ in waits].count("start") == 2
    assert requests(waits) == [("load", 10), ("call", 1), ("load", 10), ("call", 5)]


def test_time_limits_hold_off_the_main_thread(tmp_path: Path) -> None:
    ex = exercise(value("loop", timeout_s=1))
    path = student(tmp_path, "def f():\n    while True:\n        pass\n")
    seen: list = []
    t = threading.Thread(target=lambda: seen.extend(grade(ex, path)))
    t.start()
    t.join(60)
    assert seen and seen[0].state == "timeout"


@pytest.mark.parametrize("sandbox", [True, False], ids=["bwrap", "limits-only"])
def test_nothing_the_student_started_outlives_grading(tmp_path: Path, sandbox: bool) -> None:
    if sandbox and confinement.find_bwrap()[0] is None:
        pytest.skip("bubblewrap does not work here")
    marker = f"perfkit-sleeper-{os.getpid()}-{sandbox}"
    code = f"""
    import subprocess, sys
    def f():
        for detach in (False, True):
            for _ in range(3):
                subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", {marker!r}],
                                 start_new_session=detach)
        return (1.0, 2.0)
    """
    (o,) = grade(exercise(value()), student(tmp_path, code), sandbox=sandbox)
    assert o.passed, o.message
    deadline = time.monotonic() + 10
    while alive(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not alive(marker)


def test_lines_forged_on_every_descriptor_earn_nothing(tmp_path: Path) -> None:
    code = """
    import json, os
    def f():
        for fd in map(int, os.listdir("/proc/self/fd")):
            for reply in ({"reply": "returned", "value": [1.0, 2.0], "seq": n} for n in range(1, 50)):
                try:
                    os.write(fd, (json.dumps(reply) + "\\n").encode())
                except OSError:
                    pass
        return "nothing"
    """
    ex = exercise(value("a"), value("b"))
    a, b = grade(ex, student(tmp_path, code))
    assert a.points == 0 and b.points == 0


# ---------------------------------------------------------------------------------------------------
# the channel, written by the student's code: whatever it sends costs that check, never the session


def test_a_lone_surrogate_in_a_reply_is_shown_as_text(tmp_path: Path) -> None:
    import json

    code = FORGE_SEND + (
        '_forged.append((b\'{"reply":"loaded","error":{"exc_type":"X","trace":\', '
        "b'\"boom \\\\ud800\"}'))\n"
        "def f():\n    return (1.0, 2.0)\n"
    )
    (o,) = grade(exercise(value()), student(tmp_path, code))
    assert o.state == "error" and "boom \\ud800" in o.message
    json.dumps(o.to_dict(), ensure_ascii=False).encode("utf-8")  # what the reports write


def test_a_string_with_a_lone_surrogate_arrives_escaped(tmp_path: Path) -> None:
    ex = exercise(ChoiceCheck(id="c", points=1, func="f", part="a", expected="a", choices=("a", "b")))
    (o,) = grade(ex, student(tmp_path, "def f():\n    return 'a\\ud800'\n"))
    assert o.state == "wrong" and "\\ud800" in o.message
    o.message.encode("utf-8")


def test_a_reply_nested_too_deep_costs_that_check_and_grading_goes_on(tmp_path: Path) -> None:
    code = """
    import os, sys
    def deep():
        fd = int(sys.argv[sys.argv.index("--fd") + 1])
        os.write(fd, b"[" * 200000 + b"\\n")
        return (1.0, 2.0)
    def f():
        return (1.0, 2.0)
    """
    deep, after = grade(exercise(value("deep", func="deep"), value("after")), student(tmp_path, code))
    assert deep.state == "error" and "not JSON" in deep.message and "RecursionError" in deep.message
    assert after.passed, after.message


def test_an_oversized_reply_is_an_error_read_no_further(
    tmp_path: Path, waits: list[tuple[str, float]]
) -> None:
    """The red team's 60 MB of one-field named tuples took the judge about 90 s a check (a class made for
    each); past a bound of the wire a reply is an error for its check, at once."""
    code = FORGE_SEND + OVERSIZED_REPLIES + "def f():\n    return (1.0, 2.0)\n"
    ex = exercise(
        value("big", func="answer_1a"),
        value("many", func="answer_1b_fp32_bound"),
        value("kinds", func="answer_1b_bf16_bound"),
        value("after"),
    )
    big, many, kinds, after = grade(ex, student(tmp_path, code))
    # each refused within its own request's limit (a slow read would be a timeout, not the error below)
    assert [op for op, _ in requests(waits)].count("call") == 4
    assert all(s <= 10 for _, s in requests(waits))
    for outcome, limit in ((big, "32 MiB a line"), (many, "2,000,000 values"), (kinds, "64 kinds")):
        assert outcome.state == "error" and "over the grader's limit" in outcome.message, outcome.message
        assert limit in outcome.message
    assert after.passed, after.message


@pytest.mark.timeout(120)
def test_a_worker_that_stops_reading_cannot_hold_the_judge_in_send(
    tmp_path: Path, waits: list[tuple[str, float]]
) -> None:
    code = """
    import sys, time
    _Worker = sys.modules["__main__"].Worker
    _real_send = _Worker.send
    def _send(self, message):
        _real_send(self, message)
        if message.get("reply") == "returned":
            time.sleep(3600)  # the reply is out; the next request is never read
    _Worker.send = _send
    def f(text=""):
        return (1.0, 2.0)
    """
    ex = exercise(value("a"), value("b", args=("x" * (8 << 20),), timeout_s=2))
    a, b = grade(ex, student(tmp_path, code))
    assert a.passed, a.message
    assert b.state == "timeout"
    assert requests(waits) == [("load", 10), ("call", 5), ("call", 2)]  # the send counted in b's 2 s


@pytest.mark.parametrize("interrupted", [False, True], ids=["closed", "interrupted"])
def test_grading_leaves_no_folder_in_the_temporary_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, interrupted: bool
) -> None:
    """Every worker's folders (its two files, the unconfined one's HOME) go when it ends: after a check's
    timeout kills one and another starts, and when grading is interrupted by Ctrl-C."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(scratch))
    code = "import time\ndef f():\n    return 2.0\ndef hang():\n    time.sleep(60)\n"
    path = student(tmp_path, code)
    ex = exercise(value("hangs", func="hang", timeout_s=1), value("after", func="f", expected=lambda: 2.0))
    seen: list[list[str]] = []
    real_ask = WorkerProcess.ask

    def ask(self: WorkerProcess, op: str, timeout_s: float, **fields: object) -> object:
        seen.append(sorted(p.name for p in scratch.iterdir()))
        if interrupted and op == "call" and fields.get("func") == "f":
            raise KeyboardInterrupt
        return real_ask(self, op, timeout_s, **fields)

    monkeypatch.setattr(WorkerProcess, "ask", ask)
    for sandbox in (True, False):
        seen.clear()
        with Judge("en", sandbox=sandbox) as judge:
            if interrupted:
                with pytest.raises(KeyboardInterrupt):
                    judge.grade(ex, path)
            else:
                hangs, after = judge.grade(ex, path).outcomes
                assert hangs.state == "timeout" and after.passed
        assert any(any(n.startswith("perfkit-worker-") for n in names) for names in seen)  # it was there
        assert sorted(p.name for p in scratch.iterdir()) == []
