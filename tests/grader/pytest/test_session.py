"""grader.pytest.session, end to end on fake exercises (tests/grader/fakes.py) in pytester sessions: one
config's state: its registry (an unknown checks module), its outcomes under xdist, when its judge starts the
reference, its language and deferred policy, and the verdicts pytest's cache keeps (shown again, measured
again, forged, not read under CI)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from grader.judge import Judge
from grader.text.catalogue import render
from tests.grader.pytest.graded import CORRECT, METER, NOT_ATTEMPTED, PARTLY, QUIET, ReferenceSeen

pytest_plugins = ["pytester"]


def test_unknown_checks_module_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(helper="X = 1\n")
    result = pytester.runpytest(*QUIET, "--grader-checks=no_such_checks_module")
    assert "no_such_checks_module" in result.stdout.str() + result.stderr.str()
    assert result.ret != pytest.ExitCode.OK


def test_xdist_gives_the_same_points_and_defers_serial_measurements(session) -> None:
    serial = session(fake_student=PARTLY, fake_meter=METER)
    parallel = session("-n", "2", fake_student=PARTLY, fake_meter=METER)
    points = lambda g: {t["name"]: (t["score"], t["max_score"]) for t in g.json["tests"]}  # noqa: E731
    assert "perfkit 评分" in parallel.text
    expected = points(serial)
    # needs a serial run: deferred under -n 2, its name marked so (grader.reports.gradescope)
    del expected["fm::m_serial (假测量)"]
    expected[f"fm::m_serial (假测量) [{render('state_deferred', 'zh')}]"] = (0.0, 0.0)
    assert points(parallel) == expected
    assert "串行" in parallel.test("m_serial")["output"]


def test_the_reference_starts_early_only_once_some_work_is_done(session, pytester: pytest.Pytester) -> None:
    # A fresh kit: the checks before the first measurement are stubs, and perfcore's process (torch's
    # import) is not started beside them; the measurement asks for it when it needs it.
    meter = "def rate_ok():\n    raise NotImplementedError()\n"
    session(fake_meter=meter, fake_student=NOT_ATTEMPTED)
    seen = ReferenceSeen()
    pytester.runpytest(*QUIET, "fake_student.py", "fake_meter.py", plugins=[seen])
    assert seen.started is False
    # one check answered, and a measuring function written (one still the stub's asks perfcore for nothing,
    # issue 30): it is started while the checks before the measurements run
    (pytester.path / "fake_student.py").write_text(PARTLY, encoding="utf-8")
    (pytester.path / "fake_meter.py").write_text(
        meter.replace("NotImplementedError()", "NotImplementedError('later')"), encoding="utf-8"
    )
    again = ReferenceSeen()
    pytester.runpytest(*QUIET, "fake_student.py", "fake_meter.py", plugins=[again])
    assert again.started is True


def test_the_language_comes_from_the_option_else_the_course_else_the_locale(
    session, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess

    monkeypatch.setenv("LANGUAGE", "en_US")  # an English locale, no course setting: English
    english = session(fake_student=CORRECT).text
    assert "perfkit score" in english
    # and says so, with how to switch (issue 47 item 2)
    assert "Language: English (from the locale, LANGUAGE=en_US) · 中文：--grader-lang zh" in english
    monkeypatch.setenv("LANGUAGE", "zh_CN")
    chinese = session(fake_student=CORRECT).text
    assert (
        "perfkit 评分" in chinese
        and "语言：中文（按区域设置 LANGUAGE=zh_CN）· English: --grader-lang en" in chinese
    )
    # the course's setting, as python -m grader release --lang writes it, outweighs the locale
    (pytester.path / "pyproject.toml").write_text('[tool.perfkit]\nlang = "en"\n', encoding="utf-8")
    assert "perfkit score" in session(fake_student=CORRECT).text
    assert "perfkit 评分" in session("--grader-lang=zh", fake_student=CORRECT).text  # the option, both
    # python -m grader file resolves its --lang the same way: the course's setting beside the file
    done = subprocess.run(
        [sys.executable, "-m", "grader", "file", "fk", "fake_student.py", "--grader-checks", "fake_checks"],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(pytester.path), os.environ.get("PYTHONPATH", "")]),
        },
        timeout=600,  # a guard against a hang: a few seconds idle, far more on a busy machine
        check=False,
    )
    assert any(line.startswith("total") for line in done.stdout.splitlines()), done.stderr[-2000:]
    assert "Language: English (the course's setting: [tool.perfkit] lang in " in done.stdout
    assert done.stdout.rstrip().endswith("中文：--lang zh")
    (pytester.path / "pyproject.toml").write_text('[tool.perfkit]\nlang = "fr"\n', encoding="utf-8")
    refused = session(fake_student=CORRECT)
    assert refused.result.ret == pytest.ExitCode.USAGE_ERROR and "fr" in refused.result.stderr.str()


def test_deferred_zero_counts_skips_as_zero(session) -> None:
    graded = session("--grader-deferred=zero", fake_meter=METER)
    assert graded.json["max_score"] == 8.0 and graded.json["score"] == 2.0
    assert graded.test("m_cuda")["max_score"] == 1.0 and graded.test("m_cuda")["status"] == "failed"
    assert "按 0 分计入" in graded.text


def _table_states(text: str) -> dict[str, str]:
    """check id -> the state column of the score table, its mark kept (``passed~``)."""
    rows = (line.split() for line in text.splitlines())
    return {r[2]: r[3] for r in rows if len(r) >= 6 and r[0] == "fm" and r[-2] == "/"}


def _counted_runs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the checks the judge runs from now on (a check shown from the cache is not run)."""
    ran: list[str] = []
    real = Judge.run_check

    def counted(self, p, *args, **kwargs):
        ran.append(p.check.id)
        return real(self, p, *args, **kwargs)

    monkeypatch.setattr(Judge, "run_check", counted)
    return ran


