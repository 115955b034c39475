"""The pytest plugin, end to end, on fake exercises (tests/grader/fakes.py) in pytester sessions."""

from __future__ import annotations

import json
import math
import os
import re
import runpy
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

import grader.compare.values
import perfcore
from grader.judge import Judge
from grader.sandbox import load
from grader.text.catalogue import render

try:  # imported once here: pytester's in-process sessions forget modules they import, and torch
    import torch  # noqa: F401  # (loaded for the report's environment) must not be imported twice
except ImportError:  # pragma: no cover
    pass
FAKES = runpy.run_path(str(Path(__file__).parent / "fakes.py"))
BAD_TYPES = FAKES["BAD_TYPES"]
CORRECT = FAKES["CORRECT"]
FAKE_CHECKS = FAKES["FAKE_CHECKS"]
FAKE_MAX = FAKES["FAKE_MAX"]
HARD_CODED = FAKES["HARD_CODED"]
IMPORT_ERROR = FAKES["IMPORT_ERROR"]
IMPORT_EXIT = FAKES["IMPORT_EXIT"]
IMPORT_LOOP = FAKES["IMPORT_LOOP"]
IMPORT_SYNTAX = FAKES["IMPORT_SYNTAX"]
MEASURE_CHECKS = FAKES["MEASURE_CHECKS"]
METER = FAKES["METER"]
NOT_ATTEMPTED = FAKES["NOT_ATTEMPTED"]
PARTLY = FAKES["PARTLY"]
PATCHING = FAKES["PATCHING"]
PROBE_CHECKS = FAKES["PROBE_CHECKS"]
PROBE_STUDENT = FAKES["PROBE_STUDENT"]
RAISING = FAKES["RAISING"]
SLOW = FAKES["SLOW"]
STUBBORN_SLOW = FAKES["STUBBORN_SLOW"]

pytest_plugins = ["pytester"]

#: No cache files; no warning that perfcore and grader (imported by the outer session) cannot be rewritten.
QUIET = ("-p", "no:cacheprovider", "-W", "ignore::pytest.PytestAssertRewriteWarning")

VISIBILITIES = {"visible", "hidden", "after_due_date", "after_published"}


def validate_gradescope(data: dict[str, Any]) -> None:
    """Raise AssertionError unless ``data`` has Gradescope's results.json fields with the right types."""
    number = (int, float)
    for key, kind in [
        ("score", number),
        ("max_score", number),
        ("execution_time", number),
        ("output", str),
        ("visibility", str),
        ("stdout_visibility", str),
        ("extra_data", dict),
        ("tests", list),
    ]:
        assert isinstance(data.get(key), kind), f"top-level {key!r} missing or not {kind}"
    assert data["visibility"] in VISIBILITIES and data["stdout_visibility"] in VISIBILITIES
    env = data["extra_data"]["environment"]
    for key in ("cpu", "gpu", "python", "torch", "numpy", "platform"):
        assert key in env, f"extra_data.environment lacks {key!r}"
    for test in data["tests"]:
        for key, kind in [
            ("name", str),
            ("number", str),
            ("score", number),
            ("max_score", number),
            ("status", str),
            ("output", str),
            ("tags", list),
            ("visibility", str),
        ]:
            assert isinstance(test.get(key), kind), (
                f"test {test.get('name')!r}: {key!r} missing or not {kind}"
            )
        assert test["status"] in ("passed", "failed")
        assert test["visibility"] in VISIBILITIES
        assert all(isinstance(t, str) for t in test["tags"])
        assert 0 <= test["score"] <= test["max_score"] or test["max_score"] == 0
    assert math.isclose(data["score"], sum(t["score"] for t in data["tests"]))
    assert math.isclose(data["max_score"], sum(t["max_score"] for t in data["tests"]))


