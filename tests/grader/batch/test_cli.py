"""``python -m grader grade`` and what it writes and prints: the grade files, the progress log, the summary,
and students' text (terminal escapes, formulas, odd folder names) kept out of terminals and spreadsheets."""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
from html import escape as html_escape

from grader.batch.engine import BatchConfig, grade_batch
from grader.sandbox.confinement import Limits
from tests.grader.batch.helpers import (
    BWRAP,
    EX01_POINTS,
    SOLUTIONS,
    _cli,
    _json,
    _shard_submissions,
)
from tests.grader.reports.pages import Page
from tests.hostile.cases import LOUD_ANSWER


def test_cli_grade_writes_the_files(tmp_path):
    subs = tmp_path / "subs"
    shutil.copytree(SOLUTIONS, subs / "alice", ignore=shutil.ignore_patterns("m*", "ex1*", "ex0[3-9]*"))
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(subs), "--out", str(out), "--exercises", "ex01"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "alice 10" in proc.stdout
    assert (out / "grades.csv").exists() and (out / "grades.json").exists()
    if BWRAP is None:
        assert "bubblewrap" in proc.stderr


def test_the_log_shows_progress_at_most_every_tenth(capsys):
    """Off a terminal, the progress bar prints a line per tenth of the work, not one per exercise."""
    from grader.batch.engine import _Progress

    progress = _Progress(48, enabled=True)
    progress.tty = False
    for i in range(48):
        progress.step(f"student{i}")
    progress.close()
    lines = capsys.readouterr().err.splitlines()
    assert 1 <= len(lines) <= 10 and lines[-1].startswith("[" + "#" * 30 + "] 48/48")


def test_the_summary_shows_each_score_with_its_maximum(tmp_path, capsys):
    subs = _shard_submissions(tmp_path / "subs", names=("right_1", "stub_1"))
    assert _cli(str(subs), "--out", str(tmp_path / "o"), "--exercises", "ex01", "--quiet") == 0
    out = capsys.readouterr().out
    rows = {r["student"]: r for r in csv.DictReader((tmp_path / "o" / "grades.csv").open(encoding="utf-8"))}
    for name in ("right_1", "stub_1"):
        assert f"{name} {float(rows[name]['score']):g}/{float(rows[name]['max_score']):g}" in out, out


def test_control_characters_and_formulas_reach_no_terminal_or_spreadsheet(tmp_path, capsys):
    """An exception text and printed output with terminal escapes (which could clear the screen and draw a
    score table of their own) are written as escapes; a folder named like a formula is text in grades.csv."""
    subs = tmp_path / "subs"
    sly = subs / '=HYPERLINK("x","y")'
    sly.mkdir(parents=True)
    (sly / "ex01_ridge_point.py").write_text(
        (SOLUTIONS / "ex01_ridge_point.py").read_text(encoding="utf-8") + LOUD_ANSWER,
        encoding="utf-8",
    )
    config = BatchConfig(exercises=("ex01",), lang="en", limits=Limits(grace_s=3.0), progress=False)
    assert _cli(str(subs), "--out", str(tmp_path / "out"), "--exercises", "ex01", "--lang", "en") == 0
    printed = capsys.readouterr()
    result = grade_batch(subs, config, out=tmp_path / "grades")
    (student,) = result.students
    (loud,) = [o for o in student.outcomes if o.check_id == "1a_ridge_a100_fp32"]
    assert loud.state == "error" and "\\x1b[2J" in loud.message and "\x1b" not in loud.message
    for name in ("grades.csv", "grades.json"):
        assert "\x1b" not in (tmp_path / "out" / name).read_text(encoding="utf-8")
    assert "\x1b" not in printed.out + printed.err
    rows = list(csv.reader((tmp_path / "out" / "grades.csv").read_text(encoding="utf-8").splitlines()))
    assert rows[1][0] == "'" + sly.name  # shown as text, not evaluated
    assert list(_json(tmp_path / "out" / "grades.json")["students"]) == [sly.name]


