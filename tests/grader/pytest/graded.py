"""What the pytest front end's tests share: the fake exercises' sources (tests/grader/fakes.py), the options
every pytester session runs with, one session's results read back (:class:`Graded`, its Gradescope JSON
validated), a student's file of stubs, and a plugin that reads whether perfcore's reference process had
started. The ``session`` fixture that makes a :class:`Graded` is this folder's conftest.py."""

from __future__ import annotations

import json
import math
import runpy
from pathlib import Path
from typing import Any

import pytest

#: The repository's root, for its exercises' stubs and solutions.
ROOT = Path(__file__).resolve().parents[3]

FAKES = runpy.run_path(str(Path(__file__).resolve().parents[1] / "fakes.py"))
BAD_TYPES = FAKES["BAD_TYPES"]
CORRECT = FAKES["CORRECT"]
FAKE_CHECKS = FAKES["FAKE_CHECKS"]
FAKE_MAX = FAKES["FAKE_MAX"]
HARD_CODED = FAKES["HARD_CODED"]
IMPORT_ERROR = FAKES["IMPORT_ERROR"]
IMPORT_EXIT = FAKES["IMPORT_EXIT"]
IMPORT_LOOP = FAKES["IMPORT_LOOP"]
IMPORT_SYNTAX = FAKES["IMPORT_SYNTAX"]
MEASURE_CHECKS = FAKES["MEASURE_CHECKS"]
METER = FAKES["METER"]
NOT_ATTEMPTED = FAKES["NOT_ATTEMPTED"]
PARTLY = FAKES["PARTLY"]
PATCHING = FAKES["PATCHING"]
PROBE_CHECKS = FAKES["PROBE_CHECKS"]
PROBE_STUDENT = FAKES["PROBE_STUDENT"]
RAISING = FAKES["RAISING"]
SLOW = FAKES["SLOW"]
STUBBORN_SLOW = FAKES["STUBBORN_SLOW"]

#: No cache files; no warning that perfcore and grader (imported by the outer session) cannot be rewritten.
QUIET = ("-p", "no:cacheprovider", "-W", "ignore::pytest.PytestAssertRewriteWarning")

VISIBILITIES = {"visible", "hidden", "after_due_date", "after_published"}


def validate_gradescope(data: dict[str, Any]) -> None:
    """Raise AssertionError unless ``data`` has Gradescope's results.json fields with the right types."""
    number = (int, float)
    for key, kind in [
        ("score", number),
        ("max_score", number),
        ("execution_time", number),
        ("output", str),
        ("visibility", str),
        ("stdout_visibility", str),
        ("extra_data", dict),
        ("tests", list),
    ]:
        assert isinstance(data.get(key), kind), f"top-level {key!r} missing or not {kind}"
    assert data["visibility"] in VISIBILITIES and data["stdout_visibility"] in VISIBILITIES
    env = data["extra_data"]["environment"]
    for key in ("cpu", "gpu", "python", "torch", "numpy", "platform"):
        assert key in env, f"extra_data.environment lacks {key!r}"
    for test in data["tests"]:
        for key, kind in [
            ("name", str),
            ("number", str),
            ("score", number),
            ("max_score", number),
            ("status", str),
            ("output", str),
            ("tags", list),
            ("visibility", str),
        ]:
            assert isinstance(test.get(key), kind), (
                f"test {test.get('name')!r}: {key!r} missing or not {kind}"
            )
        assert test["status"] in ("passed", "failed")
        assert test["visibility"] in VISIBILITIES
        assert all(isinstance(t, str) for t in test["tags"])
        assert 0 <= test["score"] <= test["max_score"] or test["max_score"] == 0
    assert math.isclose(data["score"], sum(t["score"] for t in data["tests"]))
    assert math.isclose(data["max_score"], sum(t["max_score"] for t in data["tests"]))


class Graded:
    """One pytester session's results: the run result, the JSON and per-check tests."""

    def __init__(self, result: pytest.RunResult, json_path: Path) -> None:
        self.result = result
        self.text = result.stdout.str()
        self.json = json.loads(json_path.read_text(encoding="utf-8")) if json_path.exists() else None
        if self.json is not None:
            validate_gradescope(self.json)

    def test(self, check_id: str) -> dict[str, Any]:
        assert self.json is not None
        matches = [t for t in self.json["tests"] if t["name"].split(" ")[0].endswith("::" + check_id)]
        assert len(matches) == 1, (check_id, [t["name"] for t in self.json["tests"]])
        return matches[0]

    def state(self, check_id: str) -> str:
        return self.test(check_id)["tags"][-1]


class ReferenceSeen:
    """Reads, as the first check of ``fake_meter.py`` starts, whether the judge has started perfcore's
    reference process."""

    started: bool | None = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item: pytest.Item) -> None:
        if self.started is None and item.path.name == "fake_meter.py":
            state = item.config.pluginmanager.get_plugin("perfkit_grader_session")
            judge = state._judge if state is not None else None
            # made on first use, started later
            reference = judge.reference_side.made if judge is not None else None
            self.started = reference is not None and reference.proc is not None


def stubs(checks_module: Path) -> str:
    """A student's file with every function the exercise of ``checks_module`` grades still the stub's."""
    funcs = sorted({c.func for c in runpy.run_path(str(checks_module))["EXERCISE"].checks})
    return "".join(f"def {f}(*args, **kwargs):\n    raise NotImplementedError()\n" for f in funcs)