def test_an_unchanged_folders_measurements_are_shown_from_pytests_cache(session, monkeypatch) -> None:
    """Measure what changed (issue 21): a second run on the same files shows each measured verdict from
    pytest's cache, marked with when it was measured, without running the check; a skip is measured again,
    as is a check whose file, or a file that file imports, changed, and every check under --grader-remeasure. -p no:cacheprovider
    and --grader-json (a record for Gradescope: measured, never taken from a cache a submission could
    carry) keep nothing. An edited entry does not verify and is measured again (issue 29)."""
    ran = _counted_runs(monkeypatch)
    # the session's machine has no readable load (every round quiet, nothing busy now): this test is about
    # the files and the key; what the load keeps is tests/grader/results/test_reuse.py's
    monkeypatch.delenv("CI", raising=False)  # under CI the cache is not read (test_a_forged_cache_...)
    cached = ("-p", "cacheprovider", "--grader-lang=en")
    verdicts = {"m_ok": "passed", "m_off": "wrong", "m_serial": "passed", "m_edge": "wrong"}
    first = session(*cached, grader_json=False, fake_meter=METER)
    assert {c: _table_states(first.text)[c] for c in verdicts} == verdicts and "~" not in first.text
    assert set(verdicts) | {"m_noisy"} <= set(ran)

    ran.clear()
    again = session(*cached, grader_json=False)
    assert {c: _table_states(again.text)[c] for c in verdicts} == verdicts
    assert not set(verdicts) & set(ran) and "m_noisy" in ran  # a skip may go another way: measured again
    assert _table_states(again.text)["m_noisy"] == "deferred*"  # the footnote's word (issue 30)
    total = [line for line in first.text.splitlines() if line.startswith("total")]
    assert total and total == [line for line in again.text.splitlines() if line.startswith("total")]
    # one line for the file, not one per check (issue 39 item 6): the kept checks, when, how to measure again
    kept = [line for line in again.text.splitlines() if line.startswith("~ ")]
    assert len(kept) == 1 and kept[0].startswith("~ fake_meter.py: 6 checks shown from the run of "), kept
    assert kept[0].endswith("(files unchanged; --grader-remeasure measures again)")
    assert "as measured" not in again.text and again.text.count("fm::m_ok") == 0
    assert "fm::m_off [wrong] 0/1 (as graded " in again.text  # a wrong one's block says so too

    # measured again: under --grader-remeasure; where the file changed; where a file it imports changed;
    # not where another file of the folder changed
    for args, files, measured in (
        (("--grader-remeasure",), {}, True),
        ((), {"fake_meter": METER + "import meter_helper\n", "meter_helper": "X = 1\n"}, True),
        ((), {}, False),
        ((), {"meter_helper": "X = 2\n"}, True),
        ((), {"unrelated": "Y = 1\n"}, False),
    ):
        ran.clear()
        session(*cached, *args, grader_json=False, **files)
        assert (set(verdicts) <= set(ran)) if measured else not set(verdicts) & set(ran), (args, files)
    for kept in (cached, ()):  # a results.json is measured; so is a run without pytest's cache
        session(*cached, grader_json=False)
        ran.clear()
        session(*kept)
        assert set(verdicts) <= set(ran)

    cache_dir = Path(os.getcwd()) / ".pytest_cache" / "v" / "perfkit" / "measured"
    entries = {p: json.loads(p.read_text(encoding="utf-8")) for p in cache_dir.iterdir()}
    assert entries
    for path, kept in entries.items():
        if kept["outcome"]["check_id"] == "m_off":
            kept["outcome"].update(state="passed", points=1000.0, max_points=1000.0)
        elif kept["outcome"]["check_id"] == "m_edge":
            kept["outcome"]["check_id"] = "m_ok"
        else:
            kept.pop("outcome")
        path.write_text(json.dumps(kept), encoding="utf-8")
    ran.clear()
    forged = session(*cached, grader_json=False)
    # an edited entry no longer verifies (issue 29): measured again, never shown with its edited points
    assert "(as graded" not in forged.text and _table_states(forged.text)["m_off"] == "wrong"
    assert not any("1000" in line for line in forged.text.splitlines() if "m_off" in line)
    assert {"m_ok", "m_edge", "m_serial", "m_off"} <= set(ran)
    assert "kept measurement(s) were not written by this kit on this account" in forged.text


