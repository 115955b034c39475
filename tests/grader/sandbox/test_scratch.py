"""Scratch folders that name their owner (``grader.sandbox.scratch``): a dead run's are removed by the next,
a live run's never, whoever looks."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from grader.sandbox.scratch import make_owned, owner_alive, owner_tag, remove_orphans, start_time

PREFIX = "perfkit-test-scratch-"


def _dead_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_dead_owners_folders_are_removed_and_a_live_ones_kept(tmp_path):
    mine = make_owned(PREFIX, tmp_path)
    assert mine.name.startswith(PREFIX + owner_tag())
    (mine / "copy.py").write_text("x = 1\n", encoding="utf-8")
    dead = tmp_path / f"{PREFIX}{_dead_pid()}-0-abc"
    # this very pid, but started at another time: the pid reused by a process that is not the owner
    reused = tmp_path / f"{PREFIX}{os.getpid()}-{int(start_time(os.getpid())) + 1}-abc"
    locked = dead.with_name(dead.name + "locked")
    for folder in (dead, reused, locked):
        (folder / "inner").mkdir(parents=True)
        (folder / "inner" / "s.py").write_text("y = 2\n", encoding="utf-8")
    os.chmod(locked / "inner", 0o000)  # a student's folder the owner could not even list
    other_prefix = tmp_path / f"perfkit-other-{_dead_pid()}-0-abc"
    unowned = tmp_path / f"{PREFIX}abcdef"  # an older kit's name: no owner to ask about
    other_prefix.mkdir()
    unowned.mkdir()
    removed = remove_orphans(PREFIX, tmp_path)
    assert sorted(removed) == sorted([dead, reused, locked])
    assert not dead.exists() and not reused.exists() and not locked.exists()
    assert (mine / "copy.py").exists() and other_prefix.exists() and unowned.exists()


def test_another_live_runs_folders_are_kept(tmp_path):
    """Two runs at once: one run's cleanup leaves the other's copies alone."""
    other = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; sys.path.insert(0, sys.argv[1]); from grader.sandbox.scratch import make_owned;"
            "print(make_owned(sys.argv[2], sys.argv[3]), flush=True); time.sleep(60)",
            os.getcwd(),
            PREFIX,
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert other.stdout is not None
        theirs = other.stdout.readline().strip()
        assert theirs and os.path.isdir(theirs)
        assert owner_alive(other.pid, start_time(other.pid))
        assert remove_orphans(PREFIX, tmp_path) == [] and os.path.isdir(theirs)
    finally:
        other.kill()
        other.wait()
    assert [str(p) for p in remove_orphans(PREFIX, tmp_path)] == [theirs]  # gone with its owner


def test_a_prefix_is_required(tmp_path):
    with pytest.raises(ValueError, match="prefix"):
        remove_orphans("", tmp_path)


def test_a_link_planted_in_an_orphan_is_neither_followed_nor_opened(tmp_path):
    """A student's copy may hold links (a run without bwrap): the cleanup removes the link, never what it
    points to, and leaves the target's mode as it was. A link named like an orphan is no folder of ours."""
    outside = tmp_path / "outside"
    (outside / "keep").mkdir(parents=True)
    (outside / "keep" / "precious.txt").write_text("keep me\n", encoding="utf-8")
    os.chmod(outside / "keep", 0o500)
    top = tmp_path / "tmp"
    orphan = top / f"{PREFIX}{_dead_pid()}-0-abc"
    (orphan / "inner").mkdir(parents=True)
    os.symlink(outside / "keep", orphan / "inner" / "link")
    posing = top / f"{PREFIX}{_dead_pid()}-0-link"
    os.symlink(outside, posing)
    try:
        assert remove_orphans(PREFIX, top) == [orphan]
        assert not orphan.exists() and posing.is_symlink()
        assert (outside / "keep" / "precious.txt").read_text(encoding="utf-8") == "keep me\n"
        assert (outside / "keep").stat().st_mode & 0o777 == 0o500
    finally:
        os.chmod(outside / "keep", 0o700)


def test_a_killed_runs_worker_folders_go_with_the_next_judges_first_worker(tmp_path, monkeypatch):
    """The worker's runtime and home folders name their owner, and the first worker folder a process makes
    removes those of a run killed outright (a dead owner), never a live one's."""
    from grader.sandbox import confinement

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    monkeypatch.setattr(confinement, "_orphans_removed", False)
    dead = [tmp_path / f"{prefix}{_dead_pid()}-0-abc" for prefix in ("perfkit-worker-", "perfkit-home-")]
    live = make_owned("perfkit-worker-", tmp_path)
    for folder in dead:
        folder.mkdir()
        (folder / "worker.py").write_text("# a killed run's copy\n", encoding="utf-8")
    made = confinement.runtime_dir()
    try:
        assert os.path.basename(made).startswith("perfkit-worker-" + owner_tag())
        assert not any(folder.exists() for folder in dead) and live.exists()
        older = tmp_path / f"perfkit-worker-{_dead_pid()}-0-def"  # after the first: left to the next process
        older.mkdir()
        confinement.remove_runtime(confinement.runtime_dir())
        assert older.exists()
    finally:
        confinement.remove_runtime(made)
