"""The judge's CPU clock attacked (issue 45 item 5; grader.judge.runners.cpuclock): on a core read as shared
with others, a single-thread check's rounds after the first are read in CPU time, and such a round is
evidence. What a student could try against it, graded by a real judge and a sandboxed worker with every
span read as shared (the load injected, as on a machine this test does not run on; the grading itself is
as a student's):

- the honest solution: decided (passed) where it was deferred before, every round after the first read on
  the CPU clock;
- the work handed to another thread while the calling thread waits, so that its CPU clock reads a fraction
  of the work (100x fast for m5a): not covered (the tree's CPU is the work's, the thread's is not), so the
  call is taken again on the wall clock, as is the rest of the check; on that clock the method is honest,
  and is judged as any honest figure is (passed, or deferred: never wrong by a figure the CPU clock made);
- the figure read off ``clock_gettime(CLOCK_MONOTONIC)``, a wall clock the worker does not switch, then
  divided down: read on the wall clock, never passed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader import api
from grader.judge.runners import busy, cpuclock
from grader.results.outcome import State
from grader.sandbox import load

pytest.importorskip("torch")

SHARED = load.Span(wall=1.0, others=0.7, steal=0.0, elsewhere=0.0, cores=1, resolution=0.01)

HONEST = Path(__file__).resolve().parents[2] / "solutions" / "m5_overhead.py"

#: m5a's add done by a thread the calling thread waits for: its CPU clock sees the waiting, not the adds (on
#: the handed x and out: the side thread's adds leave out = reps * x).
OFFLOADED = """
import threading, time
import torch

def add_time(x, out):
    torch.set_num_threads(1)
    reps = 2000
    def work():
        for _ in range(reps):
            torch.add(out, x, out=out)
    start = time.perf_counter()
    side = threading.Thread(target=work)
    side.start()
    side.join()
    return (time.perf_counter() - start) / reps
"""

#: m5a timed on a clock the worker does not switch (on the handed x and out, which the adds leave
#: out = reps * x), then made to look like a CPU-time figure.
UNSWITCHED = """
import time
import torch

def add_time(x, out):
    torch.set_num_threads(1)
    reps = 2000
    start = time.clock_gettime(time.CLOCK_MONOTONIC)
    for _ in range(reps):
        torch.add(out, x, out=out)
    return (time.clock_gettime(time.CLOCK_MONOTONIC) - start) / reps / 3
"""


@pytest.fixture
def shared(monkeypatch: pytest.MonkeyPatch) -> dict[int, list[bool]]:
    """Every span read as shared with others; which rounds counted on the CPU clock, per input's rounds."""
    if not cpuclock.available():
        pytest.skip("no thread CPU clock or machine load to read here")
    monkeypatch.setattr(busy.load, "span", lambda before, after, core, ours_s: SHARED)
    asked: dict[int, list[bool]] = {}
    kept: list[busy.Loads] = []  # each input's rounds kept alive: an id is never another's
    counted = busy.Loads.add

    def add(self: busy.Loads, student: load.Span, reference: load.Span, on_cpu: bool = False) -> None:
        if not any(loads is self for loads in kept):
            kept.append(self)
        asked.setdefault(id(self), []).append(on_cpu)
        counted(self, student, reference, on_cpu)

    monkeypatch.setattr(busy.Loads, "add", add)
    return asked


def add_time(path: Path) -> tuple[State, str]:
    result = api.grade(path, "m5", checks=["add_16"], lang="en")
    (outcome,) = result.outcomes
    return outcome.state, outcome.message


def test_the_honest_add_is_decided_on_a_shared_core_in_cpu_time(shared: dict[int, list[bool]]) -> None:
    state, message = add_time(HONEST)
    assert state == State.PASSED, message
    assert shared and sum(len(rounds) for rounds in shared.values()) >= 3
    for rounds in shared.values():  # each input's first round on the wall clock, the rest on the CPU clock
        assert rounds[0] is False and all(rounds[1:]), rounds


@pytest.mark.parametrize("source", [OFFLOADED, UNSWITCHED], ids=["offloaded", "unswitched"])
def test_a_call_the_cpu_clock_did_not_cover_is_judged_on_the_wall_clock(
    shared: dict[int, list[bool]], tmp_path: Path, source: str
) -> None:
    path = tmp_path / "m5_overhead.py"
    path.write_text(source, encoding="utf-8")
    state, message = add_time(path)
    assert not any(any(rounds) for rounds in shared.values()), "a round counted on a clock it did not cover"
    if source is OFFLOADED:  # honest on the wall clock: never wrong by what the CPU clock read
        assert state in (State.PASSED, State.SKIPPED), message
    else:
        assert state != State.PASSED, message
