"""Outcomes kept between a student's own pytest runs, so that fixing one formula answer neither measures nor
grades every unchanged file again.

A formula check's outcome (a value, a choice, a property: no machine in it) is kept too, as a pass, a wrong
or not attempted, under the same key (issue 30): the plugin's collection then prepares nothing for it.

Only the pytest plugin reuses, and only in pytest's cache (``config.cache``, ``.pytest_cache`` in the
rootdir): ``--grader-remeasure`` and ``--cache-clear`` measure again, ``-p no:cacheprovider`` keeps nothing.
A run writing ``--grader-json``, batch, Gradescope and nbgrader never reuse: a cache is the student's own
file (a submission could carry one), and a grade for credit is measured on the grading machine. The
plugin's table is feedback on the student's own machine, where the student could edit that cache as easily
as the answers; an edited entry still gets no more than its check's points.

A kept entry is signed (HMAC-SHA256 over the entry and its key) with a secret that lives outside the
repository, in the user's cache folder (:func:`.secret.signing_key`, created once): an entry written by anything
but this kit on this account (a forged ``.pytest_cache`` committed with a submission, an entry computed with
:func:`reuse_key`) does not verify and is measured again, with a note. Where ``CI`` is set (GitHub Classroom
grades the student's repository by pytest's exit status there) the cache is not read at all.

An outcome is reused only under the same key (:func:`reuse_key`): the bytes of the exercise's file and of
the files beside it that it imports (read with ``ast``, transitively), the check, the kit's and torch's versions,
the identity of the machine profile the bounds come from, the feedback language and the noise limit.

Only what a second run would repeat is kept, as a verdict: a pass, or a wrong taken while the machine was
quiet (every round of it quiet, :mod:`grader.judge.runners.busy`; a wrong with no rounds, from an honesty
rule, where the machine is quiet when it is kept). A wrong taken under load, a deferral, a timeout and an
error are not kept: a rerun is the student asking again, and it measures again, at the cost of one more
measurement. (They were kept as "measure again once the machine is quieter" and shown again while it stayed
busy; a student at load 2.5 saw the same deferral on every rerun, and one ``--grader-remeasure`` at load 4.5
passed: issue 47.) An entry of that kind an older kit wrote (``"retry": true``) is never shown again.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import hmac
import json
import os
import time
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

from perfcore.measure.profile import current_profile_key

from ..sandbox import load
from .outcome import Outcome, State
from .secret import signing_key

#: The states a measurement is kept in: verdicts (a wrong only where taken quiet, see :func:`entry`).
REUSABLE = (State.PASSED.value, State.WRONG.value)
#: The states a formula check's outcome is kept in (issue 30): its code gives the same answer on every
#: run, whatever the machine's load; a timeout, a skip or an error is judged again.
FORMULA_REUSABLE = (State.PASSED.value, State.WRONG.value, State.NOT_ATTEMPTED.value)
#: The kinds of check whose outcome is a formula's (no machine in it).
FORMULA_KINDS = ("value", "choice", "property")
#: Where in pytest's cache the outcomes lie (``config.cache.get(f"{CACHE_PREFIX}/{key}", None)``).
CACHE_PREFIX = "perfkit/measured"
#: Files that go into a key: more than this many, and nothing is reused (hashing them would cost more
#: than it saves).
MAX_FILES = 200


@functools.cache
def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "none"


def _imported_names(path: Path) -> set[str]:
    """The top-level module names ``path`` imports anywhere in its code (``import a.b``: ``a``); none where
    it does not parse (it then fails to import, and its own bytes are the key)."""
    try:
        tree = ast.parse(path.read_bytes())
    except (SyntaxError, ValueError, OSError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def source_files(path: Path) -> list[Path] | None:
    """``path`` and the files of its folder it imports, transitively (a module ``name.py`` beside it, or
    every ``.py`` file of a package ``name/``): what its measured outcome depends on, so that changing
    another exercise's file measures nothing again. None past :data:`MAX_FILES` files."""
    folder = path.parent
    found: dict[Path, None] = {path: None}
    queue = [path]
    while queue:
        for name in sorted(_imported_names(queue.pop())):
            module, package = folder / f"{name}.py", folder / name
            more = [module] if module.is_file() else sorted(package.rglob("*.py")) if package.is_dir() else []
            for file in more:
                if file not in found:
                    found[file] = None
                    queue.append(file)
            if len(found) > MAX_FILES:
                return None
    return sorted(found)


