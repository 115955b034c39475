"""What a failed grading of the whole kit printed, cut so that an assertion keeps why it failed.

A grading's last lines are the score table; the reason a check failed (its verdict and message) is higher
up, in pytest's FAILURES section. Both are kept: a false "wrong" on a loaded machine is rare, and a message
cut off cannot be read again."""

from __future__ import annotations

import re

#: pytest's section rules: "=== FAILURES ===" and the "short test summary info" that follows it.
_FAILURES = re.compile(r"^=+ FAILURES =+$", re.MULTILINE)
_SUMMARY = re.compile(r"^=+ short test summary info =+$", re.MULTILINE)


def failures_and_tail(stdout: str, tail: int = 3000, most: int = 6000) -> str:
    """The FAILURES section of a pytest run's ``stdout`` (at most ``most`` characters), then its last
    ``tail`` characters; the tail alone where the run printed no such section."""
    start = _FAILURES.search(stdout)
    if start is None:
        return stdout[-tail:]
    end = _SUMMARY.search(stdout, start.end())
    section = stdout[start.start() : end.start() if end else len(stdout)]
    return section[:most] + "\n...\n" + stdout[-tail:]
