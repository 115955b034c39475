"""``python -m grader release OUT_DIR``: the student's repository, written from the instructor's.

The instructor's repository (this one) holds ``solutions/``, the kit's tests and its benchmarks; a student
is given the folder this module writes instead:

- ``exercises/``: the stubs, generated from ``solutions/`` as ``python -m grader stubs`` writes them (from
  the single source, not copied from ``exercises/``, where an instructor may have tried an answer);
- ``perfcore/`` and ``grader/``, whole: the checks compute their expected values from perfcore, so the
  kit grades there as it does here. ``perfcore/_release.py`` marks the copy as a student kit; by default
  it says ``WORKED_ANSWERS = False`` and the tour (``python -m perfcore``) leaves the exercises' worked
  answers out, saying so (see ``perfcore.tour.answers.worked_answers``); ``--worked-answers`` keeps them in
  (``--no-worked-answers``, the default now, is still accepted);
- ``README.md``: the student guide, Chinese then English, written from this repository's
  ``docs/students.md`` (less its ``<!-- instructor-only -->`` parts), with the grade commands of its
  ``<!-- grade-command -->`` blocks (README.md's, and students.md's for an Intel Mac and Windows), so the
  two never disagree; ``docs/`` itself never ships;
- ``pyproject.toml``: the kit under the same name and version, with the same runtime dependencies, the
  ``torch`` and ``plot`` extras, the pytest plugin's entry point and ``testpaths = ["exercises"]`` (a bare
  ``pytest`` in the folder grades ``exercises/``), and with ``--lang`` the course's feedback language as
  ``[tool.perfkit] lang`` (without it each student's locale decides: :mod:`grader.text.lang`);
  ``.gitignore`` and ``LICENSE``.

Never ``solutions/``, ``tests/``, ``benchmarks/``, ``docs/``, notebooks or ``__pycache__``. perfcore itself is the
reference library, so its source computes what the checks expect: the kit hides the worked answers from
the tour, not from a student who reads perfcore's code.

The kit is built in a temporary folder next to OUT_DIR and renamed into place, so OUT_DIR is either the
old contents or the whole new kit. A non-empty OUT_DIR is refused unless ``--force``, which replaces its
contents but keeps its ``.git``: the instructor's published student repository can be released into
again and committed. OUT_DIR may not be the repository, hold it, or lie in one of its own folders.
Its command line is :mod:`grader.course.cli.kit`'s.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from ..registry import load_exercises
from ..text.catalogue import LANGS
from .stubs import BEGIN, solution_files, stub_text

#: The instructor's repository: the folder that holds ``solutions/``, ``perfcore/`` and ``grader/``.
KIT_ROOT = Path(__file__).resolve().parents[2]

#: The packages a kit holds whole.
PACKAGES = ("perfcore", "grader")

#: Folders of the instructor's repository that OUT_DIR may neither be nor lie inside.
PROTECTED = ("perfcore", "grader", "solutions", "exercises", "tests", "benchmarks", "docs", ".git", ".venv")

#: The extras a student installs (the formula exercises need none; the measurement tasks need torch).
STUDENT_EXTRAS = ("torch", "plot")

#: Never copied out of perfcore/ and grader/: byte code, editor and tool files, notebooks.
_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo", ".*", "*.egg-info", "*.ipynb")

#: ``.git`` in OUT_DIR is the published repository's history: kept by ``--force``, and not "contents".
_KEPT = ".git"

#: The kit's own files that are not copied but written, each from a template shipped as package data beside
#: this module (pyproject.toml's package-data): str.format templates, filled in where they are written.
KIT_TEMPLATES = {
    "gitignore": "kit_gitignore.tmpl",
    "release_marker": "kit_perfcore_release.py.tmpl",
    "pyproject_header": "kit_pyproject_header.tmpl",
    "readme": "kit_readme.md.tmpl",
    "tour_note_worked": "kit_tour_note_worked.tmpl",
    "tour_note_left_out": "kit_tour_note_left_out.tmpl",
}


def kit_template(name: str) -> str:
    """The text of the kit template ``name`` (a key of :data:`KIT_TEMPLATES`), read from the package."""
    if name not in KIT_TEMPLATES:
        raise ValueError(f"name must be one of {sorted(KIT_TEMPLATES)}, got {name!r}")
    return resources.files(__package__).joinpath(KIT_TEMPLATES[name]).read_text(encoding="utf-8")


def tour_note(worked_answers: bool) -> str:
    """What the kit's README says of the tour's worked answers, Chinese then English."""
    # the README's template ends the line after the note itself; the note's file ends as a text file does
    return kit_template("tour_note_worked" if worked_answers else "tour_note_left_out").removesuffix("\n")


class ReleaseError(ValueError):
    """A release that cannot be written as asked; the message names the argument and says why."""


# ------------------------------------------------------------------------------------------------------
# What the kit holds
# ------------------------------------------------------------------------------------------------------


def _toml(value: Any) -> str:
    """``value`` (a string, a list of them, or a list of string tables) as TOML."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    return "[" + ", ".join(_toml(v) for v in value) + "]"


