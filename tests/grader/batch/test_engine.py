"""The batch engine (grader.batch.engine): what it refuses, grading without the sandbox, and what one student
cannot do to the batch: a grader that cannot start, a grader bug, a deep or crowded folder, a thief started
in the folder of the copies."""

from __future__ import annotations

import csv
import shutil
import tempfile

import pytest

from grader.batch.engine import BatchConfig, BatchError, find_students, grade_batch, selected_exercises
from grader.batch.output import write_outputs
from grader.sandbox import confinement
from grader.sandbox.confinement import Limits
from tests.grader.batch.helpers import (
    BWRAP,
    EX01_POINTS,
    ROOT,
    SOLUTIONS,
    WHY_NO_BWRAP,
    _ex01_text,
    _points,
    _remove_tree,
    _shard_submissions,
    _sleepers,
    _write_deep,
)
from tests.hostile.cases import CASES, THIEF
from tests.hostile.suite import WRONG_ANSWERS


def test_unknown_exercise_and_missing_folder_are_named(tmp_path):
    with pytest.raises(BatchError, match="--exercises: no exercise 'ex99'"):
        grade_batch(tmp_path, BatchConfig(exercises=("ex99",), progress=False))
    with pytest.raises(BatchError, match="SUBMISSIONS_DIR"):
        grade_batch(tmp_path / "nope", BatchConfig(progress=False))


def test_limits_alone_without_bwrap(tmp_path):
    """Without the sandbox: the limits and the process group still hold, and `import solutions` fails."""
    subs = tmp_path / "subs"
    for name in ("os_exit_in_a_call", "child_process_left_running", "import_solutions"):
        case = next(c for c in CASES if c.name == name)
        (subs / name).mkdir(parents=True)
        (subs / name / "ex01_ridge_point.py").write_text(
            _ex01_text(case, {"kit": str(ROOT)}), encoding="utf-8"
        )
    config = BatchConfig(exercises=("ex01",), sandbox=False, limits=Limits(grace_s=3.0), progress=False)
    result = grade_batch(subs, config)
    points = {s.name: sum(o.points for o in s.outcomes) for s in result.students}
    assert points == {"os_exit_in_a_call": 9.5, "child_process_left_running": 10, "import_solutions": 7}
    assert result.sandbox == "limits only"
    assert _sleepers() == []


def test_a_grader_that_cannot_start_costs_nothing_but_says_so(tmp_path):
    subs = tmp_path / "subs"
    shutil.copytree(SOLUTIONS, subs / "alice", ignore=shutil.ignore_patterns("m*", "ex1*", "ex0[2-9]*"))
    config = BatchConfig(exercises=("ex01",), python="/bin/false", progress=False)
    (student,) = grade_batch(subs, config).students
    assert {o.state for o in student.outcomes} == {"error"}
    assert sum(o.points for o in student.outcomes) == 0
    assert all("did not start" in o.message or "没能启动" in o.message for o in student.outcomes)


def test_a_batch_started_in_the_folder_of_the_copies_shows_no_student_anothers(tmp_path, monkeypatch):
    """``python -m grader grade`` started in /tmp puts /tmp on sys.path, where the batch copies each student:
    the sandbox binds only the interpreter's own folders of sys.path, so the thief finds no classmate."""
    if BWRAP is None:
        pytest.skip(f"only bubblewrap can do this, and {WHY_NO_BWRAP}")
    monkeypatch.chdir(tempfile.gettempdir())
    monkeypatch.syspath_prepend(tempfile.gettempdir())  # what `python -m` does with its working folder
    monkeypatch.syspath_prepend(str(tmp_path))
    subs = tmp_path / "subs"
    shutil.copytree(SOLUTIONS, subs / "alice")
    thief = subs / "thief"
    thief.mkdir()
    (thief / "ex01_ridge_point.py").write_text(
        (SOLUTIONS / "ex01_ridge_point.py").read_text().split("def answer_1a")[0] + WRONG_ANSWERS + THIEF,
        encoding="utf-8",
    )
    assert not any(confinement.under(str(tmp_path), p) for p in confinement.interpreter_paths())
    config = BatchConfig(exercises=("ex01",), lang="en", limits=Limits(grace_s=3.0), progress=False)
    result = grade_batch(subs, config, out=tmp_path / "grades")
    by_name = {s.name: s for s in result.students}
    assert _points(by_name["alice"], "ex01") == EX01_POINTS
    assert _points(by_name["thief"], "ex01") == 7.0  # the general functions only: its answers are its own


