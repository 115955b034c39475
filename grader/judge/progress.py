"""How far a measuring check is, told to a front end's display while it runs: :class:`Progress` (its exercise
and check, the rounds begun, the seconds since it started) and the :class:`Teller` that both sides of the
judge tell at each of the student's calls and each of perfcore's figures. It stands apart from the judge
so that the two sides tell it without calling back into the :class:`~grader.judge.core.Judge` that
composes them; nothing here knows pytest or a terminal.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Progress:
    """How far a measuring check is: its exercise and check, the rounds begun (perfcore's figures asked
    for: one per round A B, probes included; an "also" figure of the same round is not one), and the
    seconds since the check started."""

    exercise: str
    check: str
    rounds: int
    elapsed_s: float


class Teller:
    """Tells ``on_progress`` how far the measuring check in hand is: :meth:`start` it when one begins,
    :meth:`tell` at each step (``new_round``: perfcore's figure of a new round), :meth:`stop` when it ends.
    ``on_progress`` is a front end's display, so a failure of it stops the telling and never costs a
    grade."""

    def __init__(self, on_progress: Callable[[Progress], None] | None = None) -> None:
        self.on_progress = on_progress
        self._running: tuple[str, str, float] | None = None  # exercise, check, when it started
        self._rounds = 0

    def start(self, exercise: str, check: str) -> None:
        self._running, self._rounds = (exercise, check, time.monotonic()), 0
        self.tell()

    def stop(self) -> None:
        self._running = None

    def tell(self, new_round: bool = False) -> None:
        """Tell ``on_progress`` (nothing where no measuring check is in hand, or no display listens)."""
        if self._running is None or self.on_progress is None:
            return
        self._rounds += new_round
        exercise, check, started = self._running
        try:
            self.on_progress(Progress(exercise, check, self._rounds, time.monotonic() - started))
        except Exception:  # noqa: BLE001 - a display that fails is left off; the grade goes on
            self.on_progress = None
