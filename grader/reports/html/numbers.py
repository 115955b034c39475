"""The report's one number format: three significant digits, a space, an SI prefix and the unit.

Every figure the HTML report writes, on a plot (labels, ticks, alt texts) or on the page (the measured
medians), goes through :func:`format_number`, so a student never reads ``1.59e+03`` beside ``24.1 GB/s``:
``24.1 GB/s``, ``1.59 TB/s``, ``100 µs``, ``3.46 FLOP/B``. A bare number (a tick of a unitless axis, an
intensity, a speedup) between 0.001 and 1000 keeps its decimals (``0.25``), where ``250 m`` would read as a
length. Byte sizes of memory (caches, working sets) take binary prefixes, as the machine reports them
(:func:`format_bytes`: ``32 MiB``), with the same digits.
"""

from __future__ import annotations

import math

#: SI prefixes above and below one, a factor of 1000 apart.
_UP = ("", "k", "M", "G", "T", "P", "E")
_DOWN = ("", "m", "µ", "n", "p", "f")
_BINARY = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")
DIGITS = 3


def _rounded(value: float) -> float:
    # rounded to the digits first: 999.7 is written "1 k", never "1e+03"
    return float(f"{value:.{DIGITS}g}")


def _digits(value: float) -> str:
    # whole digits from 1000 on (1020 KiB, or past the largest prefix), never an exponent
    return f"{value:.{DIGITS}g}" if abs(value) < 1000 else f"{value:.0f}"


def format_number(value: float | None, unit: str = "") -> str:
    """``value`` in the report's one format: ``24.1 GB/s``; ``-`` for None (a figure not measured).

    ``unit`` is glued to the prefix (``GB/s``); without one, a number from 0.001 to 1000 has no prefix.
    """
    if value is None:
        return "-"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"format_number: value must be a number or None, not {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number) or number == 0:
        text = {math.inf: "∞", -math.inf: "-∞"}.get(number, "0" if number == 0 else "nan")
        return f"{text} {unit}".rstrip()
    number = _rounded(number)
    step = 0
    if abs(number) >= 1000:
        while abs(number) >= 1000 and step < len(_UP) - 1:
            number, step = _rounded(number / 1000), step + 1
        prefix = _UP[step]
    else:
        smallest = 1.0 if unit else 1e-3
        while abs(number) < smallest and step < len(_DOWN) - 1:
            number, step = _rounded(number * 1000), step + 1
            smallest = 1.0
        prefix = _DOWN[step]
    return f"{_digits(number)} {prefix}{unit}".rstrip()


def format_bytes(size: float) -> str:
    """A size of memory with binary prefixes and the same digits: ``32 MiB``, ``1.5 KiB``, ``512 B``."""
    if isinstance(size, bool) or not isinstance(size, (int, float)) or not math.isfinite(size) or size < 0:
        raise ValueError(f"format_bytes: size must be a finite number of bytes >= 0, not {size!r}")
    number, step = float(size), 0
    while number >= 1024 and step < len(_BINARY) - 1:  # by the exact size: 1024 KiB is 1 MiB
        number, step = number / 1024, step + 1
    return f"{_digits(number)} {_BINARY[step]}"


__all__ = ["format_bytes", "format_number"]
