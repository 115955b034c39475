"""grader.reports.files: grades.csv and grades.json as they are written and read, the CSV's formula guard and the
percent column."""

from __future__ import annotations

import csv
import json

import pytest

from grader.reports.files import fmt_percent, percent, without_percent, write_grades


@pytest.mark.parametrize(
    "cell",
    ["=1+1", " =1+1", "  +SUM(A1)", "\u3000-1", "@cmd", "\t=1", "\r=1", "\n=1", "-", " @"],
)
def test_a_formula_is_text_in_the_csv_even_behind_blanks(cell: str) -> None:
    """OWASP's rule (= + - @ tab CR at the start), looked for past leading whitespace: spreadsheets skip it."""
    from grader.reports.files import csv_text

    assert csv_text(cell) == "'" + cell


@pytest.mark.parametrize("cell", ["alice", " alice", "李雷", "a=1", "bob-1", ""])
def test_a_plain_name_is_left_as_it_is_in_the_csv(cell: str) -> None:
    from grader.reports.files import csv_text

    assert csv_text(cell) == cell


def test_grades_get_a_percentage_as_they_are_written_and_lose_it_as_they_are_read(tmp_path) -> None:
    """grades.csv's percent column (after deferred_points) and grades.json's percent field are each
    student's score over the maximum counted for them; a student with nothing counted has none. Read back,
    the rows are those a run builds, their checks from the fifth column."""
    rows = [
        ["student", "score", "max_score", "deferred_points", "ex::a", "ex::b"],
        ["alice", "78", "78", "3", "78", ""],
        ["bob", "78.5", "81", "0", "78", "0.5"],
        ["carol", "0", "0", "3", "", ""],
    ]
    records = {
        row[0]: {"score": float(row[1]), "max_score": float(row[2]), "deferred_points": float(row[3])}
        for row in rows[1:]
    }
    csv_path, json_path = write_grades(tmp_path, rows, {"students": records, "checks": ["ex::a", "ex::b"]})
    written = list(csv.reader(csv_path.read_text(encoding="utf-8").splitlines()))
    assert written[0][:5] == ["student", "score", "max_score", "deferred_points", "percent"]
    assert [r[4] for r in written[1:]] == ["100", "96.91", ""]
    data = json.loads(json_path.read_text(encoding="utf-8"))["students"]
    assert data["alice"]["percent"] == 100.0 and data["carol"]["percent"] is None
    assert abs(data["bob"]["percent"] - 100 * 78.5 / 81) < 1e-12
    assert list(data["bob"])[:4] == ["score", "max_score", "deferred_points", "percent"]
    assert without_percent(written) == rows and without_percent(rows) == rows  # an older file as it is
    assert percent(1, 0) is None and fmt_percent(None) == ""
