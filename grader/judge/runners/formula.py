"""The formula checks' runners: a value, a multiple-choice letter, a property over generated inputs.

Each compares the student's plain, decoded values with what :mod:`grader.judge.prepare` computed before any
student code ran; nothing is measured, so each returns None.
"""

from __future__ import annotations

from typing import Any

from ...compare import slips
from ...compare.values import describe, mismatch
from ...results.measured import Measured
from ...results.outcome import State
from ...sandbox import messages, wire
from ...specs.check import ChoiceCheck, PropertyCheck, ValueCheck
from ...text.catalogue import Text, render
from ...text.show import show
from ..prepare import Prepared
from ..verdicts import Verdict, details, hint, in_its_terms, inputs_text, join, wrong
from .protocol import JudgeSide


def run_value(judge: JudgeSide, p: Prepared, path: str) -> Measured | None:
    check = p.check
    assert isinstance(check, ValueCheck)
    got = judge.call(p, path, check.args, check.kwargs, check.timeout_s).value
    text = mismatch(p.expected, got, check.rtol, check.atol)
    if text is not None:
        raise wrong(check, text, judge.lang, check.args, check.kwargs)
    return None


def run_choice(judge: JudgeSide, p: Prepared, path: str) -> Measured | None:
    check = p.check
    assert isinstance(check, ChoiceCheck)
    got = judge.call(p, path, check.args, check.kwargs, check.timeout_s).value
    answer = got.strip().lower() if isinstance(got, str) else None
    if answer not in check.choices:
        text = Text("choice_invalid", {"got": show(got), "choices": " / ".join(check.choices)})
    elif answer != p.expected:
        text = Text("choice_wrong", {"expected": show(p.expected), "got": show(got)})
    else:
        return None
    raise wrong(check, text, judge.lang, check.args, check.kwargs)


def run_property(judge: JudgeSide, p: Prepared, path: str) -> Measured | None:
    check, lang = p.check, judge.lang
    assert isinstance(check, PropertyCheck)
    kwargs_list = [{k: wire.encode(v) for k, v in kwargs.items()} for kwargs, _ in p.examples]
    replies = judge.call_many(p, path, kwargs_list, check.timeout_s)
    if not isinstance(replies, list) or len(replies) > len(p.examples):
        raise judge.failure(messages.WorkerFailure("tampered", "not a reply to the calls"), check.id)
    failures: list[tuple[tuple[int, str], dict[str, Any], Text, Any]] = []
    for (kwargs, expected), reply in zip(p.examples, replies, strict=False):
        if isinstance(reply, messages.Raised):
            raise judge.raised(p, reply, inputs_text(check, (), kwargs))
        text = mismatch(expected, reply.value, check.rtol, check.atol)
        if text is not None:
            shown = inputs_text(check, (), kwargs)
            failures.append(((len(shown), shown), kwargs, text, reply.value))
    if len(replies) < len(p.examples) and not failures:
        raise judge.failure(messages.WorkerFailure("tampered", "fewer replies than inputs"), check.id)
    if failures:
        _, smallest, text, got = min(failures, key=lambda f: f[0])
        text = in_its_terms(check, swapped_slip(check, smallest, text, got))
        message = render(
            "property_wrong",
            lang,
            failed=len(failures),
            total=len(p.examples),
            inputs=inputs_text(check, (), smallest),
            detail=describe(text, lang),
        )
        shown_hint = "" if slips.named(text) else hint(check, lang)  # a named slip says what to fix
        raise Verdict(State.WRONG, join(lang, message, shown_hint), details=details(text, (), smallest))
    return None


def swapped_slip(check: PropertyCheck, kwargs: dict[str, Any], text: Text, got: Any) -> Text:
    """``text`` naming the swapped pair of arguments that explains the student's number, where no other slip
    does: perfcore's value at the input with the two swapped, computed here in the judge's trusted process
    (never in the student's worker), matches what the student returned at ``kwargs``."""
    if "_slip" in text.fields:
        return text
    for a, b, swapped in slips.swapped_pairs(kwargs):
        try:
            expected = check.reference(**swapped)
        except Exception:  # noqa: BLE001 - an input the reference refuses explains nothing
            continue
        if mismatch(expected, got, check.rtol, check.atol) is None:
            return slips.with_slip(text, slips.swapped(a, b))
    return text
