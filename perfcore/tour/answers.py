"""The worked answers of the exercises in the tour: shown in the instructor's repository, left out of a
student kit released without them (``python -m grader release --no-worked-answers`` writes ``_release.py``
with ``WORKED_ANSWERS = False`` into the kit's perfcore)."""

from __future__ import annotations

import importlib

#: The module ``python -m grader release`` writes into a student kit's perfcore; the instructor's
#: repository has none.
RELEASE_MODULE = f"{__name__.split('.')[0]}._release"


def worked_answers() -> bool:
    """Whether the tour prints the exercises' worked answers: True unless this perfcore is a student kit's
    released with ``--no-worked-answers`` (its ``_release.WORKED_ANSWERS`` is False). Read on every call,
    not once at import, so that the sections follow the module a test puts in place."""
    try:
        release = importlib.import_module(RELEASE_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name != RELEASE_MODULE:  # the marker itself failed to import something: not ours to hide
            raise
        return True
    return bool(getattr(release, "WORKED_ANSWERS", True))


def left_out(exercise: int) -> str:
    """The line that stands where exercise ``exercise``'s worked answer is left out (two spaces in, as the
    tour's notes are)."""
    return (
        f"  练习 {exercise} 的解答不在这套学生材料里，请自己算，再用 pytest 检查。\n"
        f"  The worked answer to exercise {exercise} is left out of this kit: work it out, then grade it "
        "with pytest."
    )
