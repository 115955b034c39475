"""Batch grading (``python -m grader grade``) and the Gradescope bundle, with hostile submissions.

One batch of students is graded once (module fixture) on exercises 1 and 2: a full solution, the stubs, a
file linked to the kit's solution, and every case of ``tests/hostile/cases.py``. Each must get exactly the
points it earned, with a clear state, and nothing they do may change another student's grade. The cases
that only bubblewrap can stop (writing outside the folder, reading the instructor's files) are left out,
with a reason, where bwrap is missing. The cheats aimed at the grader itself, graded by the pytest plugin,
the batch grader and ``grader.grade()`` alike, are in tests/hostile/test_hostile.py.

A second, small batch (right, stub, wrong and partial submissions) is graded whole and in 3 shards
(``--shard K/N``): the merge (``python -m grader merge``) must equal the whole run; a student's shard
depends on the folder name alone; bad ``--shard`` values and shards that are not one sharding are refused.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from html import escape as html_escape
from pathlib import Path

import pytest

from grader import confinement
from grader.batch.cli import main as grade_main
from grader.batch.cli import merge_main
from grader.batch.engine import BatchConfig, BatchError, find_students, grade_batch, selected_exercises
from grader.batch.output import write_outputs
from grader.batch.shard import Shard, shard_of
from grader.confinement import Limits, describe_exit, find_bwrap
from grader.course.gradescope import write_bundle
from grader.judge import DEFAULT_MAX_NOISE
from tests.hostile.cases import CASES, LOUD_ANSWER, STUB_ANSWERS, THIEF
from tests.hostile.suite import WRONG_ANSWERS

ROOT = Path(__file__).resolve().parents[3]
SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"
BWRAP, WHY_NO_BWRAP = find_bwrap()
EX02_POINTS = 7.0
EX01_POINTS = 10.0
CONFTEST_MARKER = Path("/tmp/perfkit-hostile-conftest-ran")
SLEEP_ARG = "4321.5"
CONFIG = BatchConfig(exercises=("ex01", "ex02"), lang="en", limits=Limits(grace_s=3.0), progress=False)


def _fill(code: str, fill: dict[str, str]) -> str:
    for key, value in fill.items():
        code = code.replace("{" + key + "!r}", repr(value))
    return code


def _ex01_text(case, fill: dict[str, str]) -> str:
    text = (SOLUTIONS / "ex01_ridge_point.py").read_text(encoding="utf-8")
    if case.stub_answers:
        text += STUB_ANSWERS
    return _fill(case.prepend, fill) + text + "\n" + _fill(case.append, fill)


def _write_deep(folder: Path, name: str, text: str) -> None:
    """``folder / name``, its folders made one by one: ``Path.mkdir(parents=True)`` recurses once per level,
    and a case nests 1200 deep."""
    at = os.fspath(folder)
    for part in name.split("/")[:-1]:
        at = os.path.join(at, part)
        if not os.path.isdir(at):
            os.mkdir(at)
    with open(os.path.join(at, name.split("/")[-1]), "w", encoding="utf-8") as fh:
        fh.write(text)


def _remove_tree(top: Path) -> None:
    """Remove ``top`` without recursion: ``shutil.rmtree`` recurses once per level, so pytest's own cleanup
    of old temporary folders raised RecursionError on the 1200-deep folders these tests make."""
    if not top.exists():
        return
    folders, queue = [], [os.fspath(top)]
    while queue:
        folder = queue.pop()
        folders.append(folder)
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    queue.append(entry.path)
                else:
                    os.unlink(entry.path)
    for folder in reversed(folders):
        os.rmdir(folder)


def _sleepers() -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if cmdline[:2] == [b"sleep", SLEEP_ARG.encode()]:
                found.append(pid)
    return found


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    base = tmp_path_factory.mktemp("batch")
    subs = base / "submissions"
    shutil.copytree(SOLUTIONS, subs / "alice")
    shutil.copytree(EXERCISES, subs / "bob")
    linker = subs / "linker"
    linker.mkdir()
    (linker / "ex01_ridge_point.py").symlink_to(SOLUTIONS / "ex01_ridge_point.py")
    shutil.copy(SOLUTIONS / "ex02_memory_bound.py", linker)
    victim = base / "victim.txt"
    victim.write_text("intact")
    fill = {
        "kit": str(ROOT),
        "victim": str(victim),
        "other": str(subs / "alice" / "ex02_memory_bound.py"),
        "solutions_copy": str(subs / "alice" / "ex01_ridge_point.py"),
    }
    cases = [c for c in CASES if BWRAP or not c.needs_bwrap]
    for case in cases:
        folder = subs / case.name
        folder.mkdir()
        (folder / "ex01_ridge_point.py").write_text(_ex01_text(case, fill), encoding="utf-8")
        shutil.copy(SOLUTIONS / "ex02_memory_bound.py", folder)
        for name, text in case.extra_files:
            _write_deep(folder, name, text)
    CONFTEST_MARKER.unlink(missing_ok=True)
    alice_before = (subs / "alice" / "ex02_memory_bound.py").read_text()
    result = grade_batch(subs, CONFIG, out=base / "grades")
    write_outputs(result, base / "grades", gradescope=True)
    for case in cases:
        if any(name.count("/") > 100 for name, _ in case.extra_files):
            _remove_tree(subs / case.name)  # graded: gone, before pytest's recursive cleanup meets it
    return {
        "result": result,
        "by_name": {s.name: s for s in result.students},
        "out": base / "grades",
        "victim": victim,
        "alice_file": subs / "alice" / "ex02_memory_bound.py",
        "alice_before": alice_before,
        "cases": cases,
    }


def _points(student, exercise: str) -> float:
    return sum(o.points for o in student.outcomes if o.exercise == exercise)


def test_reference_students_get_full_and_zero(batch):
    alice, bob = batch["by_name"]["alice"], batch["by_name"]["bob"]
    assert _points(alice, "ex01") == EX01_POINTS and _points(alice, "ex02") == EX02_POINTS
    assert all(o.state == "passed" for o in alice.outcomes)
    assert _points(bob, "ex01") == 0 and _points(bob, "ex02") == 0
    assert {o.state for o in bob.outcomes} == {"not_attempted"}


def test_a_linked_file_is_not_followed(batch):
    linker = batch["by_name"]["linker"]
    ex01 = [o for o in linker.outcomes if o.exercise == "ex01"]
    assert ex01 and all(o.state == "error" and "symbolic link" in o.message for o in ex01)
    assert _points(linker, "ex02") == EX02_POINTS


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_submission_gets_what_it_earned(batch, case):
    if case.needs_bwrap and BWRAP is None:
        pytest.skip(f"only bubblewrap can stop this, and {WHY_NO_BWRAP}")
    student = batch["by_name"][case.name]
    assert _points(student, "ex01") == case.ex01_points, [
        (o.check_id, o.state, o.message[:200]) for o in student.outcomes
    ]
    assert _points(student, "ex02") == EX02_POINTS, "another exercise of the same student was affected"
    states = {o.check_id: o for o in student.outcomes if o.exercise == "ex01"}
    for check_id, state in case.states:
        assert states[check_id].state == state, states[check_id].message
        assert states[check_id].message.strip()
    notes = " ".join(student.notes)
    assert all(words in notes for words in case.notes) and bool(notes) == bool(case.notes), notes


def test_messages_say_what_happened(batch):
    by_name = batch["by_name"]

    def message(name: str, check_id: str) -> str:
        return next(o.message for o in by_name[name].outcomes if o.check_id == check_id)

    assert "SystemExit" in message("sys_exit_at_import", "1a_ridge_formula")
    assert "os._exit" in message("os_exit_at_import", "1a_ridge_formula")
    assert "import of ex01_ridge_point.py" in message("os_exit_at_import", "1a_ridge_formula")
    assert "MemoryError" in message("huge_allocation_at_import", "1a_ridge_formula")
    assert "exceeded the time limit of 10 s" in message("infinite_loop", "1b_bf16_time")
    assert "os._exit" in message("os_exit_in_a_call", "1b_bf16_bound")
    assert "ran out of memory" in message("huge_allocation_in_a_call", "1b_bf16_time") or "MemoryError" in (
        message("huge_allocation_in_a_call", "1b_bf16_time")
    )


def test_nothing_is_left_running_and_no_conftest_ran(batch):
    assert _sleepers() == []
    assert not CONFTEST_MARKER.exists()


def test_files_outside_the_folder_are_untouched(batch):
    if BWRAP is None:
        pytest.skip(f"only bubblewrap can stop this, and {WHY_NO_BWRAP}")
    assert batch["victim"].read_text() == "intact"
    assert batch["alice_file"].read_text() == batch["alice_before"]
    assert not (ROOT / "grader" / "_hostile_marker.py").exists()


def test_outputs_csv_json_and_gradescope(batch):
    out, result = batch["out"], batch["result"]
    rows = list(csv.reader(open(out / "grades.csv", encoding="utf-8")))
    header = rows[0]
    assert header[:4] == ["student", "score", "max_score", "deferred_points"]
    assert "ex01::1a_ridge_formula" in header and "ex02::saved_time" in header
    alice = next(r for r in rows if r[0] == "alice")
    assert float(alice[1]) == float(alice[2]) == EX01_POINTS + EX02_POINTS
    data = json.loads((out / "grades.json").read_text(encoding="utf-8"))
    assert data["sandbox"] == result.sandbox
    assert set(data["students"]) == {s.name for s in result.students}
    fake = data["students"]["fake_results_and_lines"]
    assert fake["score"] == 7 + EX02_POINTS
    gs = json.loads((out / "gradescope" / "alice" / "results.json").read_text(encoding="utf-8"))
    assert gs["score"] == gs["max_score"] == EX01_POINTS + EX02_POINTS
    # what the copy of a folder left out is said to the student, in grades.json and on Gradescope
    assert data["students"]["alice"]["notes"] == []
    (deep,) = data["students"]["folder_nested_1200_deep"]["notes"]
    assert deep.startswith("folders deeper than 16 levels")
    gs = json.loads((out / "gradescope" / "folder_nested_1200_deep" / "results.json").read_text("utf-8"))
    assert gs["output"].startswith(deep)


def test_unknown_exercise_and_missing_folder_are_named(tmp_path):
    with pytest.raises(BatchError, match="--exercises: no exercise 'ex99'"):
        grade_batch(tmp_path, BatchConfig(exercises=("ex99",), progress=False))
    with pytest.raises(BatchError, match="SUBMISSIONS_DIR"):
        grade_batch(tmp_path / "nope", BatchConfig(progress=False))


def test_limits_alone_without_bwrap(tmp_path):
    """Without the sandbox: the limits and the process group still hold, and `import solutions` fails."""
    subs = tmp_path / "subs"
    for name in ("os_exit_in_a_call", "child_process_left_running", "import_solutions"):
        case = next(c for c in CASES if c.name == name)
        (subs / name).mkdir(parents=True)
        (subs / name / "ex01_ridge_point.py").write_text(
            _ex01_text(case, {"kit": str(ROOT)}), encoding="utf-8"
        )
    config = BatchConfig(exercises=("ex01",), sandbox=False, limits=Limits(grace_s=3.0), progress=False)
    result = grade_batch(subs, config)
    points = {s.name: sum(o.points for o in s.outcomes) for s in result.students}
    assert points == {"os_exit_in_a_call": 9.5, "child_process_left_running": 10, "import_solutions": 7}
    assert result.sandbox == "limits only"
    assert _sleepers() == []


def test_gradescope_bundle_runs_locally(tmp_path):
    bundle = tmp_path / "bundle"
    write_bundle(bundle, ["--lang", "en", "--exercises", "ex01,ex02"])
    assert {"setup.sh", "run_autograder", "autograder.zip", "perfkit"} <= {p.name for p in bundle.iterdir()}
    assert not (bundle / "perfkit" / "solutions").exists()
    root = tmp_path / "autograder"
    (root / "submission" / "nested").mkdir(parents=True)
    shutil.copy(SOLUTIONS / "ex01_ridge_point.py", root / "submission" / "nested")
    shutil.copy(SOLUTIONS / "ex02_memory_bound.py", root / "submission")
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "PERFKIT_PYTHON": sys.executable}
    subprocess.run(["bash", str(bundle / "run_autograder")], env=env, check=True, timeout=120)
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["score"] == results["max_score"] == EX01_POINTS + EX02_POINTS
    assert all(t["status"] == "passed" for t in results["tests"])


def test_cli_grade_writes_the_files(tmp_path):
    subs = tmp_path / "subs"
    shutil.copytree(SOLUTIONS, subs / "alice", ignore=shutil.ignore_patterns("m*", "ex1*", "ex0[3-9]*"))
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(subs), "--out", str(out), "--exercises", "ex01"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "alice 10" in proc.stdout
    assert (out / "grades.csv").exists() and (out / "grades.json").exists()
    if BWRAP is None:
        assert "bubblewrap" in proc.stderr


def _wait_for_sleeper(timeout_s: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if _sleepers():
            return True
        time.sleep(0.1)
    return False


def _stuck_student(tmp_path: Path) -> Path:
    """A student whose import starts a `sleep` and then loops with the alarm blocked."""
    subs = tmp_path / "subs"
    (subs / "stuck").mkdir(parents=True)
    (subs / "stuck" / "ex01_ridge_point.py").write_text(
        "import signal, subprocess\n"
        f"subprocess.Popen(['sleep', '{SLEEP_ARG}'])\n"
        "signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
        "while True:\n    pass\n",
        encoding="utf-8",
    )
    return subs


def _stuck_grading(tmp_path):
    """The command that grades ex01 of :func:`_stuck_student`'s folder, quietly, into ``tmp_path/o``."""
    subs = _stuck_student(tmp_path)
    return [sys.executable, "-m", "grader", "grade", str(subs), "--out", str(tmp_path / "o")] + [
        "--exercises",
        "ex01",
        "--quiet",
    ]


