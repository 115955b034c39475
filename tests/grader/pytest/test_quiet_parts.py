"""The pytest front end's quiet reruns and its live line, part by part (issue 39 items 5 and 6): the one
line per file of kept verdicts, the live line cut to the room a terminal has, and the live line written in
place and erased only on a terminal."""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Any

from grader.judge.progress import Progress
from grader.pytest.live import LiveLine, fitted
from grader.pytest.summary import kept_lines
from tests.grader.results.outcomes import outcome


def _kept(check_id: str, source: str, when: str, state: str = "passed") -> Any:
    return dataclasses.replace(outcome(check_id, state, 0, 1), source=source, reused=when)


def test_kept_verdicts_are_one_line_per_file_with_their_count_and_when() -> None:
    outcomes = [
        _kept("c1", "ex/a.py", "2026-12-05 00:10"),
        _kept("c2", "ex/a.py", "2026-12-05 00:30", "wrong"),
        _kept("c3", "ex/b.py", "2026-12-05 00:20"),
        _kept("c4", "ex/c.py", ""),  # graded by this run: no line
    ]
    lines = kept_lines(outcomes, "en")
    assert lines == [
        "~ ex/a.py: 2 checks shown from the run of 2026-12-05 00:10 - 2026-12-05 00:30 "
        "(files unchanged; --grader-remeasure measures again)",
        "~ ex/b.py: 1 check shown from the run of 2026-12-05 00:20 "
        "(files unchanged; --grader-remeasure measures again)",
    ]
    zh = kept_lines(outcomes, "zh")
    assert len(zh) == 2 and zh[0].startswith("~ ex/a.py：2 项检查沿用") and "--grader-remeasure" in zh[0]
    assert kept_lines([_kept("c1", "ex/a.py", "")], "en") == []


def test_the_live_line_fits_the_columns_left_counting_cjk_as_two() -> None:
    assert fitted("measuring", 20) == "measuring"
    assert fitted("measuring ex01::1a", 10) == "measuring…"  # ten columns, the ellipsis one of them
    cut = fitted("测量 m1::copy：第 3 轮", 8)
    assert cut == "测量 m1…" and sum(2 if ord(c) > 0x2E80 else 1 for c in cut) <= 8


class _Writer:
    def __init__(self, hasmarkup: bool = True, current: str = "ex/m1.py ..") -> None:
        self.hasmarkup = hasmarkup
        self.fullwidth = 80
        self.width_of_current_line = len(current)
        self.raw: list[str] = []

    def markup(self, text: str, **_: bool) -> str:
        return f"<{text}>"

    def write_raw(self, text: str, flush: bool = False) -> None:
        self.raw.append(text)


class _Capture:
    def __init__(self) -> None:
        self.suspended = 0

    @contextlib.contextmanager
    def global_and_fixture_disabled(self) -> Any:
        self.suspended += 1
        yield


class _Config:
    def __init__(self, tty: bool, writer: _Writer) -> None:
        self.writer, self.capture = writer, _Capture()
        reporter = type("Reporter", (), {"isatty": staticmethod(lambda: tty)})()
        plugins = {"terminalreporter": reporter, "capturemanager": self.capture}
        self.pluginmanager = type("PM", (), {"get_plugin": staticmethod(plugins.get)})()

    def get_terminal_writer(self) -> _Writer:
        return self.writer


def test_the_live_line_is_written_in_place_with_capture_suspended_and_erased() -> None:
    config = _Config(tty=True, writer=_Writer())
    live = LiveLine(config, "en", tick_s=3600.0)  # type: ignore[arg-type]  # no redraw of the ticker's
    assert live.enabled()
    live.update(Progress("m1", "copy", 0, 0.2))
    live.update(Progress("m1", "copy", 0, 0.3))  # the same round, too soon: not written again
    live.update(Progress("m1", "copy", 2, 12.4))
    live.erase()
    live.erase()  # nothing more to erase
    column = len("ex/m1.py ..") + 1
    assert config.writer.raw == [
        f"\x1b[{column}G\x1b[K <measuring m1::copy: round 1, 0 s>",
        f"\x1b[{column}G\x1b[K <measuring m1::copy: round 2, 12 s>",
        f"\x1b[{column}G\x1b[K",
    ]
    assert config.capture.suspended == 3  # every write goes past pytest's capture of the check


def test_no_live_line_off_a_terminal_without_markup_or_without_room() -> None:
    for config in (
        _Config(tty=False, writer=_Writer()),
        _Config(tty=True, writer=_Writer(hasmarkup=False)),  # TERM=dumb
    ):
        live = LiveLine(config, "zh")  # type: ignore[arg-type]
        assert not live.enabled()
        live.update(Progress("m1", "copy", 1, 1.0))
        live.erase()
        assert config.writer.raw == []
    crowded = _Config(tty=True, writer=_Writer(current="x" * 70))
    live = LiveLine(crowded, "en")  # type: ignore[arg-type]
    live.update(Progress("m1", "copy", 1, 1.0))
    assert crowded.writer.raw == []


def test_the_live_lines_seconds_are_redrawn_until_it_is_erased() -> None:
    """A student's call, or perfcore's start, can take seconds with nothing to tell: the line's seconds are
    redrawn by a ticker, which the erase stops before pytest writes the check's result."""
    now = [100.0]
    config = _Config(tty=True, writer=_Writer())
    # the test ticks by hand, on a clock of its own
    live = LiveLine(config, "en", tick_s=3600.0, clock=lambda: now[0])  # type: ignore[arg-type]
    live.update(Progress("m1", "copy", 1, 2.0))
    ticker = live._ticker
    assert ticker is not None and ticker.is_alive()
    now[0] += 5
    live.tick()
    assert config.writer.raw[-1].endswith("<measuring m1::copy: round 1, 7 s>")
    live.erase()
    assert not ticker.is_alive() and live._ticker is None
    live.tick()  # erased: nothing more is drawn
    assert config.writer.raw[-1].endswith("\x1b[K") and len(config.writer.raw) == 3
