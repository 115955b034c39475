"""grader.outcome, grader.report and grader.messages: totals, the table, Gradescope's JSON, both languages."""

from __future__ import annotations

import json
import re
import string

import pytest

from grader.messages import LANGS, MESSAGES, render, show, show_inputs
from grader.outcome import ExerciseResult, Outcome, totals
from grader.report import environment, gradescope_results, score_table, write_json


def outcome(check_id: str, state: str, points: float, max_points: float, deferred: bool = False) -> Outcome:
    return Outcome(
        "ex02",
        check_id,
        "2a",
        state,
        points,
        max_points,
        f"{state} message",
        deferred,
        "value",
        "visible",
        f"2.{check_id[-1]}",
        "访存受限",
    )


OUTCOMES = [
    outcome("c1", "passed", 2, 2),
    outcome("c2", "wrong", 0, 1),
    outcome("c3", "skipped", 0, 3, deferred=True),
]


def test_every_message_has_both_languages_with_the_same_fields() -> None:
    fields = lambda t: {f for _, f, _, _ in string.Formatter().parse(t) if f}  # noqa: E731
    for key, texts in MESSAGES.items():
        assert len(texts) == len(LANGS) and all(texts), key
        assert fields(texts[0]) == fields(texts[1]), key
    assert render("state_passed") == "通过" and render("state_passed", "en") == "passed"
    with pytest.raises(ValueError, match="lang"):
        render("state_passed", "fr")


def test_show_keeps_values_short() -> None:
    assert show(2.0) == "2.0" and show(9.563511525257479) == "9.56351" and show(float("nan")) == "nan"
    assert len(show("x" * 500)) == 80
    assert show_inputs((1,), {"b": 2.5}) == "(1, b=2.5)"


def test_totals_defer_or_zero() -> None:
    t = totals(OUTCOMES)
    assert (t.score, t.max_score, t.deferred_points) == (2.0, 3.0, 3.0)
    assert totals(OUTCOMES, "zero").max_score == 6.0
    result = ExerciseResult("ex02", tuple(OUTCOMES))
    assert result.score == 2.0 and result.max_score == 3.0 and result.points_by_part == {"2a": (2.0, 3.0)}
    with pytest.raises(ValueError, match="deferred"):
        totals(OUTCOMES, "maybe")
    with pytest.raises(ValueError, match="state"):
        outcome("c9", "great", 0, 1)
    assert Outcome.from_dict({**OUTCOMES[0].to_dict(), "unknown": 1}) == OUTCOMES[0]


def test_score_table_lists_totals_and_deferred() -> None:
    zh = "\n".join(score_table(OUTCOMES, "zh"))
    assert "通过" in zh and "答案错误" in zh and "跳过*" in zh
    assert re.search(r"总分\s+2 / 3", zh) and "暂缓计分（不计入满分）: 3" in zh and "ex02::c3 (3)" in zh
    en = "\n".join(score_table(OUTCOMES, "en", "zero"))
    assert re.search(r"total\s+2 / 6", en) and "deferred (counted as zero): 3" in en


def test_gradescope_results(tmp_path) -> None:
    data = gradescope_results(OUTCOMES, "en", "defer", 1.5, env={"cpu": "x"})
    assert (data["score"], data["max_score"], data["execution_time"]) == (2.0, 3.0, 1.5)
    tests = {t["name"].split(" ")[0]: t for t in data["tests"]}
    assert tests["ex02::c1"]["status"] == "passed" and tests["ex02::c2"]["status"] == "failed"
    assert tests["ex02::c3"]["max_score"] == 0 and "skipped" in tests["ex02::c3"]["output"]
    assert tests["ex02::c2"]["number"] == "2.2" and "part 2a" in tests["ex02::c2"]["tags"]
    assert data["extra_data"]["deferred"] == ["ex02::c3"]
    path = tmp_path / "out" / "results.json"
    write_json(path, data)
    assert json.loads(path.read_text(encoding="utf-8"))["tests"][0]["name"].startswith("ex02::c1")


def test_environment_names_the_machine() -> None:
    env = environment()
    assert {"cpu", "gpu", "python", "torch", "numpy", "platform"} <= set(env)
    assert env["numpy"] and env["python"].count(".") == 2


def test_command_line_grades_one_file(tmp_path, capsys) -> None:
    from grader.__main__ import main

    student = tmp_path / "ex01_ridge_point.py"
    student.write_text(
        "def ridge_point(peak_flops, bandwidth):\n    return peak_flops / bandwidth\n\n"
        "def answer_1a():\n    return 9.56\n\n"
        "def answer_1b_fp32_bound():\n    raise NotImplementedError\n",
        encoding="utf-8",
    )
    from grader.registry import load_exercises

    total = sum(c.points for c in load_exercises()["ex01"].checks)
    assert main(["file", "ex01", str(student), "--lang", "en"]) == 1
    out = capsys.readouterr().out
    assert f"3 / {total:g}" in out and "not attempted: answer_1b_fp32_bound" in out


def test_runaway_recursion_trace_stays_short(tmp_path) -> None:
    import grader

    student = tmp_path / "ex01_ridge_point.py"
    student.write_text(
        "def ridge_point(peak_flops, bandwidth):\n    return ridge_point(peak_flops, bandwidth)\n",
        encoding="utf-8",
    )
    outcome = grader.grade(student, "ex01", checks=["1a_ridge_formula"], lang="en").outcomes[0]
    assert outcome.state == "error" and "RecursionError" in outcome.message
    assert outcome.message.count("\n") < 30