@pytest.mark.parametrize("sandbox", [True, False], ids=["bwrap", "limits-only"])
def test_ctrl_c_leaves_nothing_running(tmp_path, sandbox):
    if sandbox and BWRAP is None:
        pytest.skip(f"only bubblewrap can do this, and {WHY_NO_BWRAP}")
    cmd = _stuck_grading(tmp_path) + ([] if sandbox else ["--no-sandbox"])
    grader = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert _wait_for_sleeper(), "the submission's child never started"
        grader.send_signal(signal.SIGINT)
        grader.wait(timeout=30)
    finally:
        grader.kill()
    time.sleep(0.5)
    assert _sleepers() == []


def test_children_die_with_a_killed_grader(tmp_path):
    if BWRAP is None:
        pytest.skip(
            f"without bubblewrap a detached grandchild outlives a SIGKILLed grader, and {WHY_NO_BWRAP}"
        )
    cmd = [
        sys.executable,
        "-m",
        "grader",
        "grade",
        str(_stuck_student(tmp_path)),
        "--out",
        str(tmp_path / "o"),
    ]
    scratch = tmp_path / "scratch"  # a killed grader cannot remove its scratch folder: keep it in tmp_path
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    grader = subprocess.Popen([*cmd, "--exercises", "ex01", "--quiet"], stderr=subprocess.DEVNULL, env=env)
    try:
        assert _wait_for_sleeper(), "the submission's child never started"
        grader.kill()
        grader.wait(timeout=30)
    finally:
        grader.kill()
    deadline = time.monotonic() + 10
    while _sleepers() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _sleepers() == []


