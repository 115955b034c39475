"""The kit's metadata: what `pip install perfkit` needs to grade, and how the license is declared."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


@pytest.fixture(scope="module")
def project() -> dict:
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))


def _names(requirements: list[str]) -> dict[str, str]:
    from packaging.requirements import Requirement

    return {Requirement(r).name: str(Requirement(r).specifier) for r in requirements}


def test_the_grader_runs_on_the_core_dependencies(project: dict) -> None:
    """The plugin needs pytest 8 (hookimpl(wrapper=True)), hypothesis (drawn inputs) and packaging (torch
    requirements); they are runtime needs, not development ones."""
    core = _names(project["project"]["dependencies"])
    assert core["pytest"] == ">=8" and "hypothesis" in core and "packaging" in core
    dev = _names(project["project"]["optional-dependencies"]["dev"])
    assert "pytest-benchmark" not in dev  # unused: benchmarks/ time with torch.utils.benchmark
    assert _names(project["project"]["optional-dependencies"]["torch"])["torch"] == ">=2.1"


def test_the_license_is_an_spdx_expression(project: dict) -> None:
    assert project["project"]["license"] == "MIT"  # the table form is deprecated in setuptools
    assert not any(c.startswith("License ::") for c in project["project"]["classifiers"])
    requires = project["build-system"]["requires"]
    assert any(r.replace(" ", "").startswith("setuptools>=77") for r in requires)


def test_every_import_of_the_grader_is_declared(project: dict) -> None:
    """Third-party modules the grader imports at run time are in the core dependencies or an extra."""
    import ast

    declared = set(_names(project["project"]["dependencies"]))
    for extra in project["project"]["optional-dependencies"].values():
        declared |= set(_names(extra))
    stdlib = set(sys.stdlib_module_names)
    ours = {"grader", "perfcore"}
    aliases = {
        "nbformat": "nbformat",
        "traitlets": "nbgrader",
        "nbconvert": "nbgrader",
        "IPython": "ipykernel",
    }
    root = PYPROJECT.parent / "grader"
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top in stdlib or top in ours:
                    continue
                assert aliases.get(top, top) in declared, (
                    f"{path.name} imports {top}, which no requirement declares"
                )