def test_a_grader_bug_costs_one_check_not_the_batch(tmp_path, monkeypatch):
    """An exception while grading one check (a grader bug, or a value that breaks a comparison) is that
    check's outcome, an error saying the grader failed, and every other grade is still written; an exception
    while copying a student's folder is every check of that student's."""
    from grader.batch import lanes

    subs = _shard_submissions(tmp_path / "subs", names=("alice", "bob", "carol"))
    real_run_check, real_copy = lanes.Judge.run_check, lanes.copy_folder

    def run_check(judge, p, file, source=None):
        if source.startswith("bob/") and p.check.id == "1a_ridge_formula":
            raise OverflowError("int too large to convert to float")
        return real_run_check(judge, p, file, source=source)

    def copy_folder(student, into, lang="zh"):
        if student.name == "carol":
            raise RecursionError("maximum recursion depth exceeded")
        return real_copy(student, into, lang)

    monkeypatch.setattr(lanes.Judge, "run_check", run_check)
    monkeypatch.setattr(lanes, "copy_folder", copy_folder)
    config = BatchConfig(exercises=("ex01",), lang="en", limits=Limits(grace_s=3.0), progress=False)
    result = grade_batch(subs, config)
    write_outputs(result, tmp_path / "out")
    by_name = {s.name: s for s in result.students}
    assert _points(by_name["alice"], "ex01") == EX01_POINTS
    bob = {o.check_id: o for o in by_name["bob"].outcomes}
    assert bob["1a_ridge_formula"].state == "error" and _points(by_name["bob"], "ex01") == EX01_POINTS - 2
    assert "the grader itself failed" in bob["1a_ridge_formula"].message
    assert "OverflowError: int too large" in bob["1a_ridge_formula"].message
    carol = by_name["carol"].outcomes
    assert {o.state for o in carol} == {"error"} and all("RecursionError" in o.message for o in carol)
    rows = {r["student"]: r for r in csv.DictReader((tmp_path / "out" / "grades.csv").open(encoding="utf-8"))}
    assert float(rows["alice"]["score"]) == EX01_POINTS and set(rows) == {"alice", "bob", "carol"}


