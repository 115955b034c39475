"""grader.sandbox.worker: its own pieces, tested directly (the capped text stream a call's output is kept in,
and the traceback a student is shown, cut to the student's own frames), and its fork per file through a
Judge (each file's process fresh, whatever the file before did to it)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from grader.judge import Judge, prepare_exercise
from grader.sandbox import proctree, worker
from grader.specs.check import Exercise
from tests.grader.judge.helpers import exercise, student, value


def student_module(folder: Path, source: str, name: str = "student_code") -> ModuleType:
    """``source`` as the student's file ``folder/<name>.py``, imported."""
    path = folder / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"_test_worker_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def raised(call) -> BaseException:
    try:
        call()
    except BaseException as exc:  # noqa: BLE001 - whatever the student's code raised
        return exc
    raise AssertionError("the student's code raised nothing")


def test_the_capped_stream_keeps_the_first_characters_and_takes_every_write() -> None:
    stream = worker._Capped()
    assert stream.writable()
    assert stream.write("ab") == 2 and stream.write(12) == 2  # anything written is kept as its text
    print("x" * worker.wire.MAX_TEXT, file=stream)  # past the cap: taken whole, kept up to it
    assert stream.write("more") == 4
    kept = stream.value()
    assert len(kept) == stream.size == worker.wire.MAX_TEXT
    assert kept.startswith("ab12x") and "more" not in kept


def test_a_students_trace_shows_only_the_students_frames_by_their_own_names(tmp_path: Path) -> None:
    folder = tmp_path.resolve()
    code = student_module(
        folder, "def inner(n):\n    raise ValueError(f'bad n={n}')\n\ndef outer():\n    inner(3)\n"
    )
    trace = worker._student_trace(raised(code.outer), str(folder))
    assert 'File "student_code.py", line 5, in outer' in trace
    assert 'File "student_code.py", line 2, in inner' in trace
    assert trace.endswith("ValueError: bad n=3")
    assert __file__ not in trace and str(folder) not in trace  # no frame of this test, no private folder
    assert len(trace) <= worker.wire.MAX_TEXT


def test_a_runaway_recursion_keeps_its_first_and_last_frames(tmp_path: Path) -> None:
    """Frames that differ (two functions calling each other: Python folds only a line repeated in a row)
    are cut to :data:`~grader.sandbox.worker.MAX_TRACE_FRAMES`, the first three and the last ones."""
    folder = tmp_path.resolve()
    code = student_module(
        folder,
        "def ping(n):\n    return pong(n)\n\ndef pong(n):\n    return ping(n + 1) if n < 20 else 1 / 0\n",
    )
    trace = worker._student_trace(raised(lambda: code.ping(0)), str(folder))
    assert trace.count('File "student_code.py"') == worker.MAX_TRACE_FRAMES
    assert f"... {42 - worker.MAX_TRACE_FRAMES} frames ..." in trace
    assert trace.splitlines()[0].strip().startswith('File "student_code.py", line 2, in ping')
    assert trace.endswith("ZeroDivisionError: division by zero")


def test_an_exception_whose_text_cannot_be_made_still_ends_its_trace(tmp_path: Path) -> None:
    folder = tmp_path.resolve()
    code = student_module(
        folder,
        "class Odd(Exception):\n    def __str__(self):\n        raise RuntimeError('no text')\n\n"
        "def f():\n    raise Odd()\n",
    )
    trace = worker._student_trace(raised(code.f), str(folder))
    assert 'File "student_code.py", line 6, in f' in trace
    assert "Odd" in trace.splitlines()[-1] and "no text" not in trace


def test_the_workers_kit_is_its_own_copy_loaded_under_private_names() -> None:
    assert "_perfkit_wire" in sys.modules and worker.wire is sys.modules["_perfkit_wire"]


# ---------------------------------------------------------------------------------------------------
# the fork per file, through a Judge: each file's process fresh whatever the file before did


#: An import that leaves every kind of process state behind: no descriptor left, umask, environment, a
#: signal handler, a module replaced in sys.modules, a thread spinning.
LEAVES_STATE = """
import os, resource, signal, sys, threading
_, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, hard), hard))
_held = []
try:
    while True:
        _held.append(os.open(os.devnull, os.O_RDONLY))
except OSError:
    pass
os.umask(0o777)
os.environ["PERFKIT_LEFT_BEHIND"] = "1"
signal.signal(signal.SIGTERM, signal.SIG_IGN)
sys.modules["json"] = None
threading.Thread(target=lambda: [None for _ in iter(int, 1)], daemon=True).start()
def f():
    return (1.0, 2.0)
"""


