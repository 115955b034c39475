"""A submission's intake, before any of it runs: which students a submissions folder holds, which of their
files are the exercise files, and the private copy of the folder that holds them.

For each student (a sub-folder of ``SUBMISSIONS_DIR``), the exercise files are found at the top of the
folder (or, where none is there, in the shallowest sub-folder that has them: :func:`find_students`). The
folder that holds them is copied whole (other ``.py`` files and small data files: helper modules work, as
they do under pytest; links are not followed, files over 1 MiB and hidden files are left out) into a private
temporary folder (:func:`copy_folder`). Folders are walked without recursion, shallow first, and within
limits (:data:`MAX_DEPTH` levels, :data:`MAX_ENTRIES` entries looked at, :data:`MAX_FILES` files and
:data:`MAX_FOLDER_BYTES` bytes copied); what a limit left out is said in the student's notes (grades.json,
the HTML page). A student is named by :func:`~grader.results.outcome.shown_name` of the folder's name:
valid, printable text, one per folder, in every file and line the batch writes.
"""

from __future__ import annotations

import difflib
import os
import re
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..results.outcome import State, shown_name
from ..specs.check import Exercise
from ..text.catalogue import LANGS, render
from .errors import BatchError

if TYPE_CHECKING:
    from .shard import Shard

#: Largest file of a submission that is copied (and so graded).
MAX_FILE_BYTES = 1 << 20
#: Most files and bytes copied from one submission's folder.
MAX_FILES = 200
MAX_FOLDER_BYTES = 16 << 20
#: Deepest folder, below the student's, that is looked in; most directory entries looked at in one folder
#: tree. A submission nested 1200 folders deep made a recursive walk raise RecursionError, and one with a
#: million files would take the batch's time: both are left out, and said so.
MAX_DEPTH = 16
MAX_ENTRIES = 10_000
#: How many of the paths a limit left out a note names, and how much of each.
NOTE_EXAMPLES = 3
NOTE_PATH_CHARS = 80


@dataclass(frozen=True)
class Student:
    """One student's folder and the files found there: ``{module stem: path}`` and problems by stem.
    ``name`` is the folder's name as every report shows it (:func:`~grader.results.outcome.shown_name`)."""

    name: str
    folder: Path
    files: dict[str, Path] = field(default_factory=dict)
    problems: dict[str, tuple[State, str]] = field(default_factory=dict)
    #: What looks malformed in the folder (:func:`intake_notes`), in the batch's language
    notes: tuple[str, ...] = ()
    #: The notebooks (``.ipynb``, paths in the folder) found where an exercise file is missing: none of
    #: them is graded (:func:`notebooks_in`), which the class's outputs say (a notebook-only folder is no
    #: empty one)
    notebooks: tuple[str, ...] = ()


@dataclass
class Listing:
    """What :func:`list_folder` found below a folder: regular files (shallow first, by name within a folder),
    links (never followed), the folders deeper than :data:`MAX_DEPTH` (not entered), the folders that could
    not be read, and whether the walk stopped at :data:`MAX_ENTRIES`. Hidden names are never listed."""

    files: list[Path] = field(default_factory=list)
    links: list[Path] = field(default_factory=list)
    too_deep: list[Path] = field(default_factory=list)
    unreadable: list[Path] = field(default_factory=list)
    cut: bool = False


def list_folder(top: Path) -> Listing:
    """Walk ``top`` breadth first, with a queue rather than recursion (``Path.rglob`` and Python 3.11's
    ``os.walk`` recurse once per level, and a deep enough folder raised RecursionError), within the limits."""
    listing = Listing()
    queue: deque[tuple[Path, int]] = deque([(top, 0)])
    seen = 0
    while queue:
        folder, depth = queue.popleft()
        entries: list[os.DirEntry[str]] = []
        try:
            with os.scandir(folder) as found:
                for entry in found:
                    seen += 1
                    if seen > MAX_ENTRIES:
                        listing.cut = True
                        break
                    entries.append(entry)
        except OSError:  # unreadable, gone, or a path past the system's length
            listing.unreadable.append(folder)
        for entry in sorted(entries, key=lambda e: e.name):
            if entry.name.startswith("."):
                continue
            path = folder / entry.name
            try:
                if entry.is_symlink():
                    listing.links.append(path)
                elif entry.is_dir(follow_symlinks=False):
                    if depth + 1 > MAX_DEPTH:
                        listing.too_deep.append(path)
                    else:
                        queue.append((path, depth + 1))
                elif entry.is_file(follow_symlinks=False):
                    listing.files.append(path)
            except OSError:
                listing.unreadable.append(path)
        if listing.cut:
            break
    return listing


