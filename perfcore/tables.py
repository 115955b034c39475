"""Plain-text tables for the tour and the measurement reports, aligned for CJK text too.

Chinese characters take two terminal columns; ``display_width`` counts them so that bilingual headings
line up.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any


def display_width(text: str) -> int:
    """Terminal columns of ``text``: wide (CJK) characters count two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int, align: str) -> str:
    gap = max(0, width - display_width(text))
    return text + " " * gap if align == "<" else " " * gap + text


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], aligns: str | None = None) -> str:
    """Rows under headers, columns padded to fit; ``aligns`` holds '<' or '>' per column (default: the
    first column left, the others right)."""
    cells = [[str(c) for c in row] for row in rows]
    ncols = len(headers)
    if any(len(row) != ncols for row in cells):
        raise ValueError(f"every row must have {ncols} cells, as the headers do")
    aligns = aligns or "<" + ">" * (ncols - 1)
    widths = [
        max(display_width(str(h)), *(display_width(r[i]) for r in cells)) for i, h in enumerate(headers)
    ]
    lines = ["  ".join(_pad(str(h), w, a) for h, w, a in zip(headers, widths, aligns, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += [
        "  ".join(_pad(c, w, a) for c, w, a in zip(row, widths, aligns, strict=True)).rstrip()
        for row in cells
    ]
    return "\n".join("  " + line for line in lines)


def heading(title: str) -> str:
    """A section heading as the lecture's scripts print them."""
    bar = "=" * 78
    return f"\n{bar}\n  {title}\n{bar}"


def si(value: float, unit: str, digits: int = 3) -> str:
    """``value`` with an SI prefix: si(3.35e12, 'B/s') -> '3.35 TB/s'."""
    for factor, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1, "")):
        if abs(value) >= factor:
            return f"{value / factor:.{digits}g} {prefix}{unit}"
    for factor, prefix in ((1e-3, "m"), (1e-6, "µ"), (1e-9, "n")):
        if abs(value) >= factor:
            return f"{value / factor:.{digits}g} {prefix}{unit}"
    return f"{value:.{digits}g} {unit}"
