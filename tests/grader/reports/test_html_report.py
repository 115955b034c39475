"""The HTML report (grader.reports.html) of one pytest session, read back against the JSON it writes.

One grading session of the fake exercises (tests/grader/fakes.py: partly right, measurements, probes and
curves) is shared by the tests of the page; a real browser (Debian's chromium, driven by selenium) loads
that page in the last tests. Where no browser is installed they skip with the reason, except under CI
(CI=true), which must have one (.ci/run installs it) and fails instead. Pages built directly are tested in
test_html_pages.py, those of ``python -m grader file`` and ``grade`` in test_html_commands.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from grader.reports.html import fonts, write_report
from grader.reports.html import plots as html_plots
from grader.reports.html.index import index_page
from grader.results.outcome import STATES
from grader.text.catalogue import render
from tests.grader.reports.pages import (
    EPYC,
    FAKES,
    HAVE_MATPLOTLIB,
    Page,
    _num,
    _outcome,
    accessible,
    every_plot_outcomes,
    loop_outcomes,
    section_of,
    self_contained,
    use_profile,
)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("html-session")
    (folder / "fake_checks.py").write_text(FAKES["FAKE_CHECKS"], encoding="utf-8")
    (folder / "fake_measure.py").write_text(FAKES["MEASURE_CHECKS"], encoding="utf-8")
    (folder / "fake_probe.py").write_text(FAKES["PROBE_CHECKS"], encoding="utf-8")
    (folder / "pytest.ini").write_text(
        "[pytest]\npythonpath = .\ngrader_checks = fake_checks fake_measure fake_probe\n", encoding="utf-8"
    )
    (folder / "fake_student.py").write_text(FAKES["PARTLY"], encoding="utf-8")
    (folder / "fake_meter.py").write_text(FAKES["METER"], encoding="utf-8")
    (folder / "fake_probe_student.py").write_text(FAKES["PROBE_STUDENT"], encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    # the fake meters' verdicts, not the machine's load: a machine whose load cannot be read
    env["PERFKIT_PROC_STAT"] = str(folder / "no-proc-stat")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--grader-lang=en",
            "--grader-json=results.json",
            "--grader-html=out/report.html",
            "fake_student.py",
            "fake_meter.py",
            "fake_probe_student.py",
        ],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert (folder / "out" / "report.html").exists(), result.stdout[-3000:] + result.stderr[-3000:]
    text = (folder / "out" / "report.html").read_text(encoding="utf-8")
    return {
        "folder": folder,
        "stdout": result.stdout,
        "json": json.loads((folder / "results.json").read_text(encoding="utf-8")),
        "text": text,
        "page": Page(text),
    }


def test_the_page_has_the_jsons_scores_and_states(graded) -> None:
    data, page = graded["json"], graded["page"]
    total = page.find(id="total")[0]
    assert _num(total["data-score"]) == data["score"] and _num(total["data-max"]) == data["max_score"]
    rows = {a["data-check"]: a for a in page.find("tr") if "data-check" in a}
    tests = {t["name"].split(" ")[0]: t for t in data["tests"]}
    assert set(rows) == set(tests) and len(tests) == 6 + 8 + 14
    states = {a["data-state"] for t, a in page.elements if t == "td" and "data-state" in a}
    assert states <= set(STATES) and {"passed", "wrong", "skipped"} <= states
    # each row's state and points, in the order the page shows them
    cells = [a for t, a in page.elements if t == "td" and ("data-state" in a or "data-points" in a)]
    shown = [(cells[i]["data-state"], _num(cells[i + 1]["data-points"])) for i in range(0, len(cells), 2)]
    order = [a["data-check"] for a in page.find("tr") if "data-check" in a]
    for name, (state, points) in zip(order, shown, strict=True):
        assert state == tests[name]["tags"][-1], name
        assert points == tests[name]["score"], name
    # every exercise has its heading, section and score, the JSON's sums
    for exercise in ("fk", "fm", "fp"):
        section = page.find("section", data_exercise=exercise)
        assert len(section) == 1
        assert any(text.startswith(exercise + " ") for tag, text in page.headings if tag == "h2")
        score = sum(t["score"] for t in data["tests"] if t["name"].startswith(exercise + "::"))
        assert any(_num(a["data-score"]) == score for a in page.find("p", **{"class": "score"})), exercise


def test_the_page_shows_feedback_as_fields_and_deferred_points_apart(graded) -> None:
    text, data = graded["text"], graded["json"]
    # v_slow is wrong in PARTLY (2 for 1): its expected and got are fields, not only prose
    row = text[text.index('data-check="fk::v_slow"') :]
    row = row[: row.index("</tr>")]
    assert re.search(r'data-field="expected">expected</dt><dd><code>1</code>', row)
    assert re.search(r'data-field="got">got</dt><dd><code>2</code>', row)
    # a hint from the registry, for a check that did not pass
    ratio = text[text.index('data-check="fk::p_double"') :]
    assert 'data-field="input"' in ratio[: ratio.index("</tr>")]
    # deferred checks listed apart with their reasons, their points out of the maximum
    deferred = re.findall(r'<li data-check="([^"]+)">', text)
    assert sorted(deferred) == sorted(data["extra_data"]["deferred"]) and deferred
    section = text[text.index('id="deferred"') : text.index("</section>", text.index('id="deferred"'))]
    assert "CUDA" in section
    # the measured medians of a measurement are a field of their own
    ok = text[text.index('data-check="fm::m_ok"') :]
    assert "yours 104 B/s, perfcore&#x27;s 100 B/s" in ok[: ok.index("</tr>")]
    # a state is told in words and a sign, not colour alone
    assert "✘</span> wrong" in text and "✔</span> passed" in text


def test_the_page_is_self_contained_and_accessible(graded) -> None:
    text, page = graded["text"], graded["page"]
    self_contained(text, page)
    accessible(page)
    assert page.find("html", lang="en") and page.find("meta", charset="utf-8")
    ids = [a["id"] for _, a in page.elements if "id" in a]
    assert len(ids) == len(set(ids)), "an id repeated (matplotlib's marker ids must be made unique)"
    assert "@media print" in text


@pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="the plots need matplotlib (the plot extra)")
def test_measurements_are_plotted_with_the_machine_and_time(graded) -> None:
    text, page = graded["text"], graded["page"]
    section = section_of(text, "fm")
    assert section.count("<svg") == 1 and "Bandwidth bars" in section  # m_* are B/s figures
    probe = section_of(text, "fp")
    # fp: B/s figures, overhead curves (with the floor) and speedups
    assert probe.count("<svg") == 3
    assert "Overhead curve (log-log)" in probe and "Fixed-overhead floor 100 µs" in probe
    assert "s_gain_here: yours 1.5x, perfcore 1.6x" in probe
    machine = html_plots.machine_label()
    # fk's shape check has no reference: the student's curve alone, on the roofline beside the H100's
    assert section_of(text, "fk").count("<svg") == 1 and "beside the H100 roofline" in section_of(text, "fk")
    assert text.count(f"Measured on {machine}") == 5
    for tags in page.svgs:
        assert "text" in tags  # matplotlib's text kept as text (the machine line among it)
    assert len(re.findall(re.escape(machine.split(";")[0]), text)) >= 2 * 5  # on each plot and its caption


def test_pytest_front_end_says_where_and_refuses_a_folder(graded, tmp_path: Path) -> None:
    assert "HTML report: out/report.html" in graded["stdout"]
    folder = graded["folder"]
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            f"--grader-html={tmp_path}",
            "fake_student.py",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 4  # a usage error, before anything is graded
    assert "--grader-html" in result.stderr and "is a folder" in result.stderr


def _browser() -> tuple[str, str] | str:
    """(chromium, chromedriver), or why there is none."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (the dev extra)"
    chromium = next(
        (p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None
    )
    driver = shutil.which("chromedriver")
    if chromium is None or driver is None:
        return "no chromium and chromedriver (Debian: apt-get install chromium chromium-driver)"
    return chromium, driver


@pytest.fixture(scope="module")
def browser():
    found = _browser()
    if isinstance(found, str):
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI must test the report in a browser: {found}")
        pytest.skip(found)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = found[0]
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
    ):
        options.add_argument(argument)
    # the console, and the DevTools network events: every request the page makes is in there
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(found[1]))
    yield driver
    driver.quit()