def test_a_sequence_is_cut_between_elements_never_inside_one() -> None:
    sizes = (16, 256, 4096, 262144, 1048576, 4194304, 16777216, 67108864)
    text = show(sizes, 40)
    assert text == "(16, 256, 4096, 262144, ..., 67108864)" and len(text) <= 40
    for number in re.findall(r"\d+", text):  # every number shown is one of the values, whole
        assert int(number) in sizes
    assert show([1, 2, 3], 40) == "[1, 2, 3]" and show((7,), 40) == "(7,)"
    # a dict, too, is cut between entries: each value shown is whole
    sizes = {f"n{i}": 4194304 * i for i in range(1, 9)}
    text = show(sizes, 40)
    assert text == "{n1=4194304, ..., n8=33554432}" and len(text) <= 40


def test_inputs_follow_the_functions_parameter_order() -> None:
    kwargs = {"k": 8, "n_elements": 1 << 25, "fused": True}
    assert show_inputs((), kwargs, ("n_elements", "k", "fused")) == "(n_elements=33554432, k=8, fused=True)"
    assert show_inputs((), kwargs) == "(k=8, n_elements=33554432, fused=True)"  # no order known: as given
    assert show_inputs((), {"b": 1, "extra": 2}, ("a", "b")) == "(b=1, extra=2)"


def test_rows_are_listed_by_part() -> None:
    def outcome(number: str, part: str) -> Outcome:
        return Outcome(
            exercise="ex01",
            check_id=number,
            part=part,
            state="passed",
            points=1,
            max_points=1,
            message="",
            number=number,
        )

    checks = [outcome("1.1", "1a"), outcome("1.2", "1b"), outcome("1.3", "1b"), outcome("1.4", "1a")]
    checks.append(outcome("1.5", "10"))
    ordered = [(o.part, o.number) for o in sorted(checks, key=Outcome.sort_key)]
    assert ordered == [("1a", "1.1"), ("1a", "1.4"), ("1b", "1.2"), ("1b", "1.3"), ("10", "1.5")]


def test_batch_messages_have_both_languages_with_the_same_fields() -> None:
    from grader.batch.messages import MESSAGES as BATCH

    for key, (zh, en) in BATCH.items():
        fields = [{f for _, f, _, _ in string.Formatter().parse(text) if f} for text in (zh, en)]
        assert fields[0] == fields[1], key
        assert re.search(r"[\u4e00-\u9fff]", zh) and not re.search(r"[\u4e00-\u9fff]", en), key


#: Folder names that an escape scheme could map to one text: an undecodable byte (os.fsdecode's surrogate)
#: and the same escape typed out, a C1 control and the byte of the same value, a backslash before an escape.
NAMES = [
    "caf\udce9",
    "caf\\xe9",
    "caf\\\\xe9",
    "café",
    "a\x80",
    "a\udc80",
    "a\\u0080",
    "\x1b[2K\rALL 17",
    "\\u001b[2K\\u000dALL 17",
    "a\tb",
    "a\u202eb",
    "a\ud800b",
    "李雷",
    " =1+1",
    "alice",
]


def test_a_name_is_shown_as_printable_text_of_its_own() -> None:
    from grader.outcome import shown_name

    shown = [shown_name(n) for n in NAMES]
    assert len(set(shown)) == len(NAMES)  # no two folders share a row
    for text in shown:
        text.encode("utf-8")  # valid text: no surrogate left
        assert text.isprintable()  # no control, tab, newline or bidirectional override
    assert shown_name("caf\udce9") == "caf\\xe9" and shown_name("caf\\xe9") == "caf\\\\xe9"
    assert shown_name("\x1b[2K\rALL 17") == "\\u001b[2K\\u000dALL 17"
    assert [shown_name(n) for n in ("李雷", "alice", " =1+1", "bob-be1b495986")] == [
        "李雷",
        "alice",
        " =1+1",
        "bob-be1b495986",
    ]


def test_printable_escapes_surrogates_so_reports_can_be_written(tmp_path) -> None:
    """A lone surrogate in a student's exception text cannot be written as UTF-8: it lost grades.json."""
    from grader.outcome import printable

    assert printable("x\udce9\x1by\n\tz") == "x\\udce9\\x1by\n\tz"
    write_json(tmp_path / "g.json", {"message": printable("raised \udce9")})
    assert "\\\\udce9" in (tmp_path / "g.json").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "cell",
    ["=1+1", " =1+1", "  +SUM(A1)", "\u3000-1", "@cmd", "\t=1", "\r=1", "\n=1", "-", " @"],
)
def test_a_formula_is_text_in_the_csv_even_behind_blanks(cell: str) -> None:
    """OWASP's rule (= + - @ tab CR at the start), looked for past leading whitespace: spreadsheets skip it."""
    from grader.report import csv_text

    assert csv_text(cell) == "'" + cell


@pytest.mark.parametrize("cell", ["alice", " alice", "李雷", "a=1", "bob-1", ""])
def test_a_plain_name_is_left_as_it_is_in_the_csv(cell: str) -> None:
    from grader.report import csv_text

    assert csv_text(cell) == cell
