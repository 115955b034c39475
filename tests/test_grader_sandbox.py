"""grader.sandbox and grader.timelimit: undoing patches, stopping endless student code."""

from __future__ import annotations

import builtins
import math
import sys
import threading
import time

import numpy as np
import pytest

import grader.compare
import grader.timelimit
import perfcore
from grader import sandbox
from grader.runner import _NotAttempted, _StudentRaised, call_student
from grader.timelimit import CheckTimeout, enforceable, shielded, time_limit


def test_restore_undoes_rebinding_adding_and_code_patches() -> None:
    ridge, code = perfcore.ridge_point, perfcore.ridge_point.__code__
    mismatch, isclose, original_abs = grader.compare.mismatch, math.isclose, builtins.abs
    snap = sandbox.take_snapshot()
    try:
        perfcore.ridge_point = lambda *a, **k: 42.0
        sys.modules["perfcore.roofline"].ridge_point.__code__ = (lambda gpu, dtype="bf16": 42.0).__code__
        perfcore.brand_new = "added"
        grader.compare.mismatch = lambda *a, **k: None
        math.isclose = lambda *a, **k: True
        builtins.abs = lambda x: 0
        np.isfinite = lambda x: True
        perfcore.GPUSpec.peak = lambda self, dtype="bf16": 1.0
        sys.modules["grader.compare"] = None  # type: ignore[assignment]
    finally:
        changed = sandbox.restore(snap)
    assert perfcore.ridge_point is ridge and ridge.__code__ is code
    assert not hasattr(perfcore, "brand_new")
    assert grader.compare.mismatch is mismatch and math.isclose is isclose and builtins.abs is original_abs
    assert np.isfinite(np.nan) == False  # noqa: E712
    assert perfcore.H100.peak("bf16") == pytest.approx(989.4e12)
    assert sys.modules["grader.compare"] is grader.compare
    assert "perfcore.ridge_point" in changed and "perfcore.brand_new" in changed
    assert sandbox.restore(snap) == []  # nothing left to undo


def test_restore_keeps_submodules_bound_by_imports() -> None:
    snap = sandbox.take_snapshot()
    import perfcore.measure.timing  # noqa: F401  (may be new: its binding on the parent is kept)

    sandbox.restore(snap)
    assert perfcore.measure.timing.interleave is not None


def test_call_student_classifies_exceptions_and_copies_arguments() -> None:
    data = {"x": [1, 2]}

    def mutate(d: dict) -> int:
        d["x"].append(3)
        return len(d["x"])

    assert call_student(mutate, (data,)) == 3 and data == {"x": [1, 2]}
    with pytest.raises(_NotAttempted):
        call_student(lambda: (_ for _ in ()).throw(NotImplementedError()))
    with pytest.raises(_StudentRaised) as raised:
        call_student(lambda: sys.exit(2))
    assert isinstance(raised.value.exc, SystemExit)


@pytest.mark.skipif(not enforceable(), reason="needs SIGALRM in the main thread")
def test_time_limit_stops_loops_even_with_bare_except() -> None:
    start, tracer = time.monotonic(), sys.gettrace()
    with pytest.raises(CheckTimeout):
        with time_limit(0.2):
            while True:
                pass
    with pytest.raises(CheckTimeout):
        with time_limit(0.2):
            while True:
                try:
                    sum(range(1000))
                except BaseException:
                    pass
    assert time.monotonic() - start < 5
    assert grader.timelimit._STATE["armed"] is False and sys.gettrace() is tracer


@pytest.mark.skipif(not enforceable(), reason="needs SIGALRM in the main thread")
def test_shielded_code_is_not_interrupted_and_fast_code_is_untouched() -> None:
    with time_limit(0.05) as enforced:
        assert enforced
        with shielded():
            time.sleep(0.2)  # the alarm fires meanwhile but must not interrupt
    with time_limit(5):
        assert sum(range(10)) == 45
    time.sleep(0.1)  # no stray alarm after the block


def test_time_limit_off_the_main_thread_says_so() -> None:
    seen: list[bool] = []

    def worker() -> None:
        with time_limit(0.1) as enforced:
            seen.append(enforced)

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen == [False]
