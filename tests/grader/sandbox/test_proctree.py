"""The process tree read from ``/proc`` (:mod:`grader.sandbox.proctree`): one reading of a process's
children files and one parsing of its ``status``, which the tree's walks and its memory use."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from grader.sandbox import proctree

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads Linux's /proc")


@pytest.fixture
def grandchild():
    """A child of this process that started a child of its own: ``(child, grandchild pid)``."""
    code = "import subprocess, sys, time; p = subprocess.Popen(['sleep', '60']); print(p.pid, flush=True); time.sleep(60)"
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        yield child, int(child.stdout.readline())
    finally:
        for pid in proctree.descendants(child.pid):
            os.kill(pid, 9)
        child.kill()
        child.wait()


def test_the_children_files_give_the_children_and_the_tree(grandchild):
    child, below = grandchild
    kids = proctree.thread_children(os.getpid())
    if kids is None:
        pytest.skip("this kernel has no /proc/PID/task/TID/children files")
    assert child.pid in kids and below not in kids
    assert proctree.child_pids(os.getpid()) == kids
    assert proctree.thread_children(child.pid) == [below]
    assert set(proctree.children_files(child.pid) or []) == {below}
    assert proctree.descendants(child.pid) == [below]
    assert proctree.below(proctree.children(), child.pid) == [below]  # the scan agrees


def test_a_process_that_is_not_there_has_no_children_and_no_memory():
    with open("/proc/sys/kernel/pid_max", encoding="ascii") as fh:
        gone = int(fh.read()) + 1  # no process ever has this pid
    assert proctree.thread_children(gone) == [] and proctree.child_pids(gone) == []
    assert proctree.children_files(gone) == [] and proctree.descendants(gone) == []
    assert proctree.status(gone) is None and proctree.tree_memory_bytes(gone) is None


def test_the_memory_of_a_tree_is_the_sum_of_its_status_fields(grandchild):
    child, below = grandchild
    expected = 0
    for pid in (child.pid, below):
        fields = proctree.status(pid)
        assert fields is not None and fields[b"State"]
        expected += sum(int(fields[k].split()[0]) * 1024 for k in (b"RssAnon", b"RssShmem"))
    measured = proctree.tree_memory_bytes(child.pid)
    assert measured is not None and measured > 0
    assert abs(measured - expected) < 8 * 1024**2  # read a moment apart: a python process's pages move little
