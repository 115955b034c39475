"""grader.judge.runners.cores: the core a measurement's pair is pinned to, read from ``/proc/stat``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def test_measurements_take_the_least_busy_core(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another grader or program on one core: the pair goes to the other (ties: the last core)."""
    from grader.judge.runners import cores

    stat = tmp_path / "stat"
    stat.write_text(
        "cpu  10 0 10 100 0 0 0 0 0 0\ncpu0 5 0 5 50 0 0 0 0 0 0\ncpu1 7 1 2 50 3 0 0 0 0 0\nintr 1 2 3\n",
        encoding="ascii",
    )
    assert cores.cpu_busy(str(stat)) == {0: 10, 1: 10}  # idle and iowait are not busy
    if not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one usable core: there is nothing to choose")
    cpus = sorted(os.sched_getaffinity(0))[-2:]
    samples = iter([{cpus[0]: 0, cpus[1]: 0}, {cpus[0]: 100, cpus[1]: 5}])
    monkeypatch.setattr(cores, "cpu_busy", lambda: next(samples))
    assert cores.measure_cpu(0.0) == {cpus[1]}
    samples = iter([{cpus[0]: 0, cpus[1]: 0}, {cpus[0]: 5, cpus[1]: 100}])
    assert cores.measure_cpu(0.0) == {cpus[0]}
    samples = iter([{cpus[0]: 0, cpus[1]: 0}, {cpus[0]: 7, cpus[1]: 7}])
    assert cores.measure_cpu(0.0) == {cpus[1]}
