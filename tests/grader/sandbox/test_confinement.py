"""grader.sandbox.confinement as the batch grader uses it: exit statuses and limits read right, a kit or a
worker under /tmp (where CI clones) still visible inside the sandbox, and the CPU-time limit (enforced by the
judge from outside, issue 37) stopping a tree that spins on every thread and process while the worker's
``time.process_time()`` keeps its sub-millisecond resolution."""

from __future__ import annotations

import shutil
import signal
import sys
import time
from pathlib import Path

import pytest

from grader.sandbox import confinement, cputime, messages, process, proctree
from grader.sandbox.confinement import Limits, describe_exit
from grader.sandbox.process import WorkerProcess
from tests.grader.batch.helpers import (
    BWRAP,
    EX01_POINTS,
    SOLUTIONS,
    WHY_NO_BWRAP,
)


def test_exit_statuses_and_limits_are_read_right():
    assert describe_exit(128 + signal.SIGXCPU, sandboxed=True) == ("cpu", "")
    assert describe_exit(-signal.SIGXFSZ, sandboxed=False) == ("output", "")
    assert describe_exit(-signal.SIGKILL, sandboxed=False) == ("signal", "SIGKILL")
    assert describe_exit(0, sandboxed=True) == ("exit", "0")
    with pytest.raises(ValueError, match="Limits.memory_bytes"):
        Limits(memory_bytes=0)
    with pytest.raises(ValueError, match="Limits.grace_s"):
        Limits(grace_s=-1)


def test_a_kit_under_tmp_stays_visible_in_the_sandbox(monkeypatch, tmp_path):
    """The sandbox's private /tmp must not hide an interpreter or a checkout that lives under /tmp (CI
    clones into one): they are bound back read-only after it, and a kit installed inside a bound
    site-packages is covered again after that; the checkout's own solutions/ is never bound."""
    clone = tmp_path / "clone"
    venv = clone / ".venv"
    installed = venv / "lib" / "site-packages" / "grader"
    installed.mkdir(parents=True)
    (clone / "solutions").mkdir()
    monkeypatch.setattr(confinement, "interpreter_paths", lambda python=sys.executable: [str(venv)])
    kit = [str(installed), str(clone / "solutions")]
    monkeypatch.setattr(
        confinement,
        "kit_packages",
        lambda names=None: [p for p in kit if names is None or Path(p).name in names],
    )
    cmd = confinement.bwrap_command("bwrap", str(tmp_path / "copy"), str(tmp_path / "runtime"))
    pairs = list(zip(cmd, cmd[1:], strict=False))
    private_tmp = pairs.index(("--tmpfs", "/tmp"))
    assert pairs.index(("--ro-bind", str(venv))) > private_tmp  # bound back after the private /tmp
    assert pairs.index(("--tmpfs", str(installed))) > pairs.index(("--ro-bind", str(venv)))  # then covered
    assert str(clone / "solutions") not in cmd
    assert pairs.index(("--ro-bind", str(tmp_path / "runtime"))) > private_tmp
    folder = [
        i
        for i, pair in enumerate(pairs)
        if pair in (("--bind", str(tmp_path / "copy")), ("--ro-bind", str(tmp_path / "copy")))
    ]
    assert folder and folder[0] > private_tmp


def test_the_worker_under_tmp_runs_in_the_sandbox(tmp_path):
    """A real worker whose folder and runtime files are under /tmp starts and is graded inside bwrap."""
    if BWRAP is None:
        pytest.skip(f"only bubblewrap can do this, and {WHY_NO_BWRAP}")
    from grader import grade

    folder = tmp_path / "student"
    folder.mkdir()
    shutil.copy(SOLUTIONS / "ex01_ridge_point.py", folder)
    assert grade(folder / "ex01_ridge_point.py", "ex01", lang="en").score == EX01_POINTS


# ---------------------------------------------------------------------------------------------------
# the CPU-time limit, enforced by the judge from outside, and the worker's process clock it leaves fine

#: A ~1 ms loop timed with ``time.process_time`` seven times, and the worker's RLIMIT_CPU (issue 37: with
#: the launcher's RLIMIT_CPU set, six of seven such readings were 0.0 and one 3.99 ms).
CLOCKS = """
import resource, time

def readings():
    out = []
    for _ in range(7):
        start = time.process_time()
        total = 0
        for i in range(25000):
            total += i
        out.append(time.process_time() - start)
    return out

def cpu_rlimit():
    return resource.getrlimit(resource.RLIMIT_CPU)[0]
"""

#: Spinners on three threads and two forked processes besides the calling thread: five CPUs' worth, far
#: more than any one process's CPU time, for as long as nothing kills them.
SPINNER = """
import os, threading

def _burn():
    while True:
        pass

def spin():
    for _ in range(3):
        threading.Thread(target=_burn, daemon=True).start()
    for _ in range(2):
        if os.fork() == 0:
            _burn()
    _burn()
"""


