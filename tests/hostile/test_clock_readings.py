"""Figures that did not come from timing the work (issue 37, point 3; tests/hostile/clock_readings.py), graded
by the batch grader and the pytest plugin, each in a subprocess as an instructor or a student runs them:
every one wrong, by the clock readings of its calls (grader.judge.runners.readings), in both. Each passed
the checks before the readings (its result made, its call as long as it claims, its CPU busy, its figure
about right) and none is caught by load: the readings say the same on a busy machine.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.hostile.clock_readings import CAUGHT
from tests.hostile.suite import write
from tests.hostile.test_hostile import graded_both

pytest.importorskip("torch")
LINUX = sys.platform.startswith("linux")
FOLDERS = {folder.name: folder for folder, *_ in CAUGHT}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """Every folder graded by both front ends: {"batch": {student: ...}, "pytest": {student: ...}}."""
    return graded_both(tmp_path_factory.mktemp("readings"), FOLDERS.values(), "m1,m3,m4,m5")


@pytest.mark.parametrize(
    ("name", "exercise", "check", "says"),
    [(folder.name, exercise, check, says) for folder, exercise, check, says in CAUGHT],
    ids=[f"{folder.name}-{check}" for folder, _, check, _ in CAUGHT],
)
def test_a_figure_not_timed_from_the_work_is_wrong(
    graded: dict[str, dict], name: str, exercise: str, check: str, says: str
) -> None:
    """Wrong by the readings in both front ends (or, on a busy machine, by the judge's witness); where a call
    was deferred before its readings were read (past its time limit while the machine was busy), never
    passed, and wrong in the other."""
    if says == "do not lie within the call" and not LINUX:
        pytest.skip("the judge compares its clock with the worker's on Linux only")
    caught = 0
    for front_end in ("batch", "pytest"):
        state, points, message, *_ = graded[front_end][name][exercise][check]
        assert points == 0 and state in ("wrong", "skipped"), (front_end, state, message[:400])
        if state == "wrong":
            # by the readings, or by the judge's witness of the runs (its upper bound holds on a busy core, where
            # a preempted quarter's stretch can grow long enough for the readings to let the figure through)
            by_readings = "no measurement taken" in message and any(
                one in message for one in says.split(" | ")
            )
            assert by_readings or "figure not what ran" in message, (front_end, message[:400])
            caught += 1
        else:
            assert "busy" in message, (front_end, message[:400])
    assert caught >= 1


def test_the_cheats_are_graded_from_files_of_their_own(tmp_path: Path) -> None:
    """The folders hold only the cheated function: nothing else of the exercise is attempted."""
    for folder in FOLDERS.values():
        target = write(folder, tmp_path, {})
        assert sorted(p.name for p in target.iterdir()) == sorted(folder.files)
