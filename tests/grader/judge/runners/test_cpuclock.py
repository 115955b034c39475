"""grader.judge.runners.cpuclock: a round on the judge's CPU clock where the measured core is shared, both
sides, counted clean where the student's call could only read that clock (issue 45 item 5). The rules on
made-up readings and spans, then the paired rounds with a fake judge on a machine whose every span reads
shared; the worker's side is tests/grader/judge/runners/test_worker_readings.py."""

from __future__ import annotations

import base64
import dataclasses
import time
from array import array
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from grader.judge.runners import busy, cpuclock
from grader.judge.verdicts import Verdict
from grader.results.outcome import State
from grader.sandbox import cputime, load, messages
from grader.sandbox.clocks import GETTIME, Readings
from grader.specs.check import MeasurementCheck
from tests.grader.judge.fakes import FakeJudgeSide, spans
from tests.grader.judge.runners.clocks import sent
from tests.grader.judge.runners.test_measurement_load import QUIET, SHARED, TIME_CHECK, S, measured

STOLEN = load.Span(wall=1.0, others=0.0, steal=0.7, elsewhere=0.0, cores=1, resolution=0.01)


def readings(
    cpu: list[float],
    threads: list[int] | None = None,
    gettime: int | None = None,
    call_cpu: float | None = None,
) -> Readings:
    """Double readings at 0, 1, 2... s of perf_counter, or of ``clock_gettime(gettime)``, each with its CPU;
    the calling thread ran ``call_cpu`` in the call (by default from its first CPU reading to its last)."""
    values = [float(i) for i in range(len(cpu))]
    raw = sent(values, cpu=cpu, threads=threads, call_cpu=call_cpu)
    if gettime is not None:  # the worker's clock_gettime record: (id, reading) pairs under its code
        pairs = [v for value in values for v in (float(gettime), value)]
        raw = {**raw, **{part: {str(GETTIME): raw[part]["0"]} for part in ("cpu", "threads")}}
        raw["clocks"] = {str(GETTIME): base64.b64encode(array("d", pairs).tobytes()).decode()}
    parsed = Readings.parse(raw)
    assert parsed is not None
    return parsed


def test_a_call_is_covered_only_where_its_readings_could_come_from_the_cpu_clock_alone() -> None:
    assert cpuclock.covered(readings([0.0, 0.5, 1.0]), tree_cpu_s=1.05)
    assert not cpuclock.covered(readings([0.0, 0.5, 1.0], threads=[0, 1, 0]), 1.0)  # another thread read
    # clock_gettime(CLOCK_MONOTONIC): a wall clock the worker does not switch; (CLOCK_THREAD_CPUTIME_ID) a CPU one
    assert not cpuclock.covered(readings([0.0, 0.5, 1.0], gettime=1), 1.0)
    assert cpuclock.covered(readings([0.0, 0.5, 1.0], gettime=3), 1.0)
    assert not cpuclock.covered(readings([0.0, 0.1, 0.2]), tree_cpu_s=1.0)  # the work ran in other threads
    # the tree's CPU read in clock ticks (no cgroup): up to two ticks more is the reading's error
    tick_read = readings([0.0, 0.098])
    assert cpuclock.covered(tick_read, 0.155, resolution_s=0.01) and not cpuclock.covered(tick_read, 0.155)
    # its arrays made before the first reading, in the calling thread: the call's own, covered
    assert cpuclock.covered(readings([0.4, 0.7, 1.0], call_cpu=1.0), tree_cpu_s=1.05)
    unrecorded = readings([0.0, 0.5, 1.0])
    assert not cpuclock.covered(dataclasses.replace(unrecorded, call_cpu=None), 1.0)
    assert not cpuclock.covered(readings([0.0, 0.5, 1.0]), tree_cpu_s=None)  # the tree's CPU unread
    assert not cpuclock.covered(None, 1.0)
    plain = Readings.parse(sent([0.0, 1.0]))  # a record of single readings: no CPU to go by
    assert not cpuclock.covered(plain, 1.0)