def _load(driver: Any, path: Path) -> list[Mapping[str, Any]]:
    driver.get_log("performance")  # what came before this page
    driver.get(path.resolve().as_uri())
    driver.execute_script("return document.readyState")
    return driver.get_log("browser")


def _requests(driver: Any) -> list[str]:
    """The URLs the page asked for since :func:`_load`, from DevTools' network events."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


#: Read in the browser, for every plot on the page: each text's size as drawn (its font size in the SVG's
#: units times the SVG's scale on the screen), and each label a line of the data crosses: the lines the
#: plots mark as data (``data-`` ids) sampled every half unit along their length, inside their clip (the
#: axes), against every text's box; and any two texts of one plot whose boxes overlap.
LEGIBILITY = """
const texts = Array.from(document.querySelectorAll('svg text'));
const sizes = texts.map(t => {
  const m = t.getScreenCTM();
  return [parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b), t.textContent];
});
const boxes = texts.map(t => [t.getBoundingClientRect(), t.textContent]).filter(([r]) => r.width > 0);
const crossings = new Set();
let lines = 0;
for (const path of document.querySelectorAll('svg g[id*="-data-"] path')) {
  lines += 1;
  const m = path.getScreenCTM();
  let clip = null;
  const ref = path.getAttribute('clip-path');
  const rect = ref && document.getElementById(ref.slice(5, -1)).querySelector('rect');
  if (rect) {
    const x = +rect.getAttribute('x'), y = +rect.getAttribute('y');
    const a = new DOMPoint(x, y).matrixTransform(m);
    const b = new DOMPoint(x + +rect.getAttribute('width'), y + +rect.getAttribute('height')).matrixTransform(m);
    clip = [Math.min(a.x, b.x), Math.min(a.y, b.y), Math.max(a.x, b.x), Math.max(a.y, b.y)];
  }
  const length = path.getTotalLength();
  for (let s = 0; s <= length; s += 0.5) {
    const p = path.getPointAtLength(s).matrixTransform(m);
    if (clip && (p.x < clip[0] || p.y < clip[1] || p.x > clip[2] || p.y > clip[3])) continue;
    for (const [r, text] of boxes) {
      if (p.x > r.left && p.x < r.right && p.y > r.top && p.y < r.bottom) {
        crossings.add(path.parentElement.id + ' crosses ' + JSON.stringify(text));
      }
    }
  }
}
const overlaps = [];
for (const svg of document.querySelectorAll('svg')) {
  const own = Array.from(svg.querySelectorAll('text')).map(t => [t.getBoundingClientRect(), t.textContent]);
  own.forEach(([a, x], i) => own.slice(i + 1).forEach(([b, y]) => {
    if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) {
      overlaps.push([x, y]);
    }
  }));
}
return [sizes, Array.from(crossings), lines, overlaps];
"""


def legibility(driver: Any, lines: int) -> None:
    """Every plot's text at least 11 px as Chromium draws it, no label crossed by a line of the data or
    lying on another label, and at least ``lines`` data lines found (a check that found none would pass
    whatever the plots drew)."""
    sizes, crossings, found, overlaps = driver.execute_script(LEGIBILITY)
    small = [(round(size, 1), text) for size, text in sizes if size < 11]
    assert small == [], small
    assert crossings == []
    assert overlaps == []
    assert found >= lines


def test_the_page_in_a_browser(graded, browser, tmp_path: Path) -> None:
    path = graded["folder"] / "out" / "report.html"
    logs = _load(browser, path)
    assert [entry for entry in logs if entry.get("level") in ("SEVERE", "WARNING")] == []
    # the page fetched nothing: the only resource entries would be requests, and there are none
    fetched = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
        ".concat(Array.from(document.querySelectorAll('[src],[href]')).map(e => e.src || e.href))"
    )
    assert all(url.startswith(path.resolve().as_uri() + "#") for url in fetched), fetched
    assert [url for url in _requests(browser) if url != path.resolve().as_uri()] == []
    # every check's points, as the browser reads them, are the JSON's
    cells = browser.execute_script(
        "return Array.from(document.querySelectorAll('tr[data-check] td[data-points]'))"
        ".map(td => [td.parentElement.dataset.check, td.dataset.points])"
    )
    expected = {t["name"].split(" ")[0]: float(t["score"]) for t in graded["json"]["tests"]}
    assert {check: float(points) for check, points in cells} == expected
    # the scores the browser shows are the JSON's
    total = browser.execute_script("return document.getElementById('total').dataset")
    assert (
        float(total["score"]) == graded["json"]["score"]
        and float(total["max"]) == graded["json"]["max_score"]
    )
    shown = browser.execute_script("return document.getElementById('total').innerText")
    assert f"{graded['json']['score']:g} / {graded['json']['max_score']:g}" in shown
    sizes = browser.execute_script(
        "return Array.from(document.querySelectorAll('svg')).map(s => "
        "{const r = s.getBoundingClientRect(); return [r.width, r.height];})"
    )
    assert len(sizes) == (5 if HAVE_MATPLOTLIB else 0)
    assert all(w > 100 and h > 100 for w, h in sizes), sizes
    if HAVE_MATPLOTLIB:
        legibility(browser, lines=3)  # fk's curve on the roofline and the H100's roof, fp's overhead
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1280, min(int(height), 12000))
    shot = tmp_path / "report.png"
    assert browser.save_screenshot(str(shot)) and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_index_in_a_browser(browser, tmp_path: Path) -> None:
    """The instructor's page: no console error, no request, the totals the browser shows, the histogram."""
    students = [
        ("alice", [_outcome("m_ok", "passed", 1.0), _outcome("m_off", "passed", 1.0)]),
        ("bob", [_outcome("m_ok", "wrong", 0.0), _outcome("m_off", "skipped", 0.0, deferred=True)]),
    ]
    path = tmp_path / "index.html"
    text = index_page(
        students, ["fm::m_ok", "fm::m_off"], {}, lang="zh", deferred="defer", when="2026-12-02 06:00:00 UTC"
    )
    path.write_text(text, encoding="utf-8")
    logs = _load(browser, path)
    assert [entry for entry in logs if entry.get("level") in ("SEVERE", "WARNING")] == []
    assert [url for url in _requests(browser) if url != path.resolve().as_uri()] == []
    shown = browser.execute_script("return document.body.innerText")
    assert "alice" in shown and "bob" in shown
    sizes = browser.execute_script(
        "return Array.from(document.querySelectorAll('svg')).map(s => "
        "{const r = s.getBoundingClientRect(); return [r.width, r.height];})"
    )
    assert len(sizes) == (1 if HAVE_MATPLOTLIB else 0) and all(w > 100 and h > 50 for w, h in sizes), sizes


