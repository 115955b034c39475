"""A rerun leaves no output of an earlier run standing beside its own (issue 47 item 4: a rerun without
``--gradescope`` left ``gradescope/<student>/results.json`` of the earlier run, in the earlier language, and
said nothing): what it did not rewrite it removes, and says so (``grader.batch.stale``)."""

from __future__ import annotations

import os
import shutil

from tests.grader.batch.helpers import _cli, _json, _shard_submissions

COMMON = ["--exercises", "ex01", "--lang", "en", "--quiet"]


def _results(out) -> set[str]:
    return {p.parent.name for p in (out / "gradescope").glob("*/results.json")}


def test_a_rerun_without_gradescope_or_html_removes_the_earlier_runs_and_says_so(tmp_path, capsys):
    subs = _shard_submissions(tmp_path / "subs", names=("right_1", "wrong_1"))
    out, html = tmp_path / "out", tmp_path / "html"
    assert _cli(str(subs), "--out", str(out), "--gradescope", "--html", str(html), *COMMON) == 0
    assert _results(out) == {"right_1", "wrong_1"} and (html / "index.html").is_file()
    assert _json(out / "grades.json")["html"] == os.path.abspath(html)
    capsys.readouterr()
    assert _cli(str(subs), "--out", str(out), *COMMON) == 0
    said = capsys.readouterr().out
    assert not (out / "gradescope").exists(), list((out / "gradescope").rglob("*"))
    assert f"removed 2 files an earlier run left in {out / 'gradescope'}" in said, said
    assert "--gradescope to write them anew" in said
    assert not (html / "index.html").exists() and not list(html.rglob("*.html"))
    assert f"removed 3 files an earlier run left in {html}" in said and f"--html {html}" in said, said
    assert "html" not in _json(out / "grades.json")
    # nothing stale left: the next rerun removes nothing and says nothing of it
    assert _cli(str(subs), "--out", str(out), *COMMON) == 0
    assert "removed" not in capsys.readouterr().out


def test_a_regrade_removes_only_what_it_made_stale(tmp_path, capsys):
    """``--student`` without ``--gradescope``: the named student's results.json no longer says their grade
    and goes; the others' grades are unchanged, and so are their files."""
    subs = _shard_submissions(tmp_path / "subs", names=("right_1", "wrong_1", "stub_1"))
    out = tmp_path / "out"
    assert _cli(str(subs), "--out", str(out), "--gradescope", *COMMON) == 0
    kept = (out / "gradescope" / "right_1" / "results.json").read_bytes()
    capsys.readouterr()
    assert _cli(str(subs), "--out", str(out), "--student", "wrong_1", *COMMON) == 0
    said = capsys.readouterr().out
    assert _results(out) == {"right_1", "stub_1"} and "removed 1 file an earlier run left" in said, said
    assert (out / "gradescope" / "right_1" / "results.json").read_bytes() == kept
    # with --gradescope, the named student's is written anew and nothing is removed
    assert _cli(str(subs), "--out", str(out), "--student", "wrong_1", "--gradescope", *COMMON) == 0
    assert _results(out) == {"right_1", "wrong_1", "stub_1"} and "removed" not in capsys.readouterr().out


def test_the_pages_of_a_student_no_longer_graded_are_removed(tmp_path, capsys):
    subs = _shard_submissions(tmp_path / "subs", names=("right_1", "wrong_1"))
    out, html, other = tmp_path / "out", tmp_path / "html", tmp_path / "elsewhere"
    assert _cli(str(subs), "--out", str(out), "--html", str(html), *COMMON) == 0
    pages = {p.name for p in (html / "students").glob("*.html")}
    assert len(pages) == 2
    shutil.rmtree(subs / "wrong_1")
    (html / "notes.txt").write_text("the instructor's own file", encoding="utf-8")
    capsys.readouterr()
    assert _cli(str(subs), "--out", str(out), "--html", str(html), *COMMON) == 0
    assert len(list((html / "students").glob("*.html"))) == 1 and (html / "index.html").is_file()
    assert "removed 1 file an earlier run left" in capsys.readouterr().out
    # pages written elsewhere: the earlier folder's go, the instructor's own file stays
    assert _cli(str(subs), "--out", str(out), "--html", str(other), *COMMON) == 0
    assert (other / "index.html").is_file() and not (html / "index.html").exists()
    assert (html / "notes.txt").read_text(encoding="utf-8") == "the instructor's own file"
    assert f"removed 2 files an earlier run left in {html}" in capsys.readouterr().out
