"""The Gradescope bundle (``python -m grader gradescope``): its run_autograder, run on this machine as the
instructors' README shows, grades what ``grader.grade`` grades and reports its own failure."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import grader
from grader.course.gradescope import write_bundle
from tests.grader.batch.helpers import EX01_POINTS, EX02_POINTS
from tests.grader.course.helpers import EXERCISES, SOLUTIONS, WRONG, without_markers


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
