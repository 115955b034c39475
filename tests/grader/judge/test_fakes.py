"""The runners' one fake judge (tests/grader/judge/fakes.py) is a ``JudgeSide``: mypy checks the assignment
below (this module and the fake are in pyproject's mypy files), and the test checks at run time that every
member the protocol names is there and takes every call the protocol allows, so a runner's tests cannot
drift from what a runner may ask."""

from __future__ import annotations

import inspect
from typing import get_type_hints

import pytest

from grader.judge.prepare import Prepared
from grader.judge.runners import protocol
from grader.judge.runners.protocol import JudgeSide
from grader.results.outcome import State
from grader.sandbox import messages
from grader.sandbox.shared import Buffers
from grader.specs.check import Exercise, MeasurementCheck
from tests.grader.judge.fakes import FakeCall, FakeJudgeSide

CHECK = MeasurementCheck(id="c", part="a", points=1, func="f", reference=lambda: 1.0, kind="cache")
P = Prepared(Exercise(id="fx", module="fx", title_zh="假", title_en="Fake", checks=(CHECK,)), CHECK)


def members(cls: type) -> set[str]:
    return {name for name in vars(cls) if not name.startswith("_")} | set(cls.__annotations__)


def takes_every_call_of(fake: inspect.Signature, real: inspect.Signature) -> list[str]:
    """The parameters of ``real`` that ``fake`` cannot take (by name, or in its ``*args``/``**kwargs``)."""
    own = fake.parameters
    kinds = {p.kind for p in own.values()}
    anywhere = {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD} <= kinds
    missing = []
    for name, param in real.parameters.items():
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            if param.kind not in kinds:
                missing.append(f"*{name}")
        elif name in own:
            if own[name].kind != param.kind or (param.default is not param.empty) != (
                own[name].default is not own[name].empty
            ):
                missing.append(name)
        elif not (anywhere or (param.kind == param.KEYWORD_ONLY and inspect.Parameter.VAR_KEYWORD in kinds)):
            missing.append(name)
    return missing


def test_the_fake_judge_is_a_judge_side() -> None:
    judge: JudgeSide = FakeJudgeSide(lang="zh", max_noise=0.2)  # mypy: structurally a JudgeSide
    assert (judge.lang, judge.max_noise) == ("zh", 0.2)
    assert members(JudgeSide) <= members(FakeJudgeSide), members(JudgeSide) - members(FakeJudgeSide)
    hints = get_type_hints(JudgeSide, vars(protocol))
    fields = get_type_hints(FakeJudgeSide)
    assert {name: fields[name] for name in ("lang", "max_noise")} == {
        name: hints[name] for name in ("lang", "max_noise")
    }
    for name in members(JudgeSide) - {"lang", "max_noise"}:
        fake, real = (
            inspect.signature(getattr(FakeJudgeSide, name)),
            inspect.signature(getattr(JudgeSide, name)),
        )
        assert not takes_every_call_of(fake, real), (name, takes_every_call_of(fake, real))


def test_the_fakes_answers_are_its_fields() -> None:
    """The student's reply is read around by a clock where it carries no readings (as an honest call is
    timed); perfcore's figures, curve, CPU time and bounds are what the test gave, and an answer it did not
    give is an error that says so, never a default a runner could take for a measurement."""
    judge = FakeJudgeSide(student=lambda timeout_s: messages.Returned(timeout_s), reference=2.0, also=3.0)
    reply = judge.call(P, "fx.py", (), {}, 5.0, buffers=None)
    assert reply.value == 5.0 and reply.readings is not None
    kept = messages.Returned(1.0, readings={"clocks": {}})
    assert FakeJudgeSide(student=lambda timeout_s: kept).call(P, "fx.py", (), {}, 1.0) is kept
    assert judge.measure_reference(P, {}) == 2.0 and judge.measure_reference(P, {}, also=True) == 3.0
    assert judge.reference_value(P, {}) == 2.0
    assert FakeJudgeSide(curve=[[1, 2.0]]).reference_value(P, {}) == [[1, 2.0]]
    assert FakeJudgeSide(also_curve=[[1, 3.0]]).reference_value(P, {}, also=True) == [[1, 3.0]]
    assert judge.cpu_since("fx.py", judge.cpu_reading("fx.py")) is None
    assert judge.raised(P, messages.Raised("ValueError", "trace")).state == State.ERROR
    ended = RuntimeError("the reference process ended")
    for asked in (FakeJudgeSide(fails=ended).measure_reference, FakeJudgeSide(fails=ended).reference_value):
        with pytest.raises(RuntimeError) as raised:
            asked(P, {})
        assert raised.value is ended
    for unanswered in (
        lambda: FakeJudgeSide().call(P, "fx.py", (), {}, 1.0),
        lambda: FakeJudgeSide().measure_reference(P, {}, also=True),
        lambda: FakeJudgeSide().reference_value(P, {}, also=True),
        FakeJudgeSide().bounds,
    ):
        with pytest.raises(AssertionError, match="this fake judge was given no"):
            unanswered()


def test_what_a_runner_hands_the_judge_reaches_the_fakes_recording() -> None:
    """Issue 48: the fake's ``call`` swallowed ``**extra``, so the buffers, clock readings and threads a runner
    asked for never reached a runner's test. Now each call is recorded as it was made, and handed whole to
    ``student_given``; an argument ``JudgeSide.call`` does not take is refused, as the real judge refuses it."""
    sent = Buffers(())
    given: list[FakeCall] = []

    def reply(call: FakeCall) -> messages.Returned:
        given.append(call)
        return messages.Returned(call.threads)

    judge = FakeJudgeSide(student_given=reply)
    answer = judge.call(P, "fx.py", (1,), {"n": 2}, 3.0, threads=4, readings=True, buffers=sent, on_cpu=True)
    assert answer.value == 4 and answer.readings is not None
    assert judge.calls == given == [FakeCall((1,), {"n": 2}, 3.0, 4, True, sent, True)]
    assert judge.calls[0].buffers is sent
    plain = FakeJudgeSide(student=lambda timeout_s: messages.Returned(timeout_s))
    plain.call(P, "fx.py", (), {}, 1.0)
    assert plain.calls == [FakeCall((), {}, 1.0)]
    with pytest.raises(TypeError):
        plain.call(P, "fx.py", (), {}, 1.0, "a buffer")  # type: ignore[call-arg, arg-type]
