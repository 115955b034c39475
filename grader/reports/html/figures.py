"""Reading what a measuring check's rounds gave, for the plots and the page.

The student's values may be anything: every reader skips what is not a positive finite number, so a wrong
answer is drawn as far as it is drawable and never breaks the page. A curve keeps at most
:data:`MAX_POINTS` points.
"""

from __future__ import annotations

import datetime
import math
import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from ...results.outcome import Outcome


def number(value: Any) -> float | None:
    """``value`` as a positive finite float; None for anything else (a bool, a string, NaN, 0, -3)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value > 0 else None


def median_of(values: Any) -> float | None:
    """The median of the positive finite numbers in ``values``; None where there are none."""
    numbers = [n for n in (number(v) for v in values or ()) if n is not None]
    return statistics.median(numbers) if numbers else None


#: The most points of one curve a plot draws (and its alt text lists): a student's curve may hold up to the
#: wire's item limit, which would make the page tens of megabytes; evenly spaced points keep its shape.
MAX_POINTS = 200


def thinned(points: Sequence[tuple[float, float]], most: int = MAX_POINTS) -> list[tuple[float, float]]:
    """At most ``most`` of ``points``, evenly spaced, the first and the last among them."""
    if len(points) <= most:
        return list(points)
    step = (len(points) - 1) / (most - 1)
    return [points[round(i * step)] for i in range(most)]


def curve(value: Any) -> list[tuple[float, float]]:
    """A curve's drawable points, sorted by x, at most MAX_POINTS: pairs of positive finite numbers (a list
    of (x, y) pairs or the pair of lists ``[xs, ys]``)."""
    if not isinstance(value, list):
        return []
    pairs = value
    if len(value) == 2 and all(isinstance(v, list) for v in value) and len(value[0]) != 2:
        pairs = list(zip(value[0], value[1], strict=False))
    points = []
    for pair in pairs:
        if isinstance(pair, (list, tuple)) and len(pair) == 2:
            x, y = number(pair[0]), number(pair[1])
            if x is not None and y is not None:
                points.append((x, y))
    return thinned(sorted(points))


def median_curve(curves: Any) -> list[tuple[float, float]]:
    """Point by point, the median y of ``curves`` at each x they share (one noisy round is not the method)."""
    by_x: dict[float, list[float]] = {}
    for one in curves or ():
        for x, y in curve(one):
            by_x.setdefault(x, []).append(y)
    return thinned([(x, statistics.median(ys)) for x, ys in sorted(by_x.items())])


def measured(o: Outcome) -> dict[str, Any]:
    """The outcome's measured record (plain data), or an empty one."""
    return dict(o.measured) if isinstance(o.measured, dict) else {}


def has_measurements(outcomes: Iterable[Outcome]) -> bool:
    return any(o.measured for o in outcomes)


def measures(outcomes: Iterable[Outcome]) -> bool:
    """Whether some of ``outcomes`` is a measuring check's (measured or not: one not attempted has none)."""
    return any(o.measured or o.kind in ("measurement", "shape") for o in outcomes)


def measured_when(outcomes: Iterable[Outcome]) -> str | None:
    """When the last of ``outcomes``' measurements ended (the judge stamps each), in UTC; None if unknown."""
    stamps = [number(measured(o).get("at")) for o in outcomes]
    known = [s for s in stamps if s is not None]
    if not known:
        return None
    moment = datetime.datetime.fromtimestamp(max(known), tz=datetime.timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")
