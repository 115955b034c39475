"""The class view's numbers (grader.reports.classview), apart from the page that shows them."""

from __future__ import annotations

from grader.reports.classview import check_counts, exercises_of, graded_on, grid, standings
from tests.grader.reports.pages import _outcome


def test_a_deferred_check_is_not_graded_and_every_other_state_is() -> None:
    assert not graded_on(_outcome("d", "skipped", 0.0, deferred=True))
    assert not graded_on(_outcome("s", "skipped", 0.0))
    for state in ("passed", "wrong", "not_attempted", "error", "timeout"):
        assert graded_on(_outcome("c", state, 0.0)), state


def test_standings_rank_by_percentage_then_name_and_nothing_counted_last() -> None:
    """alice 78 of 78 (three points deferred) above bob's 78.5 of 81; carol had every check deferred."""
    alice = [
        _outcome("a", "passed", 78.0, max_points=78.0),
        _outcome("b", "skipped", 0.0, max_points=3.0, deferred=True),
    ]
    bob = [
        _outcome("a", "passed", 78.0, max_points=78.0),
        _outcome("b", "passed", 0.5, max_points=0.5),
        _outcome("c", "wrong", 0.0, max_points=2.5),
    ]
    carol = [_outcome("a", "skipped", 0.0, max_points=78.0, deferred=True)]
    dan = [_outcome("a", "passed", 78.0, max_points=78.0)]
    ranked = standings([("carol", carol), ("bob", bob), ("dan", dan), ("alice", alice)], "defer")
    assert [(s.rank, s.name) for s in ranked] == [(1, "alice"), (2, "dan"), (3, "bob"), (4, "carol")]
    assert ranked[0].share == 100.0 and ranked[0].totals.deferred_points == 3.0
    assert abs((ranked[2].share or 0) - 100 * 78.5 / 81) < 1e-9
    assert ranked[3].share is None and ranked[3].totals.max_score == 0.0
    # counted as zero, carol's deferred check is a maximum she scored nothing of
    zero = {s.name: s for s in standings([("carol", carol), ("alice", alice)], "zero")}
    assert zero["carol"].share == 0.0 and abs((zero["alice"].share or 0) - 100 * 78 / 81) < 1e-9


def test_check_counts_count_states_and_average_over_the_graded_only() -> None:
    students = [
        ("alice", [_outcome("m_ok", "passed", 1.0), _outcome("m_off", "passed", 1.0)]),
        ("bob", [_outcome("m_ok", "wrong", 0.0), _outcome("m_off", "passed", 1.0)]),
        ("carol", [_outcome("m_ok", "timeout", 0.0), _outcome("m_off", "skipped", 0.0, deferred=True)]),
        ("dan", [_outcome("extra", "passed", 2.0, max_points=2.0)]),
    ]
    rows = {c.name: c for c in check_counts(students, ["fm::m_ok", "fm::m_off", "fm::none"])}
    assert list(rows) == ["fm::m_ok", "fm::m_off", "fm::none", "fm::extra"]  # the given order, then others
    ok, off, none = rows["fm::m_ok"], rows["fm::m_off"], rows["fm::none"]
    assert dict(ok.counts) == {
        "passed": 1,
        "wrong": 1,
        "not_attempted": 0,
        "error": 0,
        "timeout": 1,
        "skipped": 0,
    }
    assert (ok.students, ok.graded) == (3, 3) and abs((ok.mean or 0) - 1 / 3) < 1e-9
    assert (off.students, off.graded, off.mean, off.counts["skipped"]) == (3, 2, 1.0, 1)
    assert (none.students, none.graded, none.mean, none.max_points) == (0, 0, None, 0.0)
    assert rows["fm::extra"].max_points == 2.0


def test_the_grid_has_a_cell_per_student_and_exercise_with_what_was_deferred() -> None:
    alice = [
        _outcome("a", "passed", 1.0, exercise="ex01", source="ex01.py"),
        _outcome("b", "wrong", 0.0, exercise="ex01", source="ex01.py"),
        _outcome("m", "skipped", 0.0, exercise="m1", source="m1.py", deferred=True, max_points=2.0),
        _outcome("n", "passed", 3.0, exercise="m1", source="m1.py", max_points=3.0),
    ]
    bob = [
        _outcome("a", "not_attempted", 0.0, exercise="ex01", source="ex01.py"),
        _outcome("b", "not_attempted", 0.0, exercise="ex01", source="ex01.py"),
    ]
    students = [("bob", bob), ("alice", alice)]
    assert exercises_of(students, ["ex02::x", "ex01::a"]) == ["ex02", "ex01", "m1"]
    rows = grid(students, "defer")
    assert [r.name for r in rows] == ["alice", "bob"]  # by name, to be found
    ex01, m1 = rows[0].cells["ex01"], rows[0].cells["m1"]
    assert (ex01.score, ex01.max_score, ex01.share, ex01.deferred, ex01.attempted) == (
        1.0,
        2.0,
        50.0,
        0,
        True,
    )
    assert (m1.score, m1.max_score, m1.share, m1.deferred, m1.source) == (3.0, 3.0, 100.0, 1, "m1.py")
    assert rows[0].share == 80.0  # 4 of the 5 points counted
    assert "ex02" not in rows[0].cells and "m1" not in rows[1].cells
    assert rows[1].cells["ex01"].attempted is False and rows[1].cells["ex01"].share == 0.0
    # counted as zero, the deferred check is in m1's maximum
    assert grid(students, "zero")[0].cells["m1"].share == 60.0
