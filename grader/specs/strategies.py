"""Hypothesis strategies shared by the check modules (as minitorch keeps its strategies in one place).

A PropertyCheck's ``strategy`` draws a dict of keyword arguments: ``call_kwargs(x=..., y=...)``.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


def positive_floats(low: float, high: float) -> st.SearchStrategy[float]:
    """Finite floats in [low, high], 0 < low < high."""
    if not (0 < low < high):
        raise ValueError(f"positive_floats needs 0 < low < high, got low={low!r}, high={high!r}")
    return st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False)


def positive_ints(low: int, high: int) -> st.SearchStrategy[int]:
    """Integers in [low, high], 1 <= low <= high."""
    if not (1 <= low <= high):
        raise ValueError(f"positive_ints needs 1 <= low <= high, got low={low!r}, high={high!r}")
    return st.integers(min_value=low, max_value=high)


def call_kwargs(**strategies: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A strategy of kwargs dicts, one strategy per argument name."""
    return st.fixed_dictionaries(strategies)


#: Sizes of tensors and matrices, in elements.
sizes = positive_ints(1, 1 << 16)
#: Bytes per number: INT4 ... FP64.
bytes_per = st.sampled_from([0.5, 1, 2, 4, 8])
#: Peak FLOP/s, from a laptop core to a B200.
peak_flops = positive_floats(1e9, 1e16)
#: Bandwidth in bytes/s.
bandwidth = positive_floats(1e9, 1e13)
#: FLOP and byte counts of one op.
flops = positive_floats(1.0, 1e18)
n_bytes = positive_floats(1.0, 1e15)
