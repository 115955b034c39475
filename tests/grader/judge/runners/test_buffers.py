"""The judge hands a measurement its buffers and reads them back (grader.judge.runners.buffers): an honest
call passes, a call that leaves the result unwritten or changes an input is wrong, whatever it returns,
and every call gets new buffers."""

from __future__ import annotations

import inspect
import textwrap
from pathlib import Path

import pytest

from grader.judge import Judge
from grader.judge.runners import witness
from grader.judge.runners.protocol import JudgeSide
from grader.judge.sides import Sides
from grader.sandbox import channel, shared
from grader.sandbox.process import WorkerProcess
from grader.sandbox.shared import Buffers

pytestmark = pytest.mark.skipif(not channel.PASSES_FDS, reason="buffers pass by descriptor on POSIX")

CHECKS = """
import time
import numpy as np
from grader.compare import outputs
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
                result=lambda got: outputs.copied(got),
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


def test_the_buffers_travel_as_one_typed_parameter_from_the_judge_to_the_worker(
    tmp_path, monkeypatch
) -> None:
    """Issue 40: the buffers a call hands reach ``WorkerProcess.ask`` as its ``buffers`` (a
    :class:`grader.sandbox.shared.Buffers`: one entry and one descriptor per buffer), never as an ``fds``
    or ``handed`` field of the request; and no step of the road takes them as ``**extra``."""
    asked: list[tuple[str, object, dict]] = []
    real = WorkerProcess.ask

    def recording(self, op, timeout_s, buffers=None, **fields):  # noqa: ANN001, ANN202
        asked.append((op, buffers, dict(fields)))
        return real(self, op, timeout_s, buffers, **fields)

    monkeypatch.setattr(WorkerProcess, "ask", recording)
    outcome = grade(tmp_path, monkeypatch, UNWRITTEN)
    assert outcome.state == "wrong", outcome.message  # the call was made, and its buffers read back
    calls = [(buffers, fields) for op, buffers, fields in asked if op == "call"]
    assert calls and all("fds" not in fields and "handed" not in fields for _, fields in calls)
    handed = [buffers for buffers, _ in calls if buffers is not None]
    assert handed, calls
    for buffers in handed:
        assert isinstance(buffers, Buffers)
        assert [entry["name"] for entry in buffers.entries] == ["src", "dst"]
        assert len(buffers.fds) == 2 and all(isinstance(fd, int) for fd in buffers.fds)
    for road in (Sides.call, JudgeSide.call, WorkerProcess.ask):
        kinds = [param.kind for param in inspect.signature(road).parameters.values()]
        assert "buffers" in inspect.signature(road).parameters, road
        if road is not WorkerProcess.ask:  # ask's **fields are the line's JSON fields (fds refused there)
            assert inspect.Parameter.VAR_KEYWORD not in kinds, road


# ---------------------------------------------------------------------------------------------------
# the buffers' files cut, grown or sealed by the student's code (issue 37): sealed where the kernel seals,
# read by pread where not; never a crash of the judge, and the next check still runs

#: The exercise above and a check after it, to show the judge carries on.
CHECKS_TWO = (
    CHECKS.replace("handcopy", "handtwo")
    .replace("from grader.specs.check import", "from grader.specs.check import ValueCheck,")
    .replace(
        "    ),\n)\n",
        '        ValueCheck(id="after", part="b", points=1, func="twice", expected=lambda: 4, args=(2,)),\n'
        "    ),\n)\n",
    )
)

#: The memfds the worker holds (Python's mmap keeps a duplicate of each descriptor it maps), cut to
#: ``size`` (grown fourfold where negative), or sealed against writing.
ATTACKS = """
import fcntl, os, signal, threading, time

def _memfds():
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink("/proc/self/fd/" + name).startswith("/memfd:"):
                found.append(int(name))
        except OSError:
            pass
    return found

CUTS = []

def _cut(size):
    for fd in _memfds():
        try:
            os.ftruncate(fd, size if size >= 0 else 4 * os.fstat(fd).st_size + 4096)
            CUTS.append(fd)
        except OSError:
            pass

def _seal():
    for fd in _memfds():
        for seal in (0x10, 0x8, 0x1):  # F_SEAL_FUTURE_WRITE, F_SEAL_WRITE, F_SEAL_SEAL
            try:
                fcntl.fcntl(fd, 1033, seal)  # F_ADD_SEALS
            except OSError:
                pass

def twice(x):
    return 2 * x
"""


def attacked(attack: str) -> str:
    """An honest copy, then ``attack`` on the buffers before it returns."""
    return (
        TIMED
        + ATTACKS
        + f"\ndef copy(src, dst):\n    figure = _rate(src, dst)\n    {attack}\n    return figure\n"
    )


#: A thread left running: some 20 ms after each call returned, it cuts every buffer and reads the ones it
#: kept, which kills its process with SIGBUS wherever a cut went through.
HAUNTED = (
    TIMED
    + ATTACKS
    + """
