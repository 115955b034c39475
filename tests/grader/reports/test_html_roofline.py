"""The report on other machines: m2's roofline draws the roof of each level the sweep touches as the
machine's profile gives it and marks the points' levels by the machine's own caches; every plot's text is
at least 11 px and every figure in the report's one number format (grader.reports.html.numbers)."""

from __future__ import annotations

import html
import re

import pytest

from grader.registry import load_exercises
from grader.reports.html import plots as html_plots
from grader.reports.html import roofs as roofs_module
from grader.reports.html.numbers import format_bytes, format_number
from grader.reports.html.page import student_page
from grader.reports.html.roofs import DRAM, from_profile, level_at, level_ranges, sweep_of
from grader.text.catalogue import render
from tests.grader.reports.pages import (
    EPYC,
    HAVE_MATPLOTLIB,
    KiB,
    MiB,
    Page,
    every_plot_outcomes,
    profile,
    section_of,
    svg_text_sizes,
    sweep_outcome,
    use_profile,
)

M2B = load_exercises()["m2"].check("roofline_sweep").kwargs
#: Other machines, as their profiles say: (profile, the levels the sweep's ms sit in, the roofs drawn).
MACHINES = {
    # the project's EPYC: 8-14 MiB of matrices in a 32 MiB L3; its profile measures DRAM alone
    "epyc-32MiB-L3": (EPYC, {"L3": M2B["ms"]}, {DRAM}),
    # a Xeon whose 300 MiB L3 holds the whole sweep, its profile with an L3 figure
    "xeon-300MiB-L3": (
        profile({1: 48 * KiB, 2: 2 * MiB, 3: 300 * MiB}, levels={"L3": 9e10}),
        {"L3": M2B["ms"]},
        {"L3", DRAM},
    ),
    # a small L3 (12 MiB): the largest m spills to DRAM
    "12MiB-L3": (
        profile({1: 32 * KiB, 2: 1 * MiB, 3: 12 * MiB}, levels={"L2": 2e11, "L3": 5e10}),
        {"L3": M2B["ms"][:-1], DRAM: M2B["ms"][-1:]},
        {"L3", DRAM},
    ),
    # a 12 MiB L2 holds the smaller ms; its profile has no L2 figure
    "12MiB-L2-no-L2-figure": (
        profile({1: 128 * KiB, 2: 12 * MiB, 3: 64 * MiB}, levels={"L3": 8e10}),
        {"L2": M2B["ms"][:-1], "L3": M2B["ms"][-1:]},
        {"L3", DRAM},
    ),
}


def test_one_number_format() -> None:
    cases = {
        (1.59e12, "B/s"): "1.59 TB/s",  # m1's in-cache bound, once "1.59e+03" on a GB/s axis
        (24.1e9, "B/s"): "24.1 GB/s",
        (999.7, ""): "1 k",  # rounded before the prefix is chosen
        (0.25, ""): "0.25",  # a bare number under 1 keeps its decimals
        (0.25, "s"): "250 ms",
        (1e-4, "s"): "100 µs",
        (3.4567, "FLOP/B"): "3.46 FLOP/B",
        (None, "B/s"): "-",
        (0, "s"): "0 s",
        (-2000.0, ""): "-2 k",
    }
    assert {key: format_number(*key) for key in cases} == cases
    assert [format_bytes(n) for n in (1024 * KiB, 32 * MiB, 300 * MiB, 1023 * KiB, 512)] == [
        "1 MiB",
        "32 MiB",
        "300 MiB",
        "1023 KiB",
        "512 B",
    ]
    with pytest.raises(TypeError, match="format_number: value must be a number"):
        format_number("24 GB/s", "B/s")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="format_bytes: size must be"):
        format_bytes(-1)


@pytest.mark.parametrize("name", list(MACHINES))
def test_the_levels_follow_the_machines_caches(name: str) -> None:
    """Each m's level is the smallest cache its working set, (m*rows + rows*cols + m*cols)*4 bytes, fits
    in; the ranges of intensity drawn for the levels agree with it at every m."""
    machine, levels, _ = MACHINES[name]
    roofs = from_profile(machine)
    sweep = sweep_of(M2B)
    assert sweep is not None
    ranges = level_ranges(sweep, roofs)
    assert {r.level: r.ms for r in ranges} == {k: tuple(v) for k, v in levels.items()}
    for m in sweep.ms:
        working_set = (m * M2B["rows"] + M2B["rows"] * M2B["cols"] + m * M2B["cols"]) * 4
        assert level_at(sweep.intensity(m), ranges) == roofs.level_of(working_set), m
    assert level_at(1e9, ranges) is None  # an intensity no m of the sweep has (a student's slip)


@pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="the plots need matplotlib (the plot extra)")
def test_caches_not_known_mark_no_level(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine whose caches cannot be read: no level is claimed (not even DRAM), and the alt text says
    the levels are not known; the DRAM roof of its profile is still drawn."""
    monkeypatch.setattr(roofs_module, "this_machines_caches", lambda: ())
    use_profile(monkeypatch, profile({}))
    sweep = sweep_of(M2B)
    assert sweep is not None and level_ranges(sweep, from_profile(profile({}))) == []
    text = student_page([sweep_outcome()], lang="en", deferred="defer", when="now")
    svg = section_of(text, "m2")
    assert set(re.findall(r'id="p\d+-data-roof-(\w+)"', svg)) == {DRAM, "gpu"}
    assert render("desc_levels_unknown", "en") in html.unescape(svg)
    assert "working set in" not in svg


@pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="the plots need matplotlib (the plot extra)")
@pytest.mark.parametrize("name", list(MACHINES))
def test_the_roofs_drawn_follow_the_profile(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    machine, levels, roofs = MACHINES[name]
    use_profile(monkeypatch, machine)
    text = student_page([sweep_outcome()], lang="en", deferred="defer", when="now")
    svg = section_of(text, "m2")
    assert set(re.findall(r'id="p\d+-data-roof-(\w+)"', svg)) == roofs | {"gpu"}
    drawn = [t for _, t in svg_text_sizes(svg)]
    caches = dict(from_profile(machine).caches)
    for level, ms in levels.items():
        held = render(
            "plot_level_range" if level != DRAM else "plot_level_range_dram",
            "en",
            level=level,
            ms=f"{ms[0]}…{ms[-1]}" if len(ms) > 1 else str(ms[0]),
            size=format_bytes(caches.get(level, 0)),
            sizes="",
        )
        assert any(t.startswith(held.rstrip(", ")) for t in drawn), (held, drawn)
    missing = set(levels) - roofs
    for level in missing:
        assert render("plot_roof_missing", "en", level=level) in drawn
    assert not any("roof not drawn" in t for t in drawn if not any(level in t for level in missing))
    desc = html.unescape(svg.split("<desc>")[1].split("</desc>")[0])
    for level, ms in levels.items():
        assert render("desc_level", "en", level=level, ms=", ".join(map(str, ms))) in desc
    # each point of the sweep says its level in the alt text
    assert desc.count(", L") + desc.count(", DRAM)") >= 2 * len(M2B["ms"])


@pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="the plots need matplotlib (the plot extra)")
def test_without_a_profile_the_points_keep_their_levels_and_no_roof_is_drawn(monkeypatch) -> None:
    use_profile(monkeypatch, None)
    text = student_page([sweep_outcome()], lang="en", deferred="defer", when="now")
    svg = section_of(text, "m2")
    assert set(re.findall(r'id="p\d+-data-roof-(\w+)"', svg)) == {"gpu"}
    assert render("plot_no_ceilings", "en") in svg
    roofs = html_plots.measured_roofs()
    sweep = sweep_of(M2B)
    assert sweep is not None and roofs.peak_flops is None
    desc = html.unescape(svg.split("<desc>")[1].split("</desc>")[0])
    for r in level_ranges(sweep, roofs):  # this machine's own caches
        assert render("desc_level", "en", level=r.level, ms=", ".join(map(str, r.ms))) in desc


@pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="the plots need matplotlib (the plot extra)")
def test_every_plots_text_is_at_least_11_px_in_one_number_format(monkeypatch) -> None:
    """Read from the SVG: every text's size at the plot's own size (the page shows it so at 1280 px: no
    plot is wider than the page's column), and no number written with an exponent anywhere."""
    use_profile(monkeypatch, EPYC)
    text = student_page(every_plot_outcomes(), lang="en", deferred="defer", when="now")
    svgs = re.findall(r"<svg\b.*?</svg>", text, re.S)
    assert len(svgs) == 4
    for svg in svgs:
        sizes = svg_text_sizes(svg)
        assert sizes and all(size is not None and size >= 11 for size, _ in sizes), sizes
        width_pt = float(re.search(r'width="([\d.]+)pt"', svg).group(1))  # type: ignore[union-attr]
        assert width_pt * 4 / 3 <= 1152  # the page's column: 72rem
    words = " ".join(t for svg in svgs for _, t in svg_text_sizes(svg)) + Page(text).text
    assert not re.search(r"\d[eE][+-]?\d", words), re.findall(r"\S*\d[eE][+-]?\d\S*", words)
    m1 = section_of(text, "m1")
    assert "1.59 TB/s" in m1 and "24.5 GB/s" in m1  # the bars' figures, in the format of the page's fields
    assert "yours 24.5 GB/s, perfcore&#x27;s 22.9 GB/s" in m1
