"""A batch run's phases one at a time, without the thread pool: the plan made from an intake
(grader.batch.planning) and the assembly made from what the lanes gave (grader.batch.engine)."""

from __future__ import annotations

import os
from pathlib import Path

from grader.batch.config import BatchConfig
from grader.batch.engine import assemble
from grader.batch.journal import Entry
from grader.batch.lanes import Graded, LaneResults
from grader.batch.planning import Intake, machine_deferral, plan
from grader.batch.submissions import Student
from grader.judge import prepare_exercise
from grader.registry import load_exercises
from grader.results.outcome import Outcome, State

CONFIG = BatchConfig(lang="en", progress=False)


def _intake(students: list[Student], earlier: tuple[Entry, ...] = ()) -> Intake:
    exercises = [e for e in load_exercises(()).values() if e.id in ("ex01", "ex02", "m1")]
    prepared = {e.id: prepare_exercise(e, "en") for e in exercises}
    keys = {s.name: {m: f"key-{s.name}-{m}" for m in s.files} for s in students}
    return Intake(
        exercises,
        students,
        prepared,
        keys,
        None,
        list(earlier),
        "limits only",
        "2026-12-05T00:00Z",
        Path("cache"),
    )


def _passed(taken: Intake, exercise: str, student: str) -> list[Outcome]:
    e = next(e for e in taken.exercises if e.id == exercise)
    return [
        Outcome.of(e, p.check, State.PASSED, "", lang="en", source=f"{student}/{e.module}.py")
        for p in taken.prepared[exercise]
    ]


def test_the_plan_splits_formula_from_measurement_and_grades_no_unusable_file(tmp_path):
    alice = Student(
        "alice",
        tmp_path / "alice",
        files={"ex01_ridge_point": tmp_path / "a1", "m1_copy_bandwidth": tmp_path / "a2"},
    )
    bob = Student("bob", tmp_path / "bob", problems={"ex01_ridge_point": (State.ERROR, "too big")})
    carol = Student("carol", tmp_path / "carol")
    taken = _intake([alice, bob, carol])
    planned = plan(taken, CONFIG)
    formula, serial = planned.lanes["alice"]
    assert [(e.id, len(p)) for e, p in formula] == [("ex01", len(taken.prepared["ex01"]))]
    assert [e.id for e, _ in serial] == ["m1"]
    assert planned.lanes["bob"] == ([], []) and planned.lanes["carol"] == ([], [])
    assert [o.state for o in planned.missing["bob"]] == [State.ERROR] * len(taken.prepared["ex01"])
    assert {o.source for o in planned.missing["bob"]} == {"bob/ex01_ridge_point.py"}
    assert planned.missing["carol"] == [] and planned.measures()


def test_the_plan_leaves_out_what_the_journal_holds(tmp_path):
    alice = Student("alice", tmp_path / "alice", files={"ex01_ridge_point": tmp_path / "a1"})
    first = _intake([alice])
    held = Entry(
        "alice",
        "ex01",
        "key-alice-ex01_ridge_point",
        "2026-12-04T00:00Z",
        1.0,
        (),
        tuple(_passed(first, "ex01", "alice")),
    )
    taken = _intake([alice], (held,))
    planned = plan(taken, CONFIG)
    assert planned.todo["alice"] == {"ex01": []}
    assert planned.lanes["alice"] == ([], []) and not planned.measures()


def test_the_assembly_orders_each_students_outcomes_and_keeps_every_note(tmp_path):
    alice = Student(
        "alice",
        tmp_path / "alice",
        files={"ex01_ridge_point": tmp_path / "a1", "ex02_memory_bound": tmp_path / "a2"},
        problems={"m1_copy_bandwidth": (State.ERROR, "a link")},
        notes=("intake note",),
    )
    taken = _intake([alice])
    planned = plan(taken, CONFIG)
    got = LaneResults.empty(taken.students)
    # the lanes give ex02 before ex01 (two lanes, either may end first) and a copy's note twice
    got.collect("alice", Graded(_passed(taken, "ex02", "alice"), ("copy note",), 2.0))
    got.collect("alice", Graded(_passed(taken, "ex01", "alice"), ("copy note",), 3.0))
    (result,) = assemble(taken, planned, got)
    registry = [(e.id, p.check.id) for e in taken.exercises for p in taken.prepared[e.id]]
    assert [(o.exercise, o.check_id) for o in result.outcomes] == registry
    # a link is an error, unless this machine defers m1 whatever the file (no torch, or no serial run
    # under pytest-xdist: planning.file_outcome)
    expected = [State.SKIPPED if machine_deferral(p, CONFIG) else State.ERROR for p in taken.prepared["m1"]]
    assert [o.state for o in result.outcomes if o.exercise == "m1"] == expected
    assert result.notes == ("intake note", "copy note")
    assert result.elapsed_s == 5.0 and result.reused == 0
    assert result.files == {"ex01": "key-alice-ex01_ridge_point", "ex02": "key-alice-ex02_memory_bound"}
    assert result.graded_at == taken.graded_at


def test_the_lanes_leave_the_environment_as_it_was_and_hand_the_profile_its_cache_folder(
    tmp_path, monkeypatch
):
    """The run set ``PERFKIT_CACHE_DIR`` in its own environment before the measurement lanes, for every
    process started after; now the profile's process alone is handed the folder, the one perfcore's
    ``cache_dir`` named as the run began, and the run's environment ends as it began."""
    from grader.batch import lanes
    from grader.batch.planning import intake, progress_for

    monkeypatch.delenv("PERFKIT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    (tmp_path / "subs" / "alice").mkdir(parents=True)
    (tmp_path / "subs" / "alice" / "m1_copy_bandwidth.py").write_text("x = 1\n", encoding="utf-8")
    # the profile's process says which cache folder it was handed, as its key; no lane grades
    monkeypatch.setattr(lanes, "_PROFILE_CODE", "import os\nprint(os.environ.get('PERFKIT_CACHE_DIR'))\n")
    monkeypatch.setattr(lanes, "_measure_in_lanes", lambda *args: iter(()))
    config = BatchConfig(exercises=("m1",), lang="en", progress=False, sandbox=False)
    before = dict(os.environ)
    taken = intake(tmp_path / "subs", config, None)
    planned = plan(taken, config)
    assert planned.measures()
    got = lanes.run_lanes(taken, planned, config, progress_for(taken, planned, config))
    assert dict(os.environ) == before
    assert got.profile == str(tmp_path / "xdg" / "perfkit")
