"""Reading an HTML report back, for the tests of grader.reports.html: a page's elements, text and plots, its checks
(self-contained, accessible), and the fake exercises (tests/grader/fakes.py) and outcomes the pages are
written from."""

from __future__ import annotations

import html
import html.parser
import re
import runpy
from pathlib import Path
from typing import Any

from grader.reports.html import plots as html_plots
from grader.results.outcome import Outcome

FAKES = runpy.run_path(str(Path(__file__).resolve().parents[1] / "fakes.py"))
HAVE_MATPLOTLIB = html_plots.have_matplotlib()


class Page(html.parser.HTMLParser):
    """The parts of a page the tests read: elements with their attributes, in order, and the text."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.svgs: list[list[str]] = []  # the tags inside each <svg>, in order
        self.headings: list[tuple[str, str]] = []
        self._svg_depth = 0
        self._heading: str | None = None
        self._heading_text: list[str] = []
        self.text_parts: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}))
        if tag == "svg":
            self._svg_depth += 1
            self.svgs.append([])
        elif self._svg_depth:
            self.svgs[-1].append(tag)
        if tag in ("h1", "h2", "h3"):
            self._heading, self._heading_text = tag, []

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self._svg_depth -= 1
        if tag == self._heading:
            self.headings.append((tag, "".join(self._heading_text).strip()))
            self._heading = None

    def handle_data(self, data: str) -> None:
        self.text_parts.append(data)
        if self._heading:
            self._heading_text.append(data)

    def find(self, tag: str | None = None, **attrs: str) -> list[dict[str, str]]:
        return [
            a
            for t, a in self.elements
            if (tag is None or t == tag) and all(a.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]

    def with_attr(self, name: str) -> list[tuple[str, dict[str, str]]]:
        return [(t, a) for t, a in self.elements if name in a]

    @property
    def text(self) -> str:
        return "".join(self.text_parts)


def self_contained(text: str, page: Page) -> None:
    """No script, no stylesheet or image fetched from anywhere: every src/href is in the page or beside it."""
    assert not page.find("script") and not page.find("link") and not page.find("iframe")
    for _, attrs in page.elements:
        for name in ("src", "href", "xlink:href", "action", "srcset"):
            value = attrs.get(name, "")
            assert not re.match(r"\s*(https?:)?//", value, re.I), (name, value)
    assert not re.search(r"url\(\s*['\"]?\s*(https?:)?//", text, re.I)
    assert "@import" not in text


def accessible(page: Page) -> None:
    """Every plot has a title and a description first, a role; tables have header cells; one h1."""
    assert len(page.find("h1")) == 1
    for tags in page.svgs:
        assert tags[:2] == ["title", "desc"], tags[:4]
    for attrs in page.find("svg"):
        assert attrs.get("role") == "img"
    assert len(page.find("table")) == len(page.find("caption"))
    assert len(page.find("th")) >= 2 * len(page.find("table"))


def section_of(text: str, exercise: str) -> str:
    """The HTML of an exercise's section."""
    start = re.search(rf'<section class="exercise" id="[^"]*" data-exercise="{exercise}">', text)
    assert start is not None, exercise
    return text[start.start() : text.index("</section>", start.start())]


def _num(value: str) -> float:
    return float(value)


def _outcome(check_id: str, state: str, points: float, **extra: Any) -> Outcome:
    return Outcome(
        exercise=extra.pop("exercise", "fm"),
        check_id=check_id,
        part="a",
        state=state,
        points=points,
        max_points=extra.pop("max_points", 1.0),
        message=extra.pop("message", "feedback <b>escaped</b>"),
        title="Fake",
        **extra,
    )


MEASURED = {"unit": "B/s", "kind": "cache", "mine": [1e9, 1.1e9], "reference": [1.2e9], "bound": 5e9}


def loop_outcomes() -> list[Outcome]:
    """The student's loop of issue 21 as outcomes: m1's DRAM copy beside its in-cache probe (whose bound,
    1.59e3 GB/s, flattened the DRAM bars on a linear axis), m2 and m3 not attempted (m2 with perfcore's
    sweep only, m3 measured nothing), and ex10 failing with a traceback of several lines."""
    m1 = {
        "unit": "B/s",
        "kind": "dram",
        "device": "cpu",
        "mine": [24.5e9],
        "reference": [22.9e9],
        "bound": 1.2e11,
        "probe": {"kind": "cache", "mine": [3.1e11], "reference": [3.2e11], "bound": 1.59e12},
    }
    sweep = {"shape": "roofline", "mine": [], "reference": [[[0.25, 2e9], [4.0, 3e10], [64.0, 9e10]]]}
    traceback = (
        "your code raised:\nTraceback (most recent call last):\n"
        '  File "ex10_fusion.py", line 3, in fused\n    return a @ b\nValueError: shapes differ'
    )
    return [
        _outcome("copy_bandwidth", "wrong", 0.0, exercise="m1", kind="measurement", measured=m1),
        _outcome("roofline_sweep", "not_attempted", 0.0, exercise="m2", kind="shape", measured=sweep),
        _outcome("vector_time", "not_attempted", 0.0, exercise="m3", kind="measurement"),
        _outcome("fused", "error", 0.0, exercise="ex10", kind="value", message=traceback),
    ]
