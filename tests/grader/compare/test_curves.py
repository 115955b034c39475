"""grader.compare.curves: the roofline and overhead curve validators."""

from __future__ import annotations

import numpy as np
import pytest

from grader.compare.curves import as_curve, overhead_problem, roofline_problem, shape_problem


def roof(intensity: np.ndarray, peak: float = 60e9, bw: float = 11e9) -> np.ndarray:
    return np.minimum(peak, intensity * bw)


def test_curves_as_pairs_or_two_arrays_sorted_by_x() -> None:
    xs, ys = as_curve([(4, 40), (1, 10), (2, 20)])
    assert xs.tolist() == [1, 2, 4] and ys.tolist() == [10, 20, 40]
    xs, ys = as_curve(([4, 1, 2, 8], [40, 10, 20, 80]))
    assert xs.tolist() == [1, 2, 4, 8]


@pytest.mark.parametrize("value", ["curve", None, {"x": 1}, [1, 2, 3], [[1, 2, 3]] * 3])
def test_malformed_curves(value: object) -> None:
    assert roofline_problem(value).key == "curve_malformed"


def test_roofline_shape() -> None:
    x = np.array([0.25, 0.5, 1, 2, 4, 8, 16, 64, 256])
    assert roofline_problem((x, roof(x))) is None
    assert roofline_problem((x, roof(x) * (1 + 0.1 * np.sin(x)))) is None  # measured: a little noise
    assert roofline_problem((x, np.full_like(x, 5.0))).key == "roofline_not_rising"
    falling = roof(x)
    falling[-1] = falling[-1] * 0.3
    assert roofline_problem((x, falling)).key == "roofline_not_flat"
    assert roofline_problem((x[:3], roof(x[:3]))).key == "curve_too_few"
    assert roofline_problem((x, -roof(x))).key == "curve_not_finite"


def test_overhead_shape() -> None:
    size = np.array([1, 4, 16, 64, 256, 1024, 4096, 16384], dtype=float)
    time = 5e-6 + size * 1e-8  # launch overhead, then linear work
    assert overhead_problem((size, time)) is None
    assert overhead_problem((size, size * 1e-8)).key == "overhead_not_flat"
    assert overhead_problem((size, np.full_like(size, 5e-6))).key == "overhead_not_growing"
    quadratic = 5e-6 + size**2 * 1e-10
    assert overhead_problem((size, quadratic)).key == "overhead_not_linear"


def test_custom_validator() -> None:
    assert shape_problem(lambda v: None, [1]) is None
    text = shape_problem(lambda v: "must be increasing", [1])
    assert text.key == "shape_custom" and "must be increasing" in text.render("en")
