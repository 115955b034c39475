"""HTML pages built directly (fast): matplotlib missing, odd figures, probes and GPU bandwidths, paths and
page names, planted links, the index's counts."""

from __future__ import annotations

import html
import html.parser
import os
import re
import stat
from pathlib import Path

import pytest

from grader.reports.files import write_json
from grader.reports.html import HtmlPathError, check_file, check_folder, fonts, page_name, write_report
from grader.reports.html import plots as html_plots
from grader.reports.html.index import index_page
from grader.reports.html.page import student_page
from grader.results.outcome import plain_data
from grader.text.catalogue import render
from tests.grader.reports.pages import (
    EPYC,
    HAVE_MATPLOTLIB,
    MEASURED,
    MiB,
    Page,
    _num,
    _outcome,
    accessible,
    loop_outcomes,
    profile,
    section_of,
    self_contained,
    use_profile,
)


def test_without_matplotlib_the_page_has_its_tables_and_says_why(monkeypatch) -> None:
    monkeypatch.setattr(html_plots, "have_matplotlib", lambda: False)
    outcomes = [_outcome("m_ok", "passed", 1.0, measured=MEASURED), _outcome("m_off", "wrong", 0.0)]
    text = student_page(outcomes, lang="zh", deferred="defer", when="2026-12-01 12:00:00 UTC")
    page = Page(text)
    assert not page.svgs and 'pip install -e ".[plot]"' in page.text
    assert "这些测量的图需要 matplotlib" in page.text
    assert _num(page.find(id="total")[0]["data-score"]) == 1.0
    assert "feedback &lt;b&gt;escaped&lt;/b&gt;" in text  # a message is text, never markup


@pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="the plots need matplotlib (the plot extra)")
def test_odd_figures_are_drawn_as_far_as_they_go() -> None:
    odd = {"unit": "B/s", "kind": "dram", "mine": ["fast", None, float("nan"), -3.0], "reference": [2e9]}
    curve = {"shape": "overhead", "mine": ["not a curve", [[16, 0], [256, "x"]]], "reference": [[[16, 1e-6]]]}
    outcomes = [
        _outcome("m_odd", "wrong", 0.0, measured=odd),
        _outcome("c_odd", "wrong", 0.0, measured=curve),
    ]
    text = student_page(outcomes, lang="en", deferred="defer", when="now")
    page = Page(text)
    assert len(page.svgs) == 2  # perfcore's bar and perfcore's point: the student's are not drawable
    assert "yours -, perfcore 2 GB/s" in page.text


@pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="the plots need matplotlib (the plot extra)")
def test_a_plot_says_when_it_was_measured_not_when_the_page_was_written() -> None:
    measured = {**MEASURED, "at": 86400.0}  # the judge's stamp: 1970-01-02, one day after the epoch
    text = student_page(
        [_outcome("m_ok", "passed", 1.0, measured=measured)], lang="en", deferred="defer", when="W"
    )
    assert "1970-01-02 00:00:00 UTC" in text.split("<figcaption>")[1]
    assert "1970-01-02 00:00:00 UTC" in text.split("<svg")[1].split("</svg>")[0]  # on the plot itself


@pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="the plots need matplotlib (the plot extra)")
def test_a_probe_and_a_gpu_bandwidth_get_bars_of_their_own_with_their_own_ceilings(monkeypatch) -> None:
    """m1's in-cache probe is drawn beside its DRAM copy; a GPU's bandwidth is held against the GPU's bound,
    never the CPU's measured DRAM copy."""
    use_profile(monkeypatch, profile({2: 2 * MiB, 3: 32 * MiB}, dram=2e10))  # this machine: 20 GB/s
    m1 = {
        "unit": "B/s",
        "kind": "dram",
        "device": "cpu",
        "mine": [1.9e10],
        "reference": [2e10],
        "bound": 1e12,
        "probe": {
            "kind": "cache",
            "input": "n_bytes=1048576",
            "mine": [4e10],
            "reference": [4.2e10],
            "bound": 9e10,
        },
    }
    m6 = {
        "unit": "B/s",
        "kind": "dram",
        "device": "cuda",
        "device_name": "NVIDIA H100 80GB HBM3",
        "mine": [3e12],
        "reference": [3.1e12],
        "bound": 3.35e12,
    }
    text = student_page(
        [_outcome("copy", "passed", 1.0, measured=m1), _outcome("gpu_copy", "passed", 1.0, measured=m6)],
        lang="en",
        deferred="defer",
        when="now",
    )
    assert len(Page(text).svgs) == 1  # one bar plot holds the three inputs
    svg = text.split("<svg")[1].split("</svg>")[0]
    desc = html.unescape(svg.split("<desc>")[1].split("</desc>")[0])
    assert "copy: yours 19 GB/s, perfcore 20 GB/s, ceiling 20 GB/s" in desc
    assert "copy probe: yours 40 GB/s, perfcore 42 GB/s, ceiling 90 GB/s" in desc
    assert "gpu_copy: yours 3 TB/s, perfcore 3.1 TB/s, ceiling 3.35 TB/s" in desc
    assert "physical bound, GPU" in svg
    assert "GPU NVIDIA H100 80GB HBM3" in svg  # the machine line names the GPU it was measured on


