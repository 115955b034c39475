"""Paired-round statistics: is a measured ratio inside its band, outside it, or not yet known?

A measurement check runs the student's function and perfcore's reference alternately, A B A B. Round ``i``
gives a pair ``(s_i, r_i)`` and its ratio ``q_i = s_i / r_i``; pairing cancels the drift of the machine that
both sides of a round saw. The ratio's median has a confidence interval that needs no assumption about the
noise's distribution (order statistics: the number of ``q_i`` below the true median is binomial(n, 1/2)):
with ``n`` rounds it is ``[q_(k), q_(n+1-k)]`` for the largest ``k`` whose two tails together stay within
``1 - confidence``; with few rounds it is the whole range, at the confidence that range has.

Three outcomes follow (:func:`place`): the interval lies inside the band, wholly outside it, or straddles
an edge, when more rounds (the judge's job) narrow it, and failing that the check is deferred with the
reason. :func:`ratio_text` prints a ratio with enough digits that it never reads as being on the wrong side
of a band edge printed beside it (1.2503 is "1.2503", not "1.25", next to a band ending at 1.25).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from perfcore.measure.timing import Timing

#: The confidence of the ratio's interval (two-sided).
CONFIDENCE = 0.9

INSIDE, OUTSIDE, STRADDLES = "inside", "outside", "straddles"


@dataclass(frozen=True)
class Interval:
    """A confidence interval for the median of paired ratios, with the confidence it actually has."""

    low: float
    high: float
    median: float
    rounds: int
    confidence: float


def _binomial_tail(n: int, k: int) -> float:
    """P(X < k) for X ~ binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k)) / 2**n


def median_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> Interval:
    """The order-statistics interval for the median of ``values`` (see the module docstring)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    xs = sorted(float(v) for v in values)
    n = len(xs)
    if n == 0:
        raise ValueError("values must hold at least one number")
    if any(math.isnan(x) for x in xs):
        raise ValueError(f"values must be numbers, got NaN among {xs}")
    k = 1  # the whole range, whatever its confidence
    while k + 1 <= n + 1 - (k + 1) and 2 * _binomial_tail(n, k + 1) <= 1 - confidence:
        k += 1
    attained = 1 - 2 * _binomial_tail(n, k)
    return Interval(xs[k - 1], xs[n - k], statistics.median(xs), n, attained)


def paired_ratios(mine: Sequence[float], reference: Sequence[float]) -> list[float]:
    """``mine[i] / reference[i]`` for each round (the student's figure over perfcore's)."""
    if len(mine) != len(reference):
        raise ValueError(f"rounds differ: {len(mine)} figures against {len(reference)} references")
    return [m / r if r > 0 else math.inf for m, r in zip(mine, reference, strict=True)]


def place(interval: Interval, band: tuple[float, float]) -> str:
    """INSIDE when the whole interval lies in ``band`` (edges included), OUTSIDE when none of it does,
    else STRADDLES."""
    low, high = band
    if low <= interval.low and interval.high <= high:
        return INSIDE
    if interval.high < low or interval.low > high:
        return OUTSIDE
    return STRADDLES


def widened(band: tuple[float, float], others: list[float], ref: list[float]) -> tuple[float, float]:
    """``band`` widened to hold the other honest library too: by the ratio of its median figure to
    perfcore's main one, measured beside it (numpy's k passes at 0.6x torch's time: the low edge times
    0.6); ``band`` itself where there is no other library's figure. The other library is measured only
    where the student's ratio is not inside the band as it is: an honest student of the main library
    costs nothing more."""
    if not others or not ref or statistics.median(ref) <= 0:
        return band
    q = statistics.median(others) / statistics.median(ref)
    low, high = band
    return (low * min(1.0, q), high * max(1.0, q))


def spread(values: Sequence[float]) -> float:
    """IQR / median of ``values``: how much a side's own figures vary from round to round."""
    return Timing.from_samples(list(values), 1).noise


def ratio_text(value: float, edges: Sequence[float] = ()) -> str:
    """``value`` with three significant digits, or more where fewer would print it equal to an edge it is
    not equal to (or on the other side of one)."""
    if not math.isfinite(value):
        return str(value)
    for digits in range(3, 12):
        text = f"{value:.{digits}g}"
        shown = float(text)
        if all((shown > e) == (value > e) and (shown < e) == (value < e) for e in edges):
            return text
    return repr(value)


def interval_text(interval: Interval, band: tuple[float, float]) -> str:
    """``[low, high]`` printed as :func:`ratio_text` prints each end next to ``band``."""
    return f"[{ratio_text(interval.low, band)}, {ratio_text(interval.high, band)}]"


__all__ = [
    "CONFIDENCE",
    "INSIDE",
    "OUTSIDE",
    "STRADDLES",
    "Interval",
    "interval_text",
    "median_interval",
    "paired_ratios",
    "place",
    "ratio_text",
    "spread",
]