def _read_toml(path: Path) -> dict[str, Any]:
    if sys.version_info < (3, 11):  # the kit runs on 3.10; its instructor's tools (nbgrader too) need 3.11
        raise ReleaseError("python -m grader release reads pyproject.toml with tomllib: use Python 3.11+")
    import tomllib  # deferred on purpose: Python 3.11+, and the kit itself runs on 3.10

    return tomllib.loads(path.read_text(encoding="utf-8"))


def student_pyproject(root: Path = KIT_ROOT, lang: str | None = None) -> str:
    """The kit's pyproject.toml, from the instructor's: the same name, version, runtime dependencies,
    ``torch`` and ``plot`` extras, scripts and pytest plugin, and ``pytest`` grading ``exercises/``.

    The name stays ``perfkit``: a student kit and the instructor's kit are one distribution providing
    the same two packages, so installing one replaces the other, and the grades' environment record
    (``perfkit``'s version) reads the same. ``lang``, where given, is the course's feedback language
    (``[tool.perfkit] lang``, read by :func:`grader.text.lang.resolve_lang`)."""
    source = _read_toml(root / "pyproject.toml")
    project = source["project"]
    extras = project.get("optional-dependencies", {})
    missing = [name for name in STUDENT_EXTRAS if name not in extras]
    if missing:
        raise ReleaseError(f"{root / 'pyproject.toml'} declares no extra {', '.join(missing)}")
    lines = [kit_template("pyproject_header"), "[build-system]"]
    lines += [f"{k} = {_toml(v)}" for k, v in source["build-system"].items()]
    fields = {key: project[key] for key in ("name", "version", "description") if key in project}
    fields["readme"] = "README.md"  # the student guide this module writes
    for key in ("requires-python", "license", "authors", "dependencies"):
        if key in project:
            fields[key] = project[key]
    lines += ["", "[project]"] + [f"{k} = {_toml(v)}" for k, v in fields.items()]
    lines += ["", "[project.optional-dependencies]"]
    lines += [f"{name} = {_toml(extras[name])}" for name in STUDENT_EXTRAS]
    if project.get("scripts"):
        lines += ["", "[project.scripts]"] + [f"{k} = {_toml(v)}" for k, v in project["scripts"].items()]
    for group, points in project.get("entry-points", {}).items():
        lines += ["", f"[project.entry-points.{group}]"] + [f"{k} = {_toml(v)}" for k, v in points.items()]
    lines += [
        "",
        "[tool.setuptools.packages.find]",
        f"include = {_toml([f'{p}*' for p in PACKAGES])}",
        "",
        "[tool.pytest.ini_options]",
        "# a bare `pytest` in this folder grades the exercises",
        'testpaths = ["exercises"]',
        "",
    ]
    if lang is not None:
        if lang not in LANGS:
            raise ReleaseError(f"--lang must be one of {LANGS}, got {lang!r}")
        lines += [
            "[tool.perfkit]",
            "# the language of the grader's feedback in this course; --grader-lang still chooses per run",
            f"lang = {_toml(lang)}",
            "",
        ]
    return "\n".join(lines)


def readme_block(readme: str, marker: str, source: str = "README.md") -> str:
    """The code block that follows ``<!-- marker -->`` in ``readme`` (the text of ``source``), without its
    fences."""
    tag = f"<!-- {marker} -->"
    if tag not in readme:
        raise ReleaseError(f"{source} has no {tag} block: the student README takes its commands from it")
    after = readme[readme.index(tag) :]
    return after.split("```", 2)[1].split("\n", 1)[1].strip()


