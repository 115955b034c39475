"""grader.sandbox.load: the spans of a measurement read from /proc/stat, what is clean and calm, and the
machine's load now, on injected /proc/stat files of other machines (2 cores, 64 cores, a guest with steal);
the load read as quiet where the judge's own environment says so, and never where a student's code does."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import grader
from grader.results.environment import environment
from grader.sandbox import load
from grader.sandbox.confinement import KEPT_ENV, worker_env

ROOT = Path(__file__).resolve().parents[3]


def stat_file(tmp_path: Path, name: str, cpus: list[tuple[int, int, int]]) -> str:
    """A /proc/stat with one line per CPU: (busy user ticks, idle ticks, steal ticks)."""
    lines = ["cpu  0 0 0 0 0 0 0 0 0 0"]
    for i, (busy, idle, steal) in enumerate(cpus):
        lines.append(f"cpu{i} {busy} 0 0 {idle} 0 0 0 {steal} 0 0")
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\nintr 0\n", encoding="ascii")
    return str(path)


def reading(tmp_path: Path, name: str, cpus: list[tuple[int, int, int]], at: float) -> load.MachineTicks:
    return load.MachineTicks(load.read_cpus(stat_file(tmp_path, name, cpus)), at)


def test_read_cpus_takes_busy_without_idle_iowait_or_steal(tmp_path: Path) -> None:
    path = tmp_path / "stat"
    path.write_text(
        "cpu  9 9 9 9 9 9 9 9\ncpu0 10 1 2 100 7 1 1 5 0 0\ncpu1 3 0 0 50 0 0 0\n", encoding="ascii"
    )
    assert load.read_cpus(str(path)) == {0: load.Cpu(15, 5), 1: load.Cpu(3, 0)}
    assert load.read_cpus(str(tmp_path / "missing")) == {}


def test_a_span_subtracts_our_own_cpu_from_the_measured_core(tmp_path: Path) -> None:
    tick = load.tick_s()
    before = reading(tmp_path, "a", [(0, 0, 0), (0, 0, 0)], 0.0)
    # one second: core 1 busy 100 ticks, of which our process used a second's worth; core 0 idle
    after = reading(tmp_path, "b", [(0, 100, 0), (round(1 / tick), 0, 0)], 1.0)
    alone = load.span(before, after, {1}, ours_s=1.0)
    assert alone.clean and alone.calm and alone.others == pytest.approx(0.0)
    shared = load.span(before, after, {1}, ours_s=0.5)  # half of the core's time was another process's
    assert not shared.clean and shared.others_share == pytest.approx(0.5)
    # issue 38: on a machine whose load reads, a span it was not read for is no evidence (never clean)
    assert load.span(before, after, None, 1.0) is load.UNREAD  # not pinned: nothing said of the core
    assert load.span(before, after, {1}, None) is load.UNREAD  # our CPU unread: likewise
    assert not load.UNREAD.clean and not load.UNREAD.quiet and load.UNREAD.others_share == 0.0
    # a machine whose load cannot be read at all: every span clean, the verdicts as without reading
    assert load.span(load.MachineTicks({}, 0.0), after, {1}, 1.0) is load.UNKNOWN
    assert load.UNKNOWN.clean and load.UNKNOWN.calm and load.UNKNOWN.others_share == 0.0


def test_busy_other_cores_are_not_calm_and_steal_is_not_clean(tmp_path: Path) -> None:
    per_s = round(1 / load.tick_s())
    before = reading(tmp_path, "a", [(0, 0, 0)] * 3, 0.0)
    after = reading(tmp_path, "b", [(per_s, 0, 0), (per_s, 0, 0), (0, per_s, 0)], 1.0)
    busy = load.span(before, after, {2}, ours_s=0.0)
    assert busy.clean and not busy.calm and busy.elsewhere == pytest.approx(2.0)
    guest = reading(tmp_path, "c", [(0, per_s, 0), (0, per_s, 0), (per_s // 2, 0, per_s // 2)], 1.0)
    stolen = load.span(before, guest, {2}, ours_s=0.5)
    assert not stolen.clean and stolen.steal == pytest.approx(0.5, abs=0.02)


def test_a_large_machine_may_be_busy_elsewhere_and_calm(tmp_path: Path) -> None:
    """On 64 cores, four busy ones are an eighth of the rest at most: calm, as a shared server is."""
    per_s = round(1 / load.tick_s())
    before = reading(tmp_path, "a", [(0, 0, 0)] * 64, 0.0)
    after = reading(tmp_path, "b", [(per_s, 0, 0)] * 4 + [(0, per_s, 0)] * 60, 1.0)
    assert load.span(before, after, {63}, ours_s=0.0).calm
    crowded = reading(tmp_path, "c", [(per_s, 0, 0)] * 20 + [(0, per_s, 0)] * 44, 1.0)
    assert not load.span(before, crowded, {63}, ours_s=0.0).calm


def test_busy_now_reads_the_machine() -> None:
    per_s = round(1 / load.tick_s())
    idle = {0: load.Cpu(0, 0), 1: load.Cpu(0, 0)}

    def machine(*after: dict[int, load.Cpu]):
        samples = iter([load.MachineTicks(idle, 0.0), *(load.MachineTicks(a, 1.0) for a in after)])
        return lambda: next(samples)

    busy = {0: load.Cpu(per_s, 0), 1: load.Cpu(per_s, 0)}
    assert load.busy_now(0.0, machine(busy)) == "2.0 of 2 CPUs busy"
    one_free = {
        0: load.Cpu(per_s // 20, 0),
        1: load.Cpu(per_s // 4, 0),
    }  # a browser's tab beside an idle core
    assert load.busy_now(0.0, machine(one_free)) is None
    assert load.busy_now(0.0, lambda: load.MachineTicks({}, 0.0)) is None  # nothing to read: never "busy"


def test_our_own_cpu_on_other_cores_is_not_the_machines_load(tmp_path: Path) -> None:
    """A call whose thread spins on another core (its CPU past what the measured core shows) does not make
    its own span look busy elsewhere."""
    per_s = round(1 / load.tick_s())
    before = reading(tmp_path, "a", [(0, 0, 0)] * 2, 0.0)
    after = reading(tmp_path, "b", [(per_s, 0, 0), (per_s, 0, 0)], 1.0)
    assert load.span(before, after, {1}, ours_s=2.0).calm
    assert not load.span(before, after, {1}, ours_s=1.0).calm


# -- the load read as quiet (issue 37 point 5): the trusted side's setting for the kit's own tests


def test_the_load_is_read_from_proc_stat_unless_the_judge_says_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(load.LOAD_ENV, raising=False)
    assert load.source() == load.PROC
    monkeypatch.setenv(load.LOAD_ENV, "proc")
    assert load.source() == load.PROC
    monkeypatch.setenv(load.LOAD_ENV, "quiet")
    assert load.source() == load.QUIET


def test_an_unknown_load_source_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(load.LOAD_ENV, "calm")
    with pytest.raises(
        ValueError, match=r"\$PERFKIT_LOAD must be one of proc, quiet \(or unset\), got 'calm'"
    ):
        load.reading()


def test_a_quiet_reading_makes_every_span_known_clean_and_calm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Even where the machine's /proc/stat says every core was busy with others, and the span's own CPU is
    a small share of its wall time: known (not the unreadable machine's UNKNOWN), clean, calm, no share."""
    per_s = round(1 / load.tick_s())
    files = iter([stat_file(tmp_path, "a", [(0, 0, 0)] * 2), stat_file(tmp_path, "b", [(per_s, 0, 0)] * 2)])
    real = load.read_cpus
    monkeypatch.setattr(load, "read_cpus", lambda stat=None: real(next(files)))
    busy = load.span(load.reading(), load.reading(), {0}, ours_s=0.0)
    assert not busy.clean  # the machine as read: busy (the stand-in files are read)
    monkeypatch.setenv(load.LOAD_ENV, "quiet")
    before = load.reading()
    time.sleep(0.02)
    quiet = load.span(before, load.reading(), {0}, ours_s=0.001)
    assert quiet.known and quiet.clean and quiet.calm and quiet.quiet
    assert quiet.others == 0.0 and quiet.steal == 0.0 and quiet.elsewhere == 0.0
    assert quiet.others_share == 0.0 and quiet.wall >= 0.02
    assert set(load.reading().cpus) >= set(os.sched_getaffinity(0))  # every core this process may pin