def source_digest(path: Path) -> str | None:
    """sha256 over the names and bytes of :func:`source_files` of ``path``; None where they cannot all be
    read (then nothing is reused)."""
    digest = hashlib.sha256()
    try:
        files = source_files(path)
        if files is None:
            return None
        for file in files:
            digest.update(str(file.relative_to(path.parent)).encode("utf-8", "surrogateescape") + b"\0")
            digest.update(hashlib.sha256(file.read_bytes()).digest())
    except (OSError, ValueError):
        return None
    return digest.hexdigest()


def reuse_key(
    exercise: str, check: str, path: Path, lang: str, max_noise: float, formula: bool = False
) -> str | None:
    """The cache key of ``exercise::check`` graded from the file at ``path``; None where its sources cannot
    be read. ``formula``: a formula check's, whose answer no machine enters: the files, the kit and the
    language alone (no torch, no machine profile, whose reading imports torch)."""
    files = source_digest(path)
    if files is None:
        return None
    fields: dict[str, Any] = {
        "check": f"{exercise}::{check}",
        "files": files,
        "kit": _version("perfkit"),
        "lang": lang,
    }
    if not formula:
        fields.update({"torch": _version("torch"), "profile": _profile_key(), "max_noise": max_noise})
    text = json.dumps(fields, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@functools.cache
def _profile_key() -> str:
    """The machine profile's key, read once per process (it reads the machine and torch's build: about 20 ms
    a time, for every check of a session's keys)."""
    return current_profile_key()


def taken_quiet(outcome: Outcome) -> bool:
    """Whether ``outcome`` was measured on a quiet machine: every round of its record quiet; where it has
    no rounds (an honesty rule decided on the first call), the machine quiet now."""
    record = outcome.measured.load if outcome.measured else None
    if record is not None and isinstance(record.rounds, int):  # a damaged record's count may be anything
        return record.rounds > 0 and record.quiet == record.rounds
    return load.busy_now() is None


def signature(kept: Mapping[str, Any], key: str, secret: bytes) -> str:
    """The HMAC of an entry under its cache key (an entry moved to another key does not verify)."""
    body = {k: v for k, v in kept.items() if k != "mac"}
    text = json.dumps({"key": key, "entry": body}, sort_keys=True, default=str)
    return hmac.new(secret, text.encode(), hashlib.sha256).hexdigest()


def verified(kept: Any, key: str) -> bool:
    """Whether ``kept`` was written by this kit on this account under ``key`` (its signature checks)."""
    secret = signing_key()
    if secret is None or not isinstance(kept, Mapping) or not isinstance(kept.get("mac"), str):
        return False
    return hmac.compare_digest(kept["mac"], signature(kept, key, secret))


def readable() -> bool:
    """Whether the cache may be read here: not under CI, where a grade is taken from pytest's exit status."""
    return not os.environ.get("CI")


def entry(outcome: Outcome, key: str = "", formula: bool = False) -> dict[str, Any] | None:
    """What is kept of ``outcome`` under the cache key ``key``: the outcome, when it was measured, and its
    signature; None where nothing is kept: anything but a verdict (see the module docstring). ``formula``:
    a formula check's outcome, kept in :data:`FORMULA_REUSABLE`, whatever the load."""
    if outcome.reused or outcome.deferred:
        return None
    if formula:
        if outcome.state not in FORMULA_REUSABLE:
            return None
    elif not (
        outcome.state == State.PASSED.value or (outcome.state == State.WRONG.value and taken_quiet(outcome))
    ):
        return None  # a wrong under load, a timeout, an error: measured again when the student asks
    secret = signing_key()
    if secret is None:
        return None
    kept: dict[str, Any] = {"outcome": outcome.to_dict(), "measured_at": time.strftime("%Y-%m-%d %H:%M")}
    kept["mac"] = signature(kept, key, secret)
    return kept


def reused(
    kept: Any, exercise: str, check: str, source: str, lang: str = "en", formula: bool = False
) -> Outcome | None:
    """The outcome of a kept ``entry`` of ``exercise::check``, graded now from ``source`` and marked with when
    it was measured; None where there is none, it is not a verdict (a deferral an older kit kept as a retry
    is measured again), or it is of another check (the plugin rebuilds it from the registry, so its points
    are the check's own, whatever the file says). ``lang`` is kept for the callers: a verdict is shown in
    the words it was given."""
    if not isinstance(kept, Mapping) or not isinstance(kept.get("outcome"), Mapping):
        return None
    when = kept.get("measured_at")
    if not isinstance(when, str) or not when or kept.get("retry") is not None:
        return None
    try:
        outcome = Outcome.from_dict({**kept["outcome"], "source": source, "reused": when[:40]})
    except (TypeError, ValueError):
        return None
    allowed = FORMULA_REUSABLE if formula else REUSABLE
    if (
        outcome.state not in allowed
        or outcome.deferred
        or (outcome.exercise, outcome.check_id) != (exercise, check)
    ):
        return None
    return outcome