def _find_file(folder: Path, stem: str, listing: Callable[[], Listing]) -> Path | None:
    top = folder / f"{stem}.py"
    if top.exists() or top.is_symlink():
        return top
    walked = listing()
    name = f"{stem}.py"
    found = sorted(
        (p for p in [*walked.files, *walked.links] if p.name == name),
        key=lambda p: (len(p.parts), str(p)),
    )
    return found[0] if found else None


def find_students(
    root: str | os.PathLike[str],
    exercises: Sequence[Exercise],
    lang: str,
    shard: Shard | None = None,
    only: Sequence[str] = (),
) -> list[Student]:
    """The students under ``root`` (its sub-folders, sorted by name; with ``shard``, only those it holds;
    with ``only``, only those named, as reports name them or as their folders are named) and their exercise
    files, with a note where a submission looks malformed (:func:`intake_notes`). A BatchError says, in both
    languages, why a folder holds no student, or which named student is not there."""
    base = Path(root)
    if not base.is_dir():
        raise BatchError(f"SUBMISSIONS_DIR {os.fspath(root)!r} is not a folder")
    folders = [p for p in base.iterdir() if p.is_dir() and not p.name.startswith(".")]
    if not folders:
        raise BatchError(no_students(base))
    # by the name every report shows, which grades.csv's rows follow (and a merge of shards sorts by)
    found = sorted((shown_name(p.name), p) for p in folders)
    if only:
        known = {name for name, _ in found} | {p.name for _, p in found}
        unknown = [name for name in only if name not in known]
        if unknown:
            raise BatchError(unknown_students(base, unknown, [name for name, _ in found]))
    students = []
    for shown, folder in found:
        if only and shown not in only and folder.name not in only:
            continue
        if shard is not None and not shard.holds(shown):
            if only:  # named, so meant to be graded: never left out without a word
                raise BatchError(_both("intake_other_shard", name=shown, shard=str(shard)))
            continue
        files: dict[str, Path] = {}
        problems: dict[str, tuple[State, str]] = {}
        walked: list[Listing] = []

        def listing(folder: Path = folder, walked: list[Listing] = walked) -> Listing:
            if not walked:  # walked once per student, and only where an exercise file is not at the top
                walked.append(list_folder(folder))
            return walked[0]

        missing = []
        for exercise in exercises:
            name = f"{exercise.module}.py"
            path = _find_file(folder, exercise.module, listing)
            if path is None:
                problems[exercise.module] = (State.NOT_ATTEMPTED, render("file_missing", lang, file=name))
                missing.append(exercise)
            elif path.is_symlink() or not path.is_file():
                problems[exercise.module] = (State.ERROR, render("file_link", lang, file=name))
            elif path.stat().st_size > MAX_FILE_BYTES:
                size = path.stat().st_size
                text = render("file_too_big", lang, file=name, size=size, limit=MAX_FILE_BYTES)
                problems[exercise.module] = (State.ERROR, text)
            else:
                files[exercise.module] = path
        notes = intake_notes(folder, files, missing, walked[0] if walked else None, lang)
        notebooks = notebooks_in(folder, walked[0]) if missing and walked else ()
        if len(missing) == len(exercises) and not listing().files and not listing().links:
            # nothing handed in at all: one note says so, and each check points at it rather than naming a
            # file it never looked for in a folder that holds none
            notes = (render("intake_empty", lang), *notes)
            empty = render("file_missing_empty", lang)
            problems = {module: (state, empty) for module, (state, _) in problems.items()}
        students.append(Student(shown, folder, files, problems, notes, notebooks))
    return students


# ---------------------------------------------------------------------------------------------------
# what looks malformed: said to the student (a note) or to the instructor (an error, a warning)

