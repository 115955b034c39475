"""grader.sandbox.reaping: a killed tree that outlasts :func:`collect`'s wait is still collected, in the
background, so that the last worker of a long-lived process leaves no zombie on a busy machine."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from grader.sandbox import proctree, reaping

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def test_a_process_still_there_after_the_wait_is_collected_later(monkeypatch):
    """A process of the killed tree that ends only after collect() gave up waiting (on a busy machine a tree
    can take longer to end than the wait) is collected once it ends, by reaping in the background, and not
    left a zombie. reap() is replaced by a collector of this one child, so that nothing else is touched."""
    slow = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.8)"])
    ident = proctree.identity(slow.pid)
    assert ident is not None
    calls: list[float] = []

    def reap() -> int:
        calls.append(time.monotonic())
        try:
            return 1 if os.waitpid(slow.pid, os.WNOHANG)[0] else 0
        except ChildProcessError:
            return 0

    monkeypatch.setattr(reaping, "reap", reap)
    try:
        reaping.collect([ident], timeout_s=0.1)
        assert proctree.identity(slow.pid) == ident  # still running when collect() returned
        returned = time.monotonic()
        deadline = returned + 20
        while proctree.identity(slow.pid) == ident and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proctree.identity(slow.pid) is None, proctree.stat_fields(slow.pid)  # collected: no zombie
        assert any(t > returned for t in calls)  # by reaps after collect() returned
    finally:
        slow.kill()
        try:
            os.waitpid(slow.pid, os.WNOHANG)
        except ChildProcessError:
            pass
        reaping._ours.discard(ident)


def test_collect_returns_at_once_when_the_tree_is_gone():
    """Nothing is left to finish when the tree ended within the wait: no background thread is started."""
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    ident = proctree.identity(done.pid)
    done.wait()
    before = {t.name for t in __import__("threading").enumerate()}
    reaping.collect([ident] if ident else [], timeout_s=0.1)
    after = {t.name for t in __import__("threading").enumerate()}
    assert "perfkit-reap-later" not in after - before


def test_until_ended_waits_for_a_killed_process_and_names_one_still_running():
    """A process killed and not yet collected has ended (a zombie): until_ended returns nothing for it; one
    still running after the wait is named, so that a caller never takes a dying tree for a dead one."""
    killed = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        dead, alive = proctree.identity(killed.pid), proctree.identity(running.pid)
        assert dead is not None and alive is not None
        reaping.kill_all([killed.pid])
        assert reaping.until_ended([dead], timeout_s=10) == set()
        assert proctree.identity(killed.pid) == dead  # ended, not collected: until_ended reaps nothing
        assert reaping.until_ended([alive], timeout_s=0.05) == {alive}
    finally:
        for proc in (killed, running):
            proc.kill()
            proc.wait()
