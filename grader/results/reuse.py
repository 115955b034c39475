"""Measured outcomes kept between a student's own pytest runs, so that fixing one formula answer does not
measure every unchanged file again.

Only the pytest plugin reuses, and only in pytest's cache (``config.cache``, ``.pytest_cache`` in the
rootdir): ``--grader-remeasure`` and ``--cache-clear`` measure again, ``-p no:cacheprovider`` keeps nothing.
A run writing ``--grader-json``, batch, Gradescope and nbgrader never reuse: a cache is the student's own
file (a submission could carry one), and a grade for credit is measured on the grading machine. The
plugin's table is feedback on the student's own machine, where the student could edit that cache as easily
as the answers; an edited entry still gets no more than its check's points.

An outcome is reused only under the same key (:func:`reuse_key`): the bytes of every ``.py`` file in the
exercise's folder (the module may import a helper beside it), the check, the kit's and torch's versions,
the identity of the machine profile the bounds come from, the feedback language and the noise limit. Only
a verdict is kept (passed or wrong); a deferred, timed-out or erroring check is measured again next time.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

from perfcore.measure.profile import current_profile_key

from .outcome import Outcome, State

#: The states a measurement is kept in: verdicts. A skip (a noisy machine, a GPU's memory) or an error may
#: go another way on the next run.
REUSABLE = (State.PASSED.value, State.WRONG.value)
#: Where in pytest's cache the outcomes lie (``config.cache.get(f"{CACHE_PREFIX}/{key}", None)``).
CACHE_PREFIX = "perfkit/measured"
#: Files of a folder that go into the key: more than this many, and nothing is reused (a folder that
#: large is not an exercise folder, and hashing it would cost more than it saves).
MAX_FILES = 200


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "none"


def folder_digest(folder: Path) -> str | None:
    """sha256 over the names and bytes of the ``.py`` files directly in ``folder``; None where it cannot be
    read whole (then nothing is reused)."""
    digest = hashlib.sha256()
    try:
        files = sorted(p for p in folder.iterdir() if p.suffix == ".py" and p.is_file())
        if len(files) > MAX_FILES:
            return None
        for path in files:
            digest.update(path.name.encode("utf-8", "surrogateescape") + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    except OSError:
        return None
    return digest.hexdigest()


def reuse_key(exercise: str, check: str, folder: Path, lang: str, max_noise: float) -> str | None:
    """The cache key of ``exercise::check`` graded from ``folder``; None where the folder cannot be read."""
    files = folder_digest(folder)
    if files is None:
        return None
    text = json.dumps(
        {
            "check": f"{exercise}::{check}",
            "files": files,
            "kit": _version("perfkit"),
            "torch": _version("torch"),
            "profile": current_profile_key(),
            "lang": lang,
            "max_noise": max_noise,
        },
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def entry(outcome: Outcome) -> dict[str, Any] | None:
    """What is kept of ``outcome``: the outcome and when it was measured; None where it is not a verdict."""
    if outcome.state not in REUSABLE or outcome.reused:
        return None
    return {"outcome": outcome.to_dict(), "measured_at": time.strftime("%Y-%m-%d %H:%M")}


def reused(kept: Any, exercise: str, check: str) -> Outcome | None:
    """The outcome of a kept ``entry`` of ``exercise::check``, marked with when it was measured; None where
    there is none or it is not one (the plugin rebuilds it from the registry, so its points are the
    check's own, whatever the file says)."""
    if not isinstance(kept, Mapping) or not isinstance(kept.get("outcome"), Mapping):
        return None
    when = kept.get("measured_at")
    try:
        outcome = Outcome.from_dict(kept["outcome"])
    except (TypeError, ValueError):
        return None
    if not isinstance(when, str) or not when or outcome.state not in REUSABLE:
        return None
    if (outcome.exercise, outcome.check_id) != (exercise, check):
        return None
    return Outcome.from_dict({**outcome.to_dict(), "reused": when[:40]})
