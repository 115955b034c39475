"""The HTML pages of ``python -m grader file`` and ``python -m grader grade``, read back against the score
and the grades they write."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from grader.results.outcome import STATES
from tests.grader.reports.pages import (
    FAKES,
    Page,
    _num,
    self_contained,
)


@pytest.fixture
def fake_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fake exercise fk importable as html_fake_checks (a name no other test module imports)."""
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / "html_fake_checks.py").write_text(FAKES["FAKE_CHECKS"], encoding="utf-8")
    monkeypatch.syspath_prepend(str(modules))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(modules), os.environ.get("PYTHONPATH", "")]))
    return modules


def test_grader_file_writes_the_page(fake_modules: Path, tmp_path: Path, capsys) -> None:
    from grader.__main__ import main

    student = tmp_path / "fake_student.py"
    student.write_text(FAKES["PARTLY"], encoding="utf-8")
    out = tmp_path / "pages" / "one.html"
    code = main(
        [
            "file",
            "fk",
            str(student),
            "--grader-checks",
            "html_fake_checks",
            "--lang",
            "en",
            "--html",
            str(out),
        ]
    )
    assert code == 1  # not every check passed
    page = Page(out.read_text(encoding="utf-8"))
    total = page.find(id="total")[0]
    assert (_num(total["data-score"]), _num(total["data-max"])) == (3.0, FAKES["FAKE_MAX"])
    assert f"HTML report: {out}" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["file", "fk", str(student), "--grader-checks", "html_fake_checks", "--html", str(tmp_path)])
    assert exc.value.code == 2 and "--html" in capsys.readouterr().err


def test_batch_writes_an_index_and_a_page_per_student(fake_modules: Path, tmp_path: Path, capsys) -> None:
    from grader.batch.cli import main

    submissions = tmp_path / "submissions"
    for name, source in (
        ("alice", FAKES["CORRECT"]),
        ("bob", FAKES["PARTLY"]),
        ("carol", FAKES["NOT_ATTEMPTED"]),
    ):
        (submissions / name).mkdir(parents=True)
        (submissions / name / "fake_student.py").write_text(source, encoding="utf-8")
    planted = tmp_path / "a-file"
    planted.write_text("x")
    assert main([str(submissions), "--html", str(planted), "--grader-checks", "html_fake_checks"]) == 2
    assert "--html" in capsys.readouterr().err
    out, pages = tmp_path / "grades", tmp_path / "pages"
    code = main(
        [
            str(submissions),
            "--out",
            str(out),
            "--html",
            str(pages),
            "--grader-checks",
            "html_fake_checks",
            "--exercises",
            "fk",
            "--quiet",
            "--jobs",
            "2",
            "--lang",
            "en",
        ]
    )
    assert code == 0
    grades = json.loads((out / "grades.json").read_text(encoding="utf-8"))
    index_text = (pages / "index.html").read_text(encoding="utf-8")
    index = Page(index_text)
    self_contained(index_text, index)
    for name, data in grades["students"].items():
        row = index.find("tr", data_student=name)
        assert row, name
        text = (pages / "students" / f"{name}.html").read_text(encoding="utf-8")
        page = Page(text)
        self_contained(text, page)
        total = page.find(id="total")[0]
        assert (_num(total["data-score"]), _num(total["data-max"])) == (data["score"], data["max_score"])
        states = {a["data-check"]: a for a in page.find("tr") if "data-check" in a}
        assert set(states) == {f"{o['exercise']}::{o['check_id']}" for o in data["outcomes"]}
    # the distribution per check equals the states in grades.json
    for check in grades["checks"]:
        row = index_text[index_text.index(f'<tr data-check="{check}">') :]
        row = row[: row.index("</tr>")]
        counts = {k: int(v) for k, v in re.findall(r'data-state="(\w+)" data-count="(\d+)"', row)}
        expected = {s: 0 for s in STATES}
        for data in grades["students"].values():
            for o in data["outcomes"]:
                if f"{o['exercise']}::{o['check_id']}" == check:
                    expected[o["state"]] += 1
        assert counts == expected, check
