"""The rounds of a measurement: how many a check may add while undecided, and the seeded input of its probe.

Both sides are measured alternately, A B A B, so that each round's ratio sees the same drift of the machine.
While a ratio's interval straddles a band edge rounds are added two at a time, within a budget; a probe is
an input the student has not seen, drawn from a seed of the submission's bytes so that the same code meets
the same probe.
"""

from __future__ import annotations

import hashlib
import random
import time
from typing import Any

from ...specs.check import Check, MeasurementCheck, ShapeCheck
from ..verdicts import GraderError

#: While a ratio's interval straddles a band edge, rounds are added two at a time: up to this many times a
#: check's own rounds, and while they end within this share of its time limit (see :class:`Budget`).
MAX_ROUNDS_FACTOR = 4
ROUNDS_BUDGET_SHARE = 0.5
#: Rounds (A B each) of a probe: enough for a median, few enough to keep a check's time down.
PROBE_ROUNDS = 3


class Budget:
    """When a check may add rounds: while fewer than ``MAX_ROUNDS_FACTOR`` x its own, and while two more
    rounds at the pace so far end within ``ROUNDS_BUDGET_SHARE`` of its time limit."""

    def __init__(self, check: MeasurementCheck | ShapeCheck) -> None:
        self.started = time.monotonic()
        self.seconds = ROUNDS_BUDGET_SHARE * check.timeout_s
        self.max_rounds = MAX_ROUNDS_FACTOR * check.rounds

    def more(self, done: int) -> bool:
        if done + 2 > self.max_rounds:
            return False
        elapsed = time.monotonic() - self.started
        return elapsed + 2 * elapsed / max(1, done) <= self.seconds


def probe_seed(path: str, check: Check) -> int:
    """The seed of a check's probe: from the submission's bytes, so the same code meets the same probe."""
    digest = hashlib.sha256(check.id.encode())
    try:
        with open(path, "rb") as fh:
            digest.update(fh.read())
    except OSError:
        pass
    return int.from_bytes(digest.digest()[:8], "big")


def probe_input(check: MeasurementCheck | ShapeCheck, path: str) -> dict[str, Any]:
    """The input of ``check``'s probe for the submission at ``path`` (see :func:`probe_seed`)."""
    assert check.probe is not None
    try:
        return dict(check.probe(random.Random(probe_seed(path, check))))
    except Exception as exc:
        raise GraderError(f"probe() raised {exc!r}") from exc