class Graded:
    """One pytester session's results: the run result, the JSON and per-check tests."""

    def __init__(self, result: pytest.RunResult, json_path: Path) -> None:
        self.result = result
        self.text = result.stdout.str()
        self.json = json.loads(json_path.read_text(encoding="utf-8")) if json_path.exists() else None
        if self.json is not None:
            validate_gradescope(self.json)

    def test(self, check_id: str) -> dict[str, Any]:
        assert self.json is not None
        matches = [t for t in self.json["tests"] if t["name"].split(" ")[0].endswith("::" + check_id)]
        assert len(matches) == 1, (check_id, [t["name"] for t in self.json["tests"]])
        return matches[0]

    def state(self, check_id: str) -> str:
        return self.test(check_id)["tags"][-1]


@pytest.fixture
def session(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    """Run a grading session on the given student files; returns a :class:`Graded`."""
    # the fake meters' verdicts are about the band, the bound and the scatter, not the machine's load: a
    # machine whose load cannot be read (every round clean, xdist's workers too); the load's own rules are
    # tests/grader/judge/runners/test_busy.py's and test_measurement_load.py's
    monkeypatch.setenv(load.STAT_ENV, str(pytester.path / "no-proc-stat"))
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)  # the kit's own tests may run under -n
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)
    pytester.makepyfile(fake_checks=FAKE_CHECKS, fake_measure=MEASURE_CHECKS, fake_probe=PROBE_CHECKS)
    pytester.makeini("[pytest]\npythonpath = .\ngrader_checks = fake_checks fake_measure fake_probe\n")

    def run(*args: str, subprocess: bool = False, grader_json: bool = True, **files: str) -> Graded:
        for name, source in files.items():
            path = pytester.path / f"{name}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(source, encoding="utf-8")
        json_path = pytester.path / "results.json"
        if json_path.exists():
            json_path.unlink()
        argv = [*QUIET, *([f"--grader-json={json_path}"] if grader_json else []), *args]
        result = pytester.runpytest_subprocess(*argv) if subprocess else pytester.runpytest(*argv)
        return Graded(result, json_path)

    return run


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


def test_wrong_value_says_expected_got_tolerance_and_input(session) -> None:
    graded = session(fake_student=CORRECT.replace("return a / b", "return a * b"))
    assert graded.json["score"] == FAKE_MAX - 1
    out = graded.test("v_ratio")["output"]
    assert "期望 2.0，得到 18.0" in out and "相对误差 8 超过容差 1e-06" in out
    assert "输入 (6.0, 3.0)" in out and "提示：相除即可" in out
    assert "Traceback" not in graded.text
    fields = graded.test("v_ratio")["extra_data"]  # the same parts as fields beside the prose
    assert fields == {
        "state": "wrong",
        "expected": "2.0",
        "got": "18.0",
        "input": "(6.0, 3.0)",
        "tolerance": "rtol=1e-06",
    }


def test_english_feedback(session) -> None:
    graded = session("--grader-lang=en", fake_student=CORRECT.replace("return a / b", "return a * b"))
    out = graded.test("v_ratio")["output"]
    assert "expected 2.0, got 18.0: relative error 8 exceeds the tolerance 1e-06" in out
    assert "input (6.0, 3.0)" in out and "Hint: divide" in out
    assert "perfkit score" in graded.text and "期望" not in graded.text


def test_raising_function_is_an_error_with_the_students_frame(session) -> None:
    graded = session(fake_student=RAISING)
    assert graded.state("v_ratio") == "error"
    out = graded.test("v_ratio")["output"]
    assert "ZeroDivisionError" in out and "fake_student.py" in out and "in ratio" in out
    assert "grader/judge.py" not in out and "worker.py" not in out
    assert graded.json["score"] == FAKE_MAX - 1  # the other checks are unaffected


