"""Reading an HTML report back, for the tests of grader.reports.html: a page's elements, text and plots, its checks
(self-contained, accessible), and the fake exercises (tests/grader/fakes.py) and outcomes the pages are
written from."""

from __future__ import annotations

import html
import html.parser
import re
import runpy
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from grader.reports.html import plots as html_plots
from grader.results.outcome import Outcome
from perfcore.measure.profile import MachineProfile

KiB, MiB = 1024, 1024**2


@dataclass(frozen=True)
class LevelProfile(MachineProfile):
    """A machine profile that also gives cache levels' measured bandwidths, as the report reads them."""

    level_bandwidths: dict[str, float] = field(default_factory=dict)


def profile(
    caches: Mapping[int, int],
    dram: float = 2.89e10,
    peak: float = 1e11,
    levels: Mapping[str, float] | None = None,
) -> MachineProfile:
    """Another machine's profile: its caches (level -> bytes), its DRAM copy and peak, and where given its
    cache levels' bandwidths; perfcore's own type, as the report reads it from the cache."""
    entries = [{"level": 1, "type": "Instruction", "size_bytes": 32 * KiB}]
    entries += [
        {"level": level, "type": "Data" if level == 1 else "Unified", "size_bytes": size}
        for level, size in caches.items()
    ]
    fields: dict[str, Any] = dict(
        key="0123456789abcdef",
        created="2026-12-04T00:00:00+00:00",
        bandwidth_bytes_per_s=dram,
        bandwidth_path="np.copyto",
        peak_flops=peak,
        peak_path="torch.mm",
        candidates={},
        sizes={},
        machine={"caches": entries},
    )
    return (
        MachineProfile(**fields) if levels is None else LevelProfile(**fields, level_bandwidths=dict(levels))
    )


#: The project's 2-vCPU AMD EPYC, whose profile measures DRAM alone (as perfcore's does today).
EPYC = profile({1: 32 * KiB, 2: 512 * KiB, 3: 32 * MiB})


def use_profile(monkeypatch: pytest.MonkeyPatch, machine: MachineProfile | None) -> None:
    """The report reads ``machine`` as this machine's cached profile."""
    monkeypatch.setattr(html_plots, "cached_profile", lambda: machine)


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


def sweep_outcome(state: str = "passed", bandwidth: float = 6e10, peak: float = 1e11) -> Outcome:
    """m2b's sweep at its registered input, the student's and perfcore's points on a roof of ``bandwidth``
    (the points of an L3-resident sweep sit above a DRAM roof of 28.9 GB/s, as they do on the EPYC)."""
    from grader.registry import load_exercises

    kwargs = load_exercises()["m2"].check("roofline_sweep").kwargs
    rows, cols = kwargs["rows"], kwargs["cols"]
    points = []
    for m in kwargs["ms"]:
        intensity = 2 * m * rows * cols / ((m * rows + rows * cols + m * cols) * 4)
        points.append([intensity, min(peak, intensity * bandwidth)])
    mine = [[x, 0.95 * y] for x, y in points]
    sweep = {"shape": "roofline", "mine": [mine], "reference": [points]}
    return _outcome(
        "roofline_sweep",
        state,
        1.0 if state == "passed" else 0.0,
        exercise="m2",
        kind="shape",
        measured=sweep,
    )


def every_plot_outcomes() -> list[Outcome]:
    """One page with every kind of plot: m2's sweep and m2a's rate, m1's bars, an overhead curve, speedups."""
    m2a = {"unit": "FLOP/s", "intensity": 400.0, "mine": [8e10], "reference": [8.5e10]}
    overhead = {
        "shape": "overhead",
        "mine": [[[16, 1e-6], [1024, 2e-6], [65536, 4e-5]]],
        "reference": [[[16, 0.9e-6], [1024, 1.8e-6], [65536, 3.9e-5]]],
    }
    return [
        sweep_outcome(),
        _outcome("matmul_flops", "passed", 1.0, exercise="m2", kind="measurement", measured=m2a),
        loop_outcomes()[0],
        _outcome("launches", "passed", 1.0, exercise="m5", kind="shape", measured=overhead),
        _outcome(
            "naive",
            "passed",
            1.0,
            exercise="m3",
            kind="measurement",
            measured={"unit": "s", "mine": [1e-3], "reference": [1.1e-3]},
        ),
        _outcome(
            "tiled",
            "passed",
            1.0,
            exercise="m3",
            kind="measurement",
            measured={"unit": "s", "mine": [5e-4], "reference": [1.15e-3]},
        ),
        _outcome(
            "gain",
            "passed",
            1.0,
            exercise="m3",
            kind="shape",
            measured={"shape": "value", "mine": [1.5], "reference": [1.6]},
        ),
    ]


def svg_text_sizes(svg: str) -> list[tuple[float | None, str]]:
    """(px at the plot's own size, or None where it says none; the text) of every text of an SVG:
    matplotlib writes sizes in the SVG's units, points (its viewBox is its size in pt), and 1 pt is 4/3 px."""
    sizes = []
    for match in re.finditer(r"<text\b([^>]*)>(.*?)</text>", svg, re.S):
        size = re.search(r"font-size:\s*([\d.]+)px", match.group(1))
        text = html.unescape(re.sub(r"<[^>]+>", "", match.group(2)))
        sizes.append((float(size.group(1)) * 4 / 3 if size else None, text))
    return sizes
