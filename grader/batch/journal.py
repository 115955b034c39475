"""The journal of a batch run: each student's graded exercise in ``OUT/journal.jsonl`` as soon as it is graded.

A judge that dies (the OOM killer, SIGKILL, a power cut) loses at most the exercises in hand: every exercise
of a student graded before is a line of the journal, and a rerun of the same command into the same ``OUT``
grades only what the journal lacks. grades.csv, grades.json, Gradescope's files and the HTML pages are then
written from the journal's grades and the new ones alike.

The file: a first line ``{"perfkit_journal": 1, "settings": {...}}`` (:func:`journal_settings`: what changes
a verdict), then one line per exercise graded: ``{"student", "exercise", "key", "graded_at", "elapsed_s",
"notes", "outcomes": [Outcome.to_dict(), ...]}``. Each line is written whole with one ``write`` in append
mode, flushed and fsync'd, so a kill mid-write leaves at most a torn last line, which is ignored when read
(and ended before the next line is written). ``key`` names the graded content (:func:`content_keys`): the
exercise file's bytes and those of the folder's other files (a helper module it imports), so a student who
hands in again is graded anew. An entry may hold some of an exercise's checks (``--retry-deferred`` grades
only the deferred ones): for each check the newest decided grade of the same key is kept, else the newest
(:mod:`grader.batch.keep`).

A journal written with other settings is not resumed: it is kept beside as ``journal.jsonl.old`` and a new
one begun (said on the terminal).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..judge import Prepared
from ..results.environment import version
from ..results.outcome import Outcome
from ..specs.check import Exercise
from .errors import BatchError
from .keep import kept
from .submissions import MAX_FILE_BYTES, Student, list_folder

JOURNAL = "journal.jsonl"
VERSION = 1


def journal_settings(
    lang: str, max_noise: float, allow: Sequence[str], grader_checks: Sequence[str]
) -> dict[str, Any]:
    """The settings that change a verdict or its words: a journal's grades are reused only under the same."""
    return {
        "lang": lang,
        "max_noise": max_noise,
        "allow": list(allow),
        "grader_checks": list(grader_checks),
        "perfkit": version("perfkit"),
    }


def _digest(paths: Iterable[Path], top: Path) -> hashlib._Hash:
    digest = hashlib.sha256()
    for path in paths:
        try:
            with open(path, "rb") as fh:
                data = fh.read(MAX_FILE_BYTES + 1)
        except OSError:
            data = b"\0unreadable"
        name = os.fsencode(os.path.relpath(path, top))
        digest.update(len(name).to_bytes(8, "big") + name + len(data).to_bytes(8, "big") + data)
    return digest


def content_keys(student: Student, modules: Iterable[str]) -> dict[str, str]:
    """For each exercise file of ``student`` (by module stem): the SHA-256 of its bytes and of the bytes of
    every other file of the folder that is no exercise's file (``modules``: every registered exercise's,
    graded in this run or not, so that a key does not depend on ``--exercises``); a changed helper changes
    the key too."""
    exercise_stems = set(modules)
    others = _digest(
        (
            p
            for p in list_folder(student.folder).files
            if not (p.suffix == ".py" and p.stem in exercise_stems)
        ),
        student.folder,
    ).hexdigest()
    keys = {}
    for module, path in student.files.items():
        digest = _digest([path], student.folder)
        digest.update(others.encode())
        keys[module] = digest.hexdigest()
    return keys


