"""Grading past one machine: which shard a student belongs to; merging the shards' outputs into one is
:mod:`grader.batch.merging`'s.

``python -m grader grade SUBMISSIONS_DIR --shard K/N`` grades the students of shard K of N (see
:func:`shard_of`): the first 8 bytes of the SHA-256 of the student's name (UTF-8), as a number, modulo N,
plus one. The name is the one grades.json keys the student by (:func:`grader.results.outcome.shown_name` of the
folder's name: the name itself unless it holds a backslash, a byte that is not UTF-8 or a character that is
not printable, which it writes as escapes), so a merge can check every student's shard. A student's shard depends on the folder name alone, never on what else is in the folder, on the
order of a directory listing, on the machine or on the Python version (the built-in ``hash`` of a string
changes from process to process), so adding or removing students never moves another one, and every node
of a cluster picks the same students for the same K. A sharded ``grades.json`` has a ``"shard"`` record:
``{"index": K, "count": N, "settings": {"max_noise", "allow", "grader_checks"}}`` (the settings that change
a grade but that the file records nowhere else).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from hashlib import sha256
from typing import Any

from .errors import BatchError

SHARD_USAGE = "K/N with whole numbers 1 <= K <= N (the K-th of N shards, e.g. --shard 2/8)"


# ---------------------------------------------------------------------------------------------------
# which students a shard grades


def shard_of(name: str, count: int) -> int:
    """The shard (1 to ``count``) of the student named ``name`` (as grades.json names them): the SHA-256 of
    the name's UTF-8, its first 8 bytes read as a big-endian number, modulo ``count``, plus one. A name that
    no batch writes (a lone surrogate, in an edited file) still has a shard, never an exception."""
    digest = sha256(name.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (K, from 1) of ``count`` (N)."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.count:
            raise BatchError(f"--shard must be {SHARD_USAGE}, got '{self}'")

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, name: str) -> bool:
        """Whether the student named ``name`` (as grades.json names them) is graded in this shard."""
        return shard_of(name, self.count) == self.index


def parse_shard(text: str) -> Shard:
    """The shard ``--shard K/N`` names; a BatchError naming ``--shard`` says what is allowed otherwise."""
    match = re.fullmatch(r"\s*([0-9]+)\s*/\s*([0-9]+)\s*", text)
    if match is None:
        raise BatchError(f"--shard must be {SHARD_USAGE}, got {text!r}")
    return Shard(int(match[1]), int(match[2]))


def shard_record(
    shard: Shard, max_noise: float, allow: Sequence[str], grader_checks: Sequence[str]
) -> dict[str, Any]:
    """The ``"shard"`` record of a sharded grades.json: K, N and the settings recorded nowhere else."""
    return {
        "index": shard.index,
        "count": shard.count,
        "settings": {"max_noise": max_noise, "allow": list(allow), "grader_checks": list(grader_checks)},
    }
