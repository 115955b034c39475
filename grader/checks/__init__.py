"""One module per exercise of the lecture's §9, each defining ``EXERCISE = Exercise(...)``.

``grader.registry`` finds them all; a module here is named for its exercise (``ex01.py`` grades the
student file ``ex01_ridge_point.py``). Reference values come from perfcore, never from hard-coded numbers.
"""

from perfcore.measure import make_bounds


def bandwidth_bound() -> float:
    """The physical load/store bound of one core (perfcore.measure): no honest byte rate exceeds it."""
    return make_bounds().bandwidth


def flops_bound() -> float:
    """The physical FMA peak of one core (perfcore.measure): no honest FLOP rate exceeds it."""
    return make_bounds().peak_flops