@dataclass(frozen=True)
class Entry:
    """One line of the journal: what one run graded of one exercise of one student."""

    student: str
    exercise: str
    key: str
    graded_at: str
    elapsed_s: float
    notes: tuple[str, ...]
    outcomes: tuple[Outcome, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "student": self.student,
            "exercise": self.exercise,
            "key": self.key,
            "graded_at": self.graded_at,
            "elapsed_s": round(self.elapsed_s, 3),
            "notes": list(self.notes),
            "outcomes": [o.to_dict() for o in self.outcomes],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Entry:
        return cls(
            str(data["student"]),
            str(data["exercise"]),
            str(data["key"]),
            str(data["graded_at"]),
            float(data["elapsed_s"]),
            tuple(str(n) for n in data["notes"]),
            tuple(Outcome.from_dict(o) for o in data["outcomes"]),
        )


class Journal:
    """``OUT/journal.jsonl``: its entries as read (:attr:`entries`) and those appended since."""

    def __init__(self, out: str | os.PathLike[str], settings: dict[str, Any]) -> None:
        self.path = Path(out) / JOURNAL
        self.settings = settings
        self.entries: list[Entry] = []
        #: Why an earlier journal in OUT was not resumed ("" where there was none, or it was)
        self.set_aside = ""
        self._lock = threading.Lock()

    def open(self, resume: bool = True) -> Journal:
        """Read the journal already in OUT (where ``resume``: one of other settings is set aside) and make
        sure the file begins with this run's settings; return self."""
        header, self.entries = read_journal(self.path) if self.path.exists() else (None, [])
        if header is not None and header.get("settings") == self.settings and resume:
            return self
        if header is not None or self.path.exists():
            differs = sorted(
                k for k in self.settings if (header or {}).get("settings", {}).get(k) != self.settings[k]
            )
            self.set_aside = f"written with other {', '.join(differs)}" if differs else "not resumed"
            os.replace(self.path, self.path.with_name(JOURNAL + ".old"))
        self.entries = []
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._write({"perfkit_journal": VERSION, "settings": self.settings})
        return self

    def append(self, entry: Entry) -> None:
        """Write ``entry`` as the journal's next line, flushed and fsync'd before this returns."""
        with self._lock:
            self._write(entry.to_dict())
            self.entries.append(entry)

    def _write(self, record: dict[str, Any]) -> None:
        line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass")
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":  # a torn line of a killed run: ended first
                line = b"\n" + line
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)


def read_journal(path: Path) -> tuple[dict[str, Any] | None, list[Entry]]:
    """The header and entries of a journal; a line that is not a whole entry (torn by a kill) is skipped. A
    BatchError says that a file is no journal at all."""
    header: dict[str, Any] | None = None
    entries = []
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise BatchError(f"cannot read the journal {os.fspath(path)!r}: {exc}") from None
    for number, line in enumerate(raw.split(b"\n")):
        try:
            record = json.loads(line.decode("utf-8", "surrogatepass"))
        except (UnicodeDecodeError, ValueError):
            continue
        if number == 0:
            if not isinstance(record, dict) or record.get("perfkit_journal") != VERSION:
                raise BatchError(f"{os.fspath(path)!r} is not a journal of this kit's batch grader")
            header = record
            continue
        try:
            entries.append(Entry.from_dict(record))
        except (KeyError, TypeError, ValueError):
            continue
    return header, entries


def combined(
    entries: Iterable[Entry], student: str, exercise: str, key: str
) -> tuple[list[Outcome], list[Entry]]:
    """The outcomes of ``student``'s ``exercise`` for the content ``key`` in ``entries``: per check, the newest
    decided grade, else the newest (:func:`grader.batch.keep.kept`); and the entries they came from."""
    mine = [e for e in entries if e.student == student and e.exercise == exercise and e.key == key]
    by_check: dict[str, list[Outcome]] = {}
    for entry in reversed(mine):
        for outcome in entry.outcomes:
            by_check.setdefault(outcome.check_id, []).append(outcome)
    return [kept(grades, lambda o: o.deferred) for grades in by_check.values()], mine