def test_a_students_array_keeps_the_measurements_and_a_huge_curve_is_thinned() -> None:
    """A curve the student returned as an array (decoded as one in the judge) keeps the whole record, and
    a curve of 100,000 points is drawn with at most MAX_POINTS of them."""
    np = pytest.importorskip("numpy")
    curve = np.array([[16.0, 1e-6], [256.0, 2e-6]])
    kept = plain_data({"shape": "overhead", "mine": [curve], "reference": [[[16, 1e-6]]], "odd": object()})
    assert kept == {
        "shape": "overhead",
        "mine": [[[16.0, 1e-6], [256.0, 2e-6]]],
        "reference": [[[16, 1e-6]]],
        "odd": None,
    }
    big = [[float(x), 1e-6 * x] for x in range(1, 100_001)]
    assert len(html_plots.median_curve([big])) == html_plots.MAX_POINTS
    thinned = html_plots.thinned([(float(x), 1.0) for x in range(1000)], 10)
    assert len(thinned) == 10 and thinned[0][0] == 0 and thinned[-1][0] == 999
    if HAVE_MATPLOTLIB:
        page = student_page(
            [_outcome("c", "wrong", 0.0, measured={"shape": "overhead", "mine": [big], "reference": []})],
            lang="en",
            deferred="defer",
            when="now",
        )
        assert len(page) < 400_000  # a page, not tens of megabytes


@pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="the plots need matplotlib (the plot extra)")
def test_a_deferred_mark_says_what_it_means_and_leads_to_the_reasons() -> None:
    outcome = _outcome("d", "skipped", 0.0, deferred=True, message="points deferred: too noisy")
    text = student_page([outcome], lang="en", deferred="defer", when="now")
    assert '<a href="#deferred" title="*: deferred; the reason is under Deferred points">*</a>' in text
    assert 'id="deferred"' in text
    # one name for the state on every view a person reads (issue 39): "deferred", never "skipped"; the
    # data keeps grades.json's value beside the mark
    for lang, word in (("en", "deferred"), ("zh", "暂缓计分")):
        page = student_page([outcome], lang=lang, deferred="defer", when="now")
        index = index_page([("a", [outcome])], ["fm::d"], {}, lang=lang, deferred="defer", when="now")
        assert f"↷</span> {word}<a" in page and 'data-state="skipped" data-deferred="true"' in page
        assert f"↷</span> {word}</th>" in index
        assert f"</span> {render('state_skipped', lang)}" not in page + index


def test_paths_are_checked_and_named(tmp_path: Path) -> None:
    with pytest.raises(HtmlPathError, match="--grader-html: .* is a folder"):
        check_file(tmp_path, "--grader-html")
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    with pytest.raises(HtmlPathError, match="--html: .*plain.txt is not a folder"):
        check_file(plain / "report.html", "--html")
    with pytest.raises(HtmlPathError, match="--html: .*plain.txt is a file"):
        check_folder(plain, "--html")
    assert check_folder(tmp_path / "new" / "pages", "--html") == tmp_path / "new" / "pages"
    assert page_name("alice") == "alice.html"
    odd = page_name("../../etc/passwd")
    assert "/" not in odd and odd.endswith(".html") and odd != page_name("../../etc/passwd2")


