"""The student stubs, generated from ``solutions/`` (the single source).

Each region between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` (nbgrader's markers) becomes
``# YOUR CODE HERE`` and ``raise NotImplementedError()`` at the region's indentation; everything else (the
question in the docstrings, the signatures, the constants) is kept. ``python -m grader stubs`` writes
``exercises/``; ``python -m grader stubs --check`` fails when ``exercises/`` differs from what it would
write, and the kit's tests run that check.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..text.catalogue import LANGS, render

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
#: The stub's first lines, Chinese then English: where the file came from and what to do with it, in the
#: student's terms (a kit has no solutions/ folder to be generated from).
HEADER = "".join(f"# {line}\n" for lang in LANGS for line in render("stub_header", lang).splitlines())
_MARKER = re.compile(r"^(?P<indent>[ \t]*)### (?P<kind>BEGIN|END) SOLUTION[ \t]*$")


def strip_solutions(source: str, name: str = "<source>") -> str:
    """``source`` with every solution region replaced by the stub's two lines; a ValueError names the file
    and line of a marker that does not pair up."""
    out: list[str] = []
    open_line = 0
    indent = ""
    for number, line in enumerate(source.splitlines(keepends=True), start=1):
        match = _MARKER.match(line.rstrip("\n"))
        if match and match["kind"] == "BEGIN":
            if open_line:
                raise ValueError(f"{name}:{number}: {BEGIN} inside the region opened at line {open_line}")
            open_line, indent = number, match["indent"]
            out.append(f"{indent}# YOUR CODE HERE\n{indent}raise NotImplementedError()\n")
        elif match:
            if not open_line:
                raise ValueError(f"{name}:{number}: {END} without a {BEGIN} before it")
            open_line = 0
        elif not open_line:
            out.append(line)
    if open_line:
        raise ValueError(f"{name}:{open_line}: {BEGIN} is never closed by {END}")
    return "".join(out)


def stub_text(solution: Path) -> str:
    """The stub that ``solution`` generates: the header, then the source with its regions stripped."""
    text = solution.read_text(encoding="utf-8")
    if BEGIN not in text:
        return text  # a helper module with nothing to answer is copied as it is
    return HEADER + strip_solutions(text, str(solution))


def solution_files(solutions_dir: Path) -> list[Path]:
    """The files stubs are generated from: every .py file of ``solutions_dir`` (not its subfolders)."""
    return sorted(p for p in solutions_dir.glob("*.py") if p.name != "conftest.py")


def generate(solutions_dir: Path, exercises_dir: Path, check: bool = False) -> list[Path]:
    """Write (or, with ``check``, compare) the stubs; return the stub files that differed."""
    if not solutions_dir.is_dir():
        raise ValueError(f"solutions_dir {solutions_dir} is not a folder")
    differing = []
    wanted = {exercises_dir / s.name: stub_text(s) for s in solution_files(solutions_dir)}
    for path, text in wanted.items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != text:
            differing.append(path)
            if not check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
    stale = [p for p in exercises_dir.glob("*.py") if p not in wanted and p.name != "conftest.py"]
    differing += stale
    if not check:
        for path in stale:
            path.unlink()
    return differing