def test_a_quiet_reading_is_quiet_even_where_our_cpu_is_unread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The quiet setting reads every span as quiet, one whose own CPU time is unknown included (it is not
    the machine's UNREAD: the judge said how to read the load)."""
    monkeypatch.setenv(load.LOAD_ENV, "quiet")
    span = load.span(load.reading(), load.reading(), {0}, ours_s=None)
    assert span.known and span.quiet and span.others == 0.0


def test_short_spans_clean_one_by_one_are_judged_pooled(tmp_path: Path) -> None:
    """Issue 38: a span is clean with two ticks (20 ms) of others whatever its length, so 30 ms spans each
    half taken by a busy process pass one by one. Pooled over the rounds, a shared core shows; a quiet
    one, whose readings err a tick either way, does not; a machine that reads nothing stays clean."""
    tick = load.tick_s()
    before = reading(tmp_path, "a", [(0, 0, 0), (0, 0, 0)], 0.0)
    after = reading(tmp_path, "b", [(0, 3, 0), (3, 0, 0)], 0.03)  # 3 ticks busy on core 1 in 30 ms
    shared = load.span(before, after, {1}, ours_s=0.015)  # half of it ours
    assert shared.clean and shared.others == pytest.approx(3 * tick - 0.015)
    assert load.pooled_clean([shared]) and not load.pooled_clean([shared] * 3)
    # quiet, the ticks' errors both ways: 3 ticks read for 25 ms of ours, 2 for 25 ms
    over = load.span(before, after, {1}, ours_s=0.025)
    under = load.span(before, reading(tmp_path, "c", [(0, 3, 0), (2, 1, 0)], 0.03), {1}, ours_s=0.025)
    assert under.others == 0.0 and under.others_read == pytest.approx(-tick / 2)
    assert load.pooled_clean([over, under] * 6)
    assert load.pooled_clean([load.UNKNOWN] * 3) and load.pooled_clean([])


def test_a_quiet_reading_says_the_machine_is_quiet_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(load.LOAD_ENV, "quiet")
    assert load.busy_now(0.0) is None


def test_a_grade_read_as_quiet_says_so_in_its_environment_record(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(load.LOAD_ENV, raising=False)
    assert "load" not in environment()
    monkeypatch.setenv(load.LOAD_ENV, "quiet")
    assert environment()["load"] == "quiet"


def test_the_workers_environment_never_carries_the_load_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(load.LOAD_ENV, "quiet")
    assert load.LOAD_ENV not in worker_env("/tmp")
    assert load.LOAD_ENV not in KEPT_ENV


def test_a_students_code_that_sets_the_load_setting_does_not_reach_the_judge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A submission that sets $PERFKIT_LOAD at import and in its function (to a value the judge would refuse,
    so that any way it reached the judge's process would show) runs in the judge's worker: the judge's own
    environment, and so its reading of the load, is untouched."""
    monkeypatch.delenv(load.LOAD_ENV, raising=False)
    source = (ROOT / "solutions" / "ex01_ridge_point.py").read_text(encoding="utf-8")
    setting = f"import os\nos.environ[{load.LOAD_ENV!r}] = 'bogus'\nos.putenv({load.LOAD_ENV!r}, 'bogus')\n"
    path = tmp_path / "ex01_ridge_point.py"
    path.write_text(setting + source, encoding="utf-8")
    result = grader.grade(path, "ex01", lang="en")
    assert result.outcomes and all(o.state == "passed" for o in result.outcomes)
    assert load.LOAD_ENV not in os.environ and load.source() == load.PROC