def test_a_grader_that_cannot_start_costs_nothing_but_says_so(tmp_path):
    subs = tmp_path / "subs"
    shutil.copytree(SOLUTIONS, subs / "alice", ignore=shutil.ignore_patterns("m*", "ex1*", "ex0[2-9]*"))
    config = BatchConfig(exercises=("ex01",), python="/bin/false", progress=False)
    (student,) = grade_batch(subs, config).students
    assert {o.state for o in student.outcomes} == {"error"}
    assert sum(o.points for o in student.outcomes) == 0
    assert all("did not start" in o.message or "没能启动" in o.message for o in student.outcomes)


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
# grading in shards (--shard K/N) and merging them (python -m grader merge)

#: The students of the sharded batch and their shard of 3 (pinned: a kit that assigned them differently
#: would mix up the shards of a course graded before and after an upgrade).
SHARD_OF_3 = {"right_1": 3, "right_2": 1, "stub_1": 1, "wrong_1": 3, "wrong_2": 2, "partial": 2, "李雷": 1}
SHARD_EXERCISES = "ex01,ex02"


def _shard_submissions(subs: Path, names=tuple(SHARD_OF_3)) -> Path:
    """Right answers, stubs, one wrong function per file, a missing file, a non-ASCII folder name."""
    ex01 = (SOLUTIONS / "ex01_ridge_point.py").read_text(encoding="utf-8")
    ex02 = (SOLUTIONS / "ex02_memory_bound.py").read_text(encoding="utf-8")
    for name in names:
        folder = subs / name
        folder.mkdir(parents=True)
        if name.startswith("stub"):
            shutil.copy(EXERCISES / "ex01_ridge_point.py", folder)
            shutil.copy(EXERCISES / "ex02_memory_bound.py", folder)
            continue
        if name.startswith("wrong"):
            one = ex01.replace("return peak_flops / bandwidth", "return bandwidth / peak_flops")
            two = ex02.replace("return n_bytes / bandwidth", "return n_bytes * bandwidth")
            assert one != ex01 and two != ex02
        else:
            one, two = ex01, ex02
        (folder / "ex01_ridge_point.py").write_text(one, encoding="utf-8")
        if name != "partial":
            (folder / "ex02_memory_bound.py").write_text(two, encoding="utf-8")
    return subs