@pytest.mark.parametrize(
    ("source", "needle"),
    [(IMPORT_ERROR, "ZeroDivisionError"), (IMPORT_EXIT, "SystemExit"), (IMPORT_SYNTAX, "SyntaxError")],
    ids=["raise", "sys-exit", "syntax"],
)
def test_import_failure_costs_its_exercise_only(session, source: str, needle: str) -> None:
    graded = session(fake_student=source, fake_meter=METER)
    fk = [t for t in graded.json["tests"] if t["tags"][0] == "fk"]
    assert len(fk) == 6 and all(t["tags"][-1] == "error" and needle in t["output"] for t in fk)
    assert graded.test("m_ok")["score"] == 1.0  # the other exercise is graded as usual
    assert graded.result.ret == pytest.ExitCode.TESTS_FAILED
    # said once on the terminal, the exercise's other five checks "same as above"; the JSON keeps all six
    blocks = graded.text.split("FAILURES", 1)[1].split("short test summary", 1)[0]
    assert blocks.count("导入 fake_student.py 时出错") == 1, blocks
    assert graded.text.count("FAILED fake_student.py::") == 1  # the short summary names it once too
    assert graded.result.parseoutcomes().get("同上") == 5


def test_import_error_shows_only_the_students_frames(session) -> None:
    graded = session(fake_student=IMPORT_ERROR)
    block = graded.text.split("FAILURES", 1)[1].split("short test summary", 1)[0]
    assert 'fake_student.py", line 3, in <module>' in block and "ZeroDivisionError" in block
    assert "<frozen" not in block and "importlib" not in block


def test_a_long_feedback_is_cut_without_v_and_whole_with_it(session) -> None:
    # an import that fails 20 calls deep: a traceback of many more lines than a block shows
    noisy = "def down(n):\n    return down(n - 1) if n else 1 / 0\n\ndown(20)\n"
    short = session(fake_student=noisy)
    assert "pytest -v 显示全部" in short.text
    whole = session("-v", fake_student=noisy)
    assert "pytest -v 显示全部" not in whole.text and "ZeroDivisionError" in whole.text
    assert short.test("v_ratio")["output"] == whole.test("v_ratio")["output"]  # the JSON is whole either way


def test_import_that_never_ends_times_out(session) -> None:
    graded = session(fake_student=IMPORT_LOOP)
    assert {graded.state(c) for c in ("v_ratio", "p_double")} == {"timeout"}
    assert graded.json["score"] == 0


def test_not_attempted_is_a_table_line_not_a_failure_block(session, pytester: pytest.Pytester) -> None:
    # Once a FAILURES block each ("未作答：ratio 仍然抛出 NotImplementedError"); now the table's line says it.
    xml = pytester.path / "junit.xml"
    graded = session(f"--junitxml={xml}", fake_student=NOT_ATTEMPTED)
    assert graded.state("v_ratio") == "not_attempted" and graded.state("p_double") == "not_attempted"
    assert graded.state("v_ridge") == "not_attempted"  # no such function: also not attempted
    assert "未作答：ratio 仍然抛出 NotImplementedError" in graded.test("v_ratio")["output"]  # the JSON has it
    assert "FAILURES" not in graded.text and "short test summary" not in graded.text
    assert "仍然抛出 NotImplementedError" not in graded.text
    assert "Traceback" not in graded.text and "raise NotImplementedError" not in graded.text
    assert graded.result.parseoutcomes().get("未作答") == 6
    assert "fake_student.py nnnnnn" in graded.text  # the progress letter of a check not attempted
    assert graded.json["score"] == 0
    # still not passed: pytest's exit status says so, and --junitxml writes each as a failure with its words
    assert graded.result.ret == pytest.ExitCode.TESTS_FAILED
    cases = {case.get("name"): case for case in ET.parse(xml).getroot().iter("testcase")}
    failure = cases["v_ratio"].find("failure")
    assert failure is not None and "仍然抛出 NotImplementedError" in (failure.text or "")


def test_checks_come_in_the_tables_order(pytester: pytest.Pytester) -> None:
    # ex01 declares 1a_ridge_a100_fp32 (part 1a) after checks of part 1b: it runs, and is shown, where the
    # table puts it
    stub = Path(__file__).resolve().parents[2] / "exercises" / "ex01_ridge_point.py"
    pytester.mkdir("exercises")
    (pytester.path / "exercises" / "ex01_ridge_point.py").write_text(stub.read_text("utf-8"), "utf-8")
    result = pytester.runpytest(*QUIET, "exercises", "-v", "--grader-lang=zh")
    lines = result.stdout.lines
    run = [line.split("::")[1].split()[0] for line in lines if "ex01_ridge_point.py::" in line]
    table = [line.split()[2] for line in lines if line.startswith("ex01 ") and len(line.split()) == 7]
    assert len(run) == len(table) == 9 and run == table
    assert run.index("1a_ridge_a100_fp32") < run.index("matmul_intensity")


