"""The rounds of a measurement: how many a check may add while undecided, and the seeded input of its probe.

Both sides are measured alternately, A B A B, so that each round's ratio sees the same drift of the machine.
While a ratio's interval straddles a band edge rounds are added two at a time, within a budget; a probe is
an input the student has not seen, drawn from a seed of the submission's bytes so that the same code meets
the same probe. Where a check has one distribution of inputs, the graded input is drawn from it with its
probes (:func:`drawn_inputs`).
"""

from __future__ import annotations

import hashlib
import hmac
import random
import time
from typing import Any

from ...results.outcome import State
from ...results.secret import signing_key
from ...specs.check import Check, MeasurementCheck, ShapeCheck
from ...text.catalogue import render
from ..prepare import Prepared
from ..verdicts import GraderError, Verdict
from .busy import Watch

#: While a ratio's interval straddles a band edge, rounds are added two at a time: up to this many times a
#: check's own rounds, and while they end within this share of its time limit (see :class:`Budget`).
MAX_ROUNDS_FACTOR = 4
ROUNDS_BUDGET_SHARE = 0.5
#: Rounds (A B each) of a probe: enough for a median, few enough to keep a check's time down; and the most
#: it may add while its rounds were busy or its interval straddles an edge of the band.
PROBE_ROUNDS = 3
PROBE_EXTRA_ROUNDS = 6


#: The fewest rounds a measurement takes before its interval may end it (a sequential rule: a check's
#: ``rounds`` is then the most it takes before the first decision; an interval of the median of three
#: paired ratios is their range, so inside after three means every ratio was inside).
MIN_ROUNDS = 3


class Budget:
    """When a check may add rounds: while fewer than ``MAX_ROUNDS_FACTOR`` x its own, and while two more
    rounds at the pace so far end within ``ROUNDS_BUDGET_SHARE`` of its time limit."""

    def __init__(self, check: MeasurementCheck | ShapeCheck) -> None:
        self.started = time.monotonic()
        self.seconds = ROUNDS_BUDGET_SHARE * check.timeout_s
        self.max_rounds = MAX_ROUNDS_FACTOR * check.rounds

    def rounds_left(self, done: int) -> int:
        """How many rounds the budget could still add after ``done`` (by count; time may stop it sooner)."""
        return max(0, self.max_rounds - done)

    def more(self, done: int) -> bool:
        if done + 2 > self.max_rounds:
            return False
        elapsed = time.monotonic() - self.started
        return elapsed + 2 * elapsed / max(1, done) <= self.seconds


def probe_seed(path: str, check: Check) -> int:
    """The seed of a check's draws: from the submission's bytes, so the same code meets the same inputs on
    this account, keyed with the kit's secret (:func:`grader.results.secret.signing_key`, outside the
    repository and the sandbox): a submission that hashes its own file as this function does cannot work
    out which input is graded. Without the secret (no cache folder can be written), the bytes alone."""
    secret = signing_key() or b""
    digest = hmac.new(secret, check.id.encode(), hashlib.sha256)
    try:
        with open(path, "rb") as fh:
            digest.update(fh.read())
    except OSError:
        pass
    return int.from_bytes(digest.digest()[:8], "big")


def probes_first(check: MeasurementCheck | ShapeCheck, path: str) -> bool:
    """Whether ``check``'s probes are measured before its graded input for the submission at ``path``: a
    seeded coin for every check with probes, so that the first input a function meets is the graded one
    only half the time."""
    if check.inputs is None and check.probe is None:
        return False
    return random.Random(probe_seed(path, check) ^ 0x5EED).random() < 0.5


def drawn_inputs(check: MeasurementCheck | ShapeCheck, path: str) -> list[dict[str, Any]]:
    """The inputs of ``check`` for the submission at ``path``: the graded one first, then its probes.

    Without ``check.inputs``: the check's own ``kwargs`` (or its ``graded_input``, drawn from the seed), then
    the one probe of ``check.probe`` (if any).
    With it, all ``1 + check.probes`` come from that one distribution, seeded from the submission's bytes:
    their quantiles are stratified (one in each of as many equal slices of [0, 1)), so that every part of
    the range is met, and shuffled before the first is taken as the graded one, so that each input, the
    graded one included, is a draw from the whole distribution and no code can tell which call is graded.
    Inputs drawn equal to an earlier one are left out (a probe must be another input)."""
    if check.inputs is None:
        return [graded_input(check, path), *([probe_input(check, path)] if check.probe is not None else [])]
    rng = random.Random(probe_seed(path, check))
    count = 1 + check.probes
    quantiles = [(i + rng.random()) / count for i in range(count)]
    rng.shuffle(quantiles)
    drawn: list[dict[str, Any]] = []
    try:
        for u in quantiles:
            kwargs = dict(check.inputs(u, rng))
            if kwargs not in drawn:
                drawn.append(kwargs)
    except Exception as exc:
        raise GraderError(f"inputs() raised {exc!r}") from exc
    return drawn


def graded_input(check: MeasurementCheck | ShapeCheck, path: str) -> dict[str, Any]:
    """The graded input of a check without one distribution: its ``graded_input`` drawn from the seed (see
    :func:`probe_seed`; another stream than the probe's), else its ``kwargs``."""
    draw = getattr(check, "graded_input", None)
    if draw is None:
        return dict(check.kwargs)
    try:
        return dict(draw(random.Random(probe_seed(path, check) ^ 0x6EADED)))
    except Exception as exc:
        raise GraderError(f"graded_input() raised {exc!r}") from exc


def probe_input(check: MeasurementCheck | ShapeCheck, path: str) -> dict[str, Any]:
    """The input of ``check``'s probe for the submission at ``path`` (see :func:`probe_seed`)."""
    assert check.probe is not None
    try:
        return dict(check.probe(random.Random(probe_seed(path, check))))
    except Exception as exc:
        raise GraderError(f"probe() raised {exc!r}") from exc


class StudentClock:
    """A measuring check's time limit, counted in the student's own calls only: perfcore's rounds and the
    machine's waiting between calls are not the student's to pay. Each call may use what is left of it;
    where too little is left for another call as long as the longest so far, no more rounds are added, and
    a call that must still be made is deferred (the rounds the machine's load added used the time)."""

    def __init__(self, limit_s: float) -> None:
        self.limit = limit_s
        self.spent = 0.0
        self.longest = 0.0

    def spend(self, seconds: float) -> float:
        self.spent += seconds
        self.longest = max(self.longest, seconds)
        return seconds

    def left(self) -> float:
        return self.limit - self.spent

    def more(self) -> bool:
        """Whether two more calls as long as the longest so far fit in what is left."""
        return self.left() >= 2 * self.longest

    def remaining(self, p: Prepared, watch: Watch, lang: str) -> float:
        """The limit of the next call: what is left; deferred where that is less than the longest call so
        far and an earlier call was slowed by the machine (its span not clean)."""
        left = self.left()
        if left <= 0:
            message = render(
                "check_time_used", lang, limit=f"{self.limit:g}", func=p.check.func, spent=f"{self.spent:.3g}"
            )
            raise Verdict(State.TIMEOUT, message)
        if self.longest and left < self.longest and not watch.student.clean:
            message = render(
                "check_time_spent",
                lang,
                limit=f"{self.limit:g}",
                func=p.check.func,
                spent=f"{self.spent:.3g}",
            )
            raise Verdict(State.SKIPPED, message, deferred=True)
        return left
