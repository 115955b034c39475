"""The docs' figures (issue 39): every line count and time that README.md and docs/students.md state is
written by ``benchmarks/bench_student_loop.py --write-docs``, never typed: the table between the guide's
``<!-- student-loop -->`` markers, and each figure of the prose between ``<!-- figure NAME -->`` and
``<!-- /figure -->``. The first run's line count is held to what the stubs print here and now."""

from __future__ import annotations

import re
from collections.abc import Iterator
from types import ModuleType

import pytest

from grader.pytest.feedback import BRIEF_LINES

from .benchmark import loaded

#: A figure measured by running something: a time, or a count of lines printed (either language)
MEASURED = re.compile(r"\d+(?:\.\d+)?\s?(?:s|ms|min|seconds|minutes|lines)\b|\d+(?:\.\d+)?\s?(?:秒|分钟|行)")


@pytest.fixture(scope="module")
def bench() -> Iterator[ModuleType]:
    """The benchmark script as a module (a script beside the package, not in it), registered while it is
    used: its dataclass looks its own module up by name."""
    with loaded("bench_student_loop.py", "bench_student_loop") as module:
        yield module


def _texts(bench: ModuleType) -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in bench.DOCS}


def _table(bench: ModuleType) -> dict[str, list[str]]:
    """The guide's student-loop table: each run's name (:data:`TITLES`' keys) -> its cells after the title."""
    guide = bench.GUIDE.read_text(encoding="utf-8")
    block = guide[guide.index(bench.BEGIN) : guide.index(bench.END)]
    rows = {}
    for name, title in bench.TITLES.items():
        head = f"| `{title.split(' (')[0]}` ("
        (line,) = [raw for raw in block.splitlines() if raw.startswith(head)]
        rows[name] = [cell.strip() for cell in line.split("|")[2:-1]]
    return rows


def _listed(deferred: int) -> int:
    """The lines a run's list of deferred checks takes: a heading, then one line a check (none: no list)."""
    return deferred + 1 if deferred else 0


def test_the_first_runs_line_count_in_the_docs_is_what_the_stubs_print(bench: ModuleType) -> None:
    """README and the guide say how many lines a fresh kit's `pytest exercises/` prints, and the guide's table
    says how many of its checks were deferred there. The stubs are run here as the command runs them; a
    machine that defers other checks (no torch, a CUDA GPU, a small cache) lists them, a line each, and
    everything else it prints is the same: a changed first run (a line more in its footer) fails here until
    the docs are written again."""
    _, output = bench.run(bench.RUNS["stubs"])
    lines, deferred = bench.lines_printed(output), bench.deferred_checks(output)
    assert "checks await your answer" in output or "个检查等你作答" in output, output[-2000:]
    said = {
        (name, int(value))
        for name, text in _texts(bench).items()
        for figure, value in bench.FIGURE.findall(text)
        if figure == "first-run-lines"
    }
    assert {name for name, _ in said} == {"README.md", "students.md"}, said
    row = _table(bench)["stubs"]
    docs_lines, docs_deferred = int(row[0]), int(row[1])
    assert {value for _, value in said} == {docs_lines}  # the prose says what the table says
    assert lines - _listed(deferred) == docs_lines - _listed(docs_deferred), (
        f"the stubs print {lines} lines here ({deferred} checks deferred); the docs say {docs_lines}"
        f" ({docs_deferred} deferred): run benchmarks/bench_student_loop.py --write-docs"
    )


def test_every_figure_of_the_docs_sits_between_markers(bench: ModuleType) -> None:
    """Past the marked table and figures, no time and no line count is left in README or the guide, but the
    feedback's cap of lines (the grader's own constant, not a measurement); and each prose figure is what
    the writer makes of the table's rows."""
    rows = {
        name: bench.Row(int(cells[0]), int(cells[1]), [float(cells[2].removesuffix(" s"))])
        for name, cells in _table(bench).items()
    }
    named = set()
    for name, text in _texts(bench).items():
        assert bench.figures(text, rows, name) == text, f"{name}'s figures are not the table's"
        named |= {figure for figure, _ in bench.FIGURE.findall(text)}
        bare = bench.FIGURE.sub("", text)
        if bench.BEGIN in bare:
            bare = bare[: bare.index(bench.BEGIN)] + bare[bare.index(bench.END) :]
        # the watch's latencies, written by benchmarks/bench_watch.py --write-docs between its own markers
        bare = re.sub(r"<!-- watch-latency -->.*?<!-- /watch-latency -->", "", bare, flags=re.S)
        for found in MEASURED.finditer(bare):
            near = bare[max(0, found.start() - 12) : found.end()]
            assert found.group() in (f"{BRIEF_LINES} lines", f"{BRIEF_LINES} 行"), f"{name}: typed {near!r}"
            assert "at most" in near or "最多" in near, f"{name}: typed {near!r}"
    assert named == set(bench.FIGURES)  # every figure the command writes is said somewhere