def _cli(*argv: str) -> int:
    return grade_main(list(argv))


def _merge(*argv: str | Path) -> int:
    return merge_main([str(a) for a in argv])


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


def _json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


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
    assert data == whole
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
    assert (
        _cli(str(subs), "--out", str(tmp_path / "o"), "--exercises", "ex01", "--shard", "1/3", "--quiet") == 0
    )
    assert "graded 0 students of shard 1/3" in capsys.readouterr().out
    assert (tmp_path / "o" / "grades.csv").read_text(encoding="utf-8").count("\n") == 1  # the header alone
    data = _json(tmp_path / "o" / "grades.json")
    assert data["students"] == {} and data["shard"]["index"] == 1


def test_the_log_shows_progress_at_most_every_tenth(capsys):
    """Off a terminal, the progress bar prints a line per tenth of the work, not one per exercise."""
    from grader.batch.engine import _Progress

    progress = _Progress(48, enabled=True)
    progress.tty = False
    for i in range(48):
        progress.step(f"student{i}")
    progress.close()
    lines = capsys.readouterr().err.splitlines()
    assert 1 <= len(lines) <= 10 and lines[-1].startswith("[" + "#" * 30 + "] 48/48")


def test_the_summary_shows_each_score_with_its_maximum(tmp_path, capsys):
    subs = _shard_submissions(tmp_path / "subs", names=("right_1", "stub_1"))
    assert _cli(str(subs), "--out", str(tmp_path / "o"), "--exercises", "ex01", "--quiet") == 0
    out = capsys.readouterr().out
    rows = {r["student"]: r for r in csv.DictReader((tmp_path / "o" / "grades.csv").open(encoding="utf-8"))}
    for name in ("right_1", "stub_1"):
        assert f"{name} {float(rows[name]['score']):g}/{float(rows[name]['max_score']):g}" in out, out


