"""The pytest front end's tests' fixture: ``session``, one grading session of the fake exercises in
pytester, read back as a :class:`~tests.grader.pytest.graded.Graded`."""

from __future__ import annotations

import pytest

from grader.sandbox import load
from tests.grader.pytest.graded import FAKE_CHECKS, MEASURE_CHECKS, PROBE_CHECKS, QUIET, Graded

try:  # imported once here: pytester's in-process sessions forget modules they import, and torch
    import torch  # noqa: F401  # (loaded for the report's environment) must not be imported twice
except ImportError:  # pragma: no cover
    pass


@pytest.fixture
def session(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    """Run a grading session on the given student files; returns a :class:`Graded`."""
    # the fake meters' verdicts are about the band, the bound and the scatter, not the machine's load: a
    # machine whose load cannot be read (every round clean, xdist's workers too); the load's own rules are
    # tests/grader/judge/runners/test_busy.py's and test_measurement_load.py's
    monkeypatch.setenv(load.STAT_ENV, str(pytester.path / "no-proc-stat"))
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)  # the kit's own tests may run under -n
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)
    pytester.makepyfile(fake_checks=FAKE_CHECKS, fake_measure=MEASURE_CHECKS, fake_probe=PROBE_CHECKS)
    pytester.makeini("[pytest]\npythonpath = .\ngrader_checks = fake_checks fake_measure fake_probe\n")

    def run(*args: str, subprocess: bool = False, grader_json: bool = True, **files: str) -> Graded:
        for name, source in files.items():
            path = pytester.path / f"{name}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(source, encoding="utf-8")
        json_path = pytester.path / "results.json"
        if json_path.exists():
            json_path.unlink()
        argv = [*QUIET, *([f"--grader-json={json_path}"] if grader_json else []), *args]
        result = pytester.runpytest_subprocess(*argv) if subprocess else pytester.runpytest(*argv)
        return Graded(result, json_path)

    return run