def test_a_deep_wide_folder_is_copied_within_limits_and_says_what_it_left_out(tmp_path, monkeypatch):
    """The copy walks without recursion (a folder 1200 deep raised RecursionError in rglob) and within its
    limits, shallow first; each limit that left something out is a note naming it. The exercise file, found
    in a sub-folder beside a deep chain, is still found and graded."""
    from grader.batch import submissions

    monkeypatch.setattr(submissions, "MAX_FILES", 4)
    monkeypatch.setattr(
        submissions, "MAX_FOLDER_BYTES", 3000 + (SOLUTIONS / "ex01_ridge_point.py").stat().st_size
    )
    folder = tmp_path / "subs" / "wide"
    work = folder / "work"
    work.mkdir(parents=True)
    shutil.copy(SOLUTIONS / "ex01_ridge_point.py", work)
    _write_deep(folder, "d/" * 1200 + "f.txt", "deep\n")  # beside work/: looked for ex01 in, not entered
    _write_deep(work, "d/" * 1200 + "f.txt", "deep\n")
    (work / "a_big.bin").write_bytes(b"x" * (submissions.MAX_FILE_BYTES + 1))
    (work / "b_fill.txt").write_bytes(b"x" * 2500)
    (work / "c_over.txt").write_bytes(b"x" * 1000)  # past the total
    for i in range(5):
        (work / f"e{i}.txt").write_text("small")  # past the count
    (work / "link.py").symlink_to(SOLUTIONS / "ex02_memory_bound.py")
    (work / ".hidden").write_text("left out without a word")
    exercises = selected_exercises(BatchConfig(exercises=("ex01",), progress=False))
    (student,) = find_students(tmp_path / "subs", exercises, "en")
    assert student.files == {"ex01_ridge_point": work / "ex01_ridge_point.py"}
    into = tmp_path / "copy"
    into.mkdir()
    copied = submissions.copy_folder(student, into, "en")
    assert copied.files == {"ex01_ridge_point": into / "ex01_ridge_point.py"}
    assert sorted(p.name for p in into.iterdir()) == ["b_fill.txt", "e0.txt", "e1.txt", "ex01_ridge_point.py"]
    notes = "\n".join(copied.notes)
    for words in (
        "folders deeper than 16 levels were not entered, nor their files copied (1 of them): d/d/d",
        "the grader copies at most 4 files; the other 3 were not copied: e2.txt, e3.txt, e4.txt",
        "so files were left out (1 of them): c_over.txt",
        "files over 1048576 bytes were not copied (1 of them): a_big.bin",
        "symbolic links, which the grader does not follow, were not copied (1 of them): link.py",
    ):
        assert words in notes, notes
    assert ".hidden" not in notes
    (tmp_path / "copy-zh").mkdir()
    assert any("层还深" in n for n in submissions.copy_folder(student, tmp_path / "copy-zh", "zh").notes)
    _remove_tree(tmp_path / "subs")  # before pytest's recursive cleanup meets it


def test_a_folder_with_too_many_entries_is_looked_at_in_part(tmp_path, monkeypatch):
    from grader.batch import submissions

    monkeypatch.setattr(submissions, "MAX_ENTRIES", 50)
    for i in range(60):
        (tmp_path / f"f{i:02d}.txt").write_text("x")
    listing = submissions.list_folder(tmp_path)
    assert listing.cut and len(listing.files) == 50


def _kitless_python(tmp_path):
    """An interpreter with this one's packages (numpy, torch) but not the kit: a venv whose one ``.pth`` names
    this interpreter's ``site-packages`` folders, whose own ``.pth`` files (an editable install's) are then
    not read. None where the kit is installed there itself (a wheel, not an editable install)."""
    import subprocess
    import sys

    env = tmp_path / "kitless"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True, timeout=120)
    python = next(p for p in (env / "bin" / "python", env / "Scripts" / "python.exe") if p.exists())
    sites = subprocess.run(
        [str(python), "-I", "-c", "import site; print(site.getsitepackages()[0])"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout.strip()  # fmt: skip
    ours = [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    with open(f"{sites}/ours.pth", "w", encoding="utf-8") as fh:
        fh.write("\n".join(ours) + "\n")
    found = subprocess.run([str(python), "-I", "-c", "import perfcore"], capture_output=True, timeout=60)
    return None if found.returncode == 0 else str(python)


def test_the_profile_process_finds_the_kit_where_it_is_not_installed(tmp_path):
    """Seen on a GPU host (2026-12-05): the kit on PYTHONPATH only, the batch grader's isolated profile process
    did not find perfcore ("could not measure the machine profile") and the grades named no profile."""
    from grader.batch import lanes

    python = _kitless_python(tmp_path)
    if python is None:
        pytest.skip("the kit is installed in this interpreter's site-packages: no kit-less one to make")
    # what the profile's process imports, without measuring a profile: where perfcore came from
    code = "import perfcore\nprint(perfcore.__file__)\n"
    where = lanes._measure_profile(BatchConfig(python=python, progress=False), tmp_path / "cache", code)
    assert where is not None and where.startswith(lanes._KIT_ROOT)
