"""grader.reports and grader.results.environment: the score table, Gradescope's JSON, the machine's environment, and the CSV's formula guard."""

from __future__ import annotations

import csv
import json
import re

import pytest

from grader.reports.files import fmt_percent, percent, without_percent, write_grades, write_json
from grader.reports.gradescope import gradescope_results
from grader.reports.table import score_table
from grader.results.environment import environment
from tests.grader.results.outcomes import OUTCOMES


def test_score_table_lists_totals_and_deferred() -> None:
    zh = "\n".join(score_table(OUTCOMES, "zh"))
    assert "通过" in zh and "答案错误" in zh and "暂缓计分*" in zh  # the footnote's word (issue 30)
    assert re.search(r"总分\s+2 / 3", zh) and "暂缓计分（不计入满分）: 3" in zh and "ex02::c3 (3)" in zh
    en = "\n".join(score_table(OUTCOMES, "en", "zero"))
    assert re.search(r"total\s+2 / 6", en) and "deferred (counted as zero): 3" in en


def test_gradescope_results(tmp_path) -> None:
    data = gradescope_results(OUTCOMES, "en", "defer", 1.5, env={"cpu": "x"})
    assert (data["score"], data["max_score"], data["execution_time"]) == (2.0, 3.0, 1.5)
    tests = {t["name"].split(" ")[0]: t for t in data["tests"]}
    assert tests["ex02::c1"]["status"] == "passed" and tests["ex02::c2"]["status"] == "failed"
    assert tests["ex02::c3"]["max_score"] == 0 and tests["ex02::c3"]["output"].startswith("[deferred]")
    assert tests["ex02::c3"]["extra_data"] == {"state": "skipped", "deferred": True}
    (row,) = [line for line in score_table(OUTCOMES, "en") if line.startswith("ex02") and " c3 " in line]
    assert "deferred*" in row and "skipped" not in row
    assert tests["ex02::c2"]["number"] == "2.2" and "part 2a" in tests["ex02::c2"]["tags"]
    assert data["extra_data"]["deferred"] == ["ex02::c3"]
    path = tmp_path / "out" / "results.json"
    write_json(path, data)
    assert json.loads(path.read_text(encoding="utf-8"))["tests"][0]["name"].startswith("ex02::c1")


@pytest.mark.parametrize("policy", ["defer", "zero"])
def test_a_deferred_check_is_never_reported_as_passed(policy: str) -> None:
    """Gradescope reads a test without a status by its scores, and 0/0 as passed: a deferred check was not
    graded, so its status is given, and it is not "passed" under either policy; the statuses are the two
    Gradescope knows."""
    data = gradescope_results(OUTCOMES, "en", policy, env={"cpu": "x"})
    names = set(data["extra_data"]["deferred"])
    deferred = [t for t in data["tests"] if t["name"].split(" ")[0] in names]
    assert deferred and all(t["status"] == "failed" for t in deferred)
    assert {t["status"] for t in data["tests"]} <= {"passed", "failed"}
    assert all(("status" in t) for t in data["tests"])


def test_environment_names_the_machine() -> None:
    env = environment()
    assert {"cpu", "gpu", "python", "torch", "numpy", "platform"} <= set(env)
    assert env["numpy"] and env["python"].count(".") == 2


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