_kept, _thread = [], []

def _haunt():
    while True:
        time.sleep(0.02)
        _cut(0)
        for array in list(_kept):
            float(array.sum())

def copy(src, dst):
    figure = _rate(src, dst)
    _kept[:] = [src, dst]
    if not _thread:
        _thread.append(threading.Thread(target=_haunt, daemon=True))
        _thread[0].start()
    return figure
"""
)

#: The worker killed by a signal in the middle of a call, as a cut buffer's SIGBUS would.
KILLED = TIMED + ATTACKS + "\ndef copy(src, dst):\n    os.kill(os.getpid(), signal.SIGBUS)\n"


def grade_two(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: str, seals: bool = True) -> dict:
    """{check id: outcome} of the two-check exercise, buffers sealed or not (:data:`shared.SEALS`)."""
    monkeypatch.setattr(shared, "SEALS", seals)
    (tmp_path / "handtwo_checks.py").write_text(textwrap.dedent(CHECKS_TWO), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    module = importlib.import_module("handtwo_checks")
    folder = tmp_path / "student"
    folder.mkdir(exist_ok=True)
    (folder / "handtwo_student.py").write_text(code, encoding="utf-8")
    with Judge("en", extra_checks=("handtwo_checks",)) as judge:
        outcomes = judge.grade(module.EXERCISE, folder / "handtwo_student.py").outcomes
    return {o.check_id: o for o in outcomes}


def _honest(outcome) -> bool:
    return outcome.state == "passed" or (outcome.state == "skipped" and outcome.deferred)


@pytest.mark.parametrize("seals", [True, False], ids=["sealed", "unsealed"])
@pytest.mark.parametrize("attack", ["_cut(0)", "_cut(-1)"], ids=["truncated", "grown"])
def test_a_buffer_cut_or_grown_by_the_call_is_never_a_crash(tmp_path, monkeypatch, seals, attack) -> None:
    """Sealed, the cut fails and the honest copy stands; unsealed, it goes through and the judge, reading by
    pread, finds the size changed: wrong, the buffer and its sizes named. The next check runs either way."""
    got = grade_two(tmp_path, monkeypatch, attacked(attack), seals)
    copy = got["copy"]
    if seals:
        assert _honest(copy), copy.message
    else:
        assert copy.state == "wrong" and copy.points == 0, copy.message
        assert "changed the size of the buffer src" in copy.message and "handed as 262,144" in copy.message
    assert got["after"].state == "passed", got["after"].message


@pytest.mark.parametrize("seals", [True, False], ids=["sealed", "unsealed"])
def test_seals_the_call_adds_do_not_stop_the_judge(tmp_path, monkeypatch, seals) -> None:
    got = grade_two(tmp_path, monkeypatch, attacked("_seal()"), seals)
    assert _honest(got["copy"]), got["copy"].message
    assert got["after"].state == "passed"


@pytest.mark.parametrize("seals", [True, False], ids=["sealed", "unsealed"])
def test_a_thread_cutting_the_buffers_after_the_call_kills_at_most_its_own_worker(
    tmp_path, monkeypatch, seals
) -> None:
    """Sealed, every cut fails: the copy is honest. Unsealed, the cuts go through: the judge reads a resized
    buffer (wrong), or the worker dies of SIGBUS reading what it cut, and the message names the worker
    running the student's code, never "the grading process". The next check runs in a worker of its own.

    The thread cuts every 20 ms, so in a round where its cut lands after the judge has read the buffers the
    judge read the honest copy, and a pass is right (seen once in a ``tox -e notorch`` run): what must never
    happen is a crash of the judge, or a resized buffer read as an honest one. The cut before the read is
    made certain by ``test_a_buffer_cut_or_grown_by_the_call_is_never_a_crash`` (the call cuts) and the
    worker's death by ``test_a_worker_killed_during_a_check_is_named_as_the_worker``. The thread is left
    running, so the next check runs in a process of its own (``tests/hostile/test_threads_left.py``): its
    SIGBUS, which once landed in the middle of the next check, no longer reaches it."""
    got = grade_two(tmp_path, monkeypatch, HAUNTED, seals)
    copy = got["copy"]
    assert "grading process" not in copy.message
    if seals:
        assert _honest(copy), copy.message
    else:
        resized = copy.state == "wrong" and "changed the size of the buffer" in copy.message
        died = copy.state == "error" and "The worker process running your code was killed by signal SIGBUS"
        assert resized or (died and died in copy.message) or _honest(copy), copy.message
        assert copy.points == 0 or copy.state == "passed", copy.message
    assert got["after"].state == "passed", got["after"].message


def test_a_worker_killed_during_a_check_is_named_as_the_worker(tmp_path, monkeypatch) -> None:
    got = grade_two(tmp_path, monkeypatch, KILLED)
    copy = got["copy"]
    assert copy.state == "error" and copy.points == 0
    said = "The worker process running your code was killed by signal SIGBUS during check handtwo::copy"
    assert said in copy.message and "grading process" not in copy.message, copy.message
    assert got["after"].state == "passed", got["after"].message


def test_an_accumulators_buffers_are_powers_of_two_and_zero_and_ask_for_a_tally() -> None:
    """m5's add: x drawn as powers of two (1, 2 or 4, every whole multiple exact in FP32), out handed at zero;
    its witness counts (never stamps) and asks the worker to read two of its places with every reading."""
    import numpy as np

    from grader.checks import m5
    from grader.judge.runners.buffers import call_buffers
    from grader.specs.check import MeasurementCheck

    add = next(c for c in m5.EXERCISE.checks if isinstance(c, MeasurementCheck))
    with call_buffers(add, {"n_elements": 4096}) as one:
        x, out = one.shared["x"].contents(), one.shared["out"].contents()
        assert set(np.unique(x)) == {1.0, 2.0, 4.0} and not out.any()
        watching = one.witness()
        if watching is None:  # no pread here: nothing watched, nothing tallied
            return
        try:
            (entry,) = [e for e in one.sent.entries if e["name"] == "out"] if one.sent else [{}]
            assert watching.tally is not None and entry["tally"] == list(watching.tally.places)
            assert len(watching.tally.places) == witness.TALLIED  # the first part's and the last's
            assert all(0 <= p < 4096 for p in watching.tally.places)
            assert [x[p] for p in watching.tally.places] == list(watching.tally.units)
        finally:
            seen = watching.stop()
        assert seen is not None and seen.counted and seen.runs == 0


def _large_input_buffers():
    """m4a's handed buffers at an input larger than the judge's sample of places (x drawn, y an output)."""
    from grader.checks import m4
    from grader.judge.runners.buffers import INPUT_SAMPLE, call_buffers
    from grader.specs.check import MeasurementCheck

    passes = next(c for c in m4.EXERCISE.checks if isinstance(c, MeasurementCheck))
    return call_buffers(passes, {"n_elements": 64 * INPUT_SAMPLE, "k": 16, "fused": False})


def test_an_input_is_compared_at_places_no_seed_gives_and_any_run_of_two_strata_is_found() -> None:
    """The judge keeps a measurement's input at one place in each of INPUT_SAMPLE equal strata, drawn from the
    system's randomness, as it wrote them: the kept numbers are the buffer's own, the places differ from call
    to call, and a change over any run two strata long (wherever it starts), at 1% of scattered places, or a
    NaN over one kept place is found, while the untouched buffer reads unchanged."""
    import numpy as np

    from grader.judge.runners.buffers import INPUT_SAMPLE

    places = []
    rng = np.random.default_rng(1)
    for _ in range(2):
        with _large_input_buffers() as one:
            x = one.shared["x"].contents().reshape(-1)
            kept = one.kept["x"]
            assert "y" not in one.kept  # an output is never kept: its NaN is the result test's to read
            assert kept.where is not None and kept.where.size == INPUT_SAMPLE
            stratum = x.size // INPUT_SAMPLE
            assert np.array_equal(kept.where // stratum, np.arange(INPUT_SAMPLE))  # one in each stratum
            assert np.array_equal(x[kept.where], kept.values) and kept.unchanged(x)
            for start in rng.integers(0, x.size - 2 * stratum, 20):
                run = x.copy()
                run[start : start + 2 * stratum] = 0.0
                assert not kept.unchanged(run), start
            changed = x.copy()
            changed[rng.choice(x.size, size=x.size // 100, replace=False)] += 1.0
            assert not kept.unchanged(changed)
            one_nan = x.copy()
            one_nan[kept.where[len(kept.where) // 2]] = np.nan
            assert not kept.unchanged(one_nan)
            places.append(kept.where)
    assert not np.array_equal(places[0], places[1])


def test_a_small_input_and_a_curves_input_are_compared_at_every_place() -> None:
    """An input of no more numbers than the sample is kept whole, and so is a curve's, however large (one
    point's piece of it can be smaller than a stratum): a change at any one place is found."""

    from grader.checks import m5
    from grader.judge.runners.buffers import INPUT_SAMPLE, call_buffers
    from grader.specs.check import MeasurementCheck, ShapeCheck

    add = next(c for c in m5.EXERCISE.checks if isinstance(c, MeasurementCheck))
    curve = next(c for c in m5.EXERCISE.checks if isinstance(c, ShapeCheck))
    for check, kwargs in ((add, {"n_elements": 4096}), (curve, {"sizes": (16, 4 * INPUT_SAMPLE, 256)})):
        with call_buffers(check, kwargs) as one:
            x = one.shared["x"].contents().reshape(-1)
            kept = one.kept["x"]
            assert kept.where is None and kept.unchanged(x), check.id
            for place in (0, 8, x.size - 1):
                changed = x.copy()
                changed[place] *= 2
                assert not kept.unchanged(changed), (check.id, place)