#: The student guide of the instructor's repository, bilingual: the kit's README is written from it.
STUDENT_GUIDE = "docs/students.md"


def marked_text(text: str, marker: str, source: str = STUDENT_GUIDE) -> str:
    """What ``text`` (the text of ``source``) holds between ``<!-- marker -->`` and ``<!-- /marker -->``."""
    begin, end = f"<!-- {marker} -->", f"<!-- /{marker} -->"
    if begin not in text or end not in text:
        raise ReleaseError(f"{source} has no {begin} ... {end} part: the student README takes it from there")
    return text[text.index(begin) + len(begin) : text.index(end)].strip()


#: Where each setup command of the kit's README is, as a ``<!-- marker -->`` block: the first command in
#: README.md, its forms for an Intel Mac and for Windows in the student guide.
COMMANDS = {
    "grade-command": "README.md",
    "grade-command-macos-intel": STUDENT_GUIDE,
    "grade-command-windows": STUDENT_GUIDE,
}

#: Where the student guide's reading part begins in docs/students.md, and the heading that would end it.
GUIDE_FIRST, GUIDE_AFTER = "## 怎样读反馈 · Reading the feedback", "\n# "
INSTRUCTOR_ONLY = re.compile(r"\n?<!-- instructor-only -->.*?<!-- /instructor-only -->\n?", re.S)


def student_guide(guide: str, source: str = STUDENT_GUIDE) -> str:
    """The student guide (the text of ``source``) from reading the feedback to its end (what the
    measurement tasks need), less its ``<!-- instructor-only -->`` parts: the kit's README says what the
    guide says, so the two never drift apart."""
    if GUIDE_FIRST not in guide:
        raise ReleaseError(
            f"{source} has no heading {GUIDE_FIRST!r}: the student README takes its guide from it"
        )
    guide = guide[guide.index(GUIDE_FIRST) :]
    guide = guide[: guide.index(GUIDE_AFTER)] if GUIDE_AFTER in guide else guide
    return INSTRUCTOR_ONLY.sub("\n", guide).strip()


def _source(root: Path, name: str) -> str:
    """The text of the instructor's ``name`` (README.md, docs/students.md) the kit's README is written from."""
    path = root / name
    if not path.is_file():
        raise ReleaseError(f"no {path}: the student README is written from it")
    return path.read_text(encoding="utf-8")


def student_readme(worked_answers: bool, root: Path = KIT_ROOT) -> str:
    """The kit's README: the student guide of docs/students.md, bilingual, for this folder, with the setup
    commands of the marked blocks of README.md and docs/students.md."""
    texts = {name: _source(root, name) for name in sorted({*COMMANDS.values(), STUDENT_GUIDE})}
    commands = {
        marker.replace("-", "_"): readme_block(texts[name], marker, name) for marker, name in COMMANDS.items()
    }
    return kit_template("readme").format(
        **commands,
        guide=student_guide(texts[STUDENT_GUIDE]),
        watch=marked_text(texts[STUDENT_GUIDE], "watch"),
        tour_note=tour_note(worked_answers),
    )


def exercise_stubs(root: Path = KIT_ROOT) -> dict[str, str]:
    """File name -> the stub, for every file of ``solutions/``; a ReleaseError where an exercise's solution
    has no solution region (its "stub" would be the answer itself)."""
    solutions = root / "solutions"
    exercises = {e.module for e in load_exercises().values()}
    stubs = {}
    for path in solution_files(solutions):
        text = path.read_text(encoding="utf-8")
        if path.stem in exercises and BEGIN not in text:
            raise ReleaseError(
                f"{path} is exercise {path.stem}'s solution but has no {BEGIN!r} region: its stub would be "
                "the answer itself"
            )
        stubs[path.name] = stub_text(path)
    return stubs


