"""grader.results.environment: what a run records of the machine it ran on."""

from __future__ import annotations

from grader.results.environment import environment


def test_environment_names_the_machine() -> None:
    env = environment()
    assert {"cpu", "gpu", "python", "torch", "numpy", "platform"} <= set(env)
    assert env["numpy"] and env["python"].count(".") == 2
