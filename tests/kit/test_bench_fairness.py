"""benchmarks/bench_fairness.py without grading anything (a run takes minutes to hours): every wrong
variant and cheat still applies to the solution file it edits, every honest method's file defines the
functions its checks call with the solutions' parameters and stands alone as a student's file does, and a
curve's factor is read point by point."""

from __future__ import annotations

import ast

import pytest

from grader.registry import load_exercises

from .benchmark import loaded


@pytest.fixture(scope="module")
def bench():
    with loaded("bench_fairness.py", "bench_fairness_kit") as module:
        yield module


@pytest.fixture(scope="module")
def exercises():
    return load_exercises()


def _functions(text: str) -> dict[str, list[str]]:
    """{name: parameter names} of the top-level functions of ``text``."""
    return {
        node.name: [a.arg for a in node.args.args]
        for node in ast.parse(text).body
        if isinstance(node, ast.FunctionDef)
    }


def test_every_variant_and_cheat_applies_and_keeps_its_target_function(bench, exercises):
    assert len({v.name for v in bench.ALL_VARIANTS}) == len(bench.ALL_VARIANTS)
    assert bench.CHEATS and all(v.cheat for v in bench.CHEATS) and not any(v.cheat for v in bench.VARIANTS)
    for v in bench.ALL_VARIANTS:
        exercise = exercises[v.exercise]
        solution = (bench.SOLUTIONS / f"{exercise.module}.py").read_text(encoding="utf-8")
        text = bench.variant_source(v, exercise)
        assert text != solution, v.name
        func = exercise.check(v.check).func
        assert _functions(text)[func] == _functions(solution)[func], v.name


def test_a_replaced_function_must_be_there_once(bench):
    text = "import os\n\n\ndef f(x):\n    return x\n    ### END SOLUTION\n\n\ndef g():\n    pass\n"
    replaced = bench.replace_function(text, "f", "def f(x):\n    return 2 * x\n", "here")
    assert replaced == "import os\n\n\ndef f(x):\n    return 2 * x\n\n\ndef g():\n    pass\n"
    with pytest.raises(bench.VariantError):
        bench.replace_function(text, "h", "def h():\n    pass\n", "here")


def test_every_honest_method_file_defines_what_its_checks_call(bench, exercises):
    applies: dict[str, list[str]] = {}
    for method in bench.METHODS:
        for exercise_id in bench.EXERCISE_IDS:
            exercise = exercises[exercise_id]
            path = bench.method_file(method, exercise)
            if path is None:
                continue
            applies.setdefault(method, []).append(exercise_id)
            text = path.read_text(encoding="utf-8")
            solution = _functions((bench.SOLUTIONS / f"{exercise.module}.py").read_text(encoding="utf-8"))
            mine = _functions(text)
            for check in bench.measurement_checks(exercise):
                assert mine.get(check.func) == solution[check.func], (method, exercise_id, check.id)
            imported = {
                name.split(".")[0]
                for node in ast.walk(ast.parse(text))
                if isinstance(node, (ast.Import, ast.ImportFrom))
                for name in (
                    [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                )
            }
            # graded alone in an empty folder, where the grader and perfcore cannot be imported
            assert not imported & {"grader", "perfcore"}, (method, exercise_id)
    everywhere = list(bench.EXERCISE_IDS)
    assert applies == {
        "benchmark": everywhere,
        "perf_counter": everywhere,
        "timeit": everywhere,
        "numpy": ["m2", "m4"],
        "perf_counter_ns": everywhere,
        "monotonic": everywhere,
        "process_time": everywhere,
        "thread_time": everywhere,
    }
    files = {p.relative_to(bench.HONEST).as_posix() for p in bench.HONEST.rglob("*.py")}
    graded = {
        f"{m}/{exercises[e].module}.py"
        for m in bench.METHODS
        for e in bench.EXERCISE_IDS
        if bench.method_file(m, exercises[e]) == bench.HONEST / m / f"{exercises[e].module}.py"
    }
    assert files == graded  # no file there that no run grades


def test_a_curves_factor_is_its_point_farthest_from_one(bench):
    honest = [[[16, 1.0], [4096, 2.0], [1 << 20, 8.0]], [[16, 1.0], [4096, 2.0], [1 << 20, 8.0]]]
    variant = [[[16, 1.1], [4096, 2.0], [1 << 20, 4.0]], [[16, 1.1], [4096, 2.0], [1 << 20, 4.0]]]
    got = bench.figure_factor(honest, variant)
    assert got["points"] == pytest.approx([1.1, 1.0, 0.5]) and got["factor"] == pytest.approx(0.5)
    assert bench.figure_factor([2.0, 4.0, 3.0], [1.0, 2.0, 1.5])["factor"] == pytest.approx(0.5)