#: Files that hold a submission the batch cannot grade as it is: a notebook, an archive.
NOTEBOOK_SUFFIXES = (".ipynb",)
ARCHIVE_SUFFIXES = (".zip", ".tar", ".tgz", ".tbz2", ".txz", ".tar.gz", ".tar.bz2", ".tar.xz", ".7z", ".rar")
#: How alike a file's name must be to an exercise file's (difflib's ratio, letters and digits only) to be
#: said to be that file misnamed.
MISNAMED_RATIO = 0.8


def _plain(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.casefold())


def looks_like(stem: str, exercise: Exercise) -> bool:
    """Whether a ``.py`` file named ``stem`` looks like ``exercise``'s file misnamed: the same name in other
    letters' case or with something added (``Ex01_Ridge_Point``, ``ex01_ridge_point (1)``,
    ``alice_ex01_ridge_point``), the exercise's id (``ex01``, ``ex01_answers``), or a close misspelling."""
    plain, module, ident = _plain(stem), _plain(exercise.module), _plain(exercise.id)
    if module in plain:
        return True
    if plain.startswith(ident) and not plain[len(ident) : len(ident) + 1].isdigit():
        return True
    return difflib.SequenceMatcher(None, plain, module).ratio() >= MISNAMED_RATIO


def _examples(paths: Sequence[Path], top: Path) -> str:
    shown = [shown_name(os.fspath(p.relative_to(top))) for p in paths[:NOTE_EXAMPLES]]
    shown = [s if len(s) <= NOTE_PATH_CHARS else s[: NOTE_PATH_CHARS - 3] + "..." for s in shown]
    return ", ".join(shown) + (", ..." if len(paths) > NOTE_EXAMPLES else "")


def notebooks_in(folder: Path, listing: Listing) -> tuple[str, ...]:
    """The notebooks of ``listing`` (a student's ``folder``), as the reports name them: shallow first."""
    found = [p for p in listing.files if p.name.casefold().endswith(NOTEBOOK_SUFFIXES)]
    return tuple(shown_name(os.fspath(p.relative_to(folder))) for p in found)


def intake_notes(
    folder: Path,
    files: dict[str, Path],
    missing: Sequence[Exercise],
    listing: Listing | None,
    lang: str,
) -> tuple[str, ...]:
    """What looks malformed in a student's folder, one sentence each in ``lang``: exercise files found in a
    sub-folder rather than at the top; and, where an exercise file is missing, the notebooks, archives and
    ``.py`` files that look like it misnamed that the folder holds instead (none of which is graded)."""
    notes = []
    nested = sorted({p.parent for p in files.values() if p.parent != folder})
    if nested:
        notes.append(render("intake_nested", lang, where=_examples(nested, folder)))
    if not missing or listing is None:
        return tuple(notes)
    expected = ", ".join(f"{e.module}.py" for e in missing[:NOTE_EXAMPLES]) + (
        ", ..." if len(missing) > NOTE_EXAMPLES else ""
    )
    names = [(p, p.name.casefold()) for p in listing.files]
    notebooks = [p for p, name in names if name.endswith(NOTEBOOK_SUFFIXES)]
    if notebooks:
        notes.append(
            render("intake_notebook", lang, examples=_examples(notebooks, folder), expected=expected)
        )
    archives = [p for p, name in names if name.endswith(ARCHIVE_SUFFIXES)]
    if archives:
        notes.append(render("intake_archive", lang, examples=_examples(archives, folder)))
    graded = set(files.values())
    for exercise in missing:
        alike = [
            p
            for p, name in names
            if name.endswith(".py") and p not in graded and looks_like(p.stem, exercise)
        ]
        if alike:
            found = _examples(alike, folder)
            notes.append(render("intake_misnamed", lang, found=found, expected=f"{exercise.module}.py"))
    return tuple(notes)


def loose_files(root: str | os.PathLike[str]) -> list[Path]:
    """The files (not folders, none hidden) at the top of the submissions folder: graded for no one."""
    return sorted(p for p in Path(root).iterdir() if not p.is_dir() and not p.name.startswith("."))


def _both(key: str, **fields: object) -> str:
    """An instructor's error in both languages, Chinese first."""
    return "\n".join(render(key, lang, **fields) for lang in LANGS)


