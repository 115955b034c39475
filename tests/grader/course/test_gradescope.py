"""The Gradescope bundle (``python -m grader gradescope``): its run_autograder, run on this machine as the
instructors' README shows, grades what ``grader.grade`` grades and reports its own failure."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

import grader
from grader.course.gradescope import write_bundle
from tests.grader.batch.helpers import EX01_POINTS, EX02_POINTS
from tests.grader.course.helpers import EXERCISES, ROOT, SOLUTIONS, WRONG, without_markers


def run_autograder(bundle: Path, root: Path) -> dict:
    """Unzip the bundle's autograder.zip into ``root/source`` (as Gradescope does into /autograder/source),
    run its run_autograder with ``AUTOGRADER_ROOT=root`` and this interpreter, return results.json."""
    import zipfile

    with zipfile.ZipFile(bundle / "autograder.zip") as zf:
        zf.extractall(root / "source")
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "PERFKIT_PYTHON": sys.executable}
    env = {k: v for k, v in env.items() if not k.startswith("PYTEST_")}
    subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, check=True, timeout=300)
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))


def test_gradescope_bundle_runs_locally(tmp_path):
    bundle = tmp_path / "bundle"
    write_bundle(bundle, ["--lang", "en", "--exercises", "ex01,ex02"])
    assert {"setup.sh", "run_autograder", "autograder.zip", "perfkit"} <= {p.name for p in bundle.iterdir()}
    assert not (bundle / "perfkit" / "solutions").exists()
    root = tmp_path / "autograder"
    (root / "submission" / "nested").mkdir(parents=True)
    shutil.copy(SOLUTIONS / "ex01_ridge_point.py", root / "submission" / "nested")
    shutil.copy(SOLUTIONS / "ex02_memory_bound.py", root / "submission")
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "PERFKIT_PYTHON": sys.executable}
    subprocess.run(["bash", str(bundle / "run_autograder")], env=env, check=True, timeout=120)
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["score"] == results["max_score"] == EX01_POINTS + EX02_POINTS
    assert all(t["status"] == "passed" for t in results["tests"])


def test_gradescope_run_autograder_runs_locally(tmp_path):
    """A partly right formula exercise gets from the bundle what ``grader.grade`` gives the same file."""
    from grader.course.gradescope import write_bundle

    bundle = tmp_path / "bundle"
    write_bundle(bundle, ["--lang", "en", "--exercises", "ex05"])
    module = EXERCISES["ex05"].module
    good, bad = WRONG["ex05"]
    code = without_markers((SOLUTIONS / f"{module}.py").read_text(encoding="utf-8"))
    assert code.count(good) == 1, f"solutions/{module}.py changed: update WRONG"
    root = tmp_path / "autograder"
    (root / "submission" / "deep").mkdir(parents=True)  # wherever the student's file lies in the upload
    student = root / "submission" / "deep" / f"{module}.py"
    student.write_text(code.replace(good, bad), encoding="utf-8")
    results = run_autograder(bundle, root)
    expected = grader.grade(student, "ex05")
    assert 0 < expected.score < expected.max_score
    assert (results["score"], results["max_score"]) == (expected.score, expected.max_score)
    assert {t["status"] for t in results["tests"]} == {"passed", "failed"}


def test_gradescope_run_autograder_reports_its_own_failure(tmp_path):
    """When the grader itself fails (here: an exercise the kit does not know), Gradescope still gets a
    results.json: score 0 and the error."""
    from grader.course.gradescope import write_bundle

    bundle = tmp_path / "bundle"
    write_bundle(bundle, ["--exercises", "ex99"])
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    shutil.copy(SOLUTIONS / f"{EXERCISES['ex05'].module}.py", root / "submission")
    results = run_autograder(bundle, root)
    assert results["score"] == 0 and results["tests"] == []
    assert "The grader itself failed" in results["output"] and "ex99" in results["output"]


def test_gradescope_a_deferred_check_is_no_failed_test_and_the_time_is_the_students(tmp_path):
    """A submission without m6_gpu.py, graded by the bundle: where this machine has no CUDA, m6's checks are
    deferred exactly as the stub's would be (one maximum for one kit), named as deferred and hidden from
    the student's score; with CUDA they are missing answers. ``execution_time`` is this student's."""
    from grader.registry import find_exercise
    from grader.specs.requirements import unmet_reason

    bundle = tmp_path / "bundle"
    write_bundle(bundle, ["--lang", "en", "--exercises", "ex01,m6"])
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    shutil.copy(SOLUTIONS / "ex01_ridge_point.py", root / "submission")
    results = run_autograder(bundle, root)
    m6 = [t for t in results["tests"] if t["name"].startswith("m6::")]
    assert m6 and results["score"] == EX01_POINTS
    if unmet_reason(find_exercise("m6").checks[0].requires, "en") is not None:
        assert results["max_score"] == EX01_POINTS
        assert all(t["name"].endswith("[deferred]") and t["visibility"] == "hidden" for t in m6)
        assert all(t["max_score"] == t["score"] == 0 for t in m6)
        assert {t["name"].split(" ")[0] for t in m6} == set(results["extra_data"]["deferred"])
    else:
        assert results["max_score"] == EX01_POINTS + sum(t["max_score"] for t in m6)
        assert all(t["status"] == "failed" and t["visibility"] == "visible" for t in m6)
    assert 0 < results["execution_time"]


def _pyproject_extras() -> dict[str, list[str]]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        tomllib = pytest.importorskip("tomli")
    with open(ROOT / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["project"]["optional-dependencies"]


def test_gradescope_setup_installs_only_what_grading_needs(tmp_path):
    """setup.sh installs the kit with the torch extra alone: none of the dev extra's tools (ruff, mypy, tox,
    selenium) goes into the image."""
    bundle = tmp_path / "bundle"
    write_bundle(bundle, ["--lang", "en"])
    setup = (bundle / "setup.sh").read_text(encoding="utf-8")
    kit = [line for line in setup.splitlines() if "pip install" in line and "perfkit" in line]
    assert len(kit) == 1 and kit[0].rstrip().endswith('/source/perfkit[torch]"'), kit
    extras = _pyproject_extras()
    installed = " ".join(extras["torch"]).lower()
    for tool in extras["dev"]:
        name = Requirement(tool).name.lower()
        assert name not in setup.lower() and name not in installed, name


def _shell_results(root: Path) -> dict:
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))


def test_gradescope_says_why_it_cannot_grade_when_setup_failed(tmp_path):
    """setup.sh run where its install fails (an apt-get that cannot find the packages, first on PATH) fails
    the build and records the step; run_autograder then writes a results.json that names it."""
    bundle = tmp_path / "bundle"
    write_bundle(bundle, ["--lang", "en"])
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    fake = tmp_path / "bin"
    fake.mkdir()
    apt = fake / "apt-get"
    apt.write_text("#!/bin/sh\necho 'E: Unable to locate package bubblewrap' >&2\nexit 100\n")
    apt.chmod(0o755)
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}
    setup = subprocess.run(["bash", str(bundle / "setup.sh")], env=env, capture_output=True, timeout=60)
    assert setup.returncode == 100, setup.stderr
    assert (root / "setup-failed").read_text().startswith("apt-get: python3")
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "PERFKIT_PYTHON": sys.executable}
    subprocess.run(["bash", str(bundle / "run_autograder")], env=env, check=True, timeout=60)
    results = _shell_results(root)
    assert results["score"] == 0 and results["tests"] == []
    assert "The grader cannot grade" in results["output"]
    assert (
        "setup.sh failed at: apt-get: python3" in results["output"] and "exit status 100" in results["output"]
    )


def test_gradescope_says_why_it_cannot_grade_without_python(tmp_path):
    """No Python where setup.sh should have put one: results.json, written by the shell, says so."""
    bundle = tmp_path / "bundle"
    write_bundle(bundle, ["--lang", "en"])
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    shutil.copy(SOLUTIONS / f"{EXERCISES['ex05'].module}.py", root / "submission")
    env = {**os.environ, "AUTOGRADER_ROOT": str(root)}  # no PERFKIT_PYTHON: root/venv/bin/python, absent
    subprocess.run(["bash", str(bundle / "run_autograder")], env=env, check=True, timeout=60)
    results = _shell_results(root)
    assert results["score"] == 0 and results["tests"] == []
    assert f"no Python runs at {root}/venv/bin/python" in results["output"]


@pytest.mark.parametrize(
    ("locale", "lang", "line"),
    [
        ("C.UTF-8", "en", "Language: English (from the locale, LANG=C.UTF-8)"),
        ("zh_CN.UTF-8", "zh", "语言：中文"),
    ],
)
def test_the_bundles_language_follows_the_instructors_rule(tmp_path, capsys, monkeypatch, locale, lang, line):
    """Issue 47 item 2: without --lang the bundle grades in the language every front end would choose here
    (the course's setting, else the locale; it was Chinese whatever the machine), and the command says which
    and how to switch."""
    from grader.__main__ import main
    from grader.text.lang import LOCALE_VARIABLES

    for variable in LOCALE_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", locale)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "course"\n', encoding="utf-8")  # no setting
    assert main(["gradescope", str(tmp_path / "bundle"), "--exercises", "ex01"]) == 0
    printed = capsys.readouterr().out
    assert line in printed and f"--lang {'zh' if lang == 'en' else 'en'}" in printed
    assert f"--lang {lang} " in (tmp_path / "bundle" / "run_autograder").read_text(encoding="utf-8")
