"""Which font the plots draw Chinese with (grader.reports.html.fonts), and the English fallback of a
machine with none: the labels drawn in English, never as boxes, and the page saying why."""

from __future__ import annotations

import html
import re
from types import SimpleNamespace

import pytest

from grader.reports.html import fonts
from grader.reports.html.index import index_page
from grader.text.catalogue import render
from tests.grader.reports.pages import HAVE_MATPLOTLIB, _outcome

pytestmark = pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="the plots need matplotlib (the plot extra)")

HAN = re.compile("[\u4e00-\u9fff]")


def _dejavu() -> str:
    from matplotlib import font_manager

    return str(font_manager.findfont("DejaVu Sans", fallback_to_default=False))


def test_no_cjk_font_in_the_list_is_none_and_the_labels_fall_back_to_english(monkeypatch) -> None:
    """A font list with no CJK font, and one whose "Noto Sans CJK SC" is a Latin font's file (a name is not
    glyphs): no font is taken, and a Chinese page's plots are labelled in English."""
    latin = SimpleNamespace(name="DejaVu Sans", fname=_dejavu())
    assert fonts.cjk_font_in([]) is None
    assert fonts.cjk_font_in([latin]) is None
    assert fonts.cjk_font_in([latin, SimpleNamespace(name="Noto Sans CJK SC", fname=_dejavu())]) is None
    assert fonts.cjk_font_in([SimpleNamespace(name="WenQuanYi Zen Hei", fname="/nonexistent.ttc")]) is None
    monkeypatch.setattr(fonts, "cjk_font", lambda: None)
    assert fonts.label_lang("zh") == "en" and fonts.label_lang("en") == "en"
    monkeypatch.setattr(fonts, "cjk_font", lambda: "Noto Sans CJK SC")
    assert fonts.label_lang("zh") == "zh"


def _histogram_words(text: str) -> str:
    svg = text[text.index("<svg") : text.index("</svg>")]
    return html.unescape(" ".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg)))


@pytest.mark.parametrize("font", [None, "DejaVu Sans"], ids=["no-cjk-font", "a-cjk-font"])
def test_the_class_histogram_is_labelled_in_english_where_no_font_draws_chinese(monkeypatch, font) -> None:
    """The index of a Chinese run, on a machine whose matplotlib has no CJK font (injected): the histogram's
    words are English, with no Han character to draw as a box, and the page says why; with a font (a
    stand-in name: the SVG keeps its words as text) they are Chinese and nothing is said."""
    monkeypatch.setattr(fonts, "cjk_font", lambda: font)
    students = [("a", [_outcome("x", "passed", 1.0)]), ("b", [_outcome("x", "wrong", 0.0)])]
    text = index_page(students, ["fm::x"], {}, lang="zh", deferred="defer", when="now")
    drawn = _histogram_words(text)
    note = html.escape(render("plots_labels_english", "zh"), quote=True)
    if font is None:
        assert render("plot_percent_title", "en") in drawn and not HAN.search(drawn), drawn
        assert note in text
    else:
        assert render("plot_percent_title", "zh") in drawn
        assert note not in text
