"""grader.judge.runners.passes and the rule it serves (honesty.passes_in_order): k passes, each over the whole
output before the next, leave places at most one pass apart at any moment, so a quick look never reads
them further apart than one ahead among those read earlier and two among those read later; a part taken
through several passes first (m4a's 35% block by block in cache, issue 45's fourth hidden set) reads
further apart, and a block taken through all k at once, or passes made elsewhere and copied in, leave
stretches between two results in which no look sees a pass. The order checked on made-up looks (generated
honest passes, with a pass ending mid-look), the watch over a real shared buffer written by another
thread, and the rule on a fake judge."""

from __future__ import annotations

import dataclasses
import mmap
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.compare import outputs
from grader.judge.prepare import prepare
from grader.judge.runners import honesty, witness
from grader.judge.runners.passes import Apart, apart
from grader.judge.runners.readings import Witnessed
from grader.judge.runners.witness import Crossings
from grader.judge.verdicts import Verdict
from grader.results.outcome import State
from grader.sandbox.shared import Shared
from grader.specs.check import Exercise, Work
from grader.specs.handed import Handed
from perfcore.measure.core import Bounds
from tests.grader.judge.fakes import FakeJudgeSide
from tests.grader.judge.runners.test_measurement_load import TIME_CHECK
from tests.grader.judge.runners.test_witness import POSIX

C = 1.01


@st.composite
def honest_looks(draw: st.DrawFn) -> tuple[list[int], int]:
    """One look at places of honest passes: each place's stage as read, in the order read, and k. The runs
    write their passes in turn (a copy of x first, or not), each pass reaching the places in an order of its
    own; the look reads them one after another while at most one pass ends (it is quicker than one)."""
    k = draw(st.integers(16, 24))
    copy = draw(st.booleans())  # a run that copies x in first writes k + 1 times
    cycle = k + 1 if copy else k
    places = draw(st.integers(2, 8))
    done = draw(st.integers(1, 5 * cycle))  # whole passes written before the one under way
    # when each place is reached by the pass under way (in [0, 1)) and by the next (in [1, 2))
    now = [draw(st.floats(0, 0.999)) for _ in range(places)]
    then = [1 + draw(st.floats(0, 0.999)) for _ in range(places)]
    start = draw(st.floats(0, 0.999))
    took = draw(st.floats(0, 0.999))  # the look is quicker than one pass
    reads = sorted(draw(st.floats(start, start + took)) for _ in range(places))
    order = draw(st.permutations(range(places)))
    stages = []
    for place, at in zip(order, reads, strict=True):
        written = done + (now[place] <= at) + (then[place] <= at)  # writes at this place so far
        # the stage a place holds after its n-th write: x copied (0) then passes 1..k, or passes 1..k
        stages.append((written - 1) % cycle if copy else (written - 1) % k + 1)
    return stages, k


@settings(max_examples=400, deadline=None)
@given(honest_looks())
def test_honest_passes_are_never_read_apart(look: tuple[list[int], int]) -> None:
    stages, k = look
    assert apart(np.array(stages), k, 1e-6) is None


@pytest.mark.parametrize(
    ("stages", "more", "fewer"),
    [
        ([16, 16, 5, 5], 16, 5),  # a part through all 16 passes while the rest is at its fifth
        ([7, 5], 7, 5),  # read first and two ahead: two passes made together, block by block
        ([5, 8], 8, 5),  # three apart, whichever was read first
        ([1, 13], 13, 1),  # three apart across a run's end (13, 14, 15, 16, 1)
    ],
)
def test_places_further_apart_than_passes_in_order_leave_them_are_found(
    stages: list[int], more: int, fewer: int
) -> None:
    found = apart(np.array(stages), 16, 2e-6)
    assert found == Apart(2e-6, more, fewer)


def test_places_one_or_two_apart_as_passes_in_order_leave_them_are_not() -> None:
    assert apart(np.array([5, 7]), 16, 1e-6) is None  # read later two ahead: a pass ended mid-look
    assert apart(np.array([16, 1, 2]), 16, 1e-6) is None  # a run's last pass, then its next two
    assert apart(np.array([0, 16, 1]), 16, 1e-6) is None  # x copied in halfway between
    assert apart(np.array([-1, 9, -1]), 16, 1e-6) is None  # one place known: nothing to compare