def test_a_batch_started_in_the_folder_of_the_copies_shows_no_student_anothers(tmp_path, monkeypatch):
    """``python -m grader grade`` started in /tmp puts /tmp on sys.path, where the batch copies each student:
    the sandbox binds only the interpreter's own folders of sys.path, so the thief finds no classmate."""
    if BWRAP is None:
        pytest.skip(f"only bubblewrap can do this, and {WHY_NO_BWRAP}")
    monkeypatch.chdir(tempfile.gettempdir())
    monkeypatch.syspath_prepend(tempfile.gettempdir())  # what `python -m` does with its working folder
    monkeypatch.syspath_prepend(str(tmp_path))
    subs = tmp_path / "subs"
    shutil.copytree(SOLUTIONS, subs / "alice")
    thief = subs / "thief"
    thief.mkdir()
    (thief / "ex01_ridge_point.py").write_text(
        (SOLUTIONS / "ex01_ridge_point.py").read_text().split("def answer_1a")[0] + WRONG_ANSWERS + THIEF,
        encoding="utf-8",
    )
    assert not any(confinement.under(str(tmp_path), p) for p in confinement.interpreter_paths())
    config = BatchConfig(exercises=("ex01",), lang="en", limits=Limits(grace_s=3.0), progress=False)
    result = grade_batch(subs, config, out=tmp_path / "grades")
    by_name = {s.name: s for s in result.students}
    assert _points(by_name["alice"], "ex01") == EX01_POINTS
    assert _points(by_name["thief"], "ex01") == 7.0  # the general functions only: its answers are its own


