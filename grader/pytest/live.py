"""The live line of a measuring check in progress, on pytest's terminal: the check, its round and the
seconds it has run, in the run's language, after the progress letters or the ``-v`` line of its file.

A measurement can take a minute (m1 alone ran 42 s with nothing printed). The judge tells its front end how
far a measuring check is (:class:`grader.judge.progress.Progress`, its ``on_progress``); :class:`LiveLine` writes
it through pytest's terminal writer, with pytest's capture suspended (as pytest's own live logging does),
redraws its seconds each second from a thread of its own meanwhile, and stops that thread and erases the
line before pytest writes the check's result, so the line pytest tracks is the line on the screen.

Only where the terminal reporter writes to a terminal that takes markup: a log or a pipe gets nothing (no
escape sequences in a CI log), nor does an xdist worker, whose output is not a terminal.

Through pytest's writer, not tqdm (which draws the batch's line, :mod:`grader.batch.progress`): this line
shares pytest's own line, after its progress letters, and must give it back as it was. Only pytest's writer
knows where that line ends (its column), under pytest's capture; tqdm redraws from the line's start with
``\\r`` and would write over the letters, and would not see pytest's capture.
"""

from __future__ import annotations

import contextlib
import threading
import time
import unicodedata
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from ..judge.progress import Progress
from ..text.catalogue import render

#: The fewest seconds between two writes of the line within one round (a round's calls come faster).
MIN_INTERVAL_S = 0.25
#: The fewest columns left on the line worth writing the live line in.
MIN_COLUMNS = 12
#: How often the line's seconds are redrawn while nothing else is told (seconds)
TICK_S = 1.0


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def fitted(text: str, columns: int) -> str:
    """``text`` cut to ``columns`` terminal columns (a CJK character takes two), ``…`` where cut."""
    if _width(text) <= columns:
        return text
    out, used = "", 0
    for ch in text:
        w = _width(ch)
        if used + w > columns - 1:
            break
        out, used = out + ch, used + w
    return out + "…"


class LiveLine:
    """Writes and erases the live line of one config's measuring checks (see the module docstring)."""

    def __init__(
        self,
        config: pytest.Config,
        lang: str,
        tick_s: float = TICK_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.lang = lang
        #: How often the ticker redraws the line's seconds, and the clock they are read on (a test's own,
        #: where it ticks by hand)
        self.tick_s, self.clock = tick_s, clock
        #: The column the line starts at while it is on the screen (None: not shown)
        self.column: int | None = None
        self.rounds = -1
        self.written_at = 0.0
        #: The progress last told, and when its check started: the ticker redraws its seconds
        self.last: tuple[Progress, float] | None = None
        self._lock = threading.Lock()  # the judge's calls and the ticker's redraws
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def _reporter(self) -> Any:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None or hasattr(self.config, "workerinput") or not reporter.isatty():
            return None
        tw = self.config.get_terminal_writer()
        return reporter if tw.hasmarkup else None

    def enabled(self) -> bool:
        """Whether the line would be shown: pytest's terminal reporter writes to a terminal with markup."""
        return self._reporter() is not None

    def _write(self, raw: str) -> None:
        capman = self.config.pluginmanager.get_plugin("capturemanager")
        hold = capman.global_and_fixture_disabled() if capman is not None else contextlib.nullcontext()
        tw = self.config.get_terminal_writer()
        with hold:
            # raw: the writer's own idea of the line (its width, for pytest's "[ 50%]") stays the line pytest
            # wrote, which is what the screen shows again once the live line is erased
            tw.write_raw(raw, flush=True)

    def update(self, progress: Progress) -> None:
        """Show ``progress`` (at most every :data:`MIN_INTERVAL_S` within a round), and from then on its
        seconds every :attr:`tick_s` until :meth:`erase` (a student's call, or perfcore's start, can take
        seconds with nothing to tell)."""
        with self._lock:
            self.last = (progress, self.clock() - progress.elapsed_s)
            self._draw(progress)
        if self.column is not None and self._ticker is None:
            self._stop.clear()
            self._ticker = threading.Thread(target=self._tick_until_erased, name="perfkit-live", daemon=True)
            self._ticker.start()

    def tick(self) -> None:
        """Redraw the line with its seconds now (what the ticker does)."""
        with self._lock:
            if self.last is not None and self.column is not None:
                progress, started = self.last
                self._draw(replace(progress, elapsed_s=self.clock() - started), force=True)

    def _tick_until_erased(self) -> None:
        while not self._stop.wait(self.tick_s):
            self.tick()

    def _draw(self, progress: Progress, force: bool = False) -> None:
        now = self.clock()
        if (
            not force
            and self.column is not None
            and progress.rounds == self.rounds
            and now - self.written_at < MIN_INTERVAL_S
        ):
            return
        reporter = self._reporter()
        if reporter is None:
            return
        tw = self.config.get_terminal_writer()
        column = self.column if self.column is not None else tw.width_of_current_line
        room = tw.fullwidth - column - 2
        if column < 0 or room < MIN_COLUMNS:  # a line pytest cannot measure, or no room: say nothing
            return
        text = render(
            "pytest_measuring",
            self.lang,
            check=f"{progress.exercise}::{progress.check}",
            round=max(1, progress.rounds),
            elapsed=f"{progress.elapsed_s:.0f}",
        )
        # CHA (cursor to a column) and EL (erase to the end of the line): the line is written over in place
        self._write(f"\x1b[{column + 1}G\x1b[K " + tw.markup(fitted(text, room), cyan=True))
        self.column, self.rounds, self.written_at = column, progress.rounds, now

    def erase(self) -> None:
        """Stop the ticker and take the line off the screen, the cursor back where pytest left it (before
        pytest writes the check's result, and before its capture of the next check begins)."""
        if self._ticker is not None:
            self._stop.set()
            self._ticker.join()
            self._ticker = None
        with self._lock:
            self.last = None
            if self.column is not None:
                self._write(f"\x1b[{self.column + 1}G\x1b[K")
                self.column, self.rounds = None, -1