class _PreparedSeen:
    """Whether each check of the session was collected unprepared (an outcome kept for it)."""

    lazy: dict[str, bool]

    def __init__(self) -> None:
        self.lazy = {}

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for item in session.items:
            prepared = getattr(item, "prepared", None)
            if prepared is not None:
                self.lazy[prepared.check.id] = prepared.lazy


def test_an_unchanged_formula_file_is_shown_from_the_cache_and_prepared_not_at_all(
    session, pytester: pytest.Pytester, monkeypatch
) -> None:
    """Issue 30: a formula check's outcome is kept like a measurement's (a pass, a wrong, not attempted;
    never an error or a timeout), under the same key; an unchanged file's checks are collected unprepared
    and shown from the cache, and a changed file is graded again."""
    ran = _counted_runs(monkeypatch)
    monkeypatch.delenv("CI", raising=False)
    cached = ("-p", "cacheprovider", "--grader-lang=en")
    partly = CORRECT.replace("return a / b", "return a * b")  # v_ratio wrong, the rest right
    session(*cached, grader_json=False, fake_student=partly)
    first = set(ran)
    assert {"v_ratio", "c_bound", "p_double"} <= first
    ran.clear()
    seen = _PreparedSeen()
    again = pytester.runpytest(*QUIET, *cached, plugins=[seen])
    text = again.stdout.str()
    kept_ids = {"v_ratio", "c_bound", "p_double", "v_ridge", "v_slow"} & first
    assert not kept_ids & set(ran), ran  # shown from the cache, not graded
    assert "s_roof" in ran  # a curve is no formula: graded again
    assert all(seen.lazy[c] for c in kept_ids), seen.lazy  # and collected without preparing them
    # one line for the file, which counts the formula checks kept, and no "measured" for them
    kept = [line for line in text.splitlines() if line.startswith("~ ")]
    assert len(kept) == 1 and kept[0].startswith(f"~ fake_student.py: {len(kept_ids)} checks shown"), kept
    assert "as measured" not in text and "fk::v_ratio [wrong] 0/1 (as graded " in text
    # the file changed: graded again, and its new answer counts
    ran.clear()
    graded = session(*cached, grader_json=False, fake_student=CORRECT)
    assert {"v_ratio", "c_bound", "p_double"} <= set(ran)
    rows = [line.split() for line in graded.text.splitlines()]
    assert ["fk", "a", "v_ratio", "passed", "1", "/", "1"] in rows


