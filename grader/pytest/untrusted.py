"""The files of a student's exercise folder that would run or configure code in pytest's own process,
beside the judge, and taking the folder off that process's import path.

The student's code runs only in the judge's workers; under pytest, though, pytest itself reads the folder's
``conftest.py``, its settings files and its test modules, and a file named like a module pytest's process
imports could stand in for it. The plugin names such files under the score table ("untrusted setup") and
keeps the folder off ``sys.path``; grades for credit come from the batch grader, which runs no pytest.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

#: Files in an exercise folder that make pytest run code or change its settings beside the judge.
UNTRUSTED_FILES = (
    "conftest.py",
    "pytest.ini",
    ".pytest.ini",
    "tox.ini",
    "setup.cfg",
    "pyproject.toml",
    "__init__.py",
)
#: Module names a file in an exercise folder must not take: pytest's process could import it instead of
#: the real one (the standard library's, or the packages the grader runs on).
_SHADOWED = frozenset(getattr(sys, "stdlib_module_names", ())) | {
    "numpy",
    "torch",
    "hypothesis",
    "pytest",
    "_pytest",
    "pluggy",
    "perfcore",
    "grader",
    "packaging",
    "threadpoolctl",
}


def untrusted_files(folder: Path, root: Path) -> list[str]:
    """The files in ``folder`` that run or configure code in pytest's own process, beside the judge:
    pytest's settings and conftest, packages' ``__init__.py``, test modules, and modules named like one
    the standard library or the grader's packages has."""
    found = []
    for path in sorted(folder.iterdir()) if folder.is_dir() else []:
        name = path.name
        stem = path.stem
        test_module = path.suffix == ".py" and (stem.startswith("test_") or stem.endswith("_test"))
        if name in UNTRUSTED_FILES or test_module or (path.suffix == ".py" and stem in _SHADOWED):
            try:
                found.append(str(path.relative_to(root)))
            except ValueError:
                found.append(str(path))
    return found


def unshadow(folder: Path) -> None:
    """Take an exercise folder off pytest's own import path, so that its files cannot stand in for a
    module pytest's process imports later (the student's code is imported only in the worker)."""
    target = os.path.realpath(folder)
    sys.path[:] = [p for p in sys.path if os.path.realpath(p or os.getcwd()) != target]
