"""``python -m grader watch [PATH]``: grade the folder once, then each exercise file again as it is saved.

The screen, for each regrade that ends: the file's own pytest output (its feedback and its table, as
``pytest FILE`` prints them), then the table of every exercise graded so far and one line that says how
long after the save the feedback came. A measuring file's regrade runs in the background (a line says
so when it starts) while formula files are still regraded at once; a newer save of a file cancels its
regrade (:mod:`grader.watch.runs`). What cannot be graded is said, and the watch goes on: a file with a
syntax error (pytest's own error, as ``pytest exercises/`` shows it), a deleted file (its checks leave the
table), a new file that is no exercise. A folder that does not exist is refused before anything starts.
Ctrl-C ends the watch with nothing of it left running.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

from ..batch.config import is_serial
from ..registry import RegistryError, by_module, load_exercises
from ..reports.table import score_table
from ..results.outcome import Outcome
from ..specs.check import Exercise
from ..text.catalogue import LANGS, render
from ..text.lang import command_lang, switch_line
from .runs import Regrade, Runs
from .saves import Saves


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m grader watch",
        description="Grade a folder of exercises, then each file again as it is saved.",
    )
    parser.add_argument(
        "path", nargs="?", default="exercises", help="the folder to watch (default: exercises)"
    )
    parser.add_argument(
        "--lang", choices=LANGS, default=None, help="language of the feedback (default: as pytest's)"
    )
    parser.add_argument("--grader-checks", action="append", default=[], help="extra checks modules")
    args = parser.parse_args(argv)
    folder = Path(args.path)
    if not folder.is_dir():
        parser.error(
            render("watch_no_folder", "en", path=args.path)
            + " · "
            + render("watch_no_folder", "zh", path=args.path)
        )
    args.given_lang = args.lang
    args.chosen = command_lang(parser, args.lang, folder.resolve())
    args.lang = args.chosen.lang
    try:
        args.exercises = by_module(load_exercises(args.grader_checks))
    except RegistryError as exc:
        parser.error(str(exc))
    args.folder = folder.resolve()
    return args


class Watch:
    """The loop: saves in, regrades out, the screen kept."""

    def __init__(
        self, folder: Path, lang: str, exercises: dict[str, Exercise], runs: Runs, saves: Saves
    ) -> None:
        self.folder, self.lang, self.exercises = folder, lang, exercises
        self.runs, self.saves = runs, saves
        #: file name -> the outcomes of its last finished regrade, for the table of every exercise
        self.outcomes: dict[str, list[Outcome]] = {}
        #: The live line of a measuring regrade, drawn on a terminal only (a file or a pipe gets none).
        self.live = sys.stdout.isatty()
        self.drawn = False

    def say(self, key: str, **fields: Any) -> None:
        self.clear()
        print(render(key, self.lang, **fields), flush=True)

    def clear(self) -> None:
        """Remove the live line before anything else is printed."""
        if self.drawn:
            sys.stdout.write("\r\x1b[K")
            self.drawn = False

    def draw(self) -> None:
        """The live line: the measuring regrade running and how long it has run."""
        regrade = self.runs.running.get(True)
        if not self.live or regrade is None:
            return
        seconds = f"{time.monotonic() - regrade.started_at:.0f}"
        sys.stdout.write(
            "\r\x1b[K" + render("watch_live", self.lang, file=regrade.path.name, seconds=seconds)
        )
        sys.stdout.flush()
        self.drawn = True

    def exercise(self, path: Path) -> Exercise | None:
        return self.exercises.get(path.stem)

    def begin(self) -> None:
        """The first grading: every exercise file of the folder, formula files first."""
        paths = [path for path in sorted(self.folder.glob("*.py")) if path.stem in self.exercises]
        files = [(path, is_serial(self.exercises[path.stem])) for path in paths]
        if not files:
            self.say("watch_no_exercises", path=str(self.folder))
        now = time.monotonic()
        for path, serial in sorted(files, key=lambda one: one[1]):
            self.runs.ask(path, serial, now)

    def saved(self, path: Path, at: float) -> None:
        """A save of ``path`` came to rest at ``at``: regrade it, or say why not."""
        exercise = self.exercise(path)
        if not path.is_file():
            self.runs.cancel(path)
            if self.outcomes.pop(path.name, None) is not None or exercise is not None:
                self.say("watch_deleted", file=path.name)
                self.table()
            return
        if exercise is None:
            known = ", ".join(sorted(f"{m}.py" for m in self.exercises))
            self.say("watch_not_exercise", file=path.name, known=known)
            return
        if self.runs.ask(path, is_serial(exercise), at):
            self.say("watch_cancelled", file=path.name)

    def started(self, regrade: Regrade) -> None:
        if regrade.measuring:
            self.say("watch_measuring", file=regrade.path.name)

    def ended(self, regrade: Regrade) -> None:
        """Show what ``regrade`` said, then the table of every exercise so far."""
        self.clear()
        text = regrade.output.read_text(encoding="utf-8", errors="replace") if regrade.output else ""
        if regrade.output is not None:
            regrade.output.unlink(missing_ok=True)
        print(f"\n{'━' * 4} {regrade.path.name} {'━' * max(4, 60 - len(regrade.path.name))}")
        print(text.rstrip("\n"), flush=True)
        if regrade.outcomes:
            self.outcomes[regrade.path.name] = [Outcome.from_dict(o) for o in regrade.outcomes]
            self.table()
        elif regrade.status not in (0, 1):
            self.say("watch_run_failed", file=regrade.path.name, status=regrade.status)
        after = time.monotonic() - regrade.saved_at
        self.say("watch_done", file=regrade.path.name, seconds=f"{after:.2f}")

    def table(self) -> None:
        self.clear()
        rows = [o for name in sorted(self.outcomes) for o in self.outcomes[name]]
        if rows:
            print("\n" + render("watch_table_title", self.lang))
            print("\n".join(score_table(rows, self.lang)), flush=True)

    def step(self) -> None:
        """One turn of the loop: saves that came to rest, regrades that ended, regrades to start."""
        for path in self.saves.due():
            self.saved(path, time.monotonic())
        for regrade in self.runs.finished():
            self.ended(regrade)
        for regrade in self.runs.start_next():
            self.started(regrade)
        self.draw()

    def run(self) -> None:
        self.begin()
        self.say("watch_watching", path=str(self.folder))
        while True:
            self.step()
            # one wait for a save and for a regrade's end, woken at once by either: the loop takes no CPU
            # from a measurement while it waits (at most once a second, for the live line)
            due = self.saves.next_in()
            timeout = 1.0 if due is None else min(due, 1.0)
            if (
                os.name == "nt"
            ):  # no pipe descriptor to wait on there: the saves are looked at ten times a second
                wait(self.runs.waitables(), min(timeout, 0.1))
            else:
                wait([self.saves.fileno(), *self.runs.waitables()], timeout)
            self.saves.drain()


def _interrupted(signum: int, frame: Any) -> None:
    """SIGTERM ends the watch as Ctrl-C does: every regrade cancelled, nothing left running."""
    raise KeyboardInterrupt


def main(argv: list[str]) -> int:
    args = parse(argv)
    from watchdog.observers import Observer  # deferred on purpose: only this command watches files

    # the fork server imported the kit before pytest could mark it for rewriting: pytest's warning says so
    pytest_args = ["-q", "-W", "ignore::pytest.PytestAssertRewriteWarning"]
    if args.given_lang:  # else each regrade's pytest chooses by the same rule, and says so as pytest does
        pytest_args += ["--grader-lang", args.given_lang]
    for name in args.grader_checks:
        pytest_args += ["--grader-checks", name]
    saves = Saves(args.folder)
    runs = Runs(pytest_args)
    observer = Observer()
    observer.schedule(saves, str(args.folder), recursive=False)
    observer.start()
    watch = Watch(args.folder, args.lang, args.exercises, runs, saves)
    print(switch_line(args.chosen, "--lang"), flush=True)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even where it was started with SIGINT ignored
    signal.signal(signal.SIGTERM, _interrupted)
    try:
        watch.run()
    except KeyboardInterrupt:
        pass
    finally:
        runs.close()
        observer.stop()
        observer.join(timeout=5)
        saves.close()
    watch.say("watch_ended")
    return 0