def test_a_run_with_checks_awaiting_an_answer_ends_saying_which_file_to_open(
    pytester: pytest.Pytester,
) -> None:
    """Issue 39: the last lines of a first run say how many checks await an answer and which file to open
    first (the first exercise in the course's order with one), in the run's language; once every check has
    an answer, nothing is said."""
    from grader.registry import load_exercises

    root = Path(__file__).resolve().parents[2]
    exercises = load_exercises()
    pytester.mkdir("exercises")
    for module in ("ex01_ridge_point", "ex02_memory_bound"):
        stub = (root / "exercises" / f"{module}.py").read_text("utf-8")
        (pytester.path / "exercises" / f"{module}.py").write_text(stub, "utf-8")
    waiting = len(exercises["ex01"].checks) + len(exercises["ex02"].checks)
    result = pytester.runpytest(*QUIET, "exercises", "--grader-lang=en")
    said = [line for line in result.stdout.lines if "await your answer" in line]
    assert said == [
        f"{waiting} checks await your answer: open exercises/ex01_ridge_point.py first, then run this again "
        "(until every exercise is answered the command exits with a non-zero status)."
    ]
    solution = (root / "solutions" / "ex01_ridge_point.py").read_text("utf-8")
    (pytester.path / "exercises" / "ex01_ridge_point.py").write_text(solution, "utf-8")
    result = pytester.runpytest(*QUIET, "exercises", "--grader-lang=zh")
    result.stdout.fnmatch_lines(
        [f"*还有 {len(exercises['ex02'].checks)} 个检查等你作答：先打开 exercises/ex02_memory_bound.py*"]
    )
    (pytester.path / "exercises" / "ex02_memory_bound.py").unlink()
    result = pytester.runpytest(*QUIET, "exercises", "--grader-lang=en")
    assert not [line for line in result.stdout.lines if "await your answer" in line]


def test_hard_coded_answer_fails_the_property_and_shows_the_smallest_input(session) -> None:
    first = session(fake_student=HARD_CODED)
    assert first.state("p_double") == "wrong"
    out = first.test("p_double")["output"]
    assert "最小的出错输入 (x=" in out and "期望" in out and "得到 2" in out
    again = session(fake_student=HARD_CODED)
    assert again.test("p_double")["output"] == out  # derandomized: the same inputs every run


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


def test_nan_strings_arrays_are_wrong_not_crashes(session) -> None:
    graded = session(fake_student=BAD_TYPES)
    states = {
        t["name"].split(" ")[0].split("::")[1]: t["tags"][-1]
        for t in graded.json["tests"]
        if t["tags"][0] == "fk"
    }
    assert states == dict.fromkeys(["v_ratio", "c_bound", "p_double", "v_ridge", "s_roof", "v_slow"], "wrong")
    assert "不是有限的数" in graded.test("v_ratio")["output"]
    assert "compute / memory" in graded.test("c_bound")["output"]
    assert "numpy.ndarray" in graded.test("p_double")["output"]
    assert "期望一个数" in graded.test("v_ridge")["output"] and "'295'" in graded.test("v_ridge")["output"]
    assert "INTERNALERROR" not in graded.text


def test_measurements_band_bound_retry_noise_and_requirements(session) -> None:
    graded = session(fake_meter=METER)
    assert graded.state("m_ok") == "passed"
    off = graded.test("m_off")["output"]
    assert graded.state("m_off") == "wrong" and "0.6" in off and "[0.8, 1.25]" in off and "5 轮" in off
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
    assert graded.state("p_flat_constant") == "wrong" and "没有测量" in flat and "5e+07 B" in flat
    assert graded.state("p_flat_measured") == "passed"
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


