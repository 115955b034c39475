"""grader.judge through small exercises built in the test: odd submissions, limits, confinement, reaping.

Every test writes a student file to a temporary folder and grades it with a Judge, so the student's code
runs where it always runs: in the judge's worker process.
"""

from __future__ import annotations

import os
import subprocess
import textwrap
import threading
import time
from pathlib import Path

import pytest

from grader.judge import Judge, prepare_exercise
from grader.sandbox import confinement, proctree
from grader.sandbox.process import WorkerProcess
from grader.specs.check import ChoiceCheck, Exercise, ValueCheck
from tests.grader.judge.helpers import MODULE, exercise, grade, student, value
from tests.hostile.suite import FORGE_SEND, OVERSIZED_REPLIES


def alive(marker: str) -> list[str]:
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True, check=False).stdout
    return [line for line in out.splitlines() if marker in line and "ps -eo" not in line]


@pytest.fixture()
def waits(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, float]]:
    """Every wait the judge grants its workers, in order: ("start", the startup limit) for each worker
    started, (op, timeout_s) for each request. Their sum bounds how long grading can last whatever the
    machine's load, so the tests below assert it, where they once asserted a wall-clock time."""
    seen: list[tuple[str, float]] = []
    real_start, real_ask = WorkerProcess.start, WorkerProcess.ask

    def start(self: WorkerProcess) -> None:
        seen.append(("start", self.limits.startup_s))
        real_start(self)

    def ask(self: WorkerProcess, op: str, timeout_s: float, **fields: object) -> object:
        seen.append((op, timeout_s))
        return real_ask(self, op, timeout_s, **fields)

    monkeypatch.setattr(WorkerProcess, "start", start)
    monkeypatch.setattr(WorkerProcess, "ask", ask)
    return seen


