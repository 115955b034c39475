"""grader.results.outcome: totals with deferred points, rows by part, and names and messages shown as printable text."""

from __future__ import annotations

import pytest

from grader.reports.files import write_json
from grader.results.outcome import ExerciseResult, Outcome, totals
from tests.grader.results.outcomes import OUTCOMES, outcome


def test_totals_defer_or_zero() -> None:
    t = totals(OUTCOMES)
    assert (t.score, t.max_score, t.deferred_points) == (2.0, 3.0, 3.0)
    assert totals(OUTCOMES, "zero").max_score == 6.0
    result = ExerciseResult("ex02", tuple(OUTCOMES))
    assert result.score == 2.0 and result.max_score == 3.0 and result.points_by_part == {"2a": (2.0, 3.0)}
    with pytest.raises(ValueError, match="deferred"):
        totals(OUTCOMES, "maybe")
    with pytest.raises(ValueError, match="state"):
        outcome("c9", "great", 0, 1)
    assert Outcome.from_dict({**OUTCOMES[0].to_dict(), "unknown": 1}) == OUTCOMES[0]


def test_rows_are_listed_by_part() -> None:
    def outcome(number: str, part: str) -> Outcome:
        return Outcome(
            exercise="ex01",
            check_id=number,
            part=part,
            state="passed",
            points=1,
            max_points=1,
            message="",
            number=number,
        )

    checks = [outcome("1.1", "1a"), outcome("1.2", "1b"), outcome("1.3", "1b"), outcome("1.4", "1a")]
    checks.append(outcome("1.5", "10"))
    ordered = [(o.part, o.number) for o in sorted(checks, key=Outcome.sort_key)]
    assert ordered == [("1a", "1.1"), ("1a", "1.4"), ("1b", "1.2"), ("1b", "1.3"), ("10", "1.5")]


#: Folder names that an escape scheme could map to one text: an undecodable byte (os.fsdecode's surrogate)
#: and the same escape typed out, a C1 control and the byte of the same value, a backslash before an escape.
NAMES = [
    "caf\udce9",
    "caf\\xe9",
    "caf\\\\xe9",
    "café",
    "a\x80",
    "a\udc80",
    "a\\u0080",
    "\x1b[2K\rALL 17",
    "\\u001b[2K\\u000dALL 17",
    "a\tb",
    "a\u202eb",
    "a\ud800b",
    "李雷",
    " =1+1",
    "alice",
]


def test_a_name_is_shown_as_printable_text_of_its_own() -> None:
    from grader.results.outcome import shown_name

    shown = [shown_name(n) for n in NAMES]
    assert len(set(shown)) == len(NAMES)  # no two folders share a row
    for text in shown:
        text.encode("utf-8")  # valid text: no surrogate left
        assert text.isprintable()  # no control, tab, newline or bidirectional override
    assert shown_name("caf\udce9") == "caf\\xe9" and shown_name("caf\\xe9") == "caf\\\\xe9"
    assert shown_name("\x1b[2K\rALL 17") == "\\u001b[2K\\u000dALL 17"
    assert [shown_name(n) for n in ("李雷", "alice", " =1+1", "bob-be1b495986")] == [
        "李雷",
        "alice",
        " =1+1",
        "bob-be1b495986",
    ]


def test_printable_escapes_surrogates_so_reports_can_be_written(tmp_path) -> None:
    """A lone surrogate in a student's exception text cannot be written as UTF-8: it lost grades.json."""
    from grader.results.outcome import printable

    assert printable("x\udce9\x1by\n\tz") == "x\\udce9\\x1by\n\tz"
    write_json(tmp_path / "g.json", {"message": printable("raised \udce9")})
    assert "\\\\udce9" in (tmp_path / "g.json").read_text(encoding="utf-8")
