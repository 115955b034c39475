"""The cut of a failed grading's output keeps the failing check's message and the score table."""

from .graded import failures_and_tail

RUN = (
    "..F.\n"
    "=================================== FAILURES ===================================\n"
    "m3::transpose_time_tiled [wrong] 0/2\n"
    "your figures scatter from round to round\n" + "x" * 5000 + "\n"
    "=========================== short test summary info ============================\n"
    "FAILED solutions/m3_transpose.py::transpose_time_tiled\n" + "y" * 4000 + "\ntotal  4 / 6\n"
)


def test_the_message_above_the_tail_is_kept() -> None:
    cut = failures_and_tail(RUN, tail=100)
    assert "your figures scatter" in cut and cut.endswith("total  4 / 6\n")
    assert "short test summary" not in cut.split("...")[0]
    assert len(cut) < 6000 + 200


def test_a_run_without_failures_gives_its_tail() -> None:
    assert failures_and_tail("a\n" * 10 + "total  6 / 6\n", tail=15) == "a\ntotal  6 / 6\n"
