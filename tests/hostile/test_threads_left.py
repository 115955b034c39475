"""Threads a check's call leaves running never run during the next check (grader.sandbox.messages.threads_left,
grader.judge.core): the worker counts, with each reply, the threads the student's code left running, and
the judge imports the file afresh, in a process of its own, before its next request. So a thread left by
one check cannot steal the next check's CPU, read or rewrite what the next check is handed, or kill the
process in the middle of the next call (a CI run saw the last: a thread cutting its own buffers killed its
worker with SIGBUS during the check after).

Each submission below passes the second check only where it runs in a process where the first check's
thread is not running: its ``second`` adds the count of the threads it can see.
"""

from __future__ import annotations

import importlib
import textwrap
from pathlib import Path

import pytest

from grader.judge.core import Judge
from grader.results.outcome import State

CHECKS = """
from grader.specs.check import Exercise, ValueCheck

EXERCISE = Exercise(
    id="lingering",
    module="lingering_student",
    title_zh="线程",
    title_en="Threads",
    checks=(
        ValueCheck(id="first", part="a", points=1, func="first", expected=lambda: 4, args=(2,)),
        ValueCheck(id="second", part="b", points=1, func="second", expected=lambda: 4, args=(2,)),
    ),
)
"""

#: ``second`` is honest only where no thread of ``first`` runs beside it.
SECOND = """
import sys

def second(x):
    return 2 * x + len(sys._current_frames()) - 1
"""

STARTS = {
    # a daemon thread of threading's, sleeping through the next check
    "threading": "import threading, time\n"
    "def first(x):\n"
    "    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
    "    return 2 * x\n",
    # a thread of the low-level _thread module, which threading.enumerate() does not list
    "_thread": "import _thread, time\n"
    "def _sleep():\n"
    "    time.sleep(60)\n"
    "def first(x):\n"
    "    _thread.start_new_thread(_sleep, ())\n"
    "    return 2 * x\n",
    # a thread started by a call that then raises: the error is the first check's, the thread still goes
    "raising": "import threading, time\n"
    "def first(x):\n"
    "    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
    "    raise RuntimeError('after starting a thread')\n",
}


def grade(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: str) -> dict:
    """{check id: outcome} of the two checks above, graded by a real judge and worker."""
    (tmp_path / "lingering_checks.py").write_text(textwrap.dedent(CHECKS), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("lingering_checks")
    folder = tmp_path / "student"
    folder.mkdir()
    (folder / "lingering_student.py").write_text(code, encoding="utf-8")
    with Judge("en", extra_checks=("lingering_checks",)) as judge:
        outcomes = judge.grade(module.EXERCISE, folder / "lingering_student.py").outcomes
    return {o.check_id: o for o in outcomes}


@pytest.mark.parametrize("start", sorted(STARTS))
def test_a_thread_left_by_one_check_is_gone_before_the_next(tmp_path, monkeypatch, start) -> None:
    got = grade(tmp_path, monkeypatch, STARTS[start] + SECOND)
    if start == "raising":
        assert got["first"].state == State.ERROR and "after starting a thread" in got["first"].message
    else:
        assert got["first"].state == State.PASSED, got["first"].message
    assert got["second"].state == State.PASSED, got["second"].message


def test_the_count_sees_a_thread_started_at_import(tmp_path, monkeypatch) -> None:
    """A thread the file starts when imported runs in every process of the file: each check still passes
    (each import is a new process, whose own thread is the only one), and no check waits on it."""
    code = (
        "import threading, time\n"
        "threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
        "def first(x):\n    return 2 * x\n"
        "import sys\n"
        "def second(x):\n    return 2 * x + len(sys._current_frames()) - 2\n"
    )
    got = grade(tmp_path, monkeypatch, code)
    assert got["first"].state == State.PASSED and got["second"].state == State.PASSED, got


def test_a_file_that_leaves_no_thread_keeps_its_process(tmp_path, monkeypatch) -> None:
    """No thread left: the second check runs in the process the first ran in (it sees the first's call)."""
    code = "CALLED = []\ndef first(x):\n    CALLED.append(x)\n    return 2 * x\n"
    code += "def second(x):\n    return 2 * x if CALLED else -1\n"
    got = grade(tmp_path, monkeypatch, code)
    assert got["second"].state == State.PASSED, got["second"].message


def test_a_count_forged_to_zero_keeps_only_the_forgers_own_thread(tmp_path, monkeypatch) -> None:
    """The count is read in the student's process, so the student can forge it (the defence attacked): the
    thread then runs on in the file's process, as before this defence, and costs only the forger's own
    next check (here its ``second`` sees the thread and is wrong). The judge is not reached: its next
    request is answered as any other, and the count gains no point."""
    code = (
        "import sys, threading, time\n"
        "def first(x):\n"
        "    sys.modules['_perfkit_messages'].threads_left = lambda started: 0\n"
        "    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
        "    return 2 * x\n"
    ) + SECOND
    got = grade(tmp_path, monkeypatch, code)
    assert got["first"].state == State.PASSED, got["first"].message
    assert got["second"].state == State.WRONG and got["second"].points == 0, got["second"].message