def _worker(folder: Path, source: str, limits: Limits, bwrap: str | None) -> WorkerProcess:
    (folder / "student.py").write_text(source, encoding="utf-8")
    worker = WorkerProcess(str(folder), limits=limits, bwrap=bwrap)
    loaded = worker.ask("load", 60, module="student", file="student.py")
    assert isinstance(loaded, messages.Loaded) and loaded.error is None, loaded
    return worker


@pytest.mark.parametrize("sandbox", [True, False], ids=["bwrap", "unconfined"])
def test_process_time_in_the_worker_has_sub_millisecond_resolution(tmp_path: Path, sandbox: bool) -> None:
    """Issue 37: every reading of a ~1 ms loop is above 0 and below one 4 ms tick, and the launcher set no
    RLIMIT_CPU (the worker keeps the judge's own), where the judge limits the CPU time itself."""
    if sandbox and BWRAP is None:
        pytest.skip(f"only bubblewrap can do this, and {WHY_NO_BWRAP}")
    if not cputime.READS_TREES:
        pytest.skip("the judge reads no process tree here, so the launcher still sets RLIMIT_CPU")
    import resource  # POSIX only, as the judge's reading is

    worker = _worker(tmp_path, CLOCKS, Limits(), BWRAP if sandbox else None)
    try:
        got = worker.ask("call", 60, module="student", func="readings", args=[], kwargs={})
        limit = worker.ask("call", 60, module="student", func="cpu_rlimit", args=[], kwargs={})
    finally:
        worker.close()
    assert isinstance(got, messages.Returned) and isinstance(limit, messages.Returned)
    assert len(got.value) == 7 and all(0 < s < 0.004 for s in got.value), got.value
    assert limit.value == resource.getrlimit(resource.RLIMIT_CPU)[0]


@pytest.mark.parametrize("grouped", [True, False], ids=["cgroup", "no-cgroup"])
def test_the_cpu_limit_kills_a_tree_spinning_on_threads_and_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, grouped: bool
) -> None:
    """The judge reads the whole tree's CPU time while it waits, and kills it once past ``Limits.cpu_s``
    (1 s here), long before the call's own time limit; with the tree's cgroup and, where none can be made,
    by the tree's processes; and every process of it is gone afterwards."""
    if not cputime.READS_TREES:
        pytest.skip("the judge reads no process tree here")
    if not grouped:
        monkeypatch.setattr(process.Group, "make", classmethod(lambda cls: None))
    worker = _worker(tmp_path, SPINNER, Limits(cpu_s=1), BWRAP)
    if not grouped:
        assert worker.group is None
    assert worker.proc is not None
    tree = proctree.identities([worker.proc.pid, *proctree.descendants(worker.proc.pid)])
    start = time.monotonic()
    try:
        with pytest.raises(messages.WorkerFailure) as failed:
            worker.ask("call", 120, module="student", func="spin", args=[], kwargs={})
    finally:
        worker.close()
    assert failed.value.kind == "cpu", failed.value
    assert time.monotonic() - start < 60  # the limit stopped it, not the call's 120 s
    assert tree and not [one for one in tree if proctree.identity(one[0]) == one]


def test_the_cpu_limit_is_told_as_the_cpu_time_limit(tmp_path: Path) -> None:
    """Through the judge, as a student sees it: the check's verdict is the "used up its CPU-time limit"
    one that a SIGXCPU gave before, not a timeout and not a crash."""
    if not cputime.READS_TREES:
        pytest.skip("the judge reads no process tree here")
    from grader.judge import Judge
    from grader.specs.check import Exercise, ValueCheck

    (tmp_path / "spinner.py").write_text(SPINNER, encoding="utf-8")
    check = ValueCheck(id="v", points=1, func="spin", part="a", expected=lambda: 1.0, timeout_s=120)
    exercise = Exercise(id="spinner", module="spinner", title_zh="转", title_en="Spin", checks=(check,))
    with Judge("en", sandbox=BWRAP is not None, limits=Limits(cpu_s=1)) as judge:
        (outcome,) = judge.grade(exercise, tmp_path / "spinner.py").outcomes
    assert outcome.state == "error" and "used up its CPU-time limit" in outcome.message, outcome.message


