"""grader.text: every message in both languages, and values and inputs shown short, never cut inside one;
the batch grader's messages too."""

from __future__ import annotations

import re
import string

import pytest

from grader.text.catalogue import LANGS, MESSAGES, render
from grader.text.show import show, show_inputs


def test_every_message_has_both_languages_with_the_same_fields() -> None:
    fields = lambda t: {f for _, f, _, _ in string.Formatter().parse(t) if f}  # noqa: E731
    for key, texts in MESSAGES.items():
        assert len(texts) == len(LANGS) and all(texts), key
        assert fields(texts[0]) == fields(texts[1]), key
    assert render("state_passed") == "通过" and render("state_passed", "en") == "passed"
    with pytest.raises(ValueError, match="lang"):
        render("state_passed", "fr")


def test_show_keeps_values_short() -> None:
    assert show(2.0) == "2.0" and show(9.563511525257479) == "9.56351" and show(float("nan")) == "nan"
    assert len(show("x" * 500)) == 80
    assert show_inputs((1,), {"b": 2.5}) == "(1, b=2.5)"


def test_a_sequence_is_cut_between_elements_never_inside_one() -> None:
    sizes = (16, 256, 4096, 262144, 1048576, 4194304, 16777216, 67108864)
    text = show(sizes, 40)
    assert text == "(16, 256, 4096, 262144, ..., 67108864)" and len(text) <= 40
    for number in re.findall(r"\d+", text):  # every number shown is one of the values, whole
        assert int(number) in sizes
    assert show([1, 2, 3], 40) == "[1, 2, 3]" and show((7,), 40) == "(7,)"
    # a dict, too, is cut between entries: each value shown is whole
    sizes = {f"n{i}": 4194304 * i for i in range(1, 9)}
    text = show(sizes, 40)
    assert text == "{n1=4194304, ..., n8=33554432}" and len(text) <= 40


def test_inputs_follow_the_functions_parameter_order() -> None:
    kwargs = {"k": 8, "n_elements": 1 << 25, "fused": True}
    assert show_inputs((), kwargs, ("n_elements", "k", "fused")) == "(n_elements=33554432, k=8, fused=True)"
    assert show_inputs((), kwargs) == "(k=8, n_elements=33554432, fused=True)"  # no order known: as given
    assert show_inputs((), {"b": 1, "extra": 2}, ("a", "b")) == "(b=1, extra=2)"


def test_batch_messages_have_both_languages_with_the_same_fields() -> None:
    from grader.text.batch import BATCH

    for key, (zh, en) in BATCH.items():
        fields = [{f for _, f, _, _ in string.Formatter().parse(text) if f} for text in (zh, en)]
        assert fields[0] == fields[1], key
        assert re.search(r"[\u4e00-\u9fff]", zh) and not re.search(r"[\u4e00-\u9fff]", en), key
