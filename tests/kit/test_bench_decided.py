"""benchmarks/bench_decided.py without grading anything (a run takes minutes to hours): what counts as a
decided point, a deferred one and a false fail, the table's shares, every submission's files, and the
command line's refusals by name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from grader.registry import load_exercises

from .benchmark import loaded

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    with loaded("bench_decided.py", "bench_decided_kit") as module:
        yield module


def point(bench, state: str, deferred: bool = False, points: float = 2.0, condition: str = "quiet"):  # noqa: ANN001, ANN201
    return bench.Point("solutions", condition, 1, "m5::add_16", points, state, deferred, "why")


def test_passed_and_wrong_are_decided_deferred_is_not_anything_else_is_a_false_fail(bench) -> None:
    """An honest answer's wrong is the benchmark's failure to find (a false fail), not a decision."""
    assert point(bench, "passed").kind == bench.DECIDED
    assert point(bench, "wrong").kind == bench.FALSE_FAIL
    assert point(bench, "skipped", deferred=True).kind == bench.DEFERRED
    for state in ("error", "timeout", "skipped"):
        assert point(bench, state).kind == bench.FALSE_FAIL


def test_the_table_gives_the_share_of_points_decided_and_names_false_fails(bench) -> None:
    points = [
        point(bench, "passed", points=3.0),
        point(bench, "skipped", deferred=True, points=1.0),
        point(bench, "skipped", deferred=True, points=2.0, condition="per-core"),
        point(bench, "error", points=2.0, condition="per-core"),
    ]
    lines = bench.report(points, ["solutions"], ["quiet", "per-core", "two-gradings"])
    assert lines[2] == "| solutions | 75% of 4 | 0% of 4, 2 FALSE FAIL | - |"


def test_every_submission_has_a_file_for_some_exercise(bench) -> None:
    exercises = load_exercises()
    for submission in ("solutions", *bench.METHODS):
        files = [bench.files_of(submission, exercises[e]) for e in bench.EXERCISE_IDS]
        assert any(files), submission
    m5 = bench.files_of("solutions", exercises["m5"])
    assert m5 is not None and "def overhead_curve" in m5["m5_overhead.py"]


@pytest.mark.parametrize(
    ("argument", "said"),
    [
        (["--methods", "solutions,stopwatch"], "--methods takes names of solutions, benchmark"),
        (
            ["--conditions", "noisy"],
            "--conditions takes names of quiet, per-core, two-gradings, two-busy, streamer, got noisy",
        ),
        (["--runs", "0"], "--runs must be at least 1, got 0"),
    ],
)
def test_bad_arguments_are_refused_by_name(argument: list[str], said: str) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_decided.py"), *argument],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and said in done.stderr, done.stderr
