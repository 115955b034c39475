"""The watch's save-to-feedback latency (issue 46): how long after a save its feedback is on the screen.

    python benchmarks/bench_watch.py [--rounds 5] [--write-docs]

One invocation measures, in two conditions one after the other, ``quiet`` (nothing else started: the
machine as it is, its load averages printed) and ``busy`` (one busy loop per core):

- a formula file (ex01) saved, to its feedback line on the watch's screen (target: 0.5 s, quiet);
- a measuring file (m5) saved, to its feedback line (its checks measured in the background);
- beside them, side by side in the same rounds, a cold ``pytest FILE`` of the same formula file in a fresh
  process: what a save cost before the watch, and the ratio of the two.

The watch runs as a student starts it (``python -m grader watch FOLDER``) on a fresh folder holding ex01,
ex02 and m5 of ``solutions/``; each save appends a new comment (written to a temporary file and renamed
over the file, as editors do), so no save is answered from the cache. A save's time is taken just before
its rename; its feedback's when the watch's line ``FILE: feedback`` is read. ``--write-docs`` writes the
table into docs/students.md between its ``<!-- watch-latency -->`` markers, with the date, the machine and
its load.
"""

from __future__ import annotations

import argparse
import os
import platform
import queue
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_fairness import busy_processes  # noqa: E402

KIT = Path(__file__).resolve().parents[1]
SOLUTIONS = KIT / "solutions"
FILES = ("ex01_ridge_point.py", "ex02_memory_bound.py", "m5_overhead.py")
DOCS = KIT / "docs" / "students.md"


class Watch:
    """The watch on ``folder``, its screen's lines timestamped as they are read."""

    def __init__(self, folder: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(KIT), PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "grader", "watch", str(folder), "--lang", "en"],
            cwd=folder.parent,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put((time.monotonic(), line.rstrip("\n")))

    def until(self, text: str, seconds: float = 600) -> float:
        """When the first line holding ``text`` was read."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                at, line = self.lines.get(timeout=0.5)
            except queue.Empty:
                continue
            if text in line:
                return at
        raise RuntimeError(f"the watch said no {text!r} within {seconds} s")

    def end(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def save(path: Path, n: int) -> float:
    """Append comment ``n`` the way an editor saves (a temporary file renamed over the file); the time."""
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(path.read_text(encoding="utf-8") + f"\n# save {n}\n", encoding="utf-8")
    at = time.monotonic()
    os.replace(temp, path)
    return at


def cold_pytest(path: Path) -> float:
    """Seconds of ``pytest FILE`` in a fresh process, without pytest's cache."""
    start = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "pytest", str(path), "-q", "-p", "no:cacheprovider"],
        cwd=path.parent,
        env=dict(os.environ, PYTHONPATH=str(KIT)),
        capture_output=True,
        check=False,
    )
    return time.monotonic() - start


def condition(rounds: int, measuring: bool) -> dict[str, list[float]]:
    folder = Path(tempfile.mkdtemp(prefix="bench-watch-")) / "exercises"
    folder.mkdir()
    for name in FILES if measuring else FILES[:2]:
        shutil.copy(SOLUTIONS / name, folder)
    watch = Watch(folder)
    got: dict[str, list[float]] = {"formula": [], "measuring": [], "cold": []}
    try:
        watch.until("watching", 120)
        watch.until(f"{FILES[2] if measuring else FILES[1]}: feedback")
        for n in range(rounds):
            at = save(folder / FILES[0], n)
            got["formula"].append(watch.until(f"{FILES[0]}: feedback") - at)
            got["cold"].append(cold_pytest(folder / FILES[0]))
            if measuring:
                at = save(folder / FILES[2], n)
                got["measuring"].append(watch.until(f"{FILES[2]}: feedback") - at)
    finally:
        watch.end()
        shutil.rmtree(folder.parent, ignore_errors=True)
    return got


def table(results: dict[str, dict[str, list[float]]]) -> list[str]:
    lines = [
        "| condition | formula file: save to feedback (median, max) | cold `pytest FILE` (median) | "
        "cold / watch | measuring file (m5, median) |",
        "|---|---|---|---|---|",
    ]
    for name, got in results.items():
        ratios = [c / f for c, f in zip(got["cold"], got["formula"], strict=True)]
        measuring = f"{statistics.median(got['measuring']):.1f} s" if got["measuring"] else "(no torch)"
        lines.append(
            f"| {name} | {statistics.median(got['formula']):.2f} s, {max(got['formula']):.2f} s | "
            f"{statistics.median(got['cold']):.2f} s | {statistics.median(ratios):.1f}x | {measuring} |"
        )
    return lines


def write_docs(lines: list[str]) -> None:
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    stamp = f"Measured {date.today()} on {platform.machine()} ({os.cpu_count()} CPUs), load averages {load}:"
    block = "\n".join(["<!-- watch-latency -->", stamp, "", *lines, "<!-- /watch-latency -->"])
    text = DOCS.read_text(encoding="utf-8")
    new, n = re.subn(r"<!-- watch-latency -->.*?<!-- /watch-latency -->", lambda _: block, text, flags=re.S)
    if n != 1:
        raise SystemExit(f"{DOCS} has no <!-- watch-latency --> block")
    DOCS.write_text(new, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="saves of each file per condition (default 5)")
    parser.add_argument("--write-docs", action="store_true", help="write the table into docs/students.md")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    try:
        import torch  # noqa: F401
    except ImportError:
        measuring = False
    else:
        measuring = True
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, load averages {os.getloadavg()}")
    results = {"quiet": condition(args.rounds, measuring)}
    with busy_processes((os.cpu_count() or 1, 0)):
        results["busy"] = condition(args.rounds, measuring)
    lines = table(results)
    print("\n".join(lines))
    if args.write_docs:
        write_docs(lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
