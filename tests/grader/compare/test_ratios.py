"""grader.compare.ratios: the interval of paired ratios, the three outcomes, and numbers that never contradict a band."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader.compare import ratios

positive_ratios = st.lists(st.floats(0.01, 100, allow_nan=False), min_size=1, max_size=40)


@given(positive_ratios)
def test_the_interval_holds_the_median_and_lies_within_the_values(values: list[float]) -> None:
    interval = ratios.median_interval(values)
    assert min(values) <= interval.low <= interval.median <= interval.high <= max(values)
    assert interval.rounds == len(values)
    if len(values) >= 5:  # enough rounds for the asked confidence
        assert interval.confidence >= ratios.CONFIDENCE


def test_order_statistics_by_hand() -> None:
    five = ratios.median_interval([5, 1, 4, 2, 3])
    assert (five.low, five.high, five.median) == (1, 5, 3) and five.confidence == pytest.approx(1 - 2 / 32)
    eight = ratios.median_interval([8, 1, 7, 2, 6, 3, 5, 4])  # one value off each end: 93% at n = 8
    assert (eight.low, eight.high) == (2, 7) and eight.confidence == pytest.approx(1 - 2 * 9 / 256)
    three = ratios.median_interval([1, 2, 3])  # too few rounds: the whole range, at the 75% it has
    assert (three.low, three.high) == (1, 3) and three.confidence == pytest.approx(0.75)


def test_more_rounds_narrow_the_interval() -> None:
    rng = random.Random(7)
    draws = [rng.lognormvariate(0, 0.2) for _ in range(41)]
    widths = [ratios.median_interval(draws[:n]) for n in (5, 11, 21, 41)]
    assert [w.high - w.low for w in widths] == sorted((w.high - w.low for w in widths), reverse=True)


def test_the_interval_covers_the_true_ratio_as_often_as_it_claims() -> None:
    """Simulated paired rounds: lognormal noise on both sides around a true ratio of 1.1."""
    rng = random.Random(11)
    covered = trials = 0
    for _ in range(2000):
        mine = [1.1 * rng.lognormvariate(0, 0.15) for _ in range(9)]
        ref = [rng.lognormvariate(0, 0.15) for _ in range(9)]
        interval = ratios.median_interval(ratios.paired_ratios(mine, ref))
        covered += interval.low <= 1.1 <= interval.high
        trials += 1
    assert covered / trials >= ratios.CONFIDENCE - 0.02


def test_three_outcomes() -> None:
    band = (0.8, 1.25)
    assert ratios.place(ratios.median_interval([0.9, 1.0, 1.1, 1.2, 1.0]), band) == ratios.INSIDE
    assert ratios.place(ratios.median_interval([0.5, 0.45, 0.55, 0.5, 0.6]), band) == ratios.OUTSIDE
    assert ratios.place(ratios.median_interval([0.7, 0.9, 1.0, 1.1, 0.75]), band) == ratios.STRADDLES
    assert ratios.place(ratios.median_interval([1.25, 1.25, 1.25]), band) == ratios.INSIDE  # edges count in


def test_paired_ratios_need_as_many_rounds_on_each_side() -> None:
    assert ratios.paired_ratios([2.0, 3.0], [1.0, 2.0]) == [2.0, 1.5]
    with pytest.raises(ValueError, match="rounds differ"):
        ratios.paired_ratios([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="at least one"):
        ratios.median_interval([])
    with pytest.raises(ValueError, match="confidence"):
        ratios.median_interval([1.0], confidence=1.0)


@given(st.floats(0.01, 100), st.floats(0.01, 100), st.floats(0.01, 100))
def test_a_printed_ratio_is_on_the_same_side_of_every_edge(value: float, a: float, b: float) -> None:
    edges = (min(a, b), max(a, b))
    shown = float(ratios.ratio_text(value, edges))
    for edge in edges:
        assert (shown > edge) == (value > edge) and (shown < edge) == (value < edge)


def test_a_ratio_just_past_an_edge_is_printed_past_it() -> None:
    assert ratios.ratio_text(1.2503, (0.8, 1.25)) == "1.2503"
    assert ratios.ratio_text(1.25, (0.8, 1.25)) == "1.25"
    assert ratios.ratio_text(0.6, (0.8, 1.25)) == "0.6"
    interval = ratios.median_interval([1.2503, 1.3, 1.4])
    assert ratios.interval_text(interval, (0.8, 1.25)) == "[1.2503, 1.4]"
