"""grader.judge.verdicts: a handed call shown as the function is called; evidence(): which way a ratio beyond the band reads comes from the check's unit, for a
measurement and a curve alike (issue 37 point 6: m2b's curve of FLOP/s at 0.221x perfcore's was told "yours
reads faster", read as seconds)."""

from __future__ import annotations

import dataclasses

import pytest

from grader.checks import m1, m2, m4, m5
from grader.judge.verdicts import evidence, inputs_text
from grader.specs.check import MeasurementCheck, ShapeCheck, higher_is_better
from grader.specs.handed import Buffer
from grader.specs.requirements import Requirements
from grader.text.catalogue import LANGS, render


def check_of(exercise, check_id: str):  # noqa: ANN001, ANN201 - an exercise's check of a kind the caller knows
    return next(c for c in exercise.checks if c.id == check_id)


@pytest.mark.parametrize(
    ("unit", "higher"), [("B/s", True), ("FLOP/s", True), ("GB/s", True), ("s", False), ("x", False)]
)
def test_a_rate_reads_faster_higher_and_seconds_lower(unit: str, higher: bool) -> None:
    assert higher_is_better(unit) is higher


@pytest.mark.parametrize("lang", LANGS)
def test_the_roofline_sweep_below_perfcores_reads_slower(lang: str) -> None:
    sweep = check_of(m2.EXERCISE, "roofline_sweep")
    assert isinstance(sweep, ShapeCheck) and sweep.unit == "FLOP/s"
    assert evidence(sweep, 0.221, lang) == render("evidence_slower", lang)
    assert evidence(sweep, 4.0, lang) == render("evidence_faster", lang)


@pytest.mark.parametrize("lang", LANGS)
def test_a_curve_of_seconds_below_perfcores_reads_faster(lang: str) -> None:
    curve = check_of(m5.EXERCISE, "overhead_curve")
    assert isinstance(curve, ShapeCheck) and curve.unit == "s"
    assert evidence(curve, 0.3, lang) == render("evidence_faster", lang)
    assert evidence(curve, 3.0, lang) == render("evidence_slower", lang)


@pytest.mark.parametrize("lang", LANGS)
def test_a_measurement_reads_its_own_direction(lang: str) -> None:
    flops = check_of(m2.EXERCISE, "matmul_flops")
    assert evidence(flops, 0.5, lang) == render("evidence_slower", lang)
    seconds = next(c for c in m5.EXERCISE.checks if isinstance(c, MeasurementCheck) and c.unit == "s")
    assert evidence(seconds, 0.5, lang) == render("evidence_faster", lang)


def test_a_curve_needs_a_unit() -> None:
    common = dict(id="c", part="a", points=1, func="f", requires=Requirements())
    with pytest.raises(ValueError, match=r"ShapeCheck\.unit must be a non-empty str"):
        ShapeCheck(**common, shape="overhead", unit="")
    with pytest.raises(ValueError, match=r"ShapeCheck\.unit"):
        ShapeCheck(**common, shape="overhead", unit=None)  # type: ignore[arg-type]


def test_a_handed_call_is_shown_as_the_function_is_called() -> None:
    """Issue 37 point 6: messages showed m1's call as copy_bandwidth(n_bytes=2707456), an argument the
    function no longer takes; the call is shown with the buffers it is handed (the same in every language:
    library, dtype, shape, bytes), its plain arguments as they are."""
    copy = check_of(m1.EXERCISE, "copy_bandwidth")
    shown = inputs_text(copy, (), {"n_bytes": 2707456})
    assert shown == "(src=torch.float32[676864] (2707456 B), dst=torch.float32[676864] (2707456 B))"
    assert "n_bytes" not in shown
    passes = check_of(m4.EXERCISE, "k8_passes")
    assert inputs_text(passes, (), {"n_elements": 1024, "k": 8, "fused": False}) == (
        "(x=torch.float32[1024] (4096 B), y=torch.float32[1024] (4096 B), k=8, fused=False)"
    )
    assert Buffer((3, 4), library="numpy", dtype="float64").shown == "numpy.float64[3, 4] (96 B)"
    assert Buffer((2,), dtype="complex64").shown == "torch.complex64[2]"  # no size where none is known
    add = next(c for c in m5.EXERCISE.checks if isinstance(c, MeasurementCheck))
    assert inputs_text(add, (), {"n_elements": 16}) == (
        "(x=torch.float32[16] (64 B), out=torch.float32[16] (64 B))"
    )
    curve = check_of(m5.EXERCISE, "overhead_curve")  # a curve's pieces back to back, its sizes beside
    assert inputs_text(curve, (), {"sizes": (16, 32)}) == (
        "(x=torch.float32[48] (192 B), out=torch.float32[48] (192 B), sizes=(16, 32))"
    )
    unhanded = dataclasses.replace(add, handed=None)  # nothing handed: as given
    assert inputs_text(unhanded, (), {"n_elements": 16}) == "(n_elements=16)"
