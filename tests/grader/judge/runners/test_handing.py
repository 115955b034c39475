"""The judge hands a measurement its buffers and reads them back (grader.judge.runners.handing): an honest
call passes, a call that leaves the result unwritten or changes an input is wrong, whatever it returns,
and every call gets new buffers."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from grader.judge import Judge
from grader.sandbox import handed

pytestmark = pytest.mark.skipif(not handed.PASSES_FDS, reason="buffers pass by descriptor on POSIX")

CHECKS = """
import time
import numpy as np
from grader.compare import results
from grader.specs.check import Exercise, MeasurementCheck, Work
from grader.specs.handed import Buffer, Handed
from grader.specs.requirements import Requirements

N = 1 << 16


def _copy_rate():
    src = np.random.default_rng(0).random(N, dtype=np.float32)
    dst = np.empty_like(src)
    np.copyto(dst, src)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(50):
            np.copyto(dst, src)
        best = min(best, (time.perf_counter() - start) / 50)
    return 2 * src.nbytes / best


EXERCISE = Exercise(
    id="handcopy",
    module="handcopy_student",
    title_zh="复制",
    title_en="Copy",
    checks=(
        MeasurementCheck(
            id="copy",
            part="a",
            points=1,
            func="copy",
            kind="overhead",
            band=(0.2, 5.0),
            reference=_copy_rate,
            rounds=3,
            requires=Requirements(),
            handed=Handed(
                arguments=lambda: {
                    "src": Buffer((N,), library="numpy", fill="uniform"),
                    "dst": Buffer((N,), library="numpy", output=True),
                },
                result=lambda got: results.copied(got),
                result_zh="dst 等于 src",
                result_en="dst equal to src",
            ),
        ),
    ),
)
"""

TIMED = """
import time
import numpy as np

def _rate(src, dst):
    np.copyto(dst, src)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(50):
            np.copyto(dst, src)
        best = min(best, (time.perf_counter() - start) / 50)
    return 2 * src.nbytes / best
"""

HONEST = (
    TIMED
    + """
_seen = []

def copy(src, dst):
    # every call's buffers are new, with new contents: nothing kept from before can be the answer
    assert isinstance(src, np.ndarray) and src.dtype == np.float32 and np.isnan(dst).all()
    _seen.append(src[:8].copy())
    assert len(_seen) < 2 or not np.array_equal(_seen[-1], _seen[-2]), "the same input twice"
    return _rate(src, dst)
"""
)
#: Its figure measured on buffers of its own: dst is never written.
UNWRITTEN = (
    TIMED
    + """
def copy(src, dst):
    mine = np.ones_like(src)
    return _rate(mine, np.empty_like(mine))
"""
)
#: "Copied" by zeroing both buffers: dst equals src, and src is not what the judge drew.
ZEROED = (
    TIMED
    + """
def copy(src, dst):
    figure = _rate(np.ones_like(src), np.empty_like(src))
    src[:] = 0
    dst[:] = 0
    return figure
"""
)


def grade(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: str, lang: str = "en"):
    (tmp_path / "handcopy_checks.py").write_text(textwrap.dedent(CHECKS), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    module = importlib.import_module("handcopy_checks")
    folder = tmp_path / "student"
    folder.mkdir(exist_ok=True)
    (folder / "handcopy_student.py").write_text(code, encoding="utf-8")
    with Judge(lang, extra_checks=("handcopy_checks",)) as judge:
        (outcome,) = judge.grade(module.EXERCISE, folder / "handcopy_student.py").outcomes
    return outcome


def test_an_honest_copy_on_the_handed_buffers_is_not_wrong(tmp_path: Path, monkeypatch) -> None:
    outcome = grade(tmp_path, monkeypatch, HONEST)
    assert outcome.state == "passed" or (outcome.state == "skipped" and outcome.deferred), outcome.message


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_result_left_unwritten_is_wrong_whatever_the_figure(tmp_path: Path, monkeypatch, lang: str) -> None:
    outcome = grade(tmp_path, monkeypatch, UNWRITTEN, lang)
    assert outcome.state == "wrong" and outcome.points == 0
    said = "计时的工作没有得出它的结果" if lang == "zh" else "the timed work did not produce its result"
    assert said in outcome.message and ("dst" in outcome.message), outcome.message


def test_inputs_changed_to_fake_a_result_are_wrong(tmp_path: Path, monkeypatch) -> None:
    outcome = grade(tmp_path, monkeypatch, ZEROED)
    assert outcome.state == "wrong" and "changed the input src" in outcome.message, outcome.message