def to_grade(
    prepared: Sequence[Prepared], earlier: Sequence[Entry], student: str, key: str, *, anew: bool, retry: bool
) -> list[Prepared]:
    """Which of an exercise's prepared checks a run grades for ``student``'s file of content ``key``: all of
    them where ``anew`` (``--student``: named to be graded again) or where the journal holds no grade of
    every check for that content; else none, or with ``retry`` (``--retry-deferred``) those it holds
    deferred."""
    before, _ = combined(earlier, student, prepared[0].exercise.id, key) if prepared else ([], [])
    held = {o.check_id: o for o in before}
    if anew and not retry or any(p.check.id not in held for p in prepared):
        return list(prepared)
    return [p for p in prepared if retry and held[p.check.id].deferred]


@dataclass(frozen=True)
class Assembled:
    """A student's outcomes of the exercises graded from their files, as the journal and this run give them
    (:func:`assembled`): with the notes and seconds of the journal's grades this run did not give again,
    when the newest grade among them was given, and how many exercises came from the journal alone."""

    outcomes: list[Outcome]
    notes: tuple[str, ...]
    elapsed_s: float
    graded_at: str
    reused: int


def assembled(
    student: Student,
    exercises: Sequence[Exercise],
    keys: Mapping[str, str],
    earlier: Sequence[Entry],
    graded: Sequence[Outcome],
    graded_at: str,
) -> Assembled:
    """``student``'s outcomes of every exercise in ``exercises`` they handed a file of: ``earlier`` (the
    journal) and ``graded`` (what this run graded, at ``graded_at``) combined check by check
    (:func:`combined`)."""
    now = {
        e.id: Entry(
            student.name,
            e.id,
            keys[e.module],
            graded_at,
            0.0,
            (),
            tuple(o for o in graded if o.exercise == e.id),
        )
        for e in exercises
        if e.module in student.files and any(o.exercise == e.id for o in graded)
    }
    outcomes: list[Outcome] = []
    notes: dict[str, None] = {}
    elapsed, newest, reused = 0.0, "", 0
    for e in exercises:
        if e.module not in student.files:
            continue
        entries = [*earlier, now[e.id]] if e.id in now else list(earlier)
        found, used = combined(entries, student.name, e.id, keys[e.module])
        outcomes += found
        newest = max([newest, *(u.graded_at for u in used)])
        if e.id not in now and used:
            reused += 1
            elapsed += used[-1].elapsed_s
            notes.update(dict.fromkeys(used[-1].notes))
    return Assembled(outcomes, tuple(notes), elapsed, newest or graded_at, reused)


def run_journal(
    out: str | os.PathLike[str] | None, settings: dict[str, Any], retry: bool, say: Callable[[str], None]
) -> Journal | None:
    """``out``'s journal, opened for a run (None without ``out``); ``say`` is told where one of other settings
    is set aside. A BatchError refuses ``--retry-deferred`` (``retry``) without a journal of the same settings."""
    if out is None:
        if retry:
            raise BatchError(
                "--retry-deferred needs --out: the output whose deferred checks are graded again"
            )
        return None
    journal = Journal(out, settings)
    if retry:
        if not journal.path.is_file():
            raise BatchError(
                f"--retry-deferred: --out {os.fspath(out)!r} holds no journal of an earlier run "
                f"({JOURNAL}); grade into it first, then retry its deferred checks"
            )
        header, _ = read_journal(journal.path)
        differs = [k for k in settings if (header or {}).get("settings", {}).get(k) != settings[k]]
        if differs:
            raise BatchError(
                f"--retry-deferred: the journal in --out {os.fspath(out)!r} was graded with other "
                f"{', '.join(differs)}; retry with the settings it was graded with (--lang, --max-noise, "
                "--allow, --grader-checks, the same kit)"
            )
    try:
        journal.open(resume=True)
    except OSError as exc:  # --out a file, or a folder that cannot be written: said before grading
        raise BatchError(
            f"--out {os.fspath(out)!r}: cannot write the journal {JOURNAL} there ({exc})"
        ) from None
    if journal.set_aside:
        say(
            f"grader: the journal in {os.fspath(out)} was {journal.set_aside}: kept as {JOURNAL}.old, not resumed"
        )
    return journal
