"""The judge's settings (:mod:`grader.judge.config`): one frozen record that every front end builds, its
checks said once, and the judge built from it or from its fields alike."""

from __future__ import annotations

import dataclasses

import pytest

from grader.judge import DEFAULT_MAX_NOISE, Judge, JudgeConfig
from grader.sandbox.confinement import Limits
from tests.grader.judge.helpers import exercise, student, value


def test_a_config_keeps_its_iterables_as_tuples_and_is_frozen() -> None:
    config = JudgeConfig("en", allow=["perfcore"], extra_checks=iter(["a_checks"]))
    assert config.allow == ("perfcore",) and config.extra_checks == ("a_checks",)
    assert config.max_noise == DEFAULT_MAX_NOISE and config.deferred == "defer" and config.sandbox
    assert config.limits == Limits()
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.lang = "zh"  # type: ignore[misc]


def test_a_config_refuses_an_unknown_language_and_a_package_outside_the_kit() -> None:
    with pytest.raises(ValueError, match="lang must be one of"):
        JudgeConfig("fr")
    with pytest.raises(ValueError, match="allow may name perfcore and grader only"):
        JudgeConfig("en", allow=("solutions",))


def test_a_judge_is_built_from_a_config_or_its_fields_not_both() -> None:
    with Judge(JudgeConfig("en", sandbox=False, max_noise=0.5)) as judge:
        assert (judge.lang, judge.max_noise, judge.confined) == ("en", 0.5, False)
    with Judge("en", sandbox=False, max_noise=0.5) as judge:
        assert judge.config == JudgeConfig("en", sandbox=False, max_noise=0.5)
    with pytest.raises(TypeError, match="not both"):
        Judge(JudgeConfig("en"), sandbox=False)


def test_the_deferred_policy_of_a_graded_exercise_is_the_configs(tmp_path) -> None:
    path = student(tmp_path, "def f():\n    return (1.0, 2.0)\n")
    with Judge(JudgeConfig("en", deferred="zero")) as judge:
        result = judge.grade(exercise(value()), path)
    assert result.deferred == "zero"
    assert [o.state for o in result.outcomes] == ["passed"]
