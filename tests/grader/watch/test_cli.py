"""``python -m grader watch`` tried as a student would (issue 46 item 1): a correct file saved, a slip, a
syntax error, a file that is no exercise, a deleted file, Ctrl-C; then ``pytest`` on the folder reuses what
the watch decided. The watch runs as a process of its own, its screen read line by line."""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from grader.sandbox import proctree

SOLUTIONS = Path(__file__).resolve().parents[3] / "solutions"
KIT = SOLUTIONS.parent


class Screen:
    """The watch's output, line by line, as it comes."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        assert proc.stdout is not None
        threading.Thread(target=self._read, args=(proc.stdout,), daemon=True).start()

    def _read(self, stream) -> None:  # noqa: ANN001
        for line in stream:
            self.lines.put(line.rstrip("\n"))

    def until(self, text: str, seconds: float = 120) -> list[str]:
        """The lines up to and including the first that holds ``text``."""
        deadline = time.monotonic() + seconds
        got: list[str] = []
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.1)
            except queue.Empty:
                continue
            got.append(line)
            self.seen.append(line)
            if text in line:
                return got
        raise AssertionError(
            f"{text!r} not seen within {seconds} s; the screen so far:\n" + "\n".join(self.seen)
        )


def _save(path: Path, text: str) -> None:
    """As an editor that writes a temporary file and renames it over the file."""
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def _alive(pid: int) -> bool:
    fields = proctree.stat_fields(pid)
    return fields is not None and fields[0] != "Z"


def _env() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(KIT), PYTHONUNBUFFERED="1")
    env.pop("CI", None)  # the cache is read only off CI, and reading it is what is tested last
    return env


def test_the_watch_as_a_student_uses_it(tmp_path) -> None:
    folder = tmp_path / "exercises"
    folder.mkdir()
    ex01, ex02 = folder / "ex01_ridge_point.py", folder / "ex02_memory_bound.py"
    shutil.copy(SOLUTIONS / ex01.name, ex01)
    shutil.copy(SOLUTIONS / ex02.name, ex02)
    correct = ex01.read_text(encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "grader", "watch", "exercises", "--lang", "en"],
        cwd=tmp_path,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    screen = Screen(proc)
    try:
        opening = screen.until("watching")
        assert any("--lang" in line and "中文" in line for line in opening), opening  # how to switch
        first = screen.until("ex02_memory_bound.py: feedback")  # formula files in order: ex01, then ex02
        assert any("ex01_ridge_point.py: feedback" in line for line in first), first
        assert any("total" in line and "17 / 17" in line for line in first), first
        _save(ex01, correct.replace("return peak_flops / bandwidth", "return 2 * peak_flops / bandwidth"))
        slip = screen.until("ex01_ridge_point.py: feedback")
        assert any("1a_ridge_formula" in line and "wrong" in line for line in slip), slip
        assert any("total" in line and "14 / 17" in line for line in slip), slip
        _save(ex02, ex02.read_text(encoding="utf-8") + "\ndef broken(:\n")
        broken = screen.until("ex02_memory_bound.py: feedback")
        assert any("SyntaxError" in line for line in broken), broken
        (folder / "notes.py").write_text("x = 1\n", encoding="utf-8")
        assert "notes.py is not an exercise file" in screen.until("notes.py")[-1]
        ex02.unlink()
        gone = screen.until("total")
        assert any("ex02_memory_bound.py was deleted" in line for line in gone), gone
        assert "7 / 10" in gone[-1], gone
        _save(ex01, correct)
        assert any("10 / 10" in line for line in screen.until("ex01_ridge_point.py: feedback"))
        below = proctree.descendants(proc.pid)
        assert below, "the watch runs no fork server"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
        assert "nothing left running" in screen.until("the watch ended")[-1]
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in below) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(pid) for pid in below)
    finally:
        if proc.poll() is None:
            proc.kill()
    again = subprocess.run(
        [sys.executable, "-m", "pytest", "exercises", "-q", "--grader-lang", "en"],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    kept = [line for line in again.stdout.splitlines() if line.startswith("~ ")]
    assert any("ex01_ridge_point.py: 9 checks shown from the run of" in line for line in kept), again.stdout


def test_a_folder_that_does_not_exist_is_refused_before_anything_starts(tmp_path) -> None:
    got = subprocess.run(
        [sys.executable, "-m", "grader", "watch", str(tmp_path / "nowhere")],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert got.returncode == 2 and "no folder" in got.stderr and "没有文件夹" in got.stderr, got.stderr


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_message_of_the_watch_is_in_both_languages(lang) -> None:
    from grader.text.catalogue import render
    from grader.text.watching import WATCHING

    for key, pair in WATCHING.items():
        assert all(pair), key
        fields = {"path": "p", "file": "f.py", "known": "k", "status": 3, "seconds": "0.3"}
        assert render(key, lang, **fields)
