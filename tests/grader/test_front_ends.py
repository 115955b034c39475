"""Grading one file outside pytest: ``python -m grader file`` and ``grader.grade()`` (the pytest plugin is
tested in tests/grader/pytest/)."""

from __future__ import annotations


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