def test_the_figures_writer_names_what_it_cannot_write(bench: ModuleType) -> None:
    rows = {name: bench.Row(7, 0, [1.0]) for name in bench.TITLES}
    text = "prints <!-- figure first-run-lines -->1<!-- /figure --> lines in <!-- figure full-run-time -->"
    text += "x<!-- /figure -->"
    assert bench.figures(text, rows) == (
        "prints <!-- figure first-run-lines -->7<!-- /figure --> lines in"
        " <!-- figure full-run-time -->1 s<!-- /figure -->"
    )
    with pytest.raises(ValueError, match="'lines-typed'.*first-run-lines"):
        bench.figures("<!-- figure lines-typed -->3<!-- /figure -->", rows, "README.md")
    assert bench._minutes(407.04) == "6 min 47 s" and bench._minutes(59.4) == "59 s"


def test_the_guides_student_loop_table_is_the_benchmarks_own(bench: ModuleType) -> None:
    """The guide's line counts and times are written by `bench_student_loop.py --write-docs`, never typed:
    the block between the markers is what the command's writer makes of its own rows."""
    guide = bench.GUIDE.read_text(encoding="utf-8")
    block = guide[guide.index(bench.BEGIN) : guide.index(bench.END)]
    assert "--write-docs`" in block.splitlines()[1]
    rows = {name: bench.Row(7, 2, [1.0, 2.0, 3.0]) for name in bench.TITLES}
    written = bench.docs_block(guide, rows, 3, "a machine", ["a ratio", "the rerun"])
    for title in bench.TITLES.values():
        assert f"({title.split(' (', 1)[1]} | 7 | 2 | 2.0 s | 1.0 s | 3.0 s |" in written
    assert "\n- a ratio\n- the rerun\n" + bench.END in written
    assert written.count(bench.BEGIN) == 1 and written.replace(
        written[written.index(bench.BEGIN) : written.index(bench.END)], ""
    ) == guide.replace(block, "")
    with pytest.raises(ValueError, match="student-loop"):
        bench.docs_block("no markers here", rows, 3, "a machine", [])
    # the table as it stands has every run, the full one included: lines printed, a median within its rounds
    for name, cells in _table(bench).items():
        lines, _, median, least, most = (float(c.removesuffix(" s")) for c in cells)
        assert lines > 0 and 0 < least <= median <= most, (name, cells)


def test_the_guides_watch_latencies_are_bench_watchs_own_table() -> None:
    """The latencies beside the watch in the guide are written by `bench_watch.py --write-docs`: its table's
    header, one row per condition it runs, each cell in its writer's form."""
    with loaded("bench_watch.py", "bench_watch") as watch:
        text = watch.DOCS.read_text(encoding="utf-8")
        block = re.search(r"<!-- watch-latency -->\n(.*?)<!-- /watch-latency -->", text, flags=re.S)
        assert block is not None, "no watch-latency block in the guide"
        made = watch.table({"quiet": {"formula": [0.3], "cold": [1.2], "measuring": [9.0]}})
        lines = [line for line in block.group(1).splitlines() if line.startswith("|")]
        assert lines[:2] == made[:2]
        assert [line.split(" | ")[0] for line in lines[2:]] == ["| quiet", "| busy"]
        row = re.compile(
            r"\| \w+ \| \d+\.\d\d s, \d+\.\d\d s \| \d+\.\d\d s \| \d+\.\dx \| (\d+\.\d s|\(no torch\)) \|"
        )
        assert all(row.fullmatch(line) for line in lines[2:]), lines