def test_control_characters_and_formulas_reach_no_terminal_or_spreadsheet(tmp_path, capsys):
    """An exception text and printed output with terminal escapes (which could clear the screen and draw a
    score table of their own) are written as escapes; a folder named like a formula is text in grades.csv."""
    subs = tmp_path / "subs"
    sly = subs / '=HYPERLINK("x","y")'
    sly.mkdir(parents=True)
    (sly / "ex01_ridge_point.py").write_text(
        (SOLUTIONS / "ex01_ridge_point.py").read_text(encoding="utf-8") + LOUD_ANSWER,
        encoding="utf-8",
    )
    config = BatchConfig(exercises=("ex01",), lang="en", limits=Limits(grace_s=3.0), progress=False)
    assert _cli(str(subs), "--out", str(tmp_path / "out"), "--exercises", "ex01", "--lang", "en") == 0
    printed = capsys.readouterr()
    result = grade_batch(subs, config, out=tmp_path / "grades")
    (student,) = result.students
    (loud,) = [o for o in student.outcomes if o.check_id == "1a_ridge_a100_fp32"]
    assert loud.state == "error" and "\\x1b[2J" in loud.message and "\x1b" not in loud.message
    for name in ("grades.csv", "grades.json"):
        assert "\x1b" not in (tmp_path / "out" / name).read_text(encoding="utf-8")
    assert "\x1b" not in printed.out + printed.err
    rows = list(csv.reader((tmp_path / "out" / "grades.csv").read_text(encoding="utf-8").splitlines()))
    assert rows[1][0] == "'" + sly.name  # shown as text, not evaluated
    assert list(_json(tmp_path / "out" / "grades.json")["students"]) == [sly.name]


# ---------------------------------------------------------------------------------------------------
# what one student cannot do to the batch: a grader bug, odd folder names, a deep folder, SIGTERM


def test_a_grader_bug_costs_one_check_not_the_batch(tmp_path, monkeypatch):
    """An exception while grading one check (a grader bug, or a value that breaks a comparison) is that
    check's outcome, an error saying the grader failed, and every other grade is still written; an exception
    while copying a student's folder is every check of that student's."""
    from grader.batch import engine

    subs = _shard_submissions(tmp_path / "subs", names=("alice", "bob", "carol"))
    real_run_check, real_copy = engine.Judge.run_check, engine.copy_folder

    def run_check(judge, p, file, source=None):
        if source.startswith("bob/") and p.check.id == "1a_ridge_formula":
            raise OverflowError("int too large to convert to float")
        return real_run_check(judge, p, file, source=source)

    def copy_folder(student, into, lang="zh"):
        if student.name == "carol":
            raise RecursionError("maximum recursion depth exceeded")
        return real_copy(student, into, lang)

    monkeypatch.setattr(engine.Judge, "run_check", run_check)
    monkeypatch.setattr(engine, "copy_folder", copy_folder)
    config = BatchConfig(exercises=("ex01",), lang="en", limits=Limits(grace_s=3.0), progress=False)
    result = grade_batch(subs, config)
    write_outputs(result, tmp_path / "out")
    by_name = {s.name: s for s in result.students}
    assert _points(by_name["alice"], "ex01") == EX01_POINTS
    bob = {o.check_id: o for o in by_name["bob"].outcomes}
    assert bob["1a_ridge_formula"].state == "error" and _points(by_name["bob"], "ex01") == EX01_POINTS - 2
    assert "the grader itself failed" in bob["1a_ridge_formula"].message
    assert "OverflowError: int too large" in bob["1a_ridge_formula"].message
    carol = by_name["carol"].outcomes
    assert {o.state for o in carol} == {"error"} and all("RecursionError" in o.message for o in carol)
    rows = {r["student"]: r for r in csv.DictReader((tmp_path / "out" / "grades.csv").open(encoding="utf-8"))}
    assert float(rows["alice"]["score"]) == EX01_POINTS and set(rows) == {"alice", "bob", "carol"}


