"""Shape validators for curves that students measure: is it a roofline, is it an overhead curve?

A measured curve cannot be compared point by point with a reference (each machine differs), but its shape
can: ``shape_problem(name, value)`` returns None when the curve has the shape, else a
:class:`~grader.text.catalogue.Text` saying what is wrong. A curve is a sequence of ``(x, y)`` pairs or a pair
of equal-length sequences ``(xs, ys)``; points are sorted by x.

- ``roofline`` (attained FLOP/s against intensity): rising at low x (y at the smallest x is below
  ``RISE_FRACTION`` of the maximum) and flat at high x (the last ``FLAT_POINTS`` points within
  ``1 - FLAT_FRACTION`` = 25% of the maximum).
- ``overhead`` (time against size): about flat at small x (the first two points differ by less than
  ``FLAT_RATIO``), then growing about linearly (the ratio of the last two y values is within ``LINEAR_FACTOR``
  of the ratio of their x values) and clearly growing overall (the last y at least ``GROWTH`` times the
  first).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..text.catalogue import Text
from ..text.show import kind_of, show

MIN_POINTS = 4
RISE_FRACTION = 0.5
FLAT_FRACTION = 0.75
FLAT_POINTS = 2
FLAT_RATIO = 2.0
LINEAR_FACTOR = 2.0
GROWTH = 2.0


class MalformedCurve(ValueError):
    def __init__(self, text: Text) -> None:
        super().__init__(text.key)
        self.text = text


def as_curve(value: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(xs, ys)`` as float arrays sorted by x; raise :class:`MalformedCurve` when ``value`` is no curve."""
    malformed = MalformedCurve(Text("curve_malformed", {"kind": kind_of(value), "got": show(value)}))
    if isinstance(value, (str, bytes, dict)) or value is None:
        raise malformed
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise malformed from None
    if arr.ndim != 2:
        raise malformed
    if arr.shape[1] == 2 and arr.shape[0] != 2:
        xs, ys = arr[:, 0], arr[:, 1]
    elif arr.shape[0] == 2:
        xs, ys = arr[0], arr[1]
    else:
        raise malformed
    order = np.argsort(xs, kind="stable")
    return xs[order], ys[order]


def _checked(value: Any) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = as_curve(value)
    if len(xs) < MIN_POINTS:
        raise MalformedCurve(Text("curve_too_few", {"need": MIN_POINTS, "got": len(xs)}))
    if not (np.all(np.isfinite(xs)) and np.all(np.isfinite(ys)) and np.all(ys > 0)):
        raise MalformedCurve(Text("curve_not_finite", {"got": show(ys.tolist())}))
    return xs, ys


def roofline_problem(value: Any) -> Text | None:
    """None when ``value`` rises at low intensity and is flat at high intensity; else what is wrong."""
    try:
        xs, ys = _checked(value)
    except MalformedCurve as exc:
        return exc.text
    ymax = float(ys.max())
    if ys[0] >= RISE_FRACTION * ymax:
        return Text(
            "roofline_not_rising",
            {"x": show(float(xs[0])), "y": show(float(ys[0])), "ymax": show(ymax), "fraction": RISE_FRACTION},
        )
    for x, y in zip(xs[-FLAT_POINTS:], ys[-FLAT_POINTS:], strict=True):
        if y < FLAT_FRACTION * ymax:
            return Text(
                "roofline_not_flat",
                {"x": show(float(x)), "y": show(float(y)), "ymax": show(ymax), "fraction": FLAT_FRACTION},
            )
    return None


def overhead_problem(value: Any) -> Text | None:
    """None when ``value`` is flat at small sizes and about linear at large ones; else what is wrong."""
    try:
        xs, ys = _checked(value)
    except MalformedCurve as exc:
        return exc.text
    first_ratio = float(max(ys[1] / ys[0], ys[0] / ys[1]))
    if first_ratio >= FLAT_RATIO:
        return Text("overhead_not_flat", {"ratio": f"{first_ratio:.3g}", "limit": FLAT_RATIO})
    if ys[-1] < GROWTH * ys[0]:
        return Text(
            "overhead_not_growing",
            {"last": show(float(ys[-1])), "first": show(float(ys[0])), "factor": GROWTH},
        )
    y_ratio = float(ys[-1] / ys[-2])
    x_ratio = float(xs[-1] / xs[-2]) if xs[-2] > 0 else math.inf
    if not (x_ratio / LINEAR_FACTOR <= y_ratio <= x_ratio * LINEAR_FACTOR):
        return Text(
            "overhead_not_linear",
            {"y_ratio": f"{y_ratio:.3g}", "x_ratio": f"{x_ratio:.3g}", "factor": LINEAR_FACTOR},
        )
    return None


SHAPE_VALIDATORS: dict[str, Callable[[Any], Text | None]] = {
    "roofline": roofline_problem,
    "overhead": overhead_problem,
}


def shape_problem(shape: str | Callable[[Any], str | None], value: Any) -> Text | None:
    """Apply the named validator, or a custom one (whose string reason is wrapped for display)."""
    if isinstance(shape, str):
        return SHAPE_VALIDATORS[shape](value)
    reason = shape(value)
    if reason is None:
        return None
    return Text("shape_custom", {"reason": str(reason)})
