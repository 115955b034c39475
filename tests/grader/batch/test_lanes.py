"""Measurement lanes (``--measure-jobs N``): N students' measurement exercises at a time, each lane a thread
on cores of its own, whose workers and references inherit that affinity."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from grader.batch import allotment, engine, lanes
from grader.batch import config as batch_config
from grader.batch.engine import BatchConfig, Student
from grader.batch.errors import BatchError

needs_affinity = pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity call here")


@needs_affinity
@pytest.mark.parametrize(
    ("cores", "lanes", "groups"),
    [
        (range(8), 3, [{0, 1, 2}, {3, 4, 5}, {6, 7}]),
        (range(2), 2, [{0}, {1}]),
        ([1, 3, 5, 7], 2, [{1, 3}, {5, 7}]),
        (range(4), 1, [{0, 1, 2, 3}]),
    ],
)
def test_lanes_split_the_usable_cores(monkeypatch, cores, lanes, groups) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(cores))
    got = allotment.lane_cores(lanes)
    assert got == groups
    assert sorted(c for g in got for c in g) == sorted(cores)  # disjoint, and every core used


@needs_affinity
def test_more_lanes_than_cores_is_refused(monkeypatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    with pytest.raises(ValueError, match="3 lanes need 3 cores; this run may use 2"):
        allotment.lane_cores(3)
    monkeypatch.setattr(allotment, "usable_cores", lambda: 2)
    monkeypatch.setattr(batch_config, "usable_cores", lambda: 2)
    with pytest.raises(BatchError, match="--measure-jobs 3: each lane needs a core of its own"):
        BatchConfig(measure_jobs=3)
    for bad in (0, -1, True, 1.5):
        with pytest.raises(BatchError, match="measure_jobs must be a whole number"):
            BatchConfig(measure_jobs=bad)  # type: ignore[arg-type]


@needs_affinity
@pytest.mark.skipif(
    hasattr(os, "sched_getaffinity") and len(os.sched_getaffinity(0)) < 2,
    reason="two lanes need two cores; this machine lets the tests use one",
)
def test_each_lane_grades_on_its_own_cores(tmp_path: Path) -> None:
    """The students of two lanes are graded in two threads whose affinities are disjoint groups, and both
    lanes work; the process's own affinity is left as it was."""
    seen: list[tuple[int, frozenset[int]]] = []
    lock = threading.Lock()

    def fake_grade_student(student, plan, config, scratch, **kw):
        with lock:
            seen.append((threading.get_ident(), frozenset(os.sched_getaffinity(0))))
        time.sleep(0.05)  # long enough that the other lane takes the next student
        return engine.Graded([], ())

    before = os.sched_getaffinity(0)
    students = [Student(f"s{i}", tmp_path) for i in range(6)]
    plans = {s.name: ([], [("m1", None)]) for s in students}
    config = BatchConfig(measure_jobs=2, progress=False)
    progress = engine._Progress(6, False)
    graded = list(
        lanes._measure_in_lanes(
            students, plans, config, tmp_path, progress, set(), threading.Event(), grade=fake_grade_student
        )
    )
    assert [name for name, _ in graded] == [s.name for s in students]
    by_thread = {t: a for t, a in seen}
    assert len(by_thread) == 2  # two lanes, each a thread
    one, two = by_thread.values()
    assert one and two and not one & two  # on cores of their own
    assert all(a == by_thread[t] for t, a in seen)  # a lane keeps its cores
    assert os.sched_getaffinity(0) == before