def test_every_student_gets_a_page_of_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """``bob-be1b495986`` is ``bob!``'s sanitized name and hash: the two shared one page, and the index sent
    both to it. Pages are named once for the batch, never shared (without case either), whatever the order."""
    import itertools

    import grader.reports.html as html

    names = [
        "bob!",
        "bob-be1b495986",
        "Bob",
        "bob",
        "CON",
        "con.x",
        "../../etc/passwd",
        "",
        "李雷",
        "a" * 300,
    ]
    pages = html.page_names(names)
    assert len({p.casefold() for p in pages.values()}) == len(names)
    assert pages["bob-be1b495986"] == "bob-be1b495986.html" and pages["bob!"] != "bob-be1b495986.html"
    assert all(re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._~-]*\.html", p) for p in pages.values()), pages
    assert not {p.split(".")[0].upper() for p in pages.values()} & {"CON", "NUL", "COM1"}  # Windows' devices
    for order in itertools.islice(itertools.permutations(names), 0, 50, 7):
        assert html.page_names(order) == pages  # the same students, the same pages
    # even where every hash collided, no two students share a page
    monkeypatch.setattr(html, "_hashed", lambda student, digits=10: "same.html")
    monkeypatch.setattr(html, "page_name", lambda student: "same.html")
    forced = html.page_names(["x", "y", "z"])
    assert len(set(forced.values())) == 3


def test_a_planted_link_is_replaced_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me", encoding="utf-8")
    link = tmp_path / "report.html"
    link.symlink_to(outside)
    write_report(link, [_outcome("m_off", "wrong", 0.0)], lang="en", deferred="defer")
    assert outside.read_text(encoding="utf-8") == "keep me"
    assert not link.is_symlink() and "<!DOCTYPE html>" in link.read_text(encoding="utf-8")


def test_the_index_counts_each_checks_states() -> None:
    students = [
        ("alice", [_outcome("m_ok", "passed", 1.0), _outcome("m_off", "passed", 1.0)]),
        ("bob", [_outcome("m_ok", "wrong", 0.0), _outcome("m_off", "passed", 1.0)]),
        ("carol", [_outcome("m_ok", "timeout", 0.0), _outcome("m_off", "skipped", 0.0, deferred=True)]),
    ]
    text = index_page(
        students,
        ["fm::m_ok", "fm::m_off"],
        {"alice": "students/alice.html"},
        lang="en",
        deferred="defer",
        when="now",
    )
    page = Page(text)
    self_contained(text, page)
    accessible(page)
    row = text[text.index('<tr data-check="fm::m_ok">') :]
    row = row[: row.index("</tr>")]
    counts = dict(re.findall(r'data-state="(\w+)" data-count="(\d+)"', row))
    assert counts == {
        "passed": "1",
        "wrong": "1",
        "not_attempted": "0",
        "error": "0",
        "timeout": "1",
        "skipped": "0",
    }
    assert 'data-mean="0.333333"' in row and 'data-graded="3"' in row
    deferred_row = text[text.index('<tr data-check="fm::m_off">') :]
    deferred_row = deferred_row[: deferred_row.index("</tr>")]
    # carol's deferred check was not graded: the mean is alice's and bob's, and says so
    assert 'data-mean="1"' in deferred_row and 'data-graded="2"' in deferred_row
    assert page.find("a", href="students/alice.html")
    # the ranking's cells (the grid above it has a cell per exercise too)
    ranking = Page(text[text.index('<section id="students">') :])
    assert [a["data-score"] for a in ranking.find("td") if "data-score" in a] == ["2", "1", "0"]
    assert [a["data-percent"] for a in ranking.find("td") if "data-percent" in a] == ["100", "50", "0"]
    if HAVE_MATPLOTLIB:
        assert len(page.svgs) == 1 and "3 students, percentages: 0%, 50%, 100%." in page.text


def test_the_index_ranks_by_percentage_over_unequal_maxima() -> None:
    """alice answered every check right (78 of 78: three points deferred); bob got two wrong (78.5 of 81).
    Ranked by raw points bob came first; by percentage alice does, and the histogram is of percentages."""
    alice = [
        _outcome("a", "passed", 78.0, max_points=78.0),
        _outcome("b", "skipped", 0.0, max_points=3.0, deferred=True),
    ]
    bob = [
        _outcome("a", "passed", 78.0, max_points=78.0),
        _outcome("b", "passed", 0.5, max_points=0.5),
        _outcome("c", "wrong", 0.0, max_points=2.5),
    ]
    text = index_page(
        [("bob", bob), ("alice", alice)],
        ["fm::a", "fm::b", "fm::c"],
        {},
        lang="en",
        deferred="defer",
        when="now",
    )
    ranked = re.findall(r'<tr data-student="(\w+)"><td class="num" data-rank="(\d+)">', text)
    assert ranked == [("alice", "1"), ("bob", "2")]
    shares = dict(re.findall(r'<tr data-student="(\w+)">.*?data-percent="([\d.]+)"', text))
    assert float(shares["alice"]) == 100.0 and abs(float(shares["bob"]) - 100 * 78.5 / 81) < 1e-3
    assert ">96.91<" in text  # as grades.csv writes it
    if HAVE_MATPLOTLIB:
        assert "2 students, percentages: 96.91%, 100%." in Page(text).text


