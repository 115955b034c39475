"""What the batch grader's tests share: the kit's folders and points, submissions written from the
solutions (hostile cases, shards of right, stub and wrong answers), the `sleep` a stuck student leaves
running, and the command line called in process."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

from grader.batch.cli import main as grade_main
from grader.batch.cli import merge_main
from grader.sandbox.confinement import find_bwrap
from tests.hostile.cases import STUB_ANSWERS

ROOT = Path(__file__).resolve().parents[3]
SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"
BWRAP, WHY_NO_BWRAP = find_bwrap()
EX02_POINTS = 7.0
EX01_POINTS = 10.0


#: The stuck student's child is `sleep SLEEP_ARG`: a number of this test process's own, so that another run
#: of these tests on the same machine (a second checkout's, a helper's) never reads as this one's leftover.
SLEEP_ARG = f"43{os.getpid() % 10000:04d}.5"


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


def _points(student, exercise: str) -> float:
    return sum(o.points for o in student.outcomes if o.exercise == exercise)


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


#: The students of the sharded batch and their shard of 3 (pinned: a kit that assigned them differently
#: would mix up the shards of a course graded before and after an upgrade).
SHARD_OF_3 = {"right_1": 3, "right_2": 1, "stub_1": 1, "wrong_1": 3, "wrong_2": 2, "partial": 2, "李雷": 1}


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


def _json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _without_times(data: dict) -> dict:
    """``data`` (a grades.json) without each student's ``graded_at``: when the run that graded them started,
    which differs between a whole run and its shards as ``elapsed_s`` does."""
    for record in data["students"].values():
        assert record.pop("graded_at")  # every student has one
    return data
