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


def test_a_count_of_one_is_said_in_the_singular() -> None:
    """Issue 47 item 8: ``1 checks shown``. ``render_count`` takes a key's ``_one`` form for one thing, in
    English; every ``_one`` form has its plural beside it, with the same fields."""
    from grader.text.catalogue import render_count

    fields = lambda t: {f for _, f, _, _ in string.Formatter().parse(t) if f}  # noqa: E731
    ones = [key for key in MESSAGES if key.endswith("_one")]
    assert "pytest_kept_file_one" in ones and "next_step_one" in ones
    for key in ones:
        plural = MESSAGES[key.removesuffix("_one")]
        assert [fields(t) for t in MESSAGES[key]] == [fields(t) for t in plural], key
    one = render_count("pytest_kept_file", "en", 1, file="a.py", when="today")
    two = render_count("pytest_kept_file", "en", 2, file="a.py", when="today")
    assert one.startswith("a.py: 1 check shown") and two.startswith("a.py: 2 checks shown")
    assert render_count("next_step", "en", 1, file="ex01.py").startswith("1 check awaits your answer")
    assert render_count("next_step", "en", 3, file="ex01.py").startswith("3 checks await your answer")
    assert render_count("next_step", "zh", 1, file="x") == render("next_step", "zh", n=1, file="x")
    assert render_count("table_title", "en", 1) == render("table_title", "en")  # no _one form: the key
