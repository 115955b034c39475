"""The static checks a maintainer expects, run by the test command: ruff (lint and format) and mypy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_ruff_lint():
    done = run("ruff", "check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format():
    done = run("ruff", "format", "--check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.timeout(600)
def test_mypy_on_perfcore_and_grader():
    done = run("mypy")  # files and settings: [tool.mypy] in pyproject.toml
    assert done.returncode == 0, done.stdout + done.stderr