def test_the_students_loop_in_a_browser(browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 21's page, as Chromium lays it out: no plot for an exercise not attempted (a line instead),
    DRAM bars readable beside an in-cache bound of 1.59e3 GB/s, a traceback in its lines, the plots'
    words in the page's language or a line saying why not."""
    use_profile(monkeypatch, EPYC)  # a DRAM copy: 28.9 GB/s
    outcomes = loop_outcomes()
    path = write_report(tmp_path / "loop.html", outcomes, lang="zh", deferred="defer")
    logs = _load(browser, path)
    assert [entry for entry in logs if entry.get("level") in ("SEVERE", "WARNING")] == []
    for exercise in ("m2", "m3"):
        svgs, note = browser.execute_script(
            f"const s = document.querySelector('section[data-exercise=\"{exercise}\"]');"
            "const n = s.querySelector('[data-plots=\"not-attempted\"]');"
            "return [s.querySelectorAll('svg').length, n && n.offsetHeight > 0 ? n.innerText : null];"
        )
        assert svgs == 0 and note == render("plots_not_attempted", "zh"), exercise
    white_space, lines = browser.execute_script(
        "const p = document.querySelector('section[data-exercise=\"ex10\"] pre.message');"
        "return [getComputedStyle(p).whiteSpace, p.innerText.split('\\n').length];"
    )
    assert white_space == "pre-wrap" and lines == outcomes[-1].message.count("\n") + 1
    if not HAVE_MATPLOTLIB:
        return
    # the bars' visible lengths, from the axes' left edge to each bar's end (a bar runs left of the axes
    # and is clipped there): every one a readable share of the longest
    lengths = browser.execute_script(
        "const svg = document.querySelector('section[data-exercise=\"m1\"] svg');"
        "const axes = svg.querySelector('g[id$=\"-patch_2\"] > path').getBoundingClientRect();"
        "return Array.from(svg.querySelectorAll('g[id*=\"-patch_\"] > path[clip-path]'))"
        ".map(p => p.getBoundingClientRect().right - axes.left);"
    )
    assert len(lengths) == 6, lengths  # yours, perfcore's and the ceiling, at the input and the probe
    assert min(lengths) > 0.1 * max(lengths), lengths
    shown = browser.execute_script("return document.body.innerText")
    drawn = browser.execute_script(
        "return Array.from(document.querySelectorAll('svg text')).map(t => t.textContent).join(' ')"
    )
    if fonts.cjk_font() is None:
        assert render("plots_labels_english", "zh") in shown and render("plot_yours", "en") in drawn
    else:
        assert render("plots_labels_english", "zh") not in shown and render("plot_yours", "zh") in drawn


@pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="the plots need matplotlib (the plot extra)")
def test_every_plot_is_legible_at_1280_px(browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A page with every kind of plot, on the EPYC's profile, as Chromium shows it 1280 px wide: every
    text at least 11 px, no label crossed by a roof, a sweep, a floor or the line of no speedup; then a
    screenshot of the whole page."""
    use_profile(monkeypatch, EPYC)
    path = write_report(tmp_path / "every.html", every_plot_outcomes(), lang="en", deferred="defer")
    browser.set_window_size(1280, 900)
    logs = _load(browser, path)
    assert [entry for entry in logs if entry.get("level") in ("SEVERE", "WARNING")] == []
    assert browser.execute_script("return document.documentElement.clientWidth") <= 1280
    # the roofline's DRAM roof, two sweeps and the H100's roof; two overhead curves and the floor; 1x
    legibility(browser, lines=8)
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1280, min(int(height), 12000))
    shot = tmp_path / "every.png"
    assert browser.save_screenshot(str(shot)) and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="the plots need matplotlib (the plot extra)")
def test_the_legibility_check_finds_a_crossed_label_and_small_text(browser, tmp_path: Path) -> None:
    """The check above, on a plot drawn to fail it: a label on its line, a word of 7 pt, two on each other."""
    from grader.reports.html.drawing import Context, figure, svg_of

    fig, ax = figure(5, 3)
    ax.plot([0, 1], [0, 1], gid="data-diagonal")
    ax.annotate("on the line", (0.5, 0.5), ha="center", va="center", fontsize=10)
    ax.annotate("tiny", (0.1, 0.9), fontsize=7)
    ax.annotate("under", (0.9, 0.2), fontsize=10)
    ax.annotate("over", (0.9, 0.2), fontsize=10)
    plot = svg_of(fig, "t", "d", Context(lang="en", machine="m", when="w"))
    path = tmp_path / "crossed.html"
    path.write_text(f"<!DOCTYPE html><html><body>{plot.svg}</body></html>", encoding="utf-8")
    _load(browser, path)
    sizes, crossings, found, overlaps = browser.execute_script(LEGIBILITY)
    assert found == 1 and any('"on the line"' in c for c in crossings), crossings
    assert [text for size, text in sizes if size < 11] == ["tiny"]
    assert overlaps == [["under", "over"]]


#: Read in the browser at the window's width, every folded part opened first: the page's own width, the
#: elements whose right edge passes the viewport's, and each message block whose text is wider than its box
#: (a scrollbar inside it, or text cut).
FITS = """
document.querySelectorAll('details').forEach(d => { d.open = true; });
const width = document.documentElement.clientWidth;
const wide = Array.from(document.querySelectorAll('body *'))
  .filter(e => !e.closest('svg') || e.tagName === 'svg')
  .filter(e => e.getBoundingClientRect().right > width + 1)
  .map(e => e.tagName + '.' + e.className + ': ' + (e.textContent || '').slice(0, 60));
const scrolled = Array.from(document.querySelectorAll('pre, code, td, dd, li'))
  .filter(e => e.scrollWidth > e.clientWidth + 1 || ['auto', 'scroll'].includes(getComputedStyle(e).overflowX))
  .map(e => e.tagName + ': ' + e.textContent.slice(0, 60));
return [width, document.documentElement.scrollWidth, wide, scrolled];
"""


def _fits(driver: Any, path: Path) -> None:
    """The page at 1280 px: nothing wider than the viewport, no scrollbar inside a message."""
    driver.set_window_size(1280, 900)
    _load(driver, path)
    width, page_width, wide, scrolled = driver.execute_script(FITS)
    assert width <= 1280 and page_width <= width, (width, page_width)
    assert wide == [] and scrolled == []
    # and as a person sees it: the screen scrolled as far right as it goes is the screen not scrolled at all
    # (a page wider than the window would show another part of itself); kept beside the page to look at
    left = driver.get_screenshot_as_png()
    driver.execute_script("window.scrollTo(100000, 0)")
    assert driver.execute_script("return window.scrollX") == 0
    assert driver.get_screenshot_as_png() == left, f"{path.name} scrolls sideways at 1280 px"
    path.with_suffix(".png").write_bytes(left)


def test_every_page_fits_1280_px_and_folds_what_passed(graded, browser, tmp_path: Path, monkeypatch) -> None:
    """Issue 39 item 8: the session's page, a page of every plot with a deferral's long reason and a wrong
    answer's long figures, and the index, each 1280 px wide in Chromium: no element wider than the viewport,
    no message in a block that scrolls. An all-correct student's page folds its passed rows under one line
    (no script) and says no "passed." on them."""
    use_profile(monkeypatch, EPYC)
    long_line = "reason: " + "busy-core-" * 60  # one line wider than any page, unbroken
    outcomes = [
        *every_plot_outcomes(),
        _outcome(
            "late",
            "skipped",
            0.0,
            deferred=True,
            message=f"points deferred:\n{long_line}\n  others took 43% of core 3",
        ),
        _outcome(
            "bad",
            "wrong",
            0.0,
            details={
                "expected": "[" + ",".join(["1.0"] * 300) + "]",
                "got": "[" + ",".join(["2.5"] * 300) + "]",
            },
            message=f"wrong: {long_line}",
        ),
    ]
    stress = write_report(tmp_path / "stress.html", outcomes, lang="en", deferred="defer")
    index = tmp_path / "index.html"
    index.write_text(
        index_page(
            [("alice", outcomes), ("bob", outcomes[:3])],
            [o.name for o in outcomes],
            {},
            lang="zh",
            deferred="defer",
            when="now",
        ),
        encoding="utf-8",
    )
    for path in (graded["folder"] / "out" / "report.html", stress, index):
        _fits(browser, path)
    # an all-correct student: every row folded (closed), none says "passed."
    right = [_outcome(f"c{i}", "passed", 1.0, message="passed.") for i in range(12)]
    page = write_report(tmp_path / "right.html", right, lang="en", deferred="defer")
    text = page.read_text(encoding="utf-8")
    assert text.count('<details class="passed" data-passed="12">') == 1 and "<script" not in text
    assert 'data-field="message"' not in text and "passed.<" not in text
    browser.set_window_size(1280, 900)
    _load(browser, page)
    shown = browser.execute_script(
        "return Array.from(document.querySelectorAll('tr[data-check]')).filter(r => r.checkVisibility()).length"
    )
    assert shown == 0  # folded until opened
    assert browser.execute_script("return document.documentElement.scrollHeight") < 1500
    _fits(browser, page)


#: Read in the browser: the page's width and scroll width, the elements outside a scrolling box that pass
#: the viewport's right edge, the grid's box (its width, its content's width), and every exercise or check
#: name in the grid and the checks' table laid out on more than one line (broken mid-word).
GRID = """
const width = document.documentElement.clientWidth;
const wide = Array.from(document.querySelectorAll('body *'))
  .filter(e => !e.closest('.scroll') && (!e.closest('svg') || e.tagName === 'svg'))
  .filter(e => e.getBoundingClientRect().right > width + 1)
  .map(e => e.tagName + ': ' + (e.textContent || '').slice(0, 60));
const box = document.querySelector('[data-scroll="grid"]');
const broken = Array.from(document.querySelectorAll('table.grid th, th.name')).filter(th => {
  const r = document.createRange(); r.selectNodeContents(th);
  const boxes = Array.from(r.getClientRects());  // one a line of each inline part: one below another is a break
  return boxes.some(a => boxes.some(b => a.top >= b.bottom - 1));
}).map(th => th.textContent);
return [width, document.documentElement.scrollWidth, wide, box.clientWidth, box.scrollWidth, broken];
"""


def _class_of_sixteen(tmp_path: Path) -> tuple[Path, dict[str, list[Any]]]:
    """Three students over sixteen exercises of four checks each (as the kit's, with long check names): one
    done, one stopped at ex06 with a measurement deferred, one who answered nothing; their pages beside
    the index, as a batch writes them."""
    exercises = [f"ex{i:02d}" for i in range(1, 11)] + [f"m{i}" for i in range(1, 7)]
    names = ["1a_ridge_formula", "1b_ridge_for_an_h100_sxm", "2_attainable_flops", "3_bound_of_each_op"]

    def student(stop: int, deferred_at: str | None = None) -> list[Any]:
        outcomes = []
        for n, exercise in enumerate(exercises):
            for check in names:
                state = "passed" if n < stop else "not_attempted"
                late = exercise == deferred_at and check == names[-1]
                outcomes.append(
                    _outcome(
                        check,
                        "skipped" if late else state,
                        1.0 if state == "passed" and not late else 0.0,
                        exercise=exercise,
                        source=f"exercises/{exercise}_answers.py",
                        deferred=late,
                    )
                )
        return outcomes

    students = {
        "alice": student(16, deferred_at="m1"),
        "bob": student(6, deferred_at="ex03"),
        "carol": student(0),
    }
    pages = {}
    for name, outcomes in students.items():
        pages[name] = f"students/{name}.html"
        write_report(tmp_path / pages[name], outcomes, lang="zh", deferred="defer")
    index = tmp_path / "index.html"
    checks = [f"{e}::{c}" for e in exercises for c in names]
    index.write_text(
        index_page(list(students.items()), checks, pages, lang="zh", deferred="defer", when="now"),
        encoding="utf-8",
    )
    return index, students


def test_the_grid_in_a_browser_at_1280_px_and_on_a_phone(browser, tmp_path: Path) -> None:
    """Issue 47 item 5: the grid, as Chromium lays it out, comes first; a cell per student and exercise,
    its mark where a check was deferred; each cell opens the student's page at that exercise; no name broken
    mid-word; at 1280 px the whole grid is in view and nothing passes the page's edge; at a phone's 390 px
    the page still does not scroll sideways: the grid scrolls in its own box, the student's name kept."""
    index, students = _class_of_sixteen(tmp_path)
    browser.set_window_size(1280, 900)
    logs = _load(browser, index)
    assert [entry for entry in logs if entry.get("level") in ("SEVERE", "WARNING")] == []
    first = browser.execute_script("return document.querySelector('main section').id")
    assert first == "grid"
    cells = browser.execute_script(
        "return Array.from(document.querySelectorAll('table.grid td[data-exercise]')).map(td => "
        "[td.parentElement.dataset.student, td.dataset.exercise, td.innerText.trim(), "
        "td.querySelector('a') && td.querySelector('a').getAttribute('href')])"
    )
    assert len(cells) == 3 * 16
    shown = {(student, exercise): text for student, exercise, text, _ in cells}
    assert shown["alice", "ex01"] == "100" and shown["alice", "m1"] == "100*"
    assert shown["bob", "ex03"] == "100*" and shown["bob", "ex07"] == "○" and shown["bob", "ex02"] == "100"
    assert {text for (student, _), text in shown.items() if student == "carol"} == {"○"}
    for student, exercise, _, href in cells:
        target, _, anchor = href.partition("#")
        assert target == f"students/{student}.html" and anchor, href
        assert f'id="{anchor}" data-exercise="{exercise}"' in (tmp_path / target).read_text(encoding="utf-8")
    width, page_width, wide, box, content, broken = browser.execute_script(GRID)
    assert width <= 1280 and page_width <= width and wide == [] and broken == []
    assert content <= box, (box, content)  # the whole grid in view at 1280 px
    # a cell opens the student's page at that exercise
    browser.find_element("css selector", 'tr[data-student="bob"] td[data-exercise="ex07"] a').click()
    opened = browser.execute_script(
        "const t = document.getElementById(location.hash.slice(1));"
        "return [location.pathname.split('/').slice(-2).join('/'), t && t.dataset.exercise];"
    )
    assert opened == ["students/bob.html", "ex07"]
    # a phone: 390 CSS px wide
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True},
    )
    try:
        _load(browser, index)
        width, page_width, wide, box, content, broken = browser.execute_script(GRID)
        assert width == 390 and page_width <= width, (width, page_width)
        assert wide == [] and broken == []
        assert content > box  # the grid scrolls in its own box, not the page
        browser.execute_script("document.querySelector('[data-scroll=\"grid\"]').scrollLeft = 100000")
        kept, scrolled = browser.execute_script(
            "const b = document.querySelector('[data-scroll=\"grid\"]').getBoundingClientRect();"
            "const n = document.querySelector('table.grid tbody th').getBoundingClientRect();"
            "return [n.left >= b.left - 1 && n.right <= b.right + 1, window.scrollX];"
        )
        assert kept and scrolled == 0
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        browser.set_window_size(1280, 900)