def test_a_deep_wide_folder_is_copied_within_limits_and_says_what_it_left_out(tmp_path, monkeypatch):
    """The copy walks without recursion (a folder 1200 deep raised RecursionError in rglob) and within its
    limits, shallow first; each limit that left something out is a note naming it. The exercise file, found
    in a sub-folder beside a deep chain, is still found and graded."""
    from grader.batch import engine

    monkeypatch.setattr(engine, "MAX_FILES", 4)
    monkeypatch.setattr(engine, "MAX_FOLDER_BYTES", 3000 + (SOLUTIONS / "ex01_ridge_point.py").stat().st_size)
    folder = tmp_path / "subs" / "wide"
    work = folder / "work"
    work.mkdir(parents=True)
    shutil.copy(SOLUTIONS / "ex01_ridge_point.py", work)
    _write_deep(folder, "d/" * 1200 + "f.txt", "deep\n")  # beside work/: looked for ex01 in, not entered
    _write_deep(work, "d/" * 1200 + "f.txt", "deep\n")
    (work / "a_big.bin").write_bytes(b"x" * (engine.MAX_FILE_BYTES + 1))
    (work / "b_fill.txt").write_bytes(b"x" * 2500)
    (work / "c_over.txt").write_bytes(b"x" * 1000)  # past the total
    for i in range(5):
        (work / f"e{i}.txt").write_text("small")  # past the count
    (work / "link.py").symlink_to(SOLUTIONS / "ex02_memory_bound.py")
    (work / ".hidden").write_text("left out without a word")
    exercises = selected_exercises(BatchConfig(exercises=("ex01",), progress=False))
    (student,) = find_students(tmp_path / "subs", exercises, "en")
    assert student.files == {"ex01_ridge_point": work / "ex01_ridge_point.py"}
    into = tmp_path / "copy"
    into.mkdir()
    copied = engine.copy_folder(student, into, "en")
    assert copied.files == {"ex01_ridge_point": into / "ex01_ridge_point.py"}
    assert sorted(p.name for p in into.iterdir()) == ["b_fill.txt", "e0.txt", "e1.txt", "ex01_ridge_point.py"]
    notes = "\n".join(copied.notes)
    for words in (
        "folders deeper than 16 levels were not entered, nor their files copied (1 of them): d/d/d",
        "the grader copies at most 4 files; the other 3 were not copied: e2.txt, e3.txt, e4.txt",
        "so files were left out (1 of them): c_over.txt",
        "files over 1048576 bytes were not copied (1 of them): a_big.bin",
        "symbolic links, which the grader does not follow, were not copied (1 of them): link.py",
    ):
        assert words in notes, notes
    assert ".hidden" not in notes
    (tmp_path / "copy-zh").mkdir()
    assert any("层还深" in n for n in engine.copy_folder(student, tmp_path / "copy-zh", "zh").notes)
    _remove_tree(tmp_path / "subs")  # before pytest's recursive cleanup meets it