def rounds(*pairs: tuple[load.Span, load.Span]) -> busy.Loads:
    loads = busy.Loads()
    for student, reference in pairs:
        loads.add(student, reference)
    return loads


#: A short span, clean within its ticks, of which others took a fifth: alone it says nothing, pooled it does.
SHORT = load.Span(wall=0.1, others=0.02, steal=0.0, elsewhere=0.0, cores=1, resolution=0.01)


def test_the_next_round_is_on_the_cpu_clock_where_the_rounds_so_far_found_the_core_shared() -> None:
    assert not rounds().core_shared()  # an input's first round: nothing read yet
    assert rounds((QUIET, SHARED)).core_shared() and rounds((SHARED, QUIET)).core_shared()
    assert not rounds((QUIET, QUIET)).core_shared()
    assert not rounds((STOLEN, QUIET)).core_shared()  # a hypervisor's steal: no guest's clock undoes it
    assert not rounds((load.UNREAD, load.UNKNOWN)).core_shared()
    assert SHORT.clean and not rounds((SHORT, QUIET)).core_shared()
    assert rounds(*[(SHORT, QUIET)] * 5).core_shared()  # pooled: a fifth of the core is others'


def test_a_round_on_the_cpu_clock_counts_clean_beside_others_but_never_beside_steal() -> None:
    loads = busy.Loads()
    loads.add(SHARED, SHARED)  # the wall clock's round: others' slices stretched it
    loads.add(SHARED, SHARED, on_cpu=True)
    loads.add(QUIET, SHARED, on_cpu=True)
    loads.add(STOLEN, QUIET, on_cpu=True)
    assert loads.clean() == [1, 2]
    assert loads.quiet() == []  # the other cores were busy in those rounds: the band widens as before
    assert loads.load().clean == 2
    # short wall-clock rounds, each clean within its ticks, shared pooled: void together, but not the CPU's
    mixed = rounds(*[(SHORT, QUIET)] * 5)
    mixed.add(SHARED, SHARED, on_cpu=True)
    assert mixed.clean() == [5]


@dataclasses.dataclass
class CpuClockJudge(FakeJudgeSide):
    """A fake judge whose student's call reads like a real worker's on a shared core: its figure is
    ``figure``, or ``on_cpu_figure`` in a call read on the CPU clock; the call lasts 50 ms, of which its calling thread
    (``threads``: the readings' threads) ran 1 ms, as its double readings say, and its tree ``tree``. It
    notes which calls and which of perfcore's measurements were asked on the CPU clock."""

    figure: float = S
    on_cpu_figure: float = S
    threads: list[int] = dataclasses.field(default_factory=lambda: [0, 0])
    threads_on_cpu: list[int] | None = None  # the readings' threads in a call on the CPU clock: ``threads``
    tree: float = 0.001
    asked: list[tuple[str, bool]] = dataclasses.field(default_factory=list)
    spans: Callable[[], load.Span] | None = dataclasses.field(default_factory=lambda: spans(SHARED))

    def call(
        self,
        p: Any,
        path: str,
        args: tuple,
        kwargs: Mapping[str, Any],
        timeout_s: float,
        *more: Any,
        **extra: Any,
    ) -> messages.Returned:
        on_cpu = bool(extra.get("on_cpu"))
        self.asked.append(("student", on_cpu))
        start = time.perf_counter()
        time.sleep(0.05)
        value = self.on_cpu_figure if on_cpu else self.figure
        return messages.Returned(
            value,
            0.0,
            readings=sent(
                [start, time.perf_counter()],
                cpu=[0.0, 0.001],
                threads=self.threads if not on_cpu or self.threads_on_cpu is None else self.threads_on_cpu,
            ),
        )

    def cpu_since(self, path: str, before: cputime.TreeCpu | None) -> cputime.Used | None:
        return cputime.Used(self.tree, 0.01, True)

    def measure_reference(
        self, p: Any, kwargs: Mapping[str, Any], also: bool = False, on_cpu: bool = False
    ) -> float:
        self.asked.append(("perfcore", on_cpu))
        return super().measure_reference(p, kwargs, also, on_cpu)


