"""grader.judge.runners.paired: one rule for perfcore's side of every paired round. A reference process that
ran out of GPU memory (:class:`~grader.judge.reference.ReferenceShortage`) defers the check, with the reason,
for a measurement and a curve alike (the curve runner's own reference call once lacked the rule and called
it a bug of the grader's); any other failure of the reference is the grader's. The load is injected (every
span quiet), as on a machine this test does not run on."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from grader.judge.prepare import Prepared, prepare
from grader.judge.reference import ReferenceShortage
from grader.judge.runners.curve import run_shape
from grader.judge.runners.measurement import run_measurement
from grader.judge.verdicts import GraderError, Verdict
from grader.results.measured import Load, Measured
from grader.results.outcome import State
from grader.sandbox import messages
from grader.specs.check import Exercise, MeasurementCheck, ShapeCheck
from grader.specs.requirements import Requirements
from tests.grader.judge.fakes import FakeJudgeSide, spans
from tests.grader.judge.runners.test_measurement_load import QUIET, SHAPE_CHECK, TIME_CHECK, S

#: Every span of every measurement read as quiet (the fake judge's ``spans``).
QUIETLY = spans(QUIET)

XS = [1, 4, 16, 64, 256, 1024]
CURVE = [[x, (1e-5 + 1e-6 * x) * S] for x in XS]
SHORTAGE = "CUDA out of memory. Tried to allocate 2.00 GiB"
CURVE_CHECK = SHAPE_CHECK  # an overhead curve of three rounds, with a reference
#: A custom test of one value (a speedup), which the curve runner measures in paired rounds too.
VALUE_CHECK = ShapeCheck(
    id="v",
    part="b",
    points=1,
    func="speedup",
    shape=lambda value: None if value >= 1.2 else "slower than 1.2x",
    reference=lambda: 1.5,
    kind="overhead",
    unit="x",
    rounds=3,
    requires=Requirements(),
)


def student(returned: Any) -> Callable[[float], messages.Returned]:
    """A student's function that returns ``returned`` (the fake judge reads the clock around it, as an honest
    call does)."""
    return lambda timeout_s: messages.Returned(returned)


def graded(check: MeasurementCheck | ShapeCheck, judge: FakeJudgeSide) -> Verdict | None:
    exercise = Exercise(id="fx", module="fx", title_zh="假", title_en="Fake", checks=(check,))
    p = prepare(check, exercise, "en")
    run = run_measurement if isinstance(check, MeasurementCheck) else run_shape
    try:
        run(judge, p, "fx.py")
    except Verdict as verdict:
        return verdict
    return None


@pytest.mark.parametrize(
    ("check", "returned"),
    [(CURVE_CHECK, CURVE), (VALUE_CHECK, 1.5), (TIME_CHECK, S)],
    ids=["curve", "value", "figure"],
)
def test_a_reference_out_of_gpu_memory_defers_every_paired_check(
    check: MeasurementCheck | ShapeCheck, returned: Any
) -> None:
    """The curve's reference call lacked the rule: a CUDA curve check whose perfcore side ran out of GPU memory
    was reported as a bug of the grader's, where a measurement's was deferred with the reason."""
    verdict = graded(
        check, FakeJudgeSide(student=student(returned), fails=ReferenceShortage(SHORTAGE), spans=QUIETLY)
    )
    assert verdict is not None and verdict.state == State.SKIPPED and verdict.deferred, verdict
    assert SHORTAGE in verdict.message and "GPU memory" in verdict.message
    # the student's first call was measured before perfcore's failed: the record the reports draw has it
    assert isinstance(verdict.measured, Measured) and len(verdict.measured.mine) == 1


@pytest.mark.parametrize(
    ("check", "returned"),
    [(CURVE_CHECK, CURVE), (VALUE_CHECK, 1.5), (TIME_CHECK, S)],
    ids=["curve", "value", "figure"],
)
def test_any_other_failure_of_the_reference_is_the_graders(
    check: MeasurementCheck | ShapeCheck, returned: Any
) -> None:
    with pytest.raises(GraderError, match="the reference .* failed: the reference process ended") as error:
        ended = RuntimeError("the reference process ended (exit status 1)")
        graded(check, FakeJudgeSide(student=student(returned), fails=ended, spans=QUIETLY))
    assert isinstance(error.value.measured, Measured)


def test_every_round_asks_the_judge_for_the_clock_readings_and_threads_it_needs() -> None:
    """What the rounds hand the judge beside the call reaches it (the fake records each call as made): a CPU
    check with a reference asks for the clock readings on every call, on one thread where it is
    single-threaded, and hands no buffers where the check has none."""
    judge = FakeJudgeSide(student=student(S), spans=QUIETLY)
    graded(TIME_CHECK, judge)
    assert judge.calls, "the rounds made no call"
    assert all(call.readings and call.buffers is None for call in judge.calls), judge.calls
    assert {call.threads for call in judge.calls} == {1 if TIME_CHECK.single_thread else None}


def test_the_other_librarys_shortage_defers_too() -> None:
    """The other honest library (``also``) is perfcore's side as well: its shortage is the GPU's, not a bug."""
    check = MeasurementCheck(**{**TIME_CHECK.__dict__, "kind": "dram", "also": lambda: S})

    class OtherLibraryShort(FakeJudgeSide):
        def measure_reference(
            self, p: Prepared, kwargs: Mapping[str, Any], also: bool = False, on_cpu: bool = False
        ) -> float:
            if also:
                raise ReferenceShortage(SHORTAGE)
            return super().measure_reference(p, kwargs, also)

    # outside the band: the other library is measured
    verdict = graded(check, OtherLibraryShort(student=student(0.5 * S), reference=S, spans=QUIETLY))
    assert verdict is not None and verdict.state == State.SKIPPED and verdict.deferred, verdict
    assert SHORTAGE in verdict.message


@pytest.mark.parametrize(
    ("check", "returned"),
    [(CURVE_CHECK, CURVE), (VALUE_CHECK, 1.5), (TIME_CHECK, S)],
    ids=["curve", "value", "figure"],
)
def test_the_record_carries_the_typed_load_of_its_rounds(
    check: MeasurementCheck | ShapeCheck, returned: Any
) -> None:
    """The record's load is the typed :class:`Load` of the rounds taken, every one quiet here."""
    judge = FakeJudgeSide(student=student(returned), reference=S, curve=returned, spans=QUIETLY)
    exercise = Exercise(id="fx", module="fx", title_zh="假", title_en="Fake", checks=(check,))
    run = run_measurement if isinstance(check, MeasurementCheck) else run_shape
    record = run(judge, prepare(check, exercise, "en"), "fx.py")
    assert record is not None and type(record.load) is Load
    taken = len(record.mine)
    assert taken >= check.rounds
    assert record.load == Load(rounds=taken, clean=taken, quiet=taken, others_share=0.0, elsewhere=0.0)
