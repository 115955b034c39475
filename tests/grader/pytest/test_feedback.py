"""grader.pytest.feedback, end to end on fake exercises (tests/grader/fakes.py) in pytester sessions: a failed
check's report, the feedback alone (expected, got, tolerance, input, hint; the student's frames only), cut
without -v, said once for a file's import error, and a check not attempted a table line, not a block."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tests.grader.pytest.graded import (
    BAD_TYPES,
    CORRECT,
    FAKE_MAX,
    HARD_CODED,
    IMPORT_ERROR,
    IMPORT_EXIT,
    IMPORT_SYNTAX,
    METER,
    NOT_ATTEMPTED,
    RAISING,
)

pytest_plugins = ["pytester"]


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


def test_hard_coded_answer_fails_the_property_and_shows_the_smallest_input(session) -> None:
    first = session(fake_student=HARD_CODED)
    assert first.state("p_double") == "wrong"
    out = first.test("p_double")["output"]
    assert "最小的出错输入 (x=" in out and "期望" in out and "得到 2" in out
    again = session(fake_student=HARD_CODED)
    assert again.test("p_double")["output"] == out  # derandomized: the same inputs every run


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