# ---------------------------------------------------------------------------------------------------
# the student's loop (issue 21): nothing drawn for an exercise not attempted, tracebacks kept in lines,
# the plots' words in the page's language where matplotlib can draw it, files as the umask says


def test_an_exercise_not_attempted_draws_no_plot_and_says_so(monkeypatch) -> None:
    use_profile(monkeypatch, EPYC)
    text = student_page(loop_outcomes(), lang="en", deferred="defer", when="now")
    for exercise in ("m2", "m3"):
        section = section_of(text, exercise)
        assert "<svg" not in section and 'data-plots="not-attempted"' in section, exercise
        assert html.escape(render("plots_not_attempted", "en"), quote=True) in section
    assert 'data-plots="not-attempted"' not in section_of(text, "m1")
    assert 'data-plots="not-attempted"' not in section_of(text, "ex10")  # it measures nothing


def test_a_traceback_keeps_its_lines_in_a_pre() -> None:
    outcomes = loop_outcomes()
    text = student_page(outcomes, lang="en", deferred="defer", when="now")
    pre = re.search(r'<pre class="message">(.*?)</pre>', section_of(text, "ex10"), flags=re.S)
    assert pre is not None and html.unescape(pre.group(1)) == outcomes[-1].message
    assert re.search(r"pre\.message \{ white-space: pre-wrap;", text)  # its lines kept, and wrapped
    assert '<pre class="message">' not in section_of(text, "m1")  # a sentence stays text that wraps


@pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="the plots need matplotlib (the plot extra)")
def test_bandwidth_bars_are_on_a_log_axis(monkeypatch) -> None:
    use_profile(monkeypatch, EPYC)
    text = student_page(loop_outcomes()[:1], lang="en", deferred="defer", when="now")
    assert render("plot_bandwidth_log", "en") in html.unescape(text.split("<svg")[1])


@pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="the plots need matplotlib (the plot extra)")
@pytest.mark.parametrize("font", [None, "DejaVu Sans"], ids=["no-cjk-font", "a-cjk-font"])
def test_plot_labels_are_in_the_pages_language_where_a_font_draws_it(monkeypatch, font: str | None) -> None:
    """Without a CJK font in matplotlib's list the labels stay English and the page says so; with one (here
    a stand-in name: the labels are text in the SVG) they are Chinese."""
    monkeypatch.setattr(fonts, "cjk_font", lambda: font)
    use_profile(monkeypatch, EPYC)
    text = student_page(loop_outcomes()[:1], lang="zh", deferred="defer", when="now")
    svg = html.unescape(text.split("<svg")[1].split("</svg>")[0])
    note = html.escape(render("plots_labels_english", "zh"), quote=True)
    if font is None:
        assert render("plot_bandwidth_title", "en") in svg and note in text
    else:
        assert render("plot_bandwidth_title", "zh") in svg and note not in text
        assert render("plot_yours", "zh") in svg
    english = student_page(loop_outcomes()[:1], lang="en", deferred="defer", when="now")
    assert 'data-plots="labels-english"' not in english


def test_the_cjk_font_is_one_matplotlib_can_draw_chinese_with() -> None:
    name = fonts.cjk_font()
    if name is None:
        assert fonts.label_lang("zh") == "en"
        return
    from matplotlib import font_manager, ft2font

    path = font_manager.findfont(font_manager.FontProperties(family=name), fallback_to_default=False)
    assert all(ord(c) in ft2font.FT2Font(path).get_charmap() for c in render("plot_yours", "zh"))
    assert fonts.label_lang("zh") == "zh"


