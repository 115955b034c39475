"""How far a batch run is, on stderr: exercises graded of all, students done and in flight (each with the
exercise in hand and for how long), the time it has run and, once the pace of each phase is known, about
how long is left.

On a terminal it is one line drawn by ``tqdm``, rewritten in place and cut to the terminal's width by
display columns (a CJK character takes two, so a Chinese line never wraps into a new line per update),
redrawn every second so that a student's long measurement still shows time passing. Off a terminal (a log,
Slurm's output file) it is a plain line each time another tenth of the work is done, and one every
:data:`HEARTBEAT_S` seconds while nothing else was said, so a log never sits on "34/48" for minutes without
a word: tqdm has no such mode (it redraws with ``\\r`` wherever it writes), so those lines are written here,
formatted by tqdm as on a terminal.

The ETA is the run's own, not tqdm's (whose rate is one mean over all the work): formula exercises and
measured ones go at very different paces (seconds against minutes), and in lanes of different widths
(``--jobs`` and ``--measure-jobs``); each phase's left work is its mean seconds per exercise so far, times
its exercises left, over its lanes. Before a phase has finished an exercise its time is unknown, and no ETA
is given.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import TextIO

from tqdm import tqdm

from ..results.outcome import printable
from ..text.catalogue import render

#: Off a terminal, a line at least this often while grading goes on (seconds)
HEARTBEAT_S = 60.0
#: On a terminal, the line is redrawn this often (seconds)
REDRAW_S = 1.0
#: The bar's width in characters
BAR = 30
#: The line: the bar, then the counts, times and students in flight (tqdm's ``desc``)
FORMAT = f"[{{bar:{BAR}}}] {{desc}}"
#: The bar's characters: tqdm takes the first for the part to do, the last for the part done
CHARS = ".#"
#: The in-flight students named on the line (the rest counted)
NAMED = 3
#: The kinds of exercise whose pace is kept apart: a formula exercise's, and a measured one's
KINDS = ("formula", "serial")

#: ``01:05`` for 65 s, ``1:02:03`` past an hour: tqdm's clock, as its own bars write it
clock_text = tqdm.format_interval


class _Line(tqdm):
    """tqdm's bar without its monitor thread: that thread only relaxes ``miniters`` for bars updated in
    bursts, and this one is drawn by :class:`BatchProgress` itself, whose ticker redraws it each second."""

    monitor_interval = 0


class BatchProgress:
    """The batch's progress (see the module docstring). ``total``: the exercises of the run (students x
    exercises); ``students``: each student's exercise count, for the students done (None: not counted);
    ``lanes``: how many exercises of each kind are graded at once."""

    def __init__(
        self,
        total: int,
        enabled: bool,
        *,
        students: Mapping[str, int] | None = None,
        lanes: Mapping[str, int] | None = None,
        lang: str = "en",
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total, self.done, self.enabled = total, 0, enabled
        self.stream = stream if stream is not None else sys.stderr
        self.tty = enabled and self.stream.isatty()
        self.lang = lang
        self.clock = clock
        self.started = clock()
        self.left: dict[str, int] = dict(students or {})
        self.students = len(self.left)
        self.lanes = {kind: max(1, (lanes or {}).get(kind, 1)) for kind in KINDS}
        #: Exercises planned in each kind, and the seconds each finished one took
        self.planned: dict[str, int] = dict.fromkeys(KINDS, 0)
        self.took: dict[str, list[float]] = {kind: [] for kind in KINDS}
        #: Student -> (the exercise in hand, when it began)
        self.flight: dict[str, tuple[str, float]] = {}
        #: On a terminal, tqdm's bar, made at its first draw (tqdm draws as it is made)
        self._bar: _Line | None = None
        self._tenths = 0  # the tenths of the total already logged
        self._said = self.started  # when a plain line was last written
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    # -- what the engine tells it

    def plan(self, kind: str, exercises: int) -> None:
        """``exercises`` more exercises of ``kind`` will be graded by this run (for the ETA)."""
        with self._lock:
            self.planned[kind] += exercises

    def begin(self, student: str, exercise: str) -> None:
        """``student``'s ``exercise`` is being graded from now."""
        with self._lock:
            self.flight[student] = (exercise, self.clock())
            self._show(plain=False)

    def step(
        self, label: str = "", n: int = 1, *, kind: str | None = None, seconds: float | None = None
    ) -> None:
        """``n`` exercises are done (of the student ``label``, where given; graded by this run in
        ``seconds``, where given, as one of ``kind``)."""
        with self._lock:
            self.done += n
            if label in self.left:
                self.left[label] -= n
                self.flight.pop(label, None)  # its next exercise, if any, begins anew
            if kind in self.took and seconds is not None:
                self.took[kind].append(seconds)
            self._show(plain=bool(label))

    def settled(self, student: str, n: int) -> None:
        """``n`` of ``student``'s exercises need no grading by this run (a missing file, the journal's)."""
        with self._lock:  # counted, not said: nothing was graded yet
            self.done += n
            if student in self.left:
                self.left[student] -= n

    def lane(self, student: str, kind: str) -> Lane:
        """What one of ``student``'s phases tells this progress as it grades (:class:`Lane`)."""
        return Lane(self, student, kind)

    # -- the line

    def eta(self) -> float | None:
        """Seconds left, from each kind's pace so far; None while a kind with work left has no pace yet."""
        if not any(self.took.values()):  # nothing graded yet: no pace at all
            return None
        left = 0.0
        for kind in KINDS:
            todo = self.planned[kind] - len(self.took[kind])
            if todo <= 0:
                continue
            if not self.took[kind]:
                return None
            mean = sum(self.took[kind]) / len(self.took[kind])
            left += todo * mean / self.lanes[kind]
        return left

    def counts(self) -> str:
        """The words after the bar: the counts, the time run and left first, the students in flight last
        (a narrow terminal cuts the line from its end)."""
        now = self.clock()
        text = render("progress_exercises", self.lang, done=self.done, total=self.total)
        if self.students:
            done = sum(1 for n in self.left.values() if n <= 0)
            text += "; " + render(
                "progress_students", self.lang, done=done, total=self.students, flight=len(self.flight)
            )
        text += "; " + render("progress_elapsed", self.lang, elapsed=clock_text(now - self.started))
        left = self.eta()
        if left is not None and self.done < self.total:
            text += "; " + render("progress_eta", self.lang, left=clock_text(left))
        named = [
            f"{printable(s)} {e} {clock_text(now - t)}" for s, (e, t) in sorted(self.flight.items())[:NAMED]
        ]
        if named:
            more = len(self.flight) - len(named)
            text += ": " + ", ".join(named) + (f", +{more}" if more > 0 else "")
        return text

    def _filled(self) -> tuple[int, int]:
        """The bar's part done and its whole, as tqdm draws them (an empty run: an empty bar)."""
        whole = max(1, self.total)
        return min(self.done, whole), whole

    def line(self) -> str:
        """The progress line as it stands, whole: the bar (tqdm's) and :meth:`counts`."""
        done, whole = self._filled()
        return tqdm.format_meter(done, whole, 0, prefix=self.counts(), bar_format=FORMAT, ascii=CHARS)

    def _show(self, *, plain: bool) -> None:
        """Redraw the line (a terminal), or write it where another tenth is done (a log; ``plain``: a step
        of a student's, not a count made before grading)."""
        if not self.enabled:
            return
        if self.tty:
            self._draw()
        elif plain and 10 * self.done // max(1, self.total) > self._tenths:
            self._tenths = 10 * self.done // max(1, self.total)
            self._say()

    def _draw(self) -> None:
        """tqdm's redraw of the line in place, cut to the terminal's width as it is now (a resized window
        too). The width is shutil's, which honours ``COLUMNS`` before it asks the terminal; tqdm's own
        reading asks only the stream's descriptor."""
        done, whole = self._filled()
        width = shutil.get_terminal_size((100, 24)).columns - 1
        if self._bar is None:
            self._bar = _Line(
                total=whole,
                initial=done,
                desc=self.counts(),
                file=self.stream,
                ncols=width,
                bar_format=FORMAT,
                ascii=CHARS,
                mininterval=0,
                leave=True,
            )
            return
        self._bar.ncols = width
        self._bar.n = done
        self._bar.set_description_str(self.counts(), refresh=True)

    def _say(self) -> None:
        self.stream.write(self.line() + "\n")
        self.stream.flush()
        self._said = self.clock()

    def tick(self) -> None:
        """What the ticker does each :data:`REDRAW_S`: redraw the line on a terminal; in a log, a line once
        :data:`HEARTBEAT_S` passed without one while something is in flight."""
        with self._lock:
            if not self.enabled:
                return
            if self.tty:
                self._show(plain=False)
            elif self.flight and self.clock() - self._said >= HEARTBEAT_S:
                self._say()

    def start(self) -> None:
        """Start the ticker thread (a daemon: it never holds the run up)."""
        if self.enabled and self._ticker is None:
            self._ticker = threading.Thread(
                target=self._tick_until_closed, name="batch-progress", daemon=True
            )
            self._ticker.start()

    def _tick_until_closed(self) -> None:
        while not self._stop.wait(REDRAW_S):
            self.tick()

    def close(self) -> None:
        """Stop the ticker; on a terminal, draw the line as it ends and leave it there (tqdm's close ends
        it with a newline)."""
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        with self._lock:
            if self.enabled and self.tty:
                self._show(plain=False)
                if self._bar is not None:
                    self._bar.close()
            self.enabled = False


class Lane:
    """One student's phase as the progress sees it: each exercise begun, and each done with its seconds."""

    def __init__(self, progress: BatchProgress, student: str, kind: str) -> None:
        self.progress, self.student, self.kind = progress, student, kind

    def begin(self, exercise: str) -> None:
        self.progress.begin(self.student, exercise)

    def done(self, seconds: float) -> None:
        self.progress.step(self.student, kind=self.kind, seconds=seconds)
