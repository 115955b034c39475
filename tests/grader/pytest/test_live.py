"""grader.pytest.live, end to end on the fake measurements (tests/grader/fakes.py) in a pytester session: the
live line of a measuring check in progress, on a terminal only."""

from __future__ import annotations

import re

import pytest

from tests.grader.pytest.graded import METER, QUIET

pytest_plugins = ["pytester"]


class _Terminal:
    """Makes the session's terminal reporter write as to a terminal that takes markup (pytester's is a
    capture)."""

    @pytest.hookimpl(trylast=True)  # after the terminal reporter is made
    def pytest_configure(self, config: pytest.Config) -> None:
        config.pluginmanager.get_plugin("terminalreporter").isatty = lambda: True
        config.get_terminal_writer().hasmarkup = True


def test_a_measuring_check_in_progress_has_a_live_line_on_a_terminal_only(
    session, pytester: pytest.Pytester
) -> None:
    """Issue 39 item 5: a measuring check says on a terminal, while it runs, which check, which round and
    how long, in place after pytest's own line, and erases it before pytest writes its result; a log gets
    none of it."""
    plain = session("--grader-lang=en", fake_meter=METER)
    assert "measuring fm::" not in plain.text and "\x1b[" not in plain.text
    result = pytester.runpytest(*QUIET, "--grader-lang=en", "fake_meter.py", plugins=[_Terminal()])
    raw = result.stdout.str()
    live = re.findall(r"\x1b\[(\d+)G\x1b\[K \S*measuring fm::(\w+): round (\d+), (\d+) s", raw)
    checks = {check for _, check, _, _ in live}
    assert {"m_ok", "m_off", "m_serial"} <= checks, raw[:3000]
    assert "m_cuda" not in checks  # deferred before it runs: nothing measured, no line
    assert max(int(r) for _, c, r, _ in live if c == "m_ok") >= 2  # the rounds count up
    # in place: at the column after pytest's "fake_meter.py " and the letters so far, then erased there
    for column, check, _, _ in live:
        assert f"\x1b[{column}G\x1b[K" in raw.split(f"measuring fm::{check}")[-1], check
    erased = re.sub(r"\x1b\[\d+G\x1b\[K( [^\x1b]*\x1b\[[\d;]*m[^\x1b]*\x1b\[0m)?", "", raw)
    assert "measuring fm::" not in erased
    assert re.search(r"fake_meter\.py (\x1b\[[\d;]*m[.FdE]\x1b\[0m)+", erased), erased[:2000]