def test_a_folder_with_too_many_entries_is_looked_at_in_part(tmp_path, monkeypatch):
    from grader.batch import engine

    monkeypatch.setattr(engine, "MAX_ENTRIES", 50)
    for i in range(60):
        (tmp_path / f"f{i:02d}.txt").write_text("x")
    listing = engine.list_folder(tmp_path)
    assert listing.cut and len(listing.files) == 50


#: Folder names a student chooses (as bytes: one is not UTF-8): each must reach grades.csv, grades.json, its
#: HTML page and the terminal as printable, valid text of its own, and the formula as text.
ODD_NAMES = {
    b"caf\xe9": "caf\\xe9",  # not UTF-8: the byte written as an escape
    b"caf\\xe9": "caf\\\\xe9",  # the same escape typed as text: another name
    b"bob!": "bob!",
    b"bob-be1b495986": "bob-be1b495986",  # bob!'s page name in kits before page_names
    b"\x1b[2K\rALL 17": "\\u001b[2K\\u000dALL 17",  # a progress line of its own
    b" =1+1": " =1+1",  # a formula behind a blank
    b"Bob": "Bob",  # bob's page, on a file system that ignores case
    b"bob": "bob",
}


def test_odd_folder_names_each_get_their_own_row_page_and_line(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    for raw in ODD_NAMES:
        folder = os.path.join(os.fsencode(subs), raw)
        os.mkdir(folder)
        shutil.copy(SOLUTIONS / "ex01_ridge_point.py", os.fsdecode(folder))
    out, html = tmp_path / "out", tmp_path / "html"
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(subs), "--out", str(out), "--exercises", "ex01"]
        + ["--lang", "en", "--html", str(html), "--grace", "3"],
        capture_output=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    printed = (proc.stdout + proc.stderr).decode("utf-8")  # valid UTF-8, every byte of it
    assert "\x1b" not in printed and "\r" not in printed and "Traceback" not in printed
    shown = sorted(ODD_NAMES.values())
    assert "graded 8 students" in printed and ", ".join(f"{n} 10/10" for n in shown) in printed
    rows = list(csv.reader((out / "grades.csv").read_text(encoding="utf-8").splitlines()))
    assert [r[0] for r in rows[1:]] == ["' =1+1" if n == " =1+1" else n for n in shown]
    assert all(float(r[1]) == EX01_POINTS for r in rows[1:])
    assert list(_json(out / "grades.json")["students"]) == shown
    index = (html / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'<a href="(students/[^"]+)"', index)
    assert len(links) == len(set(links)) == 8 and len({link.casefold() for link in links}) == 8
    for name in shown:
        link = re.search(rf'<tr data-student="{re.escape(html_escape(name))}">.*?<a href="([^"]+)"', index)
        assert link, name
        page = (html / link[1]).read_text(encoding="utf-8")
        heading = page[page.index("<h1>") : page.index("</h1>")]
        assert heading.endswith(f": {html_escape(name)}"), (name, heading)  # the page of this student


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_terminated_grader_stops_its_children_and_removes_the_copies(tmp_path, signum):
    """SIGTERM (a scheduler's stop) or SIGHUP (a closed terminal) ends the run as Ctrl-C does: the workers
    stopped, the copies of the students' code removed, the exit status 128 + the signal."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    grader = subprocess.Popen(_stuck_grading(tmp_path), stderr=subprocess.PIPE, env=env)
    try:
        assert _wait_for_sleeper(), "the submission's child never started"
        assert any(p.name.startswith("perfkit-batch-") for p in scratch.iterdir())
        grader.send_signal(signum)
        _, err = grader.communicate(timeout=60)
    finally:
        grader.kill()
    assert grader.returncode == 128 + signum, err
    assert f"stopped by {signal.Signals(signum).name}" in err.decode() and b"Traceback" not in err
    time.sleep(0.5)
    assert _sleepers() == []
    # perfkit-worker-*, the worker's two files that grader.confinement.runtime_dir copies once per process,
    # is that module's to remove (left to it); nothing of a student's is left
    left = sorted(p.name for p in scratch.iterdir() if not p.name.startswith("perfkit-worker-"))
    assert left == []
