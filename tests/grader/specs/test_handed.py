"""grader.specs.handed: what a measurement hands the student's function (its buffers) and the test of its
result; a malformed buffer or result test fails when the check is written, naming the field."""

from __future__ import annotations

import random

import numpy as np
import pytest

from grader.checks import m1, m3
from grader.registry import load_exercises
from grader.specs.check import MeasurementCheck, ShapeCheck
from grader.specs.handed import FILLS, Buffer, Handed


def _result(got, **_):  # noqa: ANN001, ANN003, ANN202
    return True


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"shape": [4]}, "Buffer.shape"),  # a list, not a tuple
        ({"shape": (4, -1)}, "Buffer.shape"),
        ({"shape": (4.0,)}, "Buffer.shape"),
        ({"shape": (4,), "library": "jax"}, "Buffer.library"),
        ({"shape": (4,), "fill": "zeros"}, "Buffer.fill"),
        ({"shape": (4,), "zeroed": True}, "Buffer.zeroed"),  # an input is drawn, never handed at zero
    ],
)
def test_a_malformed_buffer_is_refused_naming_the_field(kw: dict, field: str) -> None:
    with pytest.raises(ValueError, match=field.replace(".", r"\.")):
        Buffer(**kw)


def test_a_buffer_is_an_input_drawn_normal_unless_said_otherwise() -> None:
    one = Buffer((2, 3))
    assert (one.library, one.dtype, one.output, one.fill) == ("torch", "float32", False, "normal")
    assert set(FILLS) == {"normal", "uniform", "powers"}
    assert not one.zeroed and Buffer((2,), output=True, zeroed=True).zeroed
    assert Buffer((0,), library="numpy").shown == "numpy.float32[0] (0 B)"  # an empty buffer, shown as such


@pytest.mark.parametrize(
    ("kw", "error", "field"),
    [
        ({"arguments": None}, TypeError, "Handed.arguments"),
        ({"result": "dst == src"}, TypeError, "Handed.result"),
        ({"result_zh": ""}, ValueError, "Handed.result_zh"),
        ({"result_en": None}, ValueError, "Handed.result_en"),
        ({"watched": "out"}, TypeError, "Handed.watched"),  # watched with neither at nor counted
        ({"watched": "out", "at": _result, "counted": _result}, TypeError, "Handed.watched"),  # with both
        ({"counted": _result}, TypeError, "Handed.watched"),  # counted without watched
    ],
)
def test_a_malformed_handed_is_refused_naming_the_field(kw: dict, error: type, field: str) -> None:
    given = {"arguments": lambda: {}, "result": _result, "result_zh": "结果", "result_en": "result", **kw}
    with pytest.raises(error, match=field.replace(".", r"\.")):
        Handed(**given)


def test_the_result_is_told_in_the_student_s_language() -> None:
    handed = Handed(
        arguments=lambda: {}, result=_result, result_zh="dst 等于 src", result_en="dst equal to src"
    )
    assert handed.said("zh") == "dst 等于 src"
    assert handed.said("en") == "dst equal to src"


@pytest.mark.parametrize(
    ("exercise", "func"), [(m1.EXERCISE, "copy_bandwidth"), (m3.EXERCISE, "transpose_time")]
)
def test_the_kit_s_handed_checks_give_buffers_and_plain_values_only(exercise, func: str) -> None:  # noqa: ANN001
    """Each argument a shipped check hands is a Buffer the judge makes or a plain value passed as is, and
    every handed check has an output for its result to be read from."""
    checks = [c for c in exercise.checks if isinstance(c, MeasurementCheck) and c.func == func]
    assert checks and all(c.handed is not None for c in checks)
    for check in checks:
        assert check.handed is not None
        given = check.inputs(0.5, np.random.default_rng(0)) if check.inputs is not None else check.kwargs
        arguments = check.handed.arguments(**given)
        buffers = [value for value in arguments.values() if isinstance(value, Buffer)]
        assert buffers and any(one.output for one in buffers), arguments
        plain = [value for value in arguments.values() if not isinstance(value, Buffer)]
        assert all(isinstance(value, (bool, int, float, str, np.generic)) for value in plain), plain


def test_segments_need_a_watched_output() -> None:
    with pytest.raises(TypeError, match=r"Handed\.segments"):
        Handed(
            arguments=lambda: {}, result=_result, result_zh="结果", result_en="result", segments=lambda: []
        )


@pytest.mark.parametrize(
    ("exercise", "func", "axis"), [("m2", "roofline_sweep", "ms"), ("m5", "overhead_curve", "sizes")]
)
def test_a_curves_segments_are_one_per_point_and_tile_its_output(exercise: str, func: str, axis: str) -> None:
    """m2b's and m5b's handed output is cut into one piece per point, in order, back to back, each the size of
    that point's work: what the student's ``split`` gives and what the witness watches apart."""
    check = next(c for c in load_exercises()[exercise].checks if c.func == func)
    assert isinstance(check, ShapeCheck) and check.handed is not None and check.handed.segments is not None
    given = check.inputs(0.5, random.Random(0)) if check.inputs is not None else check.kwargs
    arguments = check.handed.arguments(**given)
    output = arguments[check.handed.watched]
    assert isinstance(output, Buffer) and output.output
    segments = list(check.handed.segments(**given))
    assert len(segments) == len(given[axis])
    assert segments[0][0] == 0 and segments[-1][1] == int(np.prod(output.shape))
    assert all(a[1] == b[0] for a, b in zip(segments, segments[1:], strict=False))
    per_row = int(np.prod(output.shape[1:]))
    assert [(hi - lo) // per_row for lo, hi in segments] == list(given[axis])
    assert arguments[axis] == tuple(given[axis])  # the sizes go with the buffers, as the student splits them
