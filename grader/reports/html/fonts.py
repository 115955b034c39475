"""Which font the plots can draw Chinese with, from matplotlib's own font list.

The SVG keeps its text as text, so the browser draws it with its own fonts; but matplotlib lays the plot
out (the tight bounding box, the legend's size) with the metrics of the font it has, and a label in a
font without the glyphs is laid out as boxes. So a Chinese page gets Chinese labels only where matplotlib
has a font that holds them; elsewhere the labels stay English and the page says why.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

#: Words in the names of the CJK families in common use (Noto and Source Han, WenQuanYi, AR PL, the
#: fonts of macOS and Windows); a candidate is taken only where its character map holds PROBE.
CJK_NAMES = (
    "cjk",
    "han sans",
    "han serif",
    "wenquanyi",
    "wqy",
    "ar pl",
    "droid sans fallback",
    "yahei",
    "simhei",
    "simsun",
    "pingfang",
    "hiragino",
    "heiti",
    "songti",
    "kaiti",
    "fangsong",
    "noto sans sc",
    "noto serif sc",
)
#: Characters every Chinese label uses ("measured", "yours").
PROBE = "测量你的"


@functools.cache
def cjk_font() -> str | None:
    """The name of a font matplotlib has that draws Chinese, or None (none, or no matplotlib)."""
    try:
        from matplotlib import font_manager  # deferred on purpose: the optional plot extra
    except ImportError:
        return None
    return cjk_font_in(font_manager.fontManager.ttflist)


def cjk_font_in(entries: Iterable[Any]) -> str | None:
    """The name of the first of ``entries`` (matplotlib's ``FontEntry``: ``name``, ``fname``), by name, whose
    name says CJK and whose file's character map holds :data:`PROBE`; None where none does."""
    from matplotlib import ft2font  # deferred on purpose: the optional plot extra

    for entry in sorted(entries, key=lambda f: (f.name, f.fname)):
        if not any(word in entry.name.lower() for word in CJK_NAMES):
            continue
        try:
            charmap = ft2font.FT2Font(entry.fname).get_charmap()
        except Exception:  # noqa: BLE001 - a font file matplotlib cannot open draws nothing
            continue
        if all(ord(c) in charmap for c in PROBE):
            return str(entry.name)
    return None


def label_lang(lang: str) -> str:
    """The language the plots' labels are drawn in on a page in ``lang``: the page's where matplotlib
    has a font for it, else English."""
    return lang if lang == "en" or cjk_font() is not None else "en"