def no_students(base: Path) -> str:
    """Why ``base`` gives no student, in both languages: no sub-folder, and what it holds instead."""
    loose = loose_files(base)
    shown = shown_name(os.fspath(base))
    if not loose:
        return _both("intake_no_students", root=shown)
    return _both("intake_no_students_files", root=shown, count=len(loose), examples=_examples(loose, base))


def unknown_students(base: Path, unknown: Sequence[str], known: Sequence[str]) -> str:
    """Which ``--student`` names are not a folder of ``base``, and some that are, in both languages."""
    names = ", ".join(shown_name(n) for n in unknown)
    some = ", ".join(known[:5]) + (", ..." if len(known) > 5 else "")
    return _both("intake_unknown_student", names=names, root=shown_name(os.fspath(base)), known=some)


@dataclass(frozen=True)
class Copied:
    """What :func:`copy_folder` made: ``{module stem: path of the copy}``, and a note (in the batch's
    language) for each limit that left something out."""

    files: dict[str, Path]
    notes: tuple[str, ...] = ()


def _notes(source: Path, left: dict[str, list[Path]], lang: str) -> tuple[str, ...]:
    """One sentence per reason something was left out, naming how many and the first few paths."""
    limits = {
        "left_deep": MAX_DEPTH,
        "left_many": MAX_FILES,
        "left_bytes": MAX_FOLDER_BYTES,
        "left_big": MAX_FILE_BYTES,
        "left_cut": MAX_ENTRIES,
    }
    notes = []
    for key, paths in left.items():
        if not paths:
            continue
        shown = []
        for path in paths[:NOTE_EXAMPLES]:
            text = shown_name(os.fspath(path.relative_to(source)) if path != source else ".")
            shown.append(text if len(text) <= NOTE_PATH_CHARS else text[: NOTE_PATH_CHARS - 3] + "...")
        examples = ", ".join(shown) + (", ..." if len(paths) > NOTE_EXAMPLES else "")
        notes.append(render(key, lang, count=len(paths), limit=limits.get(key, 0), examples=examples))
    return tuple(notes)


def copy_folder(student: Student, into: Path, lang: str = "zh") -> Copied:
    """Copy the folder holding the student's exercise files into the empty ``into``: regular files only
    (no link followed), none hidden, none over 1 MiB, at most MAX_FILES and MAX_FOLDER_BYTES, none deeper
    than MAX_DEPTH; the exercise files first, then the others shallow first. Returns the copies of the
    exercise files and what was left out."""
    if not student.files:
        return Copied({})
    source = next(iter(student.files.values())).parent
    exercise_files = [p for p in student.files.values() if p.parent == source]
    listing = list_folder(source)
    left: dict[str, list[Path]] = {
        key: []
        for key in ("left_deep", "left_many", "left_bytes", "left_big", "left_links", "left_unreadable")
    }
    left["left_deep"] += listing.too_deep
    left["left_links"] += listing.links
    left["left_unreadable"] += listing.unreadable
    left["left_cut"] = [source] if listing.cut else []
    copied: dict[str, Path] = {}
    total = count = 0
    for path in [*exercise_files, *[p for p in listing.files if p not in exercise_files]]:
        if count >= MAX_FILES:
            left["left_many"].append(path)
            continue
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(path, flags)
            with os.fdopen(fd, "rb") as src:
                data = src.read(MAX_FILE_BYTES + 1)
        except OSError:  # replaced by a link or a folder meanwhile, or unreadable: not copied
            left["left_unreadable"].append(path)
            continue
        if len(data) > MAX_FILE_BYTES:
            left["left_big"].append(path)
            continue
        if total + len(data) > MAX_FOLDER_BYTES:
            left["left_bytes"].append(path)
            continue
        total += len(data)
        count += 1
        target = into / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)  # at most MAX_DEPTH levels: no deep recursion
        target.write_bytes(data)
    for stem, path in student.files.items():
        copy = into / path.relative_to(source) if path.parent == source else None
        if copy is not None and copy.exists():
            copied[stem] = copy
        else:  # an exercise file in another sub-folder than the first: copied beside the others
            try:
                (into / f"{stem}.py").write_bytes(path.read_bytes()[:MAX_FILE_BYTES])
                copied[stem] = into / f"{stem}.py"
            except OSError:
                continue
    notes = _notes(source, left, lang)
    return Copied(copied, notes)