#: Read in the browser: the page's language, its body's font stack, and for every heading and caption the
#: English beside it (its ``lang="en"`` part's text, or the element's own where the page is English) and
#: whether that part is drawn; the line saying the language and how to switch.
ENGLISH = """
const parts = Array.from(document.querySelectorAll(arguments[0])).map(e => {
  const en = document.documentElement.lang === 'en' ? e : e.querySelector('[lang="en"]');
  return [e.tagName, e.textContent, en ? en.textContent : null, !!en && en.getClientRects().length > 0,
          !e.closest('section.exercise')];
});
const line = document.querySelector('header [data-lang]');
return [document.documentElement.lang, getComputedStyle(document.body).fontFamily, parts,
        line && line.getClientRects().length > 0 ? line.innerText : null];
"""


def test_a_chinese_page_still_reads_without_a_font_for_its_script(browser, tmp_path: Path) -> None:
    """Issue 47 item 2: a Chinese index and student page say they are Chinese (``lang``), ask for a CJK font
    by name before the generic family, and show the English of every heading and caption beside the Chinese,
    in Latin letters any font draws; a line says the language and how to switch, in both."""
    index, students = _class_of_sixteen(tmp_path)
    # on the class's page also its columns' headings (a state's has its sign), the legend and the notes
    every = "h1, h2, h3, caption, thead th:not([data-state]):not([data-exercise]), [data-legend], .note"
    for path, which in ((index, every), (tmp_path / "students" / "bob.html", "h1, h2, h3, caption")):
        _load(browser, path)
        lang, family, parts, line = browser.execute_script(ENGLISH, which)
        assert lang == "zh-CN"
        stack = [f.strip().strip("\"'") for f in family.split(",")]
        assert "Noto Sans CJK SC" in stack and stack[-1] == "sans-serif", stack
        assert len(parts) >= (20 if which == every else 4), parts
        for tag, text, english, drawn, catalogued in parts:
            assert english and drawn, (path.name, tag, text)
            # the English is drawn by any Latin font: no Han character in it
            assert not re.search("[\u4e00-\u9fff]", english) and re.search("[A-Za-z]{3}", english), english
            if catalogued:  # the kit's own words: the Chinese first (an exercise's title is the fake's own)
                assert re.search("[\u4e00-\u9fff]", text.replace(english, "")), (tag, text)
        assert line is not None and "--lang en" in line and "English" in line, line
    # an English page is English throughout: no Chinese beside it but the line naming the other language
    path = write_report(tmp_path / "en.html", students["bob"], lang="en", deferred="defer")
    _load(browser, path)
    lang, _, parts, line = browser.execute_script(ENGLISH, "h1, h2, h3, caption")
    assert lang == "en" and all(english == text and text.isascii() for _, text, english, _, _ in parts), parts
    assert line is not None and "--lang zh" in line