def test_a_rerun_of_a_stub_says_nothing_was_kept_and_calls_deferred_deferred(session, monkeypatch) -> None:
    """Issue 39 item 6: a second run of an untouched kit listed its not-attempted checks "as measured"; a
    not-attempted check is kept (collection prepares nothing for it) but never said to be an earlier run's
    verdict. And pytest's own summary line says "deferred", the table's word, for a deferred check."""
    monkeypatch.delenv("CI", raising=False)
    cached = ("-p", "cacheprovider", "--grader-lang=en")
    session(*cached, grader_json=False, fake_student=NOT_ATTEMPTED)
    again = session(*cached, grader_json=False)
    assert "not attempted" in again.text
    assert not [line for line in again.text.splitlines() if line.startswith("~")], again.text
    assert "as measured" not in again.text and "as graded" not in again.text
    meter = session("--grader-lang=en", fake_meter=METER)
    outcomes = meter.result.parseoutcomes()
    assert outcomes.get("deferred") == 2 and "skipped" not in outcomes, outcomes


def test_a_forged_cache_earns_nothing_and_ci_reads_no_cache(session, monkeypatch, tmp_path) -> None:
    """Issue 29: entries computed with reuse_key, as a reader of the grader's code can, for every measured
    check of an untouched submission, saying "passed": none verifies (their signature needs the secret in
    the user's cache folder), so each check is measured, and the run says so. Under CI (GitHub Classroom
    grades by pytest's exit status) even this account's own entries are not read."""
    from grader.results.reuse import CACHE_PREFIX, reuse_key

    ran = _counted_runs(monkeypatch)
    monkeypatch.delenv("CI", raising=False)
    cached = ("-p", "cacheprovider", "--grader-lang=en")
    first = session(*cached, grader_json=False, fake_meter=METER)
    measured = set(ran)
    assert {"m_ok", "m_off"} <= measured
    cache_dir = Path(os.getcwd()) / ".pytest_cache" / "v" / "perfkit" / "measured"
    for path in cache_dir.iterdir():
        kept = json.loads(path.read_text(encoding="utf-8"))
        outcome = kept["outcome"]
        key = reuse_key(
            outcome["exercise"], outcome["check_id"], Path(os.getcwd()) / "fake_meter.py", "en", 0.25
        )
        assert key == path.name and CACHE_PREFIX.endswith(
            path.parent.name
        )  # the forger's key is the real one
        forged = {
            "outcome": {**outcome, "state": "passed", "points": outcome["max_points"]},
            "measured_at": "x",
        }
        path.write_text(json.dumps(forged), encoding="utf-8")
    ran.clear()
    again = session(*cached, grader_json=False)
    assert measured <= set(ran) and "~" not in again.text
    assert _table_states(again.text)["m_off"] == "wrong" == _table_states(first.text)["m_off"]
    assert "were not written by this kit on this account" in again.text

    session(*cached, grader_json=False)  # this account's own entries now
    ran.clear()
    monkeypatch.setenv("CI", "true")
    in_ci = session(*cached, grader_json=False)
    assert measured <= set(ran) and "~" not in in_ci.text