#: Folder names a student chooses (as bytes: one is not UTF-8): each must reach grades.csv, grades.json, its
#: HTML page and the terminal as printable, valid text of its own, and the formula as text.
ODD_NAMES = {
    b"caf\xe9": "caf\\xe9",  # not UTF-8: the byte written as an escape
    b"caf\\xe9": "caf\\\\xe9",  # the same escape typed as text: another name
    b"bob!": "bob!",
    b"bob-be1b495986": "bob-be1b495986",  # bob!'s page name in kits before page_names
    b"\x1b[2K\rALL 17": "\\u001b[2K\\u000dALL 17",  # a progress line of its own
    b" =1+1": " =1+1",  # a formula behind a blank
    b"Bob": "Bob",  # bob's page, on a file system that ignores case
    b"bob": "bob",
}


def test_odd_folder_names_each_get_their_own_row_page_and_line(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    for raw in ODD_NAMES:
        folder = os.path.join(os.fsencode(subs), raw)
        os.mkdir(folder)
        shutil.copy(SOLUTIONS / "ex01_ridge_point.py", os.fsdecode(folder))
    out, html = tmp_path / "out", tmp_path / "html"
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(subs), "--out", str(out), "--exercises", "ex01"]
        + ["--lang", "en", "--html", str(html), "--grace", "3"],
        capture_output=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    printed = (proc.stdout + proc.stderr).decode("utf-8")  # valid UTF-8, every byte of it
    assert "\x1b" not in printed and "\r" not in printed and "Traceback" not in printed
    shown = sorted(ODD_NAMES.values())
    assert "graded 8 students" in printed and ", ".join(f"{n} 10/10" for n in shown) in printed
    rows = list(csv.reader((out / "grades.csv").read_text(encoding="utf-8").splitlines()))
    assert [r[0] for r in rows[1:]] == ["' =1+1" if n == " =1+1" else n for n in shown]
    assert all(float(r[1]) == EX01_POINTS for r in rows[1:])
    assert list(_json(out / "grades.json")["students"]) == shown
    index = (html / "index.html").read_text(encoding="utf-8")
    index = index[index.index('<section id="students">') :]  # the ranking (the grid links to sections)
    links = re.findall(r'<a href="(students/[^"]+)"', index)
    assert len(links) == len(set(links)) == 8 and len({link.casefold() for link in links}) == 8
    for name in shown:
        link = re.search(rf'<tr data-student="{re.escape(html_escape(name))}">.*?<a href="([^"]+)"', index)
        assert link, name
        page = (html / link[1]).read_text(encoding="utf-8")
        heading = page[page.index("<h1>") : page.index("</h1>")]
        assert heading.endswith(f": {html_escape(name)}"), (name, heading)  # the page of this student


def _index_figures(index: str) -> dict[str, dict[str, str]]:
    """Each student's row of the index's ranking: its rank, percentage, score, maximum and deferred points."""
    page = Page(index)
    index = index[index.index('<section id="students">') :]
    figures: dict[str, dict[str, str]] = {}
    for name, row in re.findall(r'<tr data-student="([^"]+)">(.*?)</tr>', index):
        cells = dict(re.findall(r'data-(rank|percent|score|max|deferred)="([^"]*)"', row))
        figures[html_escape(name, quote=False)] = cells
    assert page.text  # the page parses
    return figures


