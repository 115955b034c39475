"""grader.reports.gradescope: Gradescope's results JSON, its scores, statuses and deferred checks."""

from __future__ import annotations

import json

import pytest

from grader.reports.files import write_json
from grader.reports.gradescope import gradescope_results
from grader.reports.table import score_table
from tests.grader.results.outcomes import OUTCOMES


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