#: A file that returns the right answer only in a process with none of LEAVES_STATE's state, and its own
#: process's CPU time after a burst of work.
CLEAN = """
import json, os, signal, sys, threading, time
def f():
    files = [os.open(os.devnull, os.O_RDONLY) for _ in range(300)]
    for fd in files:
        os.close(fd)
    mask = os.umask(0o022)
    clean = (
        mask != 0o777
        and "PERFKIT_LEFT_BEHIND" not in os.environ
        and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
        and json.loads("[1]") == [1]
        and threading.active_count() == 1
        and not any(name.startswith("_perfkit_student_ex97") for name in sys.modules)
    )
    return (1.0, 2.0) if clean else (0.0, 0.0)
def burn():
    start = time.process_time()
    while time.process_time() - start < 0.2:
        pass
    return time.process_time()
"""


@pytest.mark.parametrize("sandbox", [True, False], ids=["bwrap", "unconfined"])
def test_one_files_process_state_does_not_reach_the_next_file(tmp_path: Path, sandbox: bool) -> None:
    """Each file is served by a fresh process forked from the worker the judge started: the file before
    left no descriptor short, no umask, variable, handler, module or thread; the same worker serves both
    (nothing restarted); and the CPU time the file's process spends is in the judge's reading of the
    worker's tree."""
    first = Exercise(
        id="ex97",
        module="ex97_leaves",
        title_zh="状态",
        title_en="State",
        checks=(value(),),
        import_timeout_s=10,
    )
    second = exercise(value(), value("burn", func="burn", expected=lambda: 1.0, rtol=None))
    (tmp_path / "ex97_leaves.py").write_text(LEAVES_STATE, encoding="utf-8")
    path = student(tmp_path, CLEAN)
    with Judge("en", sandbox=sandbox) as judge:
        (leaves,) = judge.grade(first, tmp_path / "ex97_leaves.py").outcomes
        assert leaves.passed, leaves.message
        worker = judge.worker(str(tmp_path))
        assert worker.proc is not None
        pid = worker.proc.pid
        (clean,) = judge.grade(second, path, checks=["v"]).outcomes
        assert clean.passed, clean.message
        assert worker.alive and worker.proc.pid == pid  # one worker: a process forked per file
        p = prepare_exercise(second, "en")[1]
        before = judge.sides.cpu_reading(str(path))
        reply = judge.sides.call(p, str(path), (), {}, 30)
        used = judge.sides.cpu_since(str(path), before)
    assert used is not None and used.complete
    assert used.seconds >= 0.2 - used.resolution and reply.value >= 0.2


#: A function that stops or kills every other process of its parent (the worker's next file's process,
#: forked ahead and waiting) and leaves one of its own running, detached.
SIBLINGS = """
import os, signal, subprocess, sys
def f():
    me, parent = os.getpid(), os.getppid()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == parent and int(name) != me:
            os.kill(int(name), getattr(signal, SIGNAL))
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    return (1.0, 2.0)
"""


@pytest.mark.parametrize("sandbox", [True, False], ids=["bwrap", "unconfined"])
@pytest.mark.parametrize("signame", ["SIGSTOP", "SIGKILL", "SIGTERM"])
def test_the_next_files_process_is_fresh_whatever_the_file_before_did_to_it(
    tmp_path: Path, signame: str, sandbox: bool
) -> None:
    first = Exercise(
        id="ex97",
        module="ex97_siblings",
        title_zh="兄弟",
        title_en="Siblings",
        checks=(value(),),
        import_timeout_s=10,
    )
    (tmp_path / "ex97_siblings.py").write_text(f"SIGNAL = {signame!r}\n" + SIBLINGS, encoding="utf-8")
    path = student(tmp_path, "def f():\n    return (1.0, 2.0)\n")
    with Judge("en", sandbox=sandbox) as judge:
        (before,) = judge.grade(first, tmp_path / "ex97_siblings.py").outcomes
        (after,) = judge.grade(exercise(value()), path).outcomes
        worker = judge.worker(str(tmp_path))
        assert worker.proc is not None
        below = proctree.descendants(worker.proc.pid)
    assert before.passed, before.message
    assert after.passed, after.message
    assert not any("time.sleep(60)" in " ".join(_cmdline(pid)) for pid in below)  # ended with its file


def _cmdline(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode("utf-8", "replace").split("\0")
    except OSError:
        return []