def test_where_the_judge_reads_no_tree_the_launcher_limits_the_cpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fallback (macOS: no ``/proc``): the launcher sets RLIMIT_CPU again, the spinning worker dies by
    SIGXCPU, and that reads as the same CPU-time failure."""
    if not confinement.HAS_RLIMITS:
        pytest.skip("no rlimits here")
    monkeypatch.setattr(cputime, "READS_TREES", False)
    assert confinement.launcher(sys.executable, Limits(cpu_s=1), cuda=False)[5] == "1"
    worker = _worker(tmp_path, SPINNER, Limits(cpu_s=1), BWRAP)
    assert worker.cpu_start is None  # the judge does not poll
    try:
        with pytest.raises(messages.WorkerFailure) as failed:
            worker.ask("call", 120, module="student", func="spin", args=[], kwargs={})
    finally:
        worker.close()
    assert failed.value.kind == "cpu", failed.value


#: The limit attacked (1): the spinning is done by a grandchild detached with ``setsid`` whose parent has
#: exited, so that it is no longer below the worker by parent links; only the tree's cgroup still holds it.
ORPHAN_SPINNER = """
import os, time

def spin():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            while True:
                pass
        os._exit(0)
    time.sleep(600)
"""

#: The limit attacked (2): bytes trickle into the judge's channel (a byte at a time, never a whole line, far
#: below the line limit before the CPU limit is reached) from a loop that is itself the CPU burner, beside
#: a forked one (no GIL shared with the sender), so that the judge's wait nearly always finds something to
#: read.
TRICKLING_SPINNER = """
import os, socket, stat

def spin():
    channels = []
    for fd in range(3, 64):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                channels.append(socket.socket(fileno=os.dup(fd)))
        except OSError:
            pass
    if os.fork() == 0:
        while True:
            pass
    while True:
        for channel in channels:
            channel.send(b" ")
"""


def test_the_cpu_limit_counts_a_detached_orphan_through_the_cgroup(tmp_path: Path) -> None:
    """A spinning process that left the tree by its parent links is still in the tree's cgroup, whose CPU
    time the judge reads: the worker is killed for CPU time, and the orphan with it. (Where no cgroup can
    be made, such an orphan is not read; it is bounded by the wall-clock limits and killed when the
    worker ends, :func:`grader.sandbox.reaping.reap`.)"""
    if not cputime.READS_TREES:
        pytest.skip("the judge reads no process tree here")
    worker = _worker(tmp_path, ORPHAN_SPINNER, Limits(cpu_s=1), BWRAP)
    if worker.group is None:
        worker.close()
        pytest.skip("no writable cgroup2 hierarchy here: an orphan is bounded by the wall-clock limits")
    try:
        with pytest.raises(messages.WorkerFailure) as failed:
            worker.ask("call", 120, module="student", func="spin", args=[], kwargs={})
    finally:
        worker.close()
    assert failed.value.kind == "cpu", failed.value


def test_the_cpu_limit_holds_while_bytes_trickle_into_the_channel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The judge reads the tree's CPU time when it is due whether or not its wait found bytes to read. The
    wait is made to find some every time (its ``select`` always says ready, and the trickle fills each
    read), which no machine's timing can spoil: the worker is killed for CPU time, not at the call's
    limit."""
    if not cputime.READS_TREES:
        pytest.skip("the judge reads no process tree here")
    worker = _worker(tmp_path, TRICKLING_SPINNER, Limits(cpu_s=1), BWRAP)
    monkeypatch.setattr(process.select, "select", lambda r, w, x, timeout=None: (list(r), [], []))
    start = time.monotonic()
    try:
        with pytest.raises(messages.WorkerFailure) as failed:
            worker.ask("call", 30, module="student", func="spin", args=[], kwargs={})
    finally:
        monkeypatch.undo()
        worker.close()
    assert failed.value.kind == "cpu", failed.value
    assert time.monotonic() - start < 20


#: CPU work of a given number of CPU seconds, then a figure.
WORK = """
import time

def work(seconds):
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass
    return 1.0
"""


def test_the_cpu_limit_holds_per_file_graded(tmp_path: Path) -> None:
    """As RLIMIT_CPU held for each file's own process: the calls of one loaded file add up against the
    limit, and loading a file again (the next exercise of a folder, a notebook's cell graded again) starts
    the count afresh, so a long session is not killed for the work of the files before."""
    if not cputime.READS_TREES:
        pytest.skip("the judge reads no process tree here")
    worker = _worker(tmp_path, WORK, Limits(cpu_s=1), BWRAP)
    try:
        first = worker.ask("call", 60, module="student", func="work", args=[0.7], kwargs={})
        assert isinstance(first, messages.Returned), first
        again = worker.ask("load", 60, module="student", file="student.py")
        assert isinstance(again, messages.Loaded) and again.error is None, again
        second = worker.ask("call", 60, module="student", func="work", args=[0.7], kwargs={})
        assert isinstance(second, messages.Returned), second  # 1.4 s in all: under the limit per file
        with pytest.raises(messages.WorkerFailure) as failed:  # 1.4 s since this file's load: over it
            worker.ask("call", 60, module="student", func="work", args=[0.7], kwargs={})
    finally:
        worker.close()
    assert failed.value.kind == "cpu", failed.value