CHECK = TIME_CHECK  # a time, one thread's work (single_thread, the default)


def graded(judge: CpuClockJudge, check: MeasurementCheck = CHECK) -> Verdict | None:
    return measured(check, judge)


@pytest.fixture
def shared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpuclock, "available", lambda: True)  # as on Linux, on any machine this runs on


def test_on_a_shared_core_rounds_after_the_first_are_read_on_the_cpu_clock_both_sides(shared: None) -> None:
    judge = CpuClockJudge(reference=S)
    assert graded(judge) is None  # the figure agrees: passed
    sides = {side: [on for s, on in judge.asked if s == side] for side in ("student", "perfcore")}
    assert sides["student"][0] is False and sides["perfcore"][0] is False  # the first round: the wall clock
    assert sides["student"][1:] and all(sides["student"][1:]) and all(sides["perfcore"][1:])


def test_a_figure_far_off_in_cpu_time_is_wrong_on_a_shared_core_where_it_was_deferred(shared: None) -> None:
    """The student's figure 0.22x perfcore's in CPU time: that is the method, whatever others took of the
    core (wrong). Read on the wall clock only (a call the CPU clock did not cover), it is what the load
    could do (deferred, as before the CPU clock)."""
    verdict = graded(CpuClockJudge(reference=S, figure=0.22 * S, on_cpu_figure=0.22 * S))
    assert verdict is not None and verdict.state == State.WRONG, verdict
    assert "of these rounds were read in CPU time" in verdict.message  # the student is told which clock
    assert verdict.measured is not None and verdict.measured.load is not None
    assert verdict.measured.load.on_cpu >= 2  # and the instructor's record keeps it
    elsewhere = CpuClockJudge(reference=S, figure=0.22 * S, on_cpu_figure=0.22 * S, threads=[0, 1])
    verdict = graded(elsewhere)
    assert verdict is not None and verdict.state == State.SKIPPED and verdict.deferred
    # a method the CPU clock would not cover, seen in its first call (on the wall clock): never asked on it
    assert not any(on for _, on in elsewhere.asked)
    outside = CpuClockJudge(
        reference=S, figure=0.22 * S, on_cpu_figure=0.22 * S, tree=0.06
    )  # 1 ms in the calling thread
    verdict = graded(outside)
    assert verdict is not None and verdict.state == State.SKIPPED and verdict.deferred


def test_a_single_thread_check_only(shared: None) -> None:
    judge = CpuClockJudge(reference=S, figure=0.22 * S, on_cpu_figure=0.22 * S)
    verdict = graded(judge, dataclasses.replace(CHECK, single_thread=False))
    assert verdict is not None and verdict.state == State.SKIPPED  # several threads' work: the wall clock
    assert not any(on for _, on in judge.asked)


def test_a_figure_the_cpu_clock_did_not_cover_never_reaches_a_rule(shared: None) -> None:
    """A call whose work the CPU clock did not see (a method that moves its work to another thread once its
    clock reads CPU time) reads far faster on it (100x here): taken again on the wall clock, with the rest of
    the check, its figure is the student's own, and passes."""
    judge = CpuClockJudge(reference=S, figure=S, on_cpu_figure=0.01 * S, threads_on_cpu=[0, 1])
    assert graded(judge) is None
    student = [on for side, on in judge.asked if side == "student"]
    assert student[:3] == [False, True, False] and not any(student[2:]), student  # taken again, then the wall
    assert not any(on for side, on in judge.asked if side == "perfcore")