@pytest.mark.skipif(os.name != "posix", reason="file modes and the umask are POSIX's")
@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_report_files_are_written_with_the_users_umask(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        path = write_report(tmp_path / "r" / "report.html", loop_outcomes()[3:], lang="en", deferred="defer")
        write_json(tmp_path / "r" / "results.json", {"score": 0})
    finally:
        os.umask(old)
    for written in (path, tmp_path / "r" / "results.json"):
        assert stat.S_IMODE(written.stat().st_mode) == 0o666 & ~umask, written
    assert [p.name for p in (tmp_path / "r").iterdir() if p.name.startswith(".perfkit-")] == []


@pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="the plots need matplotlib (the plot extra)")
def test_the_speedup_plot_draws_what_the_graded_checks_decided() -> None:
    """m3 of issue 39: the naive time graded, the tiled time deferred (a busy machine), the speedup check
    graded at 1.05x against perfcore's 1.1x. The plot once drew 2.56x from the naive time over the deferred
    tiled one; now it draws the graded speedup check's own figures and names the deferred one left out."""
    m3 = [
        _outcome(
            "transpose_time_naive",
            "passed",
            1.0,
            exercise="m3",
            kind="measurement",
            measured={"unit": "s", "mine": [2.56e-3], "reference": [1.1e-3]},
        ),
        _outcome(
            "transpose_time_tiled",
            "skipped",
            0.0,
            exercise="m3",
            kind="measurement",
            deferred=True,
            message="points deferred: too busy",
            measured={"unit": "s", "mine": [1e-3], "reference": [1e-3]},
        ),
        _outcome(
            "transpose_speedup",
            "passed",
            1.0,
            exercise="m3",
            kind="measurement",
            measured={"unit": "x", "mine": [1.05], "reference": [1.1]},
        ),
    ]
    page = Page(student_page(m3, lang="en", deferred="defer", when="now"))
    (svg,) = page.svgs
    assert "transpose_speedup: yours 1.05x, perfcore 1.1x" in page.text
    assert "2.56x" not in page.text and "transpose_time_naive / " not in page.text
    assert "Deferred measurements are not drawn: transpose_time_tiled" in page.text
    # without a speedup check, no speedup is derived from a deferred time either
    page = Page(student_page(m3[:2], lang="en", deferred="defer", when="now"))
    assert not page.svgs and "Deferred measurements are not drawn: transpose_time_tiled" in page.text


def test_the_index_grid_shows_each_students_exercises_linked_to_their_sections() -> None:
    """Issue 47 item 5: a student × exercise grid first, a percentage per cell, deferred and not attempted
    marked, each cell linked to the student's page at that exercise's section."""
    alice = [
        _outcome("a", "passed", 1.0, exercise="ex01", source="exercises/ex01_ridge.py"),
        _outcome("b", "wrong", 0.0, exercise="ex01", source="exercises/ex01_ridge.py"),
        _outcome("m", "skipped", 0.0, exercise="m1", source="exercises/m1_copy.py", deferred=True),
        _outcome("n", "passed", 1.0, exercise="m1", source="exercises/m1_copy.py"),
    ]
    bob = [_outcome("a", "not_attempted", 0.0, exercise="ex01", source="exercises/ex01_ridge.py")]
    pages = {"alice": "students/alice.html", "bob": "students/bob.html"}
    text = index_page(
        [("bob", bob), ("alice", alice)],
        ["ex01::a", "ex01::b", "m1::m", "m1::n"],
        pages,
        lang="en",
        deferred="defer",
        when="now",
    )
    assert text.index('<section id="grid">') < text.index('<section id="students">')
    grid_html = text[text.index('<section id="grid">') : text.index('<section id="students">')]
    page = Page(grid_html)
    assert [a["data-exercise"] for a in page.find("th") if "data-exercise" in a] == ["ex01", "m1"]
    cells = {
        (a["data-exercise"], a["data-percent"], a["data-deferred"], a["data-attempted"])
        for a in page.find("td")
        if "data-exercise" in a
    }
    assert cells == {("ex01", "50", "0", "true"), ("m1", "100", "1", "true"), ("ex01", "0", "0", "false")}
    assert [a["data-student"] for a in page.find("tr") if "data-student" in a] == ["alice", "bob"]
    # each cell's link is the section of the student's page that exercise has
    alice_page = student_page(alice, lang="en", deferred="defer", when="now")
    links = [a["href"] for a in page.find("a")]
    assert len(links) == 3 and all(link.split("#")[0] in pages.values() for link in links)
    for link in links[:2]:
        assert f'id="{link.split("#")[1]}"' in alice_page, link
    shown = re.sub(r"<[^>]+>", "|", grid_html)
    assert "|100*|" in shown and "|50|" in shown and "|○|" in shown  # the marks, as text
    bob_row = grid_html[grid_html.index('<tr data-student="bob">') :]
    assert bob_row.rstrip().endswith(
        '<td class="g-none" data-percent="">—</td></tr></tbody></table></div></section>'
    )
