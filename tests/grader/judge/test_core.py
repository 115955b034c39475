"""grader.judge.core's Judge through small exercises built in the test: odd submissions, missing functions,
the kit kept from graded code, the reference pinned, and each exercise's time budget.

Every test writes a student file to a temporary folder and grades it with a Judge, so the student's code
runs where it always runs: in the judge's worker process. The worker process's own contract (limits, the
channel, its folders) is tested in tests/grader/sandbox/test_process.py, the fork per file in test_worker.py.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from grader.judge import Judge, prepare_exercise
from grader.sandbox import confinement
from grader.specs.check import ChoiceCheck, Exercise, ValueCheck
from tests.grader.judge.helpers import MODULE, exercise, grade, requests, student, value

needs_bwrap = pytest.mark.skipif(confinement.find_bwrap()[0] is None, reason="bubblewrap does not work here")


def test_missing_and_uncallable_functions(tmp_path: Path) -> None:
    ex = exercise(value("a", func="absent"), value("b", func="f"))
    missing, uncallable = grade(ex, student(tmp_path, "f = 3\n"))
    assert missing.state == "not_attempted" and uncallable.state == "error"
    assert "not a function" in uncallable.message and "int" in uncallable.message


def test_grader_failures_cost_the_check_not_the_session(tmp_path: Path) -> None:
    ex = exercise(value("broken", expected=lambda: 1 / 0), value("fine", expected=lambda: 2.0))
    broken, fine = grade(ex, student(tmp_path, "def f():\n    return 2.0\n"))
    assert broken.state == "error" and "grader itself failed" in broken.message
    assert "ZeroDivisionError" in broken.message
    assert fine.state == "passed" and fine.points == 1.0


def test_expected_values_are_computed_before_any_worker_starts(tmp_path: Path) -> None:
    judge = Judge("en")
    seen: list[int] = []
    ex = exercise(value(expected=lambda: seen.append(len(judge.workers)) or 2.0))
    path = student(tmp_path, "def f():\n    return 2.0\n")
    with judge:
        prepared = prepare_exercise(ex, "en")
        (outcome,) = judge.grade_file(path, prepared)
    assert seen == [0] and outcome.passed


def test_an_exit_at_import_costs_that_exercise_with_a_message(tmp_path: Path) -> None:
    ex = exercise(value("a"), value("b"))
    a, b = grade(ex, student(tmp_path, "import os\nos._exit(7)\n"))
    assert a.state == b.state == "error" and "exit status 7" in a.message


def test_the_kit_cannot_be_imported_by_graded_code(tmp_path: Path) -> None:
    code = """
    def f():
        found = []
        for name in ("grader", "perfcore", "solutions"):
            try:
                __import__(name)
                found.append(name)
            except ImportError:
                pass
        return ",".join(found) or "none"
    """
    ex = exercise(
        ChoiceCheck(id="c", points=1, func="f", part="a", expected="none", choices=("none", "grader"))
    )
    for sandbox in (True, False):
        (o,) = grade(ex, student(tmp_path, code), sandbox=sandbox)
        assert o.passed, o.message


@needs_bwrap
def test_in_the_sandbox_nothing_outside_the_folder_is_there(tmp_path: Path) -> None:
    kit = Path(__file__).resolve().parents[3]
    decoy = tmp_path.parent / f"decoy-{tmp_path.name}.txt"
    decoy.write_text("keep me")
    code = f"""
    import os
    def f():
        seen = []
        for path in ({str(kit / "solutions" / "ex01_ridge_point.py")!r}, {str(decoy)!r}, "/etc/shadow",
                     {str(kit / "grader" / "judge.py")!r}):
            try:
                open(path).read(1)
                seen.append(path)
            except OSError:
                pass
        try:
            os.remove({str(decoy)!r})
        except OSError:
            pass
        return ",".join(seen) or "none"
    """
    ex = exercise(ChoiceCheck(id="c", points=1, func="f", part="a", expected="none", choices=("none", "x")))
    (o,) = grade(ex, student(tmp_path, code))
    assert o.passed, o.message
    assert decoy.read_text() == "keep me"


def test_printed_output_is_shown_with_an_error(tmp_path: Path) -> None:
    code = "def f():\n    print('looking at x')\n    raise ValueError('bad x')\n"
    (o,) = grade(exercise(value()), student(tmp_path, code))
    assert o.state == "error" and "bad x" in o.message and "looking at x" in o.message
    assert "grader/judge.py" not in o.message and "/worker.py" not in o.message


def test_a_helper_module_beside_the_file_imports(tmp_path: Path) -> None:
    (tmp_path / "helper98.py").write_text("PAIR = (1.0, 2.0)\n")
    (o,) = grade(
        exercise(value()), student(tmp_path, "from helper98 import PAIR\ndef f():\n    return PAIR\n")
    )
    assert o.passed, o.message


@needs_bwrap
def test_nothing_can_be_planted_beside_the_exercise_files(tmp_path: Path) -> None:
    code = """
    import os
    def f():
        planted = []
        for name in ("results.json", "conftest.py", "helper.py"):
            try:
                with open(name, "w") as fh:
                    fh.write("x")
                planted.append(name)
            except OSError:
                pass
        try:
            os.symlink("/etc/passwd", "out.json")
            planted.append("out.json")
        except OSError:
            pass
        with open("/tmp/scratch.txt", "w") as fh:  # its own /tmp is writable
            fh.write("fine")
        return ",".join(planted) or "none"
    """
    ex = exercise(ChoiceCheck(id="c", points=1, func="f", part="a", expected="none", choices=("none", "x")))
    (o,) = grade(ex, student(tmp_path, code))
    assert o.passed, o.message
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{MODULE}.py"]


@pytest.mark.parametrize("sandbox", [True, False], ids=["bwrap", "limits-only"])
def test_a_course_may_allow_perfcore(tmp_path: Path, sandbox: bool) -> None:
    if sandbox and confinement.find_bwrap()[0] is None:
        pytest.skip("bubblewrap does not work here")
    code = """
    import perfcore
    def f():
        return float(perfcore.ridge_point(perfcore.A100, "fp32"))
    """
    import perfcore

    expected = float(perfcore.ridge_point(perfcore.A100, "fp32"))
    ex = exercise(value("allowed", expected=lambda: expected))
    (allowed,) = grade(ex, student(tmp_path, code), sandbox=sandbox, allow=("perfcore",))
    assert allowed.passed, allowed.message
    (denied,) = grade(ex, student(tmp_path, code), sandbox=sandbox)
    assert denied.state == "error" and "perfcore" in denied.message
    with pytest.raises(ValueError, match="perfcore and grader only"):
        Judge("en", allow=("solutions",))


def test_the_reference_is_pinned_from_the_first_measurement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reference process starts on first use; it must be on the worker's core for the first check too
    (it once ran unpinned there, on an idle core, while the worker shared its core with other work)."""
    if not hasattr(os, "sched_getaffinity"):
        pytest.skip("no CPU affinity on this OS")
    checks = tmp_path / "pin_checks.py"
    checks.write_text(
        textwrap.dedent(
            """
            from grader.specs.requirements import Requirements
            from grader.specs.check import Exercise, MeasurementCheck

            EXERCISE = Exercise(id="pin", module="pin_student", title_zh="钉", title_en="Pin", checks=(
                MeasurementCheck(id="m", part="a", points=1, func="rate", kind="dram", reference=lambda: 100.0,
                                 requires=Requirements(), single_thread=False),
            ))
            """
        ),
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    module = importlib.import_module("pin_checks")
    folder = tmp_path / "student"
    folder.mkdir()
    # a figure read from a clock, as every measuring call's must be (grader.judge.runners.readings)
    student = "import time\ndef rate():\n    time.perf_counter()\n    return 101.0\n"
    (folder / "pin_student.py").write_text(student, encoding="utf-8")
    with Judge("en", extra_checks=("pin_checks",)) as judge:
        (outcome,) = judge.grade(module.EXERCISE, folder / "pin_student.py").outcomes
        # 1.01x perfcore's: passed, or deferred where the machine was too busy to measure; never wrong
        assert outcome.state == "passed" or (outcome.state == "skipped" and outcome.deferred), outcome.message
        reference = os.sched_getaffinity(judge.reference().start())
        worker = judge.workers[os.path.realpath(folder)]
        assert worker.proc is not None and len(reference) == 1
        assert os.sched_getaffinity(worker.proc.pid) == reference


def budgeted(*checks: ValueCheck) -> Exercise:
    """An exercise whose time budget is 3 s of import and 1 s a check."""
    return Exercise(
        id="ex97", module=MODULE, title_zh="预算", title_en="Budget", checks=checks, import_timeout_s=3
    )


def test_an_exercise_has_a_time_budget_for_all_its_checks(
    tmp_path: Path, waits: list[tuple[str, float]]
) -> None:
    """An import that takes nearly its limit and functions that hang: each timeout kills the worker and the
    next check pays the import again. The exercise's budget (3 s of import + 4 x 1 s) ends that."""
    from grader.judge import time_budget_s

    ex = budgeted(*(value(c, timeout_s=1) for c in "abcd"))
    assert time_budget_s(ex) == 7
    code = "import time\ntime.sleep(2)\ndef f():\n    while True:\n        time.sleep(1)\n"
    a, b, c, d = grade(ex, student(tmp_path, code))
    assert a.state == b.state == "timeout" and "time limit of 1 s" in a.message
    assert (
        c.state == "timeout"
        and "the import of ex98_judge.py used up the time budget of ex97, 7 s" in c.message
    )
    assert d.state == "timeout" and "is used up: this check was not run" in d.message
    # two checks paid the import and their limit, the third import ended the budget, d asked nothing
    asked = requests(waits)
    assert [op for op, _ in asked] == ["load", "call", "load", "call", "load"], waits
    assert all(s <= limit for (_, s), limit in zip(asked, (3, 1, 3, 1, 3), strict=True)), waits
    assert [op for op, _ in waits].count("start") == 3, waits


def test_an_honest_slow_submission_fits_its_budget(tmp_path: Path) -> None:
    ex = budgeted(*(value(c, timeout_s=1) for c in "abcd"))
    code = "import time\ntime.sleep(2)\ndef f():\n    time.sleep(0.5)\n    return (1.0, 2.0)\n"
    outcomes = grade(ex, student(tmp_path, code))
    assert all(o.passed for o in outcomes), [o.message for o in outcomes]


def test_a_budget_spent_after_a_check_deferred_for_the_machine_is_deferred_too(tmp_path: Path) -> None:
    """bench_decided beside two gradings: m5a's calls ran past their limits on a core others held (deferred),
    and m5b then found m5's budget spent, a timeout of an honest method. A budget spent after a check of the
    exercise was deferred is the busy machine's doing: deferred, with why; without one it stays a timeout."""
    from grader.judge.verdicts import Verdict
    from grader.results.outcome import State

    ex = budgeted(value("a", timeout_s=1))
    path = os.path.realpath(student(tmp_path, "def f():\n    return (1.0, 2.0)\n"))
    with Judge("en") as judge:
        judge.student.spent[(path, ex.id)] = 100.0  # the budget (3 s + 1 s) long spent
        with pytest.raises(Verdict) as spent:
            judge.student.budget_left(ex, path)
        assert spent.value.state == State.TIMEOUT and not spent.value.deferred
        judge.student.deferred_in.add((path, ex.id))
        with pytest.raises(Verdict) as busy:
            judge.student.budget_left(ex, path)
        assert busy.value.deferred and busy.value.state == State.SKIPPED
        assert "is used up" in busy.value.message and "busy machine" in busy.value.message
        (outcome,) = judge.grade(ex, path).outcomes  # the whole check, as the judge reports it
        assert outcome.state == "skipped" and "deferred" in outcome.message


def test_a_deferred_check_is_noted_for_its_exercises_budget(tmp_path: Path, monkeypatch) -> None:
    from grader.judge import core
    from grader.judge.verdicts import Verdict
    from grader.results.outcome import State

    def deferring(judge, p, path):  # noqa: ANN001, ANN202 - a runner whose rounds the machine left undecided
        raise Verdict(State.SKIPPED, "the machine was busy", deferred=True)

    monkeypatch.setattr(core, "runner_for", lambda check: deferring)
    ex = budgeted(value("a", timeout_s=1))
    path = student(tmp_path, "def f():\n    return (1.0, 2.0)\n")
    with Judge("en") as judge:
        (outcome,) = judge.grade(ex, path).outcomes
        assert outcome.state == "skipped"
        assert (os.path.realpath(path), ex.id) in judge.student.deferred_in