def write_kit(into: Path, worked_answers: bool, root: Path = KIT_ROOT, lang: str | None = None) -> None:
    """Write the kit's files into the existing, empty folder ``into``."""
    stubs = exercise_stubs(root)
    readme = student_readme(worked_answers, root)
    pyproject = student_pyproject(root, lang)
    for package in PACKAGES:
        shutil.copytree(root / package, into / package, ignore=_IGNORED)
    (into / "perfcore" / "_release.py").write_text(
        kit_template("release_marker").format(worked_answers=worked_answers), encoding="utf-8"
    )
    (into / "exercises").mkdir()
    for name, text in stubs.items():
        (into / "exercises" / name).write_text(text, encoding="utf-8")
    (into / "README.md").write_text(readme, encoding="utf-8")
    (into / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    (into / ".gitignore").write_text(kit_template("gitignore"), encoding="utf-8")
    if (root / "LICENSE").is_file():  # MIT: the notice goes with every copy
        shutil.copy2(root / "LICENSE", into / "LICENSE")


# ------------------------------------------------------------------------------------------------------
# Where it goes
# ------------------------------------------------------------------------------------------------------


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def checked_out_dir(out_dir: str | os.PathLike[str], force: bool, root: Path = KIT_ROOT) -> Path:
    """OUT_DIR, resolved, once it is a place a kit may be written to; a ReleaseError naming it otherwise."""
    given = os.fspath(out_dir)
    if not given.strip():
        raise ReleaseError("OUT_DIR is empty: name the folder to write the student kit to")
    out = Path(given).expanduser().resolve()
    repo = root.resolve()
    if _inside(repo, out):
        raise ReleaseError(
            f"OUT_DIR {given!r} is the instructor's repository {repo} or holds it: write the kit elsewhere, "
            "e.g. ../perfkit-student"
        )
    for name in PROTECTED:
        if _inside(out, repo / name):
            raise ReleaseError(
                f"OUT_DIR {given!r} is or lies in the repository's own {name}/ folder: write the kit "
                "outside it, e.g. ../perfkit-student"
            )
    if out.exists() and not out.is_dir():
        raise ReleaseError(f"OUT_DIR {given!r} exists and is not a folder")
    if out.is_dir() and not force and any(p.name != _KEPT for p in out.iterdir()):
        raise ReleaseError(
            f"OUT_DIR {given!r} exists and is not empty: choose a new or empty folder, or pass --force to "
            f"replace what it holds (its {_KEPT} folder, if any, is kept)"
        )
    return out


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_release(
    out_dir: str | os.PathLike[str],
    *,
    worked_answers: bool = False,
    force: bool = False,
    root: Path = KIT_ROOT,
    lang: str | None = None,
) -> Path:
    """Write the student kit (see the module docstring) to ``out_dir`` and return its resolved path.

    Built in a temporary folder beside OUT_DIR, then renamed into place; an old OUT_DIR (empty, or any
    with ``force``) is moved aside first and deleted last, its ``.git`` moved into the new kit. On any
    error OUT_DIR is left as it was and the temporary folder is removed."""
    out = checked_out_dir(out_dir, force, root)
    if not (root / "solutions").is_dir():
        raise ReleaseError(
            f"no solutions folder {root / 'solutions'}: python -m grader release runs in the instructor's "
            "repository (a student kit has none)"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    new = Path(tempfile.mkdtemp(prefix=f".{out.name}.release-", dir=out.parent))
    try:
        new.chmod(0o777 & ~_umask())  # mkdtemp's folder is private (0700); the kit is an ordinary folder
        write_kit(new, worked_answers, root, lang)
        if not out.exists():
            new.rename(out)
            return out
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        old.rmdir()
        out.rename(old)
        try:
            if (old / _KEPT).exists():
                (old / _KEPT).rename(new / _KEPT)
            new.rename(out)
        except BaseException:
            if (new / _KEPT).exists() and not (old / _KEPT).exists():
                (new / _KEPT).rename(old / _KEPT)
            if not out.exists():
                old.rename(out)
            raise
        shutil.rmtree(old, ignore_errors=True)
        return out
    finally:
        if new.exists():
            shutil.rmtree(new, ignore_errors=True)


def kit_files(out: Path) -> list[Path]:
    """Every file of a written kit, relative to it, ``.git`` left out."""
    return sorted(
        p.relative_to(out) for p in out.rglob("*") if p.is_file() and _KEPT not in p.relative_to(out).parts
    )
