"""grader.pytest.items, end to end on fake exercises (tests/grader/fakes.py) in pytester sessions: the student's
files and their checks as pytest collects and runs them: the points, the table's order, limits, patching,
measurements and probes judged, the points in --junitxml, a session without exercises untouched, a stub never
imported."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

import grader.compare.values
import perfcore
from grader.text.catalogue import render
from tests.grader.pytest.graded import (
    CORRECT,
    FAKE_MAX,
    IMPORT_LOOP,
    METER,
    NOT_ATTEMPTED,
    PARTLY,
    PATCHING,
    PROBE_STUDENT,
    QUIET,
    ROOT,
    SLOW,
    STUBBORN_SLOW,
    ReferenceSeen,
    stubs,
)

pytest_plugins = ["pytester"]


def test_correct_submission_gets_full_points(session) -> None:
    graded = session(fake_student=CORRECT)
    assert graded.json["score"] == graded.json["max_score"] == FAKE_MAX
    graded.result.assert_outcomes(passed=6)
    assert "perfkit 评分" in graded.text and "7 / 7" in graded.text


def test_partly_right_gets_exactly_its_sum(session) -> None:
    graded = session(fake_student=PARTLY)
    assert graded.json["score"] == 3.0 and graded.json["max_score"] == FAKE_MAX
    assert {c: graded.test(c)["score"] for c in ("v_ratio", "c_bound", "s_roof")} == {
        "v_ratio": 1.0,
        "c_bound": 1.0,
        "s_roof": 1.0,
    }
    assert graded.state("p_double") == "wrong" and graded.state("v_slow") == "wrong"


def test_import_that_never_ends_times_out(session) -> None:
    graded = session(fake_student=IMPORT_LOOP)
    assert {graded.state(c) for c in ("v_ratio", "p_double")} == {"timeout"}
    assert graded.json["score"] == 0


def test_checks_come_in_the_tables_order(pytester: pytest.Pytester) -> None:
    # ex01 declares 1a_ridge_a100_fp32 (part 1a) after checks of part 1b: it runs, and is shown, where the
    # table puts it
    stub = ROOT / "exercises" / "ex01_ridge_point.py"
    pytester.mkdir("exercises")
    (pytester.path / "exercises" / "ex01_ridge_point.py").write_text(stub.read_text("utf-8"), "utf-8")
    result = pytester.runpytest(*QUIET, "exercises", "-v", "--grader-lang=zh")
    lines = result.stdout.lines
    run = [line.split("::")[1].split()[0] for line in lines if "ex01_ridge_point.py::" in line]
    table = [line.split()[2] for line in lines if line.startswith("ex01 ") and len(line.split()) == 7]
    assert len(run) == len(table) == 9 and run == table
    assert run.index("1a_ridge_a100_fp32") < run.index("matmul_intensity")


def test_endless_loop_costs_that_check_only(session) -> None:
    graded = session(fake_student=SLOW)
    assert graded.state("v_slow") == "timeout" and "时间限制 2" in graded.test("v_slow")["output"]
    assert graded.json["score"] == FAKE_MAX - 1


def test_loop_that_swallows_exceptions_still_times_out(session) -> None:
    graded = session(fake_student=STUBBORN_SLOW)
    assert graded.state("v_slow") == "timeout"
    assert graded.json["score"] == FAKE_MAX - 1


def test_patching_perfcore_and_the_grader_changes_nothing(session) -> None:
    original = perfcore.ridge_point
    code = original.__code__
    graded = session(fake_student=PATCHING)
    assert graded.json["score"] == 2.0  # ratio and bound, which it answered honestly
    assert graded.state("v_ridge") == "wrong" and graded.state("p_double") == "wrong"
    assert graded.state("s_roof") == "wrong" and graded.state("v_slow") == "wrong"
    assert perfcore.ridge_point is original and original.__code__ is code
    assert perfcore.ridge_point("H100") == pytest.approx(989.4e12 / 3.35e12, rel=1e-3)
    assert grader.compare.values.mismatch(1.0, 2.0, 1e-6, None) is not None
    assert abs(-3) == 3


def test_measurements_band_bound_retry_noise_and_requirements(session) -> None:
    graded = session(fake_meter=METER)
    assert graded.state("m_ok") == "passed"
    off = graded.test("m_off")["output"]
    # wholly outside in its first three clean rounds: the sequential rule decides there, not after its five
    assert graded.state("m_off") == "wrong" and "0.6" in off and "[0.8, 1.25]" in off and "3 轮" in off
    assert "置信区间 [0.6, 0.6]" in off and "比 perfcore 做同样的事慢" in off  # the evidence: slower
    assert graded.state("m_bound") == "wrong" and "测量错误" in graded.test("m_bound")["output"]
    noisy = graded.test("m_noisy")["output"]
    assert graded.state("m_noisy") == "skipped" and "噪声太大" in noisy and "仍跨着" in noisy
    assert graded.state("m_cuda") == "skipped" and "CUDA" in graded.test("m_cuda")["output"]
    assert graded.state("m_serial") == "passed"
    # the student's own figures scatter while perfcore's hold still: the method's fault, not the machine's
    scatter = graded.test("m_scatter")["output"]
    assert graded.state("m_scatter") == "wrong" and "每轮波动很大" in scatter and "仍跨着" in scatter
    # a ratio of 1.2503 is printed as past the band's 1.25, never as "1.25 outside [0.8, 1.25]"
    assert graded.state("m_edge") == "wrong" and "1.2503" in graded.test("m_edge")["output"]
    # skipped checks are deferred: left out of the maximum, listed apart
    assert graded.json["max_score"] == 6.0 and graded.json["score"] == 2.0
    assert graded.test("m_cuda")["max_score"] == 0 and graded.test("m_noisy")["max_score"] == 0
    assert sorted(graded.json["extra_data"]["deferred"]) == ["fm::m_cuda", "fm::m_noisy"]
    assert "暂缓计分（不计入满分）: 2" in graded.text
    # pytest's own summary line counts them under the table's word, not "skipped" (issue 39)
    outcomes = graded.result.parseoutcomes()
    assert outcomes[render("state_deferred", "zh")] == 2 and "skipped" not in outcomes


def test_probes_and_curves_are_judged_against_the_reference(session) -> None:
    graded = session(fake_probe_student=PROBE_STUDENT)
    assert graded.state("p_follows") == "passed"
    constant = graded.test("p_constant")["output"]
    assert graded.state("p_constant") == "wrong" and "没见过的输入" in constant and "size=" in constant
    # straddling on its own input under a noisy reference, a constant is still probed, not deferred
    noisy = graded.test("p_constant_noisy")["output"]
    assert graded.state("p_constant_noisy") == "wrong" and "没见过的输入" in noisy
    # where the probe cannot tell (perfcore's figure is the same at every size), a constant rate still
    # returns sooner than one run of its operation takes at the rate it reports
    flat = graded.test("p_flat_constant")["output"]
    # given away by its time: returned sooner than its rate allows (5e7 B at 1e9 B/s), or, where a loaded
    # machine stretched the round trip of an instant call past those 0.05 s, by the CPU it did not use
    assert graded.state("p_flat_constant") == "wrong" and "没有测量" in flat
    assert "5e+07 B" in flat or "等待不是测量" in flat, flat
    # an honest figure: passed, or on a loaded machine deferred with the machine's reason, never wrong
    measured = graded.test("p_flat_measured")["output"]
    assert graded.state("p_flat_measured") == "passed" or (
        graded.state("p_flat_measured") == "skipped" and ("噪声太大" in measured or "太忙" in measured)
    ), measured
    # and one that sleeps out that time, on no CPU, is caught by the CPU time the kernel gave its worker
    sleeping = graded.test("p_flat_sleeping")["output"]
    assert graded.state("p_flat_sleeping") == "wrong" and "等待不是测量" in sleeping
    assert graded.state("c_close") == "passed"
    far = graded.test("c_far")["output"]
    assert graded.state("c_far") == "wrong" and "2 个" in far and "perfcore" in far
    machine = graded.test("c_machine")
    assert graded.state("c_machine") == "skipped" and machine["max_score"] == 0
    assert "perfcore 自己在本机的测量" in machine["output"]
    # a custom shape (a speedup) with a reference: perfcore's own value must show it on this machine
    no_gain = graded.test("s_no_gain_here")
    assert graded.state("s_no_gain_here") == "skipped" and no_gain["max_score"] == 0
    assert "perfcore 自己在本机的测量" in no_gain["output"] and "1.05" in no_gain["output"]
    assert graded.state("s_gain_here") == "passed" and graded.state("s_student_loses") == "wrong"
    # inputs drawn from one distribution: honest figures follow at every one; figures made up on a part of
    # the range are met there, whichever input was the graded one
    assert graded.state("d_follows") == "passed"
    made_up = graded.test("d_small_made_up")["output"]
    assert graded.state("d_small_made_up") == "wrong" and "size=" in made_up


def test_junitxml_carries_the_points(session, pytester: pytest.Pytester) -> None:
    xml = pytester.path / "junit.xml"
    session(f"--junitxml={xml}", fake_student=PARTLY)
    cases = {case.get("name"): case for case in ET.parse(xml).getroot().iter("testcase")}
    assert len(cases) == 6
    props = {p.get("name"): p.get("value") for p in cases["v_ratio"].iter("property")}
    assert props == {"points": "1.0", "max_points": "1.0", "state": "passed", "deferred": "False"}
    props = {p.get("name"): p.get("value") for p in cases["p_double"].iter("property")}
    assert props["points"] == "0.0" and props["max_points"] == "2.0" and props["state"] == "wrong"


def test_session_without_exercise_modules_is_untouched(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_one():\n    assert True\n", helper="X = 1\n")
    result = pytester.runpytest(*QUIET)
    result.assert_outcomes(passed=1)
    text = result.stdout.str().split("collected", 1)[1]  # the header lists installed plugins, perfkit too
    assert "perfkit" not in text and "评分" not in text and "grader" not in text


def test_real_exercise_one_layout(pytester: pytest.Pytester) -> None:
    from grader.registry import load_exercises

    solution = ROOT / "solutions" / "ex01_ridge_point.py"
    pytester.mkdir("exercises")
    (pytester.path / "exercises" / "ex01_ridge_point.py").write_text(solution.read_text("utf-8"), "utf-8")
    checks = load_exercises()["ex01"].checks
    total = sum(c.points for c in checks)
    result = pytester.runpytest(*QUIET, "exercises", "-v")
    result.assert_outcomes(passed=len(checks))
    result.stdout.fnmatch_lines(
        ["*exercises/ex01_ridge_point.py::1a_ridge_formula PASSED*", f"*总分*{total:g} / {total:g}*"]
    )


def test_an_untouched_stub_is_not_imported_prepared_or_measured(session, pytester: pytest.Pytester) -> None:
    """Issue 30: an untouched kit cost 4.5x the answered formula part, most of it for measurements whose
    functions only raised NotImplementedError. A function still the stub's is read as such from the source:
    its check is not attempted with nothing imported, prepared or started for it; a file whose every graded
    function is the stub's is never imported (here its import would fail)."""
    session(fake_student=NOT_ATTEMPTED)  # writes the checks' modules
    student = "raise RuntimeError('imported')\n" + stubs(pytester.path / "fake_checks.py")
    meter = "raise RuntimeError('imported')\n" + stubs(pytester.path / "fake_measure.py")
    (pytester.path / "fake_student.py").write_text(student, encoding="utf-8")
    (pytester.path / "fake_meter.py").write_text(meter, encoding="utf-8")
    seen = ReferenceSeen()
    result = pytester.runpytest(*QUIET, "fake_student.py", "fake_meter.py", plugins=[seen])
    assert seen.started is False
    outcomes = result.parseoutcomes()
    assert outcomes.get("未作答", 0) >= 7 and not outcomes.get("出错"), result.stdout.str()[-2000:]
    # a function that raises NotImplementedError in another way is called: the import runs (and here fails)
    called = student.replace(
        "def double(*args, **kwargs):\n    raise NotImplementedError()",
        "def double(*args, **kwargs):\n    if True:\n        raise NotImplementedError()",
    )
    assert called != student
    graded = session(fake_student=called)
    assert graded.state("p_double") == "error"  # imported, not read as a stub
    assert graded.state("v_ratio") == "not_attempted"  # still the stub's: never called