def test_deferred_zero_counts_skips_as_zero(session) -> None:
    graded = session("--grader-deferred=zero", fake_meter=METER)
    assert graded.json["max_score"] == 8.0 and graded.json["score"] == 2.0
    assert graded.test("m_cuda")["max_score"] == 1.0 and graded.test("m_cuda")["status"] == "failed"
    assert "按 0 分计入" in graded.text


def test_junitxml_carries_the_points(session, pytester: pytest.Pytester) -> None:
    xml = pytester.path / "junit.xml"
    session(f"--junitxml={xml}", fake_student=PARTLY)
    cases = {case.get("name"): case for case in ET.parse(xml).getroot().iter("testcase")}
    assert len(cases) == 6
    props = {p.get("name"): p.get("value") for p in cases["v_ratio"].iter("property")}
    assert props == {"points": "1.0", "max_points": "1.0", "state": "passed", "deferred": "False"}
    props = {p.get("name"): p.get("value") for p in cases["p_double"].iter("property")}
    assert props["points"] == "0.0" and props["max_points"] == "2.0" and props["state"] == "wrong"


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


def test_session_without_exercise_modules_is_untouched(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_one():\n    assert True\n", helper="X = 1\n")
    result = pytester.runpytest(*QUIET)
    result.assert_outcomes(passed=1)
    text = result.stdout.str().split("collected", 1)[1]  # the header lists installed plugins, perfkit too
    assert "perfkit" not in text and "评分" not in text and "grader" not in text


def test_unknown_checks_module_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(helper="X = 1\n")
    result = pytester.runpytest(*QUIET, "--grader-checks=no_such_checks_module")
    assert "no_such_checks_module" in result.stdout.str() + result.stderr.str()
    assert result.ret != pytest.ExitCode.OK


def test_real_exercise_one_layout(pytester: pytest.Pytester) -> None:
    from pathlib import Path

    from grader.registry import load_exercises

    solution = Path(__file__).resolve().parents[2] / "solutions" / "ex01_ridge_point.py"
    pytester.mkdir("exercises")
    (pytester.path / "exercises" / "ex01_ridge_point.py").write_text(solution.read_text("utf-8"), "utf-8")
    checks = load_exercises()["ex01"].checks
    total = sum(c.points for c in checks)
    result = pytester.runpytest(*QUIET, "exercises", "-v")
    result.assert_outcomes(passed=len(checks))
    result.stdout.fnmatch_lines(
        ["*exercises/ex01_ridge_point.py::1a_ridge_formula PASSED*", f"*总分*{total:g} / {total:g}*"]
    )


def test_grade_api_matches_the_plugin(
    session, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    graded = session(fake_student=PARTLY)
    monkeypatch.syspath_prepend(str(pytester.path))
    # a notebook's globals(): IPython's history In holds the cells that ran (the first one imports the grader)
    namespace: dict[str, Any] = {"In": ["", "import grader", PARTLY]}
    exec(compile(PARTLY, "<notebook cell>", "exec"), namespace)
    try:
        result = grader.grade(namespace, "fk", extra_checks=["fake_checks"])
        by_path = grader.grade(pytester.path / "fake_student.py", "fk", extra_checks=["fake_checks"])
        with pytest.raises(AssertionError, match="p_double"):
            grader.check(namespace, "fk", "p_double", extra_checks=["fake_checks"])
        assert grader.check(namespace, "fk", "v_ratio", extra_checks=["fake_checks"]).points == 1.0
    finally:
        sys.modules.pop("fake_checks", None)
    assert result.score == by_path.score == graded.json["score"] == 3.0
    assert result.max_score == graded.json["max_score"]
    assert [(o.check_id, o.points) for o in result.outcomes] == [
        (o.check_id, o.points) for o in by_path.outcomes
    ]


def test_files_that_run_inside_pytest_are_flagged_and_a_planted_link_is_not_followed(
    session, pytester: pytest.Pytester, tmp_path: Path
) -> None:
    decoy = tmp_path / "decoy.txt"
    decoy.write_text("keep me")
    pytester.makepyfile(test_helper="def test_x():\n    assert True\n", cmath="pi = 3\n")
    json_link = pytester.path / "results.json"
    (pytester.path / "fake_student.py").write_text(CORRECT, encoding="utf-8")
    json_link.symlink_to(decoy)
    result = pytester.runpytest(*QUIET, f"--grader-json={json_link}")
    assert decoy.read_text() == "keep me"
    assert not json_link.is_symlink()
    data = json.loads(json_link.read_text(encoding="utf-8"))
    assert {"test_helper.py", "cmath.py", "tox.ini"} <= set(data["untrusted_setup"])
    assert data["score"] == FAKE_MAX
    result.stdout.fnmatch_lines(["*不可信的设置*cmath.py*"])


def test_the_file_command_gives_the_plugins_score(session, pytester: pytest.Pytester) -> None:
    import subprocess

    graded = session(fake_student=PARTLY)
    env = {**dict(__import__("os").environ), "PYTHONPATH": str(pytester.path)}
    done = subprocess.run(
        [sys.executable, "-m", "grader", "file", "fk", "fake_student.py", "--lang", "en"]
        + ["--grader-checks", "fake_checks"],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,  # a guard against a hang: a few seconds idle, far more on a busy machine
        check=False,
    )
    assert done.returncode == 1, done.stderr[-2000:]  # not every check passed
    total = [line for line in done.stdout.splitlines() if line.startswith("total")]
    assert total and total[0].split()[-3:] == [
        f"{graded.json['score']:g}",
        "/",
        f"{graded.json['max_score']:g}",
    ]


class _ReferenceSeen:
    """Reads, as the first check of ``fake_meter.py`` starts, whether the judge has started perfcore's
    reference process."""

    started: bool | None = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item: pytest.Item) -> None:
        if self.started is None and item.path.name == "fake_meter.py":
            state = item.config.pluginmanager.get_plugin("perfkit_grader_session")
            judge = state._judge if state is not None else None
            reference = judge._reference if judge is not None else None  # made on first use, started later
            self.started = reference is not None and reference.proc is not None


def test_the_reference_starts_early_only_once_some_work_is_done(session, pytester: pytest.Pytester) -> None:
    # A fresh kit: the checks before the first measurement are stubs, and perfcore's process (torch's
    # import) is not started beside them; the measurement asks for it when it needs it.
    meter = "def rate_ok():\n    raise NotImplementedError()\n"
    session(fake_meter=meter, fake_student=NOT_ATTEMPTED)
    seen = _ReferenceSeen()
    pytester.runpytest(*QUIET, "fake_student.py", "fake_meter.py", plugins=[seen])
    assert seen.started is False
    # one check answered, and a measuring function written (one still the stub's asks perfcore for nothing,
    # issue 30): it is started while the checks before the measurements run
    (pytester.path / "fake_student.py").write_text(PARTLY, encoding="utf-8")
    (pytester.path / "fake_meter.py").write_text(
        meter.replace("NotImplementedError()", "NotImplementedError('later')"), encoding="utf-8"
    )
    again = _ReferenceSeen()
    pytester.runpytest(*QUIET, "fake_student.py", "fake_meter.py", plugins=[again])
    assert again.started is True


def _stubs(checks_module: Path) -> str:
    """A student's file with every function the exercise of ``checks_module`` grades still the stub's."""
    funcs = sorted({c.func for c in runpy.run_path(str(checks_module))["EXERCISE"].checks})
    return "".join(f"def {f}(*args, **kwargs):\n    raise NotImplementedError()\n" for f in funcs)


def test_an_untouched_stub_is_not_imported_prepared_or_measured(session, pytester: pytest.Pytester) -> None:
    """Issue 30: an untouched kit cost 4.5x the answered formula part, most of it for measurements whose
    functions only raised NotImplementedError. A function still the stub's is read as such from the source:
    its check is not attempted with nothing imported, prepared or started for it; a file whose every graded
    function is the stub's is never imported (here its import would fail)."""
    session(fake_student=NOT_ATTEMPTED)  # writes the checks' modules
    student = "raise RuntimeError('imported')\n" + _stubs(pytester.path / "fake_checks.py")
    meter = "raise RuntimeError('imported')\n" + _stubs(pytester.path / "fake_measure.py")
    (pytester.path / "fake_student.py").write_text(student, encoding="utf-8")
    (pytester.path / "fake_meter.py").write_text(meter, encoding="utf-8")
    seen = _ReferenceSeen()
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


def test_a_run_that_is_not_confined_says_so_once_under_the_table(
    session, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 30: the note was written when the first worker started, inside that check's captured output
    (unseen where it passed) and through the progress line; now once, under the score table."""
    from grader.sandbox import confinement

    monkeypatch.setenv("PERFKIT_NO_BWRAP", "1")
    confinement.find_bwrap.cache_clear()
    try:
        graded = session("--grader-lang=en", fake_student=CORRECT)
        lines = graded.text.splitlines()
        notes = [i for i, line in enumerate(lines) if "this run is not confined" in line]
        table = next(i for i, line in enumerate(lines) if "perfkit score" in line)
        assert len(notes) == 1 and notes[0] > table, graded.text[-2000:]
        assert all("not confined" not in t["output"] for t in graded.json["tests"])
        # nothing of the student's ran (every function the stub's): nothing to say
        untouched = _stubs(pytester.path / "fake_checks.py")
        assert "not confined" not in session("--grader-lang=en", fake_student=untouched).text
    finally:
        confinement.find_bwrap.cache_clear()


def test_the_language_comes_from_the_option_else_the_course_else_the_locale(
    session, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess

    monkeypatch.setenv("LANGUAGE", "en_US")  # an English locale, no course setting: English
    assert "perfkit score" in session(fake_student=CORRECT).text
    monkeypatch.setenv("LANGUAGE", "zh_CN")
    assert "perfkit 评分" in session(fake_student=CORRECT).text
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
    (pytester.path / "pyproject.toml").write_text('[tool.perfkit]\nlang = "fr"\n', encoding="utf-8")
    refused = session(fake_student=CORRECT)
    assert refused.result.ret == pytest.ExitCode.USAGE_ERROR and "fr" in refused.result.stderr.str()


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


class _Terminal:
    """Makes the session's terminal reporter write as to a terminal that takes markup (pytester's is a
    capture)."""

    @pytest.hookimpl(trylast=True)  # after the terminal reporter is made
    def pytest_configure(self, config: pytest.Config) -> None:
        config.pluginmanager.get_plugin("terminalreporter").isatty = lambda: True
        config.get_terminal_writer().hasmarkup = True


def test_a_measuring_check_in_progress_has_a_live_line_on_a_terminal_only(
    session, pytester: pytest.Pytester
) -> None:
    """Issue 39 item 5: a measuring check says on a terminal, while it runs, which check, which round and
    how long, in place after pytest's own line, and erases it before pytest writes its result; a log gets
    none of it."""
    plain = session("--grader-lang=en", fake_meter=METER)
    assert "measuring fm::" not in plain.text and "\x1b[" not in plain.text
    result = pytester.runpytest(*QUIET, "--grader-lang=en", "fake_meter.py", plugins=[_Terminal()])
    raw = result.stdout.str()
    live = re.findall(r"\x1b\[(\d+)G\x1b\[K \S*measuring fm::(\w+): round (\d+), (\d+) s", raw)
    checks = {check for _, check, _, _ in live}
    assert {"m_ok", "m_off", "m_serial"} <= checks, raw[:3000]
    assert "m_cuda" not in checks  # deferred before it runs: nothing measured, no line
    assert max(int(r) for _, c, r, _ in live if c == "m_ok") >= 2  # the rounds count up
    # in place: at the column after pytest's "fake_meter.py " and the letters so far, then erased there
    for column, check, _, _ in live:
        assert f"\x1b[{column}G\x1b[K" in raw.split(f"measuring fm::{check}")[-1], check
    erased = re.sub(r"\x1b\[\d+G\x1b\[K( [^\x1b]*\x1b\[[\d;]*m[^\x1b]*\x1b\[0m)?", "", raw)
    assert "measuring fm::" not in erased
    assert re.search(r"fake_meter\.py (\x1b\[[\d;]*m[.FdE]\x1b\[0m)+", erased), erased[:2000]


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
