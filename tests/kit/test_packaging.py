"""The kit's metadata: what `pip install perfkit` needs to grade, and how the license is declared."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


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


README = PYPROJECT.parent / "README.md"
STUDENTS = PYPROJECT.parent / "docs" / "students.md"

#: Where each setup command is: README's first command, and the student guide's forms of it for an Intel
#: Mac and for Windows.
BLOCKS = {
    "grade-command": README,
    "grade-command-macos-intel": STUDENTS,
    "grade-command-windows": STUDENTS,
}


def _block(marker: str) -> str:
    """The code block after ``<!-- marker -->`` in README or the student guide, as the release's student
    README reads it."""
    from grader.course.release import readme_block

    return readme_block(BLOCKS[marker].read_text(encoding="utf-8"), marker)


def test_the_students_command_installs_what_grading_needs_and_shows_its_progress() -> None:
    for marker in ("grade-command", "grade-command-windows"):
        command = _block(marker)
        assert '"torch==2.13.0"' in command and '-e ".[torch]"' in command, marker
        for extra in ("dev", "nbgrader", "plot"):  # no JupyterLab, tox, ruff or mypy for a student
            assert extra not in command, (marker, extra)
        assert " -q" not in command  # pip's own progress, not 95 s of silence
        assert command.rstrip().endswith("pytest exercises/")
    linux = _block("grade-command")
    # the CPU build first (PyPI's Linux wheel carries CUDA), the ordinary wheel only where that index fails
    assert "--index-url https://download.pytorch.org/whl/cpu" in linux and "||" in linux
    assert ".venv\\Scripts\\python" in _block("grade-command-windows")


@pytest.mark.parametrize(
    ("platform", "torch"),
    [("macosx_14_0_arm64", "2.13.0"), ("win_amd64", "2.13.0"), ("macosx_10_15_x86_64", "2.2.2")],
)
def test_the_ordinary_torch_wheel_exists_for_macos_and_windows(
    platform: str, torch: str, tmp_path: Path
) -> None:
    """pip resolves the torch README and the student guide pin for the platform's tags (only the wheel:
    pip reads dependency markers for the machine it runs on, not the target). An Intel Mac has no torch
    2.13 (PyPI's last macOS x86_64 wheel is 2.2.2), so the student guide gives it a command of its own."""
    marker = "grade-command-macos-intel" if "x86_64" in platform else "grade-command-windows"
    if "arm64" not in platform:
        assert f'"torch=={torch}"' in _block(marker)
    import json
    import subprocess

    report = tmp_path / "report.json"
    cmd = [
        sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--ignore-installed",
        "--target", str(tmp_path / "target"), "--report", str(report), "--quiet", "--retries", "0",
        "--timeout", "20", "--platform", platform, "--python-version", "3.11", "--only-binary=:all:",
        f"torch=={torch}",
    ]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0 and any(
        s in done.stderr for s in ("NewConnectionError", "Name or service not known", "Max retries")
    ):
        pytest.skip(f"no package index reachable from here: {done.stderr.strip()[-300:]}")
    assert done.returncode == 0, done.stderr[-2000:]
    (wheel,) = [i for i in json.loads(report.read_text())["install"] if i["metadata"]["name"] == "torch"]
    assert wheel["metadata"]["version"] == torch and platform.split("_")[0] in wheel["download_info"]["url"]


def test_the_linux_grade_command_runs_on_a_fresh_clone(tmp_path: Path) -> None:
    """README's first command, verbatim, in a fresh clone: it sets up .venv, installs torch and the kit, and
    grades the stubs (every check not attempted). About a minute here, most of it pip."""
    import shutil
    import subprocess

    if shutil.which("git") is None or not (PYPROJECT.parent / ".git").exists():
        pytest.skip("not a git checkout: there is no clone to make")
    clone = tmp_path / "clone"
    # the timeouts guard against a hang, never limit the speed: pip's install and the stubs' grading take
    # about a minute on a quiet machine, several times that beside other work on a 2-core machine
    subprocess.run(["git", "clone", "-q", str(PYPROJECT.parent), str(clone)], check=True, timeout=600)
    done = subprocess.run(
        ["bash", "-c", _block("grade-command")],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=2400,
        check=False,
    )
    tail = done.stdout[-3000:] + done.stderr[-2000:]
    if done.returncode != 1 and any(
        s in done.stderr for s in ("No matching distribution", "Could not find a version")
    ):
        pytest.skip(f"torch 2.13.0 is not installable from here: {done.stderr.strip()[-300:]}")
    assert done.returncode == 1, tail  # pytest's "tests failed": the stubs score nothing
    total = next(line for line in reversed(done.stdout.splitlines()) if line.startswith(("total", "总分")))
    assert total.split()[-3] == "0" and "Traceback" not in done.stdout, tail
    assert "Successfully installed" in done.stdout  # pip's own output was shown, not silenced
    # the CPU build, wherever it came from (PyTorch's CPU index, or here the CPU wheel on this disk): a
    # CUDA build would have cost the student several GB
    build = subprocess.run(
        [str(clone / ".venv" / "bin" / "python"), "-c", "import torch; print(torch.version.cuda)"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert build.stdout.strip() == "None", build.stdout + build.stderr
