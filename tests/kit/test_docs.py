"""The repository's documents: README.md is the front door (what the kit is, the two commands, where to go
next) and the guides in docs/ hold the rest; the marked command blocks that CI and ``grader release`` read
are each in one place, where those readers look."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from grader.course.release import COMMANDS, STUDENT_GUIDE, readme_block

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"

#: The guides README sends its readers to.
GUIDES = ("docs/students.md", "docs/instructors.md", "docs/measurement.md", "docs/maintainers.md")

#: Every marked block, and the one file that holds it.
MARKED = {
    "grade-command": "README.md",
    "test-command": "README.md",
    "grade-command-macos-intel": "docs/students.md",
    "grade-command-windows": "docs/students.md",
}


def _links(text: str) -> set[str]:
    """The targets of the Markdown links in ``text``, without their ``#anchor``."""
    return {target.split("#")[0] for target in re.findall(r"\]\(([^)\s]+)\)", text)}


def test_readme_is_short_and_links_every_guide() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 150
    links = _links(text)
    for guide in GUIDES:
        assert (ROOT / guide).is_file(), guide
        assert guide in links, f"README.md does not link {guide}"


@pytest.mark.parametrize("guide", GUIDES)
def test_each_guide_opens_with_its_contents_and_its_links_resolve(guide: str) -> None:
    text = (ROOT / guide).read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0].startswith("# ")
    # a table of contents: within its first lines, a list of links to its own headings
    head = "\n".join(lines[:16])
    assert len(re.findall(r"^\s*- \[[^\]]+\]\(#", head, flags=re.M)) >= 2, head
    for target in _links(text):
        if not target or "://" in target:
            continue
        assert (ROOT / guide).parent.joinpath(target).resolve().exists(), f"{guide} links {target}"


def test_each_marked_block_is_in_one_place_only() -> None:
    documents = {"README.md": README} | {g: ROOT / g for g in GUIDES}
    for marker, home in MARKED.items():
        # the marker on a line of its own with a code block after it (prose may name it in backticks)
        block = re.compile(rf"^[ \t]*<!-- {marker} -->[ \t]*\n[ \t]*```", re.M)
        found = {
            name: len(block.findall(path.read_text(encoding="utf-8"))) for name, path in documents.items()
        }
        assert {name: n for name, n in found.items() if n} == {home: 1}, (marker, found)
    # where `grader release` looks for the kit's setup commands and its guide
    assert COMMANDS == {m: h for m, h in MARKED.items() if m != "test-command"}
    assert STUDENT_GUIDE == "docs/students.md"


def test_ci_finds_the_test_command_in_readme() -> None:
    """``.ci/run`` takes the block after ``<!-- test-command -->`` from README.md with awk."""
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    (line,) = [raw for raw in run.splitlines() if raw.startswith("cmd=$(awk ")]
    assert "README.md" in line
    if shutil.which("awk") is None:
        pytest.skip("no awk here to run .ci/run's line with")
    done = subprocess.run(
        ["bash", "-c", f'{line}\nprintf "%s" "$cmd"'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    command = readme_block(README.read_text(encoding="utf-8"), "test-command")
    assert done.stdout.strip() == command
    assert command.startswith("python3 -m venv .venv") and "-m pytest" in command


def test_the_student_guide_keeps_both_languages_and_its_instructor_only_part() -> None:
    text = (ROOT / "docs" / "students.md").read_text(encoding="utf-8")
    for heading in (
        "## 开始 · Getting started",
        "## 怎样读反馈 · Reading the feedback",
        "## 测量题需要什么 · What the measurement tasks need from the machine",
    ):
        assert heading in text
    assert text.count("<!-- instructor-only -->") == text.count("<!-- /instructor-only -->") >= 1
    assert "(report.png)" in text and (ROOT / "docs" / "report.png").is_file()


def test_the_instructors_guide_says_one_thing_of_html_with_student() -> None:
    """Issue 47 item 6: one paragraph said ``--html`` works with ``--student``, another that it is refused.
    The command accepts it (tests/grader/batch/test_cli.py's regrade with ``--html``): no sentence of the
    guide that names both options may call the pair refused, and at least one says what it does."""
    text = (ROOT / "docs/instructors.md").read_text(encoding="utf-8")
    sentences = re.split(r"(?<=[.:;])\s+", " ".join(text.split()))
    both = [s for s in sentences if "`--html" in s and "--student" in s]
    assert both, "the guide no longer says what --html does with --student"
    assert not [s for s in both if "refused" in s], [s for s in both if "refused" in s]
