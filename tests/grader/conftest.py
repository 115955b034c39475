"""Fixtures the grader's tests share across its rooms."""

from __future__ import annotations

import pytest

from grader.sandbox.process import WorkerProcess


@pytest.fixture()
def waits(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, float]]:
    """Every wait the judge grants its workers, in order: ("start", the startup limit) for each worker
    started, (op, timeout_s) for each request. Their sum bounds how long grading can last whatever the
    machine's load, so the tests below assert it, where they once asserted a wall-clock time."""
    seen: list[tuple[str, float]] = []
    real_start, real_ask = WorkerProcess.start, WorkerProcess.ask

    def start(self: WorkerProcess) -> None:
        seen.append(("start", self.limits.startup_s))
        real_start(self)

    def ask(self: WorkerProcess, op: str, timeout_s: float, **fields: object) -> object:
        seen.append((op, timeout_s))
        return real_ask(self, op, timeout_s, **fields)

    monkeypatch.setattr(WorkerProcess, "start", start)
    monkeypatch.setattr(WorkerProcess, "ask", ask)
    return seen
