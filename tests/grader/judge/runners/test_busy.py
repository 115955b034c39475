"""grader.judge.runners.busy: a verdict against the student only from rounds the machine's load could not
bend; deferral with the load's numbers otherwise. Loads are injected spans, as another machine's would be."""

from __future__ import annotations

from grader.compare import ratios
from grader.judge.runners import busy
from grader.results.outcome import State
from grader.sandbox import load

QUIET = load.Span(wall=1.0, others=0.0, steal=0.0, elsewhere=0.0, cores=1, resolution=0.01)
SHARED = load.Span(wall=1.0, others=0.6, steal=0.0, elsewhere=0.0, cores=1, resolution=0.01)  # core shared
NEIGHBOURS = load.Span(
    wall=1.0, others=0.0, steal=0.0, elsewhere=1.0, cores=1, resolution=0.01
)  # busy next door
BAND = (0.8, 1.25)


def loads(*rounds: tuple[load.Span, load.Span]) -> busy.Loads:
    log = busy.Loads()
    for student, reference in rounds:
        log.add(student, reference)
    return log


def test_inside_passes_whatever_the_load() -> None:
    assert busy.decide([1.0] * 5, [1.0] * 5, loads(*[(SHARED, SHARED)] * 5), BAND)[0] == ratios.INSIDE


def test_a_ratio_outside_in_busy_rounds_is_the_machines() -> None:
    """The issue's m3 case: perfcore's side slowed by another process on its core, 0.22x: no evidence."""
    mine, ref = [1.0] * 5, [4.5] * 5
    busy_rounds = loads(*[(QUIET, SHARED)] * 5)
    assert busy.decide(mine, ref, busy_rounds, BAND)[0] == busy.BUSY
    assert busy.decide(mine, ref, loads(*[(QUIET, QUIET)] * 5), BAND)[0] == ratios.OUTSIDE


def test_the_clean_rounds_alone_decide() -> None:
    """Two busy rounds with a wild ratio, three clean ones inside the band: passed on the clean evidence;
    three clean ones outside it: wrong on theirs."""
    rounds = loads(*[(QUIET, QUIET)] * 3, *[(SHARED, QUIET)] * 2)
    assert busy.decide([1.0, 1.0, 1.0, 0.2, 0.2], [1.0] * 5, rounds, BAND)[0] == ratios.INSIDE
    assert busy.decide([0.5, 0.5, 0.5, 1.0, 1.0], [1.0] * 5, rounds, BAND)[0] == ratios.OUTSIDE


def test_busy_neighbours_need_a_wider_miss() -> None:
    """The measured core clean, the other cores busy (their traffic on the shared caches and DRAM): 0.7x
    is within what that contention explains, 0.4x is not."""
    rounds = loads(*[(NEIGHBOURS, NEIGHBOURS)] * 5)
    assert busy.decide([0.7] * 5, [1.0] * 5, rounds, BAND)[0] == busy.BUSY
    assert busy.decide([0.4] * 5, [1.0] * 5, rounds, BAND)[0] == ratios.OUTSIDE


def test_scatter_is_blamed_only_on_quiet_rounds() -> None:
    mine, ref = [1.0, 2.0, 0.5, 1.5, 0.7], [1.0] * 5
    assert busy.scatter_spreads(mine, ref, loads(*[(SHARED, QUIET)] * 5)) is None
    spreads = busy.scatter_spreads(mine, ref, loads(*[(QUIET, QUIET)] * 5))
    assert spreads is not None and spreads[0] > 0.3 and spreads[1] == 0.0


def test_the_busy_verdict_is_a_deferral_that_says_how_busy() -> None:
    verdict = busy.busy_verdict(loads(*[(SHARED, SHARED)] * 4), "en")
    assert verdict.state == State.SKIPPED and verdict.deferred
    assert (
        "busy" in verdict.message and "in only 0 of 4 rounds" in verdict.message and "60%" in verdict.message
    )
    zh = busy.busy_verdict(loads(*[(SHARED, SHARED)] * 4), "zh").message
    assert "太忙" in zh and "60%" in zh


def test_a_timeout_while_others_held_the_core_is_deferred() -> None:
    import pytest

    from grader.judge.verdicts import Verdict

    with pytest.raises(Verdict) as verdict:
        busy.timed_out("scale_time", SHARED, None, 30.0, "en")
    assert verdict.value.deferred and "own time limit of 30 s" in verdict.value.message
    busy.timed_out("scale_time", QUIET, None, 30.0, "en")  # the core was its own: the timeout stands


