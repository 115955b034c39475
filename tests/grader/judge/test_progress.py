"""grader.judge.progress: what a front end's display is told while a measuring check runs."""

from __future__ import annotations

from grader.judge.progress import Progress, Teller


def test_a_teller_counts_the_rounds_of_the_check_in_hand_and_nothing_outside_one() -> None:
    told: list[Progress] = []
    teller = Teller(told.append)
    teller.tell(True)  # no check in hand: nothing told, nothing counted
    teller.start("m1", "copy")
    teller.tell(True)
    teller.tell(False)  # the student's call, or an "also" figure: the same round
    teller.tell(True)
    teller.stop()
    teller.tell(True)
    assert [(p.exercise, p.check, p.rounds) for p in told] == [("m1", "copy", r) for r in (0, 1, 1, 2)]
    assert all(p.elapsed_s >= 0 for p in told)
    assert [p.elapsed_s for p in told] == sorted(p.elapsed_s for p in told)
    teller.start("m3", "t")  # a new check begins at round 0
    assert (told[-1].check, told[-1].rounds) == ("t", 0)


def test_a_display_that_fails_is_left_off_and_the_check_goes_on() -> None:
    calls: list[Progress] = []

    def broken(progress: Progress) -> None:
        calls.append(progress)
        raise OSError("the terminal went away")

    teller = Teller(broken)
    teller.start("m1", "copy")  # the first telling fails: no error reaches the judge
    teller.tell(True)
    assert len(calls) == 1 and teller.on_progress is None