def run_passes(view: np.ndarray, x: np.ndarray, k: int, runs: int, way: str) -> None:
    """``runs`` runs of k passes of ``x`` times C into ``view``, a pass every 2 ms or so (the watch looks
    every half millisecond): ``honest`` each pass over the whole; ``blocked`` the first 3/8 through all k
    passes a block at a time, then the rest pass by pass; ``paired`` two passes at a time made block by
    block, a block every 0.2 ms; ``copied`` the passes made on a private array and the result copied in;
    ``stamped`` one run over the whole, then the places the judge stamped (NaN) found and only they walked
    through the passes, the rest left at the result."""
    c = np.float32(C)
    cut = len(x) * 3 // 8
    if way == "stamped":
        run_passes(view, x, k, 1, "honest")
        time.sleep(0.01)  # the looks see the result and stamp it
        places = np.flatnonzero(np.isnan(view))
        stages = [x[places] * c]
        for _ in range(k - 1):
            stages.append(stages[-1] * c)
        for _ in range(runs):
            for stage in stages:
                view[places] = stage
                time.sleep(0.002)
        return
    for _ in range(runs):
        if way == "paired":
            np.multiply(x, c, out=view)
            for _ in range((k - 1) // 2):
                for lo in range(0, len(x), 1024):
                    view[lo : lo + 1024] *= c
                    view[lo : lo + 1024] *= c
                    time.sleep(0.0002)
            for _ in range((k - 1) % 2):
                view *= c
            time.sleep(0.002)
            continue
        if way == "copied":
            private = x * c
            for _ in range(k - 1):
                np.multiply(private, c, out=private)
                time.sleep(0.002)
            np.copyto(view, private)
            continue
        if way == "blocked":
            for lo in range(0, cut, 1024):
                block = view[lo : min(lo + 1024, cut)]
                np.multiply(x[lo : lo + len(block)], c, out=block)
                for _ in range(k - 1):
                    np.multiply(block, c, out=block)
        start = cut if way == "blocked" else 0
        np.multiply(x[start:], c, out=view[start:])
        for _ in range(k - 1):
            time.sleep(0.002)
            np.multiply(view[start:], c, out=view[start:])
        time.sleep(0.002)


def watched(way: str, k: int = 16, runs: int = 3, fused: bool = False) -> Crossings:
    """What the watch saw of ``runs`` runs of k passes made ``way`` (:func:`run_passes`) by another thread;
    ``fused``: the one-pass input, which has no stages to read."""
    n = 1 << 14
    x_buffer, y_buffer = Shared("x", (n,), "float32", "numpy"), Shared("y", (n,), "float32", "numpy")
    try:
        x = (1 + np.random.default_rng(2).random(n, dtype=np.float32)).astype(np.float32)
        x_buffer.write(0, x)
        mapped = mmap.mmap(y_buffer.fd, y_buffer.size)
        views = [np.frombuffer(mapped, dtype=np.float32)]
        inputs = {"k": k, "fused": fused}
        watching = witness.watch(
            {"x": x_buffer, "y": y_buffer},
            "y",
            lambda got, where, **kw: outputs.scaled_at(got, where, c=C, **kw),
            inputs,
            stages=lambda got, where, **kw: outputs.scaled_stages(got, where, c=C, **kw),
        )
        assert watching is not None
        worker = threading.Thread(target=run_passes, args=(views[0], x, k, runs, way))
        worker.start()
        worker.join()
        seen = watching.stop()
        assert seen is not None
        views.clear()
        mapped.close()
        return seen
    finally:
        x_buffer.close()
        y_buffer.close()


@pytest.mark.skipif(not POSIX, reason="the witness reads by pread, the buffers pass by descriptor")
def test_the_watch_reads_honest_passes_in_order_and_sees_each_between_two_results() -> None:
    seen = watched("honest")
    assert seen.runs >= 2  # the runs were seen, by the stamps as before
    # none out of order in a look quicker than the 2 ms between passes; and the passes between two results
    # (15 x 2 ms at each place) seen, or missed only where the looks were at least as far apart (a busy
    # machine's late looks)
    assert seen.apart is None or seen.apart.took >= 0.002
    assert seen.bare is None or seen.bare >= 0.025


@pytest.mark.skipif(not POSIX, reason="the witness reads by pread, the buffers pass by descriptor")
def test_the_watch_sees_a_part_taken_through_all_passes_first() -> None:
    seen = watched("blocked")
    # no look saw the part's places between two results; and a look may see them at the last pass beside the
    # rest in its first ones (where it came before the judge's stamp there), out of order, as they were
    assert seen.bare is not None and seen.bare < 0.025
    assert seen.apart is None or seen.apart.more == 16


@pytest.mark.skipif(not POSIX, reason="the witness reads by pread, the buffers pass by descriptor")
def test_the_watch_reads_two_passes_made_together_out_of_order() -> None:
    seen = watched("paired")
    assert seen.apart is not None and seen.apart.more - seen.apart.fewer == 2
    assert seen.apart.took < 0.001


@pytest.mark.skipif(not POSIX, reason="the witness reads by pread, the buffers pass by descriptor")
def test_the_watch_reads_places_it_never_stamps_beside_those_it_does() -> None:
    """The stamped places found by their NaN and walked through the passes alone (a student who read how the
    witness works): the places read but never stamped stay at the result, a pass ahead of no run, and a
    quick look reads them out of order."""
    seen = watched("stamped")
    assert seen.apart is not None and seen.apart.more == 16
    assert seen.apart.took < 0.001


@pytest.mark.skipif(not POSIX, reason="the witness reads by pread, the buffers pass by descriptor")
def test_an_input_made_in_one_pass_is_watched_without_stages() -> None:
    """The fused input (one multiplication by c**k) has no passes to read: the watch reads no stages and no
    places beside the stamped ones, and sees its runs as any output's (m4a's one-pass check failed to start
    its witness when the places beside were drawn there too)."""
    seen = watched("honest", k=1, fused=True)
    assert seen.runs >= 2 and seen.apart is None and seen.bare is None


@pytest.mark.skipif(not POSIX, reason="the witness reads by pread, the buffers pass by descriptor")
def test_the_watch_sees_no_pass_where_the_passes_were_made_elsewhere() -> None:
    seen = watched("copied")
    assert seen.apart is None  # every place holds the result or nothing: no order to read
    assert seen.bare is not None and seen.bare < 0.025  # the looks came, and saw no pass between


#: A k-pass check: its output written k times a run, its stages those of k multiplications by C.
CHECK = dataclasses.replace(
    TIME_CHECK,
    handed=Handed(
        arguments=lambda **_: {},
        result=lambda got, **_: True,
        result_zh="y",
        result_en="y",
        watched="y",
        at=lambda got, where, **kw: outputs.scaled_at(got, where, c=C, **kw),
        stages=lambda got, where, **kw: outputs.scaled_stages(got, where, c=C, **kw),
        writes=lambda k, **_: k,
    ),
)
EXERCISE = Exercise(id="fx", module="fx", title_zh="假", title_en="Fake", checks=(CHECK,))
#: 1 GB/s at most: a pass over 8 MB (16 passes claimed, 128 MB) takes at least 8 ms.
MACHINE = Bounds(peak_flops=1e12, bandwidth=1e9, dram_bytes=1 << 30)


def rule_verdict(seen: Crossings) -> Verdict | None:
    call = honesty.Call(
        {"k": 16, "fused": False},
        took=0.2,
        cpu=None,
        work=Work(bytes=16 * 8e6),
        seconds=0.15,
        seen=Witnessed((0.0, 0.2), None, crossings=seen),
    )
    try:
        honesty.passes_in_order(
            FakeJudgeSide(lang="en", machine=MACHINE), prepare(CHECK, EXERCISE, "en"), call
        )
    except Verdict as verdict:
        return verdict
    return None


def test_a_quick_look_out_of_order_is_wrong_and_a_slow_one_no_evidence() -> None:
    verdict = rule_verdict(Crossings((), apart=Apart(2e-6, 16, 5)))
    assert verdict is not None and verdict.state == State.WRONG
    assert "16 passes and another 5" in verdict.message
    # a look that took longer than a pass can (its thread preempted mid-look): passes may have ended in it
    assert rule_verdict(Crossings((), apart=Apart(0.009, 16, 5))) is None


def test_no_pass_seen_between_two_results_is_wrong_only_where_the_looks_were_close() -> None:
    # the passes between two results at a place last at least 15 x 8 ms: looks 1 ms apart saw one
    verdict = rule_verdict(Crossings((), bare=0.001))
    assert verdict is not None and verdict.state == State.WRONG and "passes between" in verdict.message
    assert rule_verdict(Crossings((), bare=0.07)) is None  # looks far apart may have missed them all
    assert rule_verdict(Crossings(())) is None
    assert honesty.passes_in_order in honesty.RULES


def test_stages_go_with_a_result_of_the_watched_output() -> None:
    with pytest.raises(TypeError, match="stages"):
        Handed(
            arguments=lambda **_: {},
            result=lambda got, **_: True,
            result_zh="y",
            result_en="y",
            watched="y",
            counted=lambda got, where, **_: where,
            stages=lambda got, where, **_: None,
        )
