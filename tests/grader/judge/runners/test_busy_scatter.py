"""The scatter rule under load (issue 38, "one false wrong under load"): a student's figures that scatter
while perfcore's hold still are the method's doing only in rounds the machine's load could not bend.

The case kept here is the m5b false wrong: an honest overhead curve, its graded input inside the band, its
probe's points scattered across the band's edges by a busy core. The probe's undecided comparison went
to the scatter rule over every probe round, busy or not, and was called wrong ("your figures scatter ...
IQR/median 0.634 where perfcore's vary 0.0424") while the check's own record (the graded input's rounds)
read quiet. The load is injected (every span reads as given), as on a machine this test does not run on.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from grader.judge.prepare import prepare
from grader.judge.runners.curve import run_shape
from grader.judge.runners.rounds import drawn_inputs
from grader.judge.verdicts import Verdict
from grader.results.outcome import State
from grader.sandbox import load, messages
from grader.specs.check import Exercise, ShapeCheck
from grader.specs.requirements import Requirements
from tests.grader.judge.fakes import FakeJudgeSide, spans

QUIET = load.Span(wall=1.0, others=0.0, steal=0.0, elsewhere=0.0, cores=1, resolution=0.01)
#: The measured core shared: others took 40% of it.
SHARED = load.Span(wall=1.0, others=0.4, steal=0.0, elsewhere=0.0, cores=1, resolution=0.01)
#: Seconds small enough that a fake call returning at once lasts longer than its claim (the readings rule).
S = 1e-7
XS = [16, 256, 4096, 65536, 262144]


def curve(scale: Callable[[int], float] = lambda i: 1.0) -> list[list[float]]:
    """An overhead curve (flat, then linear in the last pair), point ``i`` times ``scale(i)``."""
    return [[x, scale(i) * (1e-5 + 1e-9 * x) * S] for i, x in enumerate(XS)]


CHECK = ShapeCheck(
    id="overhead_curve",
    part="m5b",
    points=3,
    func="overhead_curve",
    shape="overhead",
    reference=lambda sizes: None,
    inputs=lambda u, rng: {"sizes": (1,) if u < 0.5 else (2,)},
    kind="overhead",
    rounds=3,
    timeout_s=120.0,
    requires=Requirements(),
)
EXERCISE = Exercise(id="m5", module="m5_overhead", title_zh="假", title_en="Fake", checks=(CHECK,))


def curve_judge(
    curve_at: Callable[[dict[str, Any]], list[list[float]]],
    student: load.Span = QUIET,
    reference: load.Span = QUIET,
) -> FakeJudgeSide:
    """The judge's side as a curve check uses it: the student's curve comes from ``curve_at(kwargs)``
    (timed whole by clock readings, as an honest call is), perfcore's is :func:`curve` at every input. The
    student's spans read as ``student``, perfcore's as ``reference``: the sides take turns, A B A B, so the
    spans read alternate."""
    return FakeJudgeSide(
        max_noise=0.25,
        curve=curve(),
        student_at=lambda kwargs, timeout_s: messages.Returned(curve_at(dict(kwargs))),
        spans=spans(student, reference),
    )


def graded(judge: FakeJudgeSide) -> Verdict | None:
    try:
        run_shape(judge, prepare(CHECK, EXERCISE, "en"), "m5_overhead.py")
    except Verdict as verdict:
        return verdict
    return None


def probe_scatters() -> Callable[[dict[str, Any]], list[list[float]]]:
    """The graded input's curve as perfcore's; the probe's three small points scattered round by round
    across both edges of the band (x0.45 to x2.2, IQR/median about 0.6), its median curve perfcore's: what
    a core shared with a busy loop did to an honest Timer's microsecond medians."""
    graded_input = drawn_inputs(CHECK, "m5_overhead.py")[0]
    factors = itertools.cycle([1.0, 2.2, 0.45, 1.6, 0.6, 1.0])

    def student(kwargs: dict[str, Any]) -> list[list[float]]:
        if kwargs == graded_input:
            return curve()
        factor = next(factors)
        return curve(lambda i: factor if i < 3 else 1.0)

    return student


def test_a_probe_scattered_in_busy_rounds_is_deferred_not_wrong() -> None:
    """The m5b false wrong: the probe's rounds shared the core with a busy loop; the scatter is the
    machine's, the check is deferred with the load's numbers."""
    verdict = graded(curve_judge(probe_scatters(), SHARED, SHARED))
    assert verdict is not None, "an undecided probe never passes"
    assert verdict.state == State.SKIPPED and verdict.deferred, verdict.message
    assert "busy" in verdict.message


def test_a_probe_scattered_in_quiet_rounds_is_still_wrong() -> None:
    """The same figures where nothing else ran: the scatter is the method's, wrong as before."""
    verdict = graded(curve_judge(probe_scatters()))
    assert verdict is not None and verdict.state == State.WRONG and "scatter" in verdict.message
