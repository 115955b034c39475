"""A check's tolerances, validated where a spec is written: None or a finite number >= 0.

The comparison (:mod:`grader.compare.values`) applies them; a spec checks them here, below it, so that the
specs need nothing of the comparison.
"""

from __future__ import annotations

import math
import numbers
from typing import Any


def check_tolerance(name: str, value: Any) -> float | None:
    """A tolerance field of a spec: None or a finite number >= 0; raise naming ``name`` otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number or None, got {value!r}")
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return value