def test_busy_neighbours_alone_are_named_as_such() -> None:
    """All rounds clean, the other cores busy: the reason names the neighbours, not the measured core."""
    message = busy.busy_verdict(loads(*[(NEIGHBOURS, NEIGHBOURS)] * 4), "en").message
    assert "the measured core ran nothing else (4 of 4 rounds)" in message and "1.0 other cores" in message
    assert "其他核心" in busy.busy_verdict(loads(*[(NEIGHBOURS, NEIGHBOURS)] * 4), "zh").message


def test_enough_clean_rounds_then_the_reason_is_the_other_cores_not_a_two_percent_share() -> None:
    """Issue 38: "in only 10 of 11 rounds did the measured core run nothing else (others took about 2% of
    it)" read as no reason. With enough clean rounds for a verdict, what stood in the way is the neighbours;
    with too few, the share others took is the share in the rounds that were not clean."""
    message = busy.busy_verdict(loads(*[(NEIGHBOURS, NEIGHBOURS)] * 10, (SHARED, SHARED)), "en").message
    assert "the measured core ran nothing else (10 of 11 rounds)" in message and "2%" not in message
    few = busy.busy_verdict(loads(*[(QUIET, QUIET)] * 2, *[(SHARED, SHARED)] * 7), "en").message
    assert "in only 2 of 9 rounds" in few and "about 60% of it" in few


def test_a_check_is_hopeless_only_when_the_rounds_left_cannot_make_the_evidence() -> None:
    """No clean round among the first three: hopeless, however many rounds are left. One clean in three
    with six left: at that rate three more may come, so not yet. Fewer than three rounds, or three clean
    ones: never (nothing to infer, or the evidence is there)."""
    assert busy.Loads().hopeless(100) is False
    assert loads(*[(SHARED, SHARED)] * 2).hopeless(100) is False
    assert loads(*[(SHARED, SHARED)] * 3).hopeless(100) is True
    one_in_three = loads((QUIET, QUIET), (SHARED, SHARED), (QUIET, SHARED))
    assert one_in_three.hopeless(6) is False and one_in_three.hopeless(2) is True
    assert loads(*[(QUIET, QUIET)] * 3, (SHARED, SHARED)).hopeless(0) is False


def test_rounds_clean_one_by_one_but_shared_pooled_are_no_evidence() -> None:
    """Issue 38: 30 ms spans of which a busy process took 15 ms each are clean one by one (within two
    ticks), so three of them were evidence for a wrong. Pooled, they show the shared core: no clean
    round, the verdict deferred; quiet 30 ms rounds stay evidence."""
    short = load.Span(wall=0.03, others=0.015, steal=0.0, elsewhere=0.0, cores=1, resolution=0.01)
    quiet_short = load.Span(wall=0.03, others=0.0, steal=0.0, elsewhere=0.0, cores=1, resolution=0.01)
    assert short.clean
    shared = loads(*[(short, QUIET)] * 5)
    assert shared.clean() == [] and shared.quiet() == []
    assert busy.decide([0.5] * 5, [1.0] * 5, shared, BAND)[0] == busy.BUSY
    assert busy.scatter_spreads([1.0, 2.0, 0.5, 1.5, 0.7], [1.0] * 5, shared) is None
    assert busy.decide([0.5] * 5, [1.0] * 5, loads(*[(quiet_short, QUIET)] * 5), BAND)[0] == ratios.OUTSIDE


def test_an_unread_span_is_no_evidence_for_a_wrong() -> None:
    """Issue 38: a span whose own CPU time could not be read counted as clean. On a machine whose load
    reads, it is no evidence: rounds with one are not clean, and a scatter or a miss in them defers."""
    unread = loads(*[(load.UNREAD, QUIET)] * 5)
    assert unread.clean() == [] and busy.scatter_spreads([1.0, 2.0, 0.5, 1.5, 0.7], [1.0] * 5, unread) is None
    assert busy.decide([0.5] * 5, [1.0] * 5, unread, BAND)[0] == busy.BUSY
    # a machine that reads no load at all: every span clean, the verdicts as without reading
    assert busy.decide([0.5] * 5, [1.0] * 5, loads(*[(load.UNKNOWN, load.UNKNOWN)] * 5), BAND)[0] == (
        ratios.OUTSIDE
    )
