"""The HTML report (grader.html): what the three front ends write, read back against the JSON they write.

One grading session of the fake exercises (tests/grader/fakes.py: partly right, measurements,
probes and curves) is shared by the tests of the page; a real browser (Debian's chromium, driven by
selenium) loads that page in the last tests. Where no browser is installed they skip with the reason,
except under CI (CI=true), which must have one (.ci/run installs it) and fails instead.
"""

from __future__ import annotations

import html
import html.parser
import json
import os
import re
import runpy
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from grader.html import HtmlPathError, check_file, check_folder, page_name, write_report
from grader.html import plots as html_plots
from grader.html.page import index_page, student_page
from grader.outcome import STATES, Outcome, plain_data

FAKES = runpy.run_path(str(Path(__file__).resolve().parents[1] / "fakes.py"))
HAVE_MATPLOTLIB = html_plots.have_matplotlib()
ROOT = Path(__file__).resolve().parents[3]


# ---------------------------------------------------------------------------------------------------
# reading a page back


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


# ---------------------------------------------------------------------------------------------------
# one session of the fake exercises: JSON and HTML of the same grade


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
    assert set(rows) == set(tests) and len(tests) == 6 + 8 + 12
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


# ---------------------------------------------------------------------------------------------------
# pages built directly (fast): matplotlib missing, odd figures, paths


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
    monkeypatch.setattr(html_plots, "measured_ceilings", lambda: (1e11, 2e10))  # this machine: 20 GB/s
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

    import grader.html as html

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
    assert 'data-mean="0.333333"' in row
    assert page.find("a", href="students/alice.html")
    assert [a["data-score"] for a in page.find("td") if "data-score" in a] == ["2", "1", "0"]
    if HAVE_MATPLOTLIB:
        assert len(page.svgs) == 1 and "3 students, totals: 0, 1, 2." in page.text


# ---------------------------------------------------------------------------------------------------
# python -m grader file and python -m grader grade


@pytest.fixture
def fake_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fake exercise fk importable as html_fake_checks (a name no other test module imports)."""
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / "html_fake_checks.py").write_text(FAKES["FAKE_CHECKS"], encoding="utf-8")
    monkeypatch.syspath_prepend(str(modules))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(modules), os.environ.get("PYTHONPATH", "")]))
    return modules


def test_grader_file_writes_the_page(fake_modules: Path, tmp_path: Path, capsys) -> None:
    from grader.__main__ import main

    student = tmp_path / "fake_student.py"
    student.write_text(FAKES["PARTLY"], encoding="utf-8")
    out = tmp_path / "pages" / "one.html"
    code = main(
        [
            "file",
            "fk",
            str(student),
            "--grader-checks",
            "html_fake_checks",
            "--lang",
            "en",
            "--html",
            str(out),
        ]
    )
    assert code == 1  # not every check passed
    page = Page(out.read_text(encoding="utf-8"))
    total = page.find(id="total")[0]
    assert (_num(total["data-score"]), _num(total["data-max"])) == (3.0, FAKES["FAKE_MAX"])
    assert f"HTML report: {out}" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["file", "fk", str(student), "--grader-checks", "html_fake_checks", "--html", str(tmp_path)])
    assert exc.value.code == 2 and "--html" in capsys.readouterr().err


def test_batch_writes_an_index_and_a_page_per_student(fake_modules: Path, tmp_path: Path, capsys) -> None:
    from grader.batch.cli import main

    submissions = tmp_path / "submissions"
    for name, source in (
        ("alice", FAKES["CORRECT"]),
        ("bob", FAKES["PARTLY"]),
        ("carol", FAKES["NOT_ATTEMPTED"]),
    ):
        (submissions / name).mkdir(parents=True)
        (submissions / name / "fake_student.py").write_text(source, encoding="utf-8")
    planted = tmp_path / "a-file"
    planted.write_text("x")
    assert main([str(submissions), "--html", str(planted), "--grader-checks", "html_fake_checks"]) == 2
    assert "--html" in capsys.readouterr().err
    out, pages = tmp_path / "grades", tmp_path / "pages"
    code = main(
        [
            str(submissions),
            "--out",
            str(out),
            "--html",
            str(pages),
            "--grader-checks",
            "html_fake_checks",
            "--exercises",
            "fk",
            "--quiet",
            "--jobs",
            "2",
            "--lang",
            "en",
        ]
    )
    assert code == 0
    grades = json.loads((out / "grades.json").read_text(encoding="utf-8"))
    index_text = (pages / "index.html").read_text(encoding="utf-8")
    index = Page(index_text)
    self_contained(index_text, index)
    for name, data in grades["students"].items():
        row = index.find("tr", data_student=name)
        assert row, name
        text = (pages / "students" / f"{name}.html").read_text(encoding="utf-8")
        page = Page(text)
        self_contained(text, page)
        total = page.find(id="total")[0]
        assert (_num(total["data-score"]), _num(total["data-max"])) == (data["score"], data["max_score"])
        states = {a["data-check"]: a for a in page.find("tr") if "data-check" in a}
        assert set(states) == {f"{o['exercise']}::{o['check_id']}" for o in data["outcomes"]}
    # the distribution per check equals the states in grades.json
    for check in grades["checks"]:
        row = index_text[index_text.index(f'<tr data-check="{check}">') :]
        row = row[: row.index("</tr>")]
        counts = {k: int(v) for k, v in re.findall(r'data-state="(\w+)" data-count="(\d+)"', row)}
        expected = {s: 0 for s in STATES}
        for data in grades["students"].values():
            for o in data["outcomes"]:
                if f"{o['exercise']}::{o['check_id']}" == check:
                    expected[o["state"]] += 1
        assert counts == expected, check


# ---------------------------------------------------------------------------------------------------
# a real browser


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
        "--window-size=1200,900",
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
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1200, min(int(height), 12000))
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
