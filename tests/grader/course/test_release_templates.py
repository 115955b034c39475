"""The student kit's written files (README, pyproject header, .gitignore, perfcore/_release.py, the tour's
note) are package data of :mod:`grader.course` (:data:`grader.course.release.KIT_TEMPLATES`): declared in
pyproject.toml, so a built wheel holds them and a copy installed from it writes the same kit texts."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.course import release

ROOT = Path(__file__).resolve().parents[3]


def test_every_kit_template_is_read_from_the_package():
    for name, file in release.KIT_TEMPLATES.items():
        assert (Path(release.__file__).parent / file).is_file(), file
        assert release.kit_template(name).strip(), name
    assert "{grade_command}" in release.kit_template("readme")
    assert release.tour_note(True) != release.tour_note(False)
    assert not release.tour_note(True).endswith("\n")  # the README's template ends the note's line


def test_an_unknown_template_is_named():
    with pytest.raises(ValueError, match="name must be one of .*'readme'.*got 'readme.md'"):
        release.kit_template("readme.md")


def test_a_wheel_holds_the_templates_and_its_installed_copy_reads_them(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for package in ("grader", "perfcore"):
        shutil.copytree(ROOT / package, source / package, ignore=ignore)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q"]
        + ["-w", str(tmp_path / "dist"), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = (tmp_path / "dist").glob("perfkit-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        zf.extractall(tmp_path / "installed")
    wanted = ["nbgrader_config.tmpl", *release.KIT_TEMPLATES.values()]
    assert not [f for f in wanted if f"grader/course/{f}" not in names]
    # the copy installed from the wheel, not this checkout, writes the same texts
    script = (
        "import json, grader.course.release as r; "
        "print(json.dumps([r.__file__, {n: r.kit_template(n) for n in r.KIT_TEMPLATES}]))"
    )
    read = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path / "installed"), "PATH": "/usr/bin:/bin"},
    )
    assert read.returncode == 0, read.stderr
    where, texts = json.loads(read.stdout)
    assert Path(where).is_relative_to(tmp_path / "installed")
    assert texts == {name: release.kit_template(name) for name in release.KIT_TEMPLATES}
