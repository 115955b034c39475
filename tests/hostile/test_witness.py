"""Figures scaled within the band (issue 45, family 3) and a curve's modelled points (family 1;
tests/hostile/witness.py), graded by the batch grader
and the pytest plugin with the machine's load read as quiet, each in a subprocess as an instructor or a
student runs them: every one wrong in both, by the judge's witness of the runs
(grader.judge.runners.witness) or, for a figure longer than any stretch of the call's readings, by the
readings (grader.judge.runners.readings). Before the witness each passed: its work done, its result left,
its clock read around each timed block, its figure within the band.
"""

from __future__ import annotations

import os
import time

import pytest

from grader.sandbox import channel
from perfcore.measure import procstat
from tests.hostile.test_hostile import graded_both
from tests.hostile.witness import CAUGHT

pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not channel.PASSES_FDS, reason="handed buffers pass by descriptor on POSIX")
FOLDERS = {folder.name: folder for folder, *_ in CAUGHT}


#: The share of the machine's cores other processes may keep busy for the witness's looks to come on time
#: (its lower bound is held only where they do): above it, a cheat must still earn nothing, and may be
#: deferred instead of wrong.
QUIET_SHARE = 0.25


def others_busy(seconds: float = 1.0) -> float:
    """The share of the machine's cores kept busy while this process sleeps ``seconds``: other processes' load
    (0 where ``/proc/stat`` cannot be read)."""
    before, start = procstat.machine(), time.monotonic()
    time.sleep(seconds)
    after, took = procstat.machine(), time.monotonic() - start
    if before is None or after is None:
        return 0.0
    return (after.busy - before.busy) / os.sysconf("SC_CLK_TCK") / (took * (os.cpu_count() or 1))


@pytest.fixture(scope="module")
def busy() -> float:
    """Other processes' share of the machine, measured before the gradings."""
    return others_busy()


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory, busy: float) -> dict[str, dict]:
    """Every folder graded by both front ends, one grading at a time, the load read as quiet."""
    # one grading at a time: the witness's lower bound needs its looks on time, which a second grading's
    # worker on the other core delays (on CI, graded beside each other, m1's slowed clock passed in batch)
    return graded_both(
        tmp_path_factory.mktemp("witness"), FOLDERS.values(), "m1,m2,m3,m4,m5", quiet=True, workers=1
    )


@pytest.mark.parametrize(
    ("name", "exercise", "check"),
    [(folder.name, exercise, check) for folder, exercise, check in CAUGHT],
    ids=[f"{folder.name}-{check}" for folder, _, check in CAUGHT],
)
def test_a_figure_scaled_within_the_band_is_wrong(
    graded: dict[str, dict], busy: float, name: str, exercise: str, check: str
) -> None:
    """Wrong in both front ends on a quiet machine; beside other work (the README's test command beside two
    busy loops) the witness's looks come late, its lower bound goes unheld, and the cheat may be deferred by
    the band, never passed."""
    for front_end in ("batch", "pytest"):
        state, points, message, *_ = graded[front_end][name][exercise][check]
        assert points == 0, (front_end, state, message[:400])
        if state == "skipped" and busy > QUIET_SHARE:
            assert "deferred" in message, (front_end, busy, message[:400])
            continue
        assert state == "wrong", (front_end, state, f"others kept {busy:.0%} of the machine", message[:400])
        assert "figure not what ran" in message or "no measurement taken" in message, (
            front_end,
            message[:400],
        )
