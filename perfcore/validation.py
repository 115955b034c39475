"""Argument checks shared by perfcore's formulas.

Every public function validates its inputs here, so that bad input fails early with a message that names
the argument, the value and what is allowed, instead of a NaN or a traceback from deep inside numpy.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def positive_int(name: str, value: Any, *, allow_zero: bool = False) -> int:
    """Return ``value`` as an int, or raise naming ``name`` when it is not a positive integer."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer, got {_describe(value)} ({type(value).__name__})")
    value = int(value)
    lowest = 0 if allow_zero else 1
    if value < lowest:
        allowed = "a non-negative integer" if allow_zero else "a positive integer"
        raise ValueError(f"{name} must be {allowed}, got {value}")
    return value


def positive_number(name: str, value: Any, *, allow_zero: bool = False) -> Any:
    """Return a positive finite number (float) or array of them (float ndarray); raise naming ``name``.

    Arrays are accepted so that a whole sweep is one call; every element must satisfy the bound.
    """
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a number, got {value!r} (bool)")
    if isinstance(value, numbers.Real):
        arr = np.asarray(float(value))
        scalar = True
    else:
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(
                f"{name} must be a number or an array of numbers, got {_describe(value)} "
                f"({type(value).__name__})"
            ) from None
        scalar = arr.ndim == 0
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {_describe(value)}")
    bad = arr < 0 if allow_zero else arr <= 0
    if np.any(bad):
        allowed = "non-negative" if allow_zero else "positive"
        raise ValueError(f"{name} must be {allowed}, got {_describe(value)}")
    return float(arr) if scalar else arr


def fraction(name: str, value: Any) -> float:
    """Return a number in (0, 1]; raise naming ``name`` otherwise."""
    value = positive_number(name, value)
    if np.any(np.asarray(value) > 1):
        raise ValueError(f"{name} must lie in (0, 1], got {_describe(value)}")
    return value


def choice(name: str, value: Any, allowed: Any) -> Any:
    """Return ``value`` when it is one of ``allowed``; raise naming ``name`` and listing them otherwise."""
    options = list(allowed)
    if value not in options:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}; got {_describe(value)}")
    return value