def test_a_regrade_with_html_rebuilds_the_class_pages_from_the_whole_output(tmp_path, capsys):
    """``--html`` with ``--student`` (issue 39): the pages are written from every student's grades after the
    regrade, so the index says what grades.csv says, the regraded student's new figures included, and the
    percentage column is each row's score over its maximum."""
    subs = _shard_submissions(tmp_path / "subs", names=("right_1", "wrong_1", "stub_1"))
    out, html = tmp_path / "out", tmp_path / "html"
    common = ["--exercises", "ex01", "--lang", "en", "--quiet", "--html", str(html)]
    assert _cli(str(subs), "--out", str(out), *common) == 0
    first = _index_figures((html / "index.html").read_text(encoding="utf-8"))
    assert float(first["stub_1"]["score"]) == 0
    shutil.copy(SOLUTIONS / "ex01_ridge_point.py", subs / "stub_1")  # the stub's student hands in again
    capsys.readouterr()
    assert _cli(str(subs), "--out", str(out), "--student", "stub_1", *common) == 0
    assert "wrote" in capsys.readouterr().out
    rows = list(csv.DictReader((out / "grades.csv").open(encoding="utf-8")))
    assert list(rows[0])[:5] == ["student", "score", "max_score", "deferred_points", "percent"]
    index = (html / "index.html").read_text(encoding="utf-8")
    shown = _index_figures(index)
    index = index[index.index('<section id="students">') :]  # the ranking (the grid links to sections)
    assert set(shown) == {r["student"] for r in rows} == {"right_1", "wrong_1", "stub_1"}
    data = _json(out / "grades.json")["students"]
    for row in rows:
        figures = shown[row["student"]]
        assert float(figures["score"]) == float(row["score"]) and float(figures["max"]) == float(
            row["max_score"]
        )
        assert float(figures["percent"]) == float(row["percent"]) == data[row["student"]]["percent"]
        assert float(row["percent"]) == 100 * float(row["score"]) / float(row["max_score"])
    assert float(shown["stub_1"]["score"]) == EX01_POINTS and shown["stub_1"]["rank"] in ("1", "2")
    assert shown["wrong_1"]["rank"] == "3"  # ranked by percentage, after both full marks
    # every student keeps a page, linked from the index; the regraded one's shows the new grade
    links = dict(re.findall(r'<tr data-student="([^"]+)">.*?<a href="([^"]+)"', index))
    assert set(links) == {"right_1", "wrong_1", "stub_1"}
    page = (html / links["stub_1"]).read_text(encoding="utf-8")
    assert f'id="total" data-score="{EX01_POINTS:g}"' in page


def test_the_language_follows_the_instructor_and_the_run_says_how_to_switch(tmp_path, capsys, monkeypatch):
    """Issue 47 item 2: with no --lang, batch grading speaks as pytest does (the course's setting from the
    current folder up, else the locale), not Chinese whatever the machine; under LANG=C.UTF-8 its grades, its
    pages and its line are English, and the line says how to have Chinese; a regrade keeps its run's."""
    from grader.text.lang import LOCALE_VARIABLES, course_lang

    for variable in LOCALE_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.chdir(tmp_path)
    # the nearest pyproject.toml decides, even where it sets nothing: none above the folder can
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "course"\n', encoding="utf-8")
    assert course_lang(tmp_path) is None
    subs = _shard_submissions(tmp_path / "subs", names=("right_1", "stub_1"))
    common = ["--exercises", "ex01", "--quiet"]
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert _cli(str(subs), "--out", "en", "--html", "en-html", *common) == 0
    printed = capsys.readouterr().out
    assert "Language: English (from the locale, LANG=C.UTF-8) · 中文：--lang zh" in printed
    assert _json(tmp_path / "en" / "grades.json")["lang"] == "en"
    index = (tmp_path / "en-html" / "index.html").read_text(encoding="utf-8")
    assert '<html lang="en">' in index and "Where each student stopped" in index
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert _cli(str(subs), "--out", "zh", *common) == 0
    printed = capsys.readouterr().out
    assert "语言：中文（按区域设置 LANG=zh_CN.UTF-8）· English: --lang en" in printed
    assert _json(tmp_path / "zh" / "grades.json")["lang"] == "zh"
    # regraded into the English run under the Chinese locale: that run's language, said so
    assert _cli(str(subs), "--out", "en", "--student", "stub_1", *common) == 0
    printed = capsys.readouterr().out
    assert "Language: English (as the earlier run in en)" in printed
    assert _json(tmp_path / "en" / "grades.json")["lang"] == "en"
    # the course's setting outweighs the locale, as in pytest
    (tmp_path / "pyproject.toml").write_text('[tool.perfkit]\nlang = "en"\n', encoding="utf-8")
    assert _cli(str(subs), "--out", "course", *common) == 0
    assert "the course's setting: [tool.perfkit] lang in" in capsys.readouterr().out
    assert _json(tmp_path / "course" / "grades.json")["lang"] == "en"
