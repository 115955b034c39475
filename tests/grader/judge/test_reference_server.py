"""grader.judge.reference_server: what the trusted process measures for one request, the check's reference or,
asked ``also``, its other honest library's (a measurement's figure, a curve check's curve); a check that
names no other library says so."""

from __future__ import annotations

import pytest

from grader.judge.reference_server import _measure
from grader.specs.check import MeasurementCheck, ShapeCheck
from grader.specs.requirements import Requirements

COMMON = {"part": "a", "points": 1, "requires": Requirements()}


def test_also_measures_the_other_library_of_a_figure_or_a_curve() -> None:
    figure = MeasurementCheck(
        id="m",
        func="f",
        kind="dram",
        reference=lambda size: 2.0 * size,
        also=lambda size: 3.0 * size,
        **COMMON,
    )
    assert _measure(figure, {"size": 2}) == 4.0 and _measure(figure, {"size": 2}, also=True) == 6.0
    curve = ShapeCheck(
        id="c",
        func="g",
        shape="roofline",
        reference=lambda: [(1, 2.0), (2, 4.0)],
        also=lambda: [(1, 1.0), (2, 3.0)],
        **COMMON,
    )
    assert _measure(curve, None) == [[1.0, 2.0], [2.0, 4.0]]
    assert _measure(curve, None, also=True) == [[1.0, 1.0], [2.0, 3.0]]
    alone = ShapeCheck(id="d", func="h", shape="roofline", reference=lambda: [(1, 2.0)], **COMMON)
    with pytest.raises(TypeError, match="d has no other library"):
        _measure(alone, None, also=True)