def requests(waits: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """The waits for requests, leaving out the workers' startups."""
    return [(op, s) for op, s in waits if op != "start"]


needs_bwrap = pytest.mark.skipif(confinement.find_bwrap()[0] is None, reason="bubblewrap does not work here")


def test_missing_and_uncallable_functions(tmp_path: Path) -> None:
    ex = exercise(value("a", func="absent"), value("b", func="f"))
    missing, uncallable = grade(ex, student(tmp_path, "f = 3\n"))
    assert missing.state == "not_attempted" and uncallable.state == "error"
    assert "not a function" in uncallable.message and "int" in uncallable.message


def test_grader_failures_cost_the_check_not_the_session(tmp_path: Path) -> None:
    ex = exercise(value("broken", expected=lambda: 1 / 0), value("fine", expected=lambda: 2.0))
    broken, fine = grade(ex, student(tmp_path, "def f():\n    return 2.0\n"))
    assert broken.state == "error" and "grader itself failed" in broken.message
    assert "ZeroDivisionError" in broken.message
    assert fine.state == "passed" and fine.points == 1.0


def test_expected_values_are_computed_before_any_worker_starts(tmp_path: Path) -> None:
    judge = Judge("en")
    seen: list[int] = []
    ex = exercise(value(expected=lambda: seen.append(len(judge.workers)) or 2.0))
    path = student(tmp_path, "def f():\n    return 2.0\n")
    with judge:
        prepared = prepare_exercise(ex, "en")
        (outcome,) = judge.grade_file(path, prepared)
    assert seen == [0] and outcome.passed


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


def test_an_exit_at_import_costs_that_exercise_with_a_message(tmp_path: Path) -> None:
    ex = exercise(value("a"), value("b"))
    a, b = grade(ex, student(tmp_path, "import os\nos._exit(7)\n"))
    assert a.state == b.state == "error" and "exit status 7" in a.message


def test_the_kit_cannot_be_imported_by_graded_code(tmp_path: Path) -> None:
    code = """
    def f():
        found = []
        for name in ("grader", "perfcore", "solutions"):
            try:
                __import__(name)
                found.append(name)
            except ImportError:
                pass
        return ",".join(found) or "none"
    """
    ex = exercise(
        ChoiceCheck(id="c", points=1, func="f", part="a", expected="none", choices=("none", "grader"))
    )
    for sandbox in (True, False):
        (o,) = grade(ex, student(tmp_path, code), sandbox=sandbox)
        assert o.passed, o.message


@needs_bwrap
def test_in_the_sandbox_nothing_outside_the_folder_is_there(tmp_path: Path) -> None:
    kit = Path(__file__).resolve().parents[3]
    decoy = tmp_path.parent / f"decoy-{tmp_path.name}.txt"
    decoy.write_text("keep me")
    code = f"""
    import os
    def f():
        seen = []
        for path in ({str(kit / "solutions" / "ex01_ridge_point.py")!r}, {str(decoy)!r}, "/etc/shadow",
                     {str(kit / "grader" / "judge.py")!r}):
            try:
                open(path).read(1)
                seen.append(path)
            except OSError:
                pass
        try:
            os.remove({str(decoy)!r})
        except OSError:
            pass
        return ",".join(seen) or "none"
    """
    ex = exercise(ChoiceCheck(id="c", points=1, func="f", part="a", expected="none", choices=("none", "x")))
    (o,) = grade(ex, student(tmp_path, code))
    assert o.passed, o.message
    assert decoy.read_text() == "keep me"


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


def test_printed_output_is_shown_with_an_error(tmp_path: Path) -> None:
    code = "def f():\n    print('looking at x')\n    raise ValueError('bad x')\n"
    (o,) = grade(exercise(value()), student(tmp_path, code))
    assert o.state == "error" and "bad x" in o.message and "looking at x" in o.message
    assert "grader/judge.py" not in o.message and "/worker.py" not in o.message


def test_a_helper_module_beside_the_file_imports(tmp_path: Path) -> None:
    (tmp_path / "helper98.py").write_text("PAIR = (1.0, 2.0)\n")
    (o,) = grade(
        exercise(value()), student(tmp_path, "from helper98 import PAIR\ndef f():\n    return PAIR\n")
    )
    assert o.passed, o.message


@needs_bwrap
def test_nothing_can_be_planted_beside_the_exercise_files(tmp_path: Path) -> None:
    code = """
    import os
    def f():
        planted = []
        for name in ("results.json", "conftest.py", "helper.py"):
            try:
                with open(name, "w") as fh:
                    fh.write("x")
                planted.append(name)
            except OSError:
                pass
        try:
            os.symlink("/etc/passwd", "out.json")
            planted.append("out.json")
        except OSError:
            pass
        with open("/tmp/scratch.txt", "w") as fh:  # its own /tmp is writable
            fh.write("fine")
        return ",".join(planted) or "none"
    """
    ex = exercise(ChoiceCheck(id="c", points=1, func="f", part="a", expected="none", choices=("none", "x")))
    (o,) = grade(ex, student(tmp_path, code))
    assert o.passed, o.message
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{MODULE}.py"]


@pytest.mark.parametrize("sandbox", [True, False], ids=["bwrap", "limits-only"])
def test_a_course_may_allow_perfcore(tmp_path: Path, sandbox: bool) -> None:
    if sandbox and confinement.find_bwrap()[0] is None:
        pytest.skip("bubblewrap does not work here")
    code = """
    import perfcore
    def f():
        return float(perfcore.ridge_point(perfcore.A100, "fp32"))
    """
    import perfcore

    expected = float(perfcore.ridge_point(perfcore.A100, "fp32"))
    ex = exercise(value("allowed", expected=lambda: expected))
    (allowed,) = grade(ex, student(tmp_path, code), sandbox=sandbox, allow=("perfcore",))
    assert allowed.passed, allowed.message
    (denied,) = grade(ex, student(tmp_path, code), sandbox=sandbox)
    assert denied.state == "error" and "perfcore" in denied.message
    with pytest.raises(ValueError, match="perfcore and grader only"):
        Judge("en", allow=("solutions",))


def test_the_reference_is_pinned_from_the_first_measurement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reference process starts on first use; it must be on the worker's core for the first check too
    (it once ran unpinned there, on an idle core, while the worker shared its core with other work)."""
    if not hasattr(os, "sched_getaffinity"):
        pytest.skip("no CPU affinity on this OS")
    checks = tmp_path / "pin_checks.py"
    checks.write_text(
        textwrap.dedent(
            """
            from grader.specs.requirements import Requirements
            from grader.specs.check import Exercise, MeasurementCheck

            EXERCISE = Exercise(id="pin", module="pin_student", title_zh="钉", title_en="Pin", checks=(
                MeasurementCheck(id="m", part="a", points=1, func="rate", kind="dram", reference=lambda: 100.0,
                                 requires=Requirements(), single_thread=False),
            ))
            """
        ),
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    module = importlib.import_module("pin_checks")
    folder = tmp_path / "student"
    folder.mkdir()
    # a figure read from a clock, as every measuring call's must be (grader.judge.runners.readings)
    student = "import time\ndef rate():\n    time.perf_counter()\n    return 101.0\n"
    (folder / "pin_student.py").write_text(student, encoding="utf-8")
    with Judge("en", extra_checks=("pin_checks",)) as judge:
        (outcome,) = judge.grade(module.EXERCISE, folder / "pin_student.py").outcomes
        # 1.01x perfcore's: passed, or deferred where the machine was too busy to measure; never wrong
        assert outcome.state == "passed" or (outcome.state == "skipped" and outcome.deferred), outcome.message
        reference = os.sched_getaffinity(judge.reference().start())
        worker = judge.workers[os.path.realpath(folder)]
        assert worker.proc is not None and len(reference) == 1
        assert os.sched_getaffinity(worker.proc.pid) == reference


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


def budgeted(*checks: ValueCheck) -> Exercise:
    """An exercise whose time budget is 3 s of import and 1 s a check."""
    return Exercise(
        id="ex97", module=MODULE, title_zh="预算", title_en="Budget", checks=checks, import_timeout_s=3
    )


def test_an_exercise_has_a_time_budget_for_all_its_checks(
    tmp_path: Path, waits: list[tuple[str, float]]
) -> None:
    """An import that takes nearly its limit and functions that hang: each timeout kills the worker and the
    next check pays the import again. The exercise's budget (3 s of import + 4 x 1 s) ends that."""
    from grader.judge import time_budget_s

    ex = budgeted(*(value(c, timeout_s=1) for c in "abcd"))
    assert time_budget_s(ex) == 7
    code = "import time\ntime.sleep(2)\ndef f():\n    while True:\n        time.sleep(1)\n"
    a, b, c, d = grade(ex, student(tmp_path, code))
    assert a.state == b.state == "timeout" and "time limit of 1 s" in a.message
    assert (
        c.state == "timeout"
        and "the import of ex98_judge.py used up the time budget of ex97, 7 s" in c.message
    )
    assert d.state == "timeout" and "is used up: this check was not run" in d.message
    # two checks paid the import and their limit, the third import ended the budget, d asked nothing
    asked = requests(waits)
    assert [op for op, _ in asked] == ["load", "call", "load", "call", "load"], waits
    assert all(s <= limit for (_, s), limit in zip(asked, (3, 1, 3, 1, 3), strict=True)), waits
    assert [op for op, _ in waits].count("start") == 3, waits


def test_an_honest_slow_submission_fits_its_budget(tmp_path: Path) -> None:
    ex = budgeted(*(value(c, timeout_s=1) for c in "abcd"))
    code = "import time\ntime.sleep(2)\ndef f():\n    time.sleep(0.5)\n    return (1.0, 2.0)\n"
    outcomes = grade(ex, student(tmp_path, code))
    assert all(o.passed for o in outcomes), [o.message for o in outcomes]


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
        before = judge.cpu_reading(str(path))
        reply = judge.call(p, str(path), (), {}, 30)
        used = judge.cpu_since(str(path), before)
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


def test_a_budget_spent_after_a_check_deferred_for_the_machine_is_deferred_too(tmp_path: Path) -> None:
    """bench_decided beside two gradings: m5a's calls ran past their limits on a core others held (deferred),
    and m5b then found m5's budget spent, a timeout of an honest method. A budget spent after a check of the
    exercise was deferred is the busy machine's doing: deferred, with why; without one it stays a timeout."""
    from grader.judge.verdicts import Verdict
    from grader.results.outcome import State

    ex = budgeted(value("a", timeout_s=1))
    path = os.path.realpath(student(tmp_path, "def f():\n    return (1.0, 2.0)\n"))
    with Judge("en") as judge:
        judge.student.spent[(path, ex.id)] = 100.0  # the budget (3 s + 1 s) long spent
        with pytest.raises(Verdict) as spent:
            judge.student.budget_left(ex, path)
        assert spent.value.state == State.TIMEOUT and not spent.value.deferred
        judge.student.deferred_in.add((path, ex.id))
        with pytest.raises(Verdict) as busy:
            judge.student.budget_left(ex, path)
        assert busy.value.deferred and busy.value.state == State.SKIPPED
        assert "is used up" in busy.value.message and "busy machine" in busy.value.message
        (outcome,) = judge.grade(ex, path).outcomes  # the whole check, as the judge reports it
        assert outcome.state == "skipped" and "deferred" in outcome.message


def test_a_deferred_check_is_noted_for_its_exercises_budget(tmp_path: Path, monkeypatch) -> None:
    from grader.judge import core
    from grader.judge.verdicts import Verdict
    from grader.results.outcome import State

    def deferring(judge, p, path):  # noqa: ANN001, ANN202 - a runner whose rounds the machine left undecided
        raise Verdict(State.SKIPPED, "the machine was busy", deferred=True)

    monkeypatch.setattr(core, "runner_for", lambda check: deferring)
    ex = budgeted(value("a", timeout_s=1))
    path = student(tmp_path, "def f():\n    return (1.0, 2.0)\n")
    with Judge("en") as judge:
        (outcome,) = judge.grade(ex, path).outcomes
        assert outcome.state == "skipped"
        assert (os.path.realpath(path), ex.id) in judge.student.deferred_in
