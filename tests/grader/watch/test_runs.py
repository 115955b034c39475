"""grader.watch.runs: a regrade is pytest on one file in a warm process; a cancelled one leaves nothing."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from grader.sandbox import proctree
from grader.watch.runs import PYTEST_ARGS, Runs, warm_modules

SOLUTIONS = Path(__file__).resolve().parents[3] / "solutions"
ARGS = [
    "-q",
    "--grader-lang",
    "en",
    "-p",
    "no:cacheprovider",
    "-W",
    "ignore::pytest.PytestAssertRewriteWarning",
]


def _until(runs: Runs, seconds: float) -> list:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        runs.start_next()
        done = runs.finished()
        if done:
            return done
        time.sleep(0.01)
    raise AssertionError(f"no regrade ended within {seconds} s")


def _alive(pid: int) -> bool:
    fields = proctree.stat_fields(pid)
    return fields is not None and fields[0] != "Z"


def test_a_regrade_is_the_files_pytest_run_with_its_outcomes(tmp_path) -> None:
    shutil.copy(SOLUTIONS / "ex02_memory_bound.py", tmp_path)
    (tmp_path / "ex01_ridge_point.py").write_text(
        (SOLUTIONS / "ex01_ridge_point.py")
        .read_text(encoding="utf-8")
        .replace("return peak_flops / bandwidth", "return 2 * peak_flops / bandwidth"),
        encoding="utf-8",
    )
    runs = Runs(ARGS)
    try:
        runs.ask(tmp_path / "ex01_ridge_point.py", False, time.monotonic())
        (done,) = _until(runs, 120)
        states = {o["check_id"]: o["state"] for o in done.outcomes}
        assert states["1a_ridge_formula"] == "wrong" and states["matmul_intensity"] == "passed"
        assert done.status == 1 and "1a_ridge_formula" in done.output.read_text(encoding="utf-8")
        runs.ask(tmp_path / "ex02_memory_bound.py", False, time.monotonic())
        (done,) = _until(runs, 120)
        assert done.status == 0 and {o["exercise"] for o in done.outcomes} == {"ex02"}
    finally:
        runs.close()
    assert not runs.scratch.exists()


def test_a_cancelled_measurement_leaves_no_process_and_no_output(tmp_path) -> None:
    """m5's regrade is cancelled while its judge's workers run: the regrade's process and every one below
    it end, its output goes, and the next regrade of the file runs to its end."""
    pytest.importorskip("torch")
    shutil.copy(SOLUTIONS / "m5_overhead.py", tmp_path)
    path = tmp_path / "m5_overhead.py"
    runs = Runs(ARGS)
    try:
        runs.ask(path, True, time.monotonic())
        (regrade,) = runs.start_next()
        deadline = time.monotonic() + 60
        below: list[int] = []
        while time.monotonic() < deadline and not below:  # until the judge has started its worker
            below = proctree.descendants(regrade.process.pid)
            time.sleep(0.05)
        assert below, "the regrade started no worker"
        output = regrade.output
        assert runs.ask(path, True, time.monotonic()) is True  # a newer save cancels the running one
        assert not _alive(regrade.process.pid) and not any(_alive(pid) for pid in below)
        assert not output.exists()
        (done,) = _until(runs, 300)
        assert done is not regrade and {o["exercise"] for o in done.outcomes} == {"m5"}
    finally:
        runs.close()


def test_every_pytest_plugin_is_warm_and_asserts_are_plain() -> None:
    from importlib.metadata import entry_points

    modules = warm_modules()
    assert "grader.plugin" in modules and "pytest" in modules
    assert all(point.value.split(":")[0] in modules for point in entry_points(group="pytest11"))
    assert "--assert=plain" in PYTEST_ARGS


def test_close_with_a_regrade_queued_and_one_running_leaves_nothing(tmp_path) -> None:
    shutil.copy(SOLUTIONS / "ex01_ridge_point.py", tmp_path)
    shutil.copy(SOLUTIONS / "ex02_memory_bound.py", tmp_path)
    runs = Runs(ARGS)
    runs.ask(tmp_path / "ex01_ridge_point.py", False, time.monotonic())
    runs.ask(tmp_path / "ex02_memory_bound.py", False, time.monotonic())
    (running,) = runs.start_next()
    assert runs.queued and runs.busy()
    runs.close()
    assert not runs.busy() and not _alive(running.process.pid)
    assert not runs.scratch.exists()


def test_the_live_line_is_drawn_on_a_terminal_only_and_cleared_before_output(tmp_path, capsys) -> None:
    from types import SimpleNamespace

    from grader.watch.cli import Watch
    from grader.watch.runs import Regrade
    from grader.watch.saves import Saves

    runs = SimpleNamespace(
        running={True: Regrade(tmp_path / "m5_overhead.py", True, 0.0, started_at=time.monotonic())}
    )
    saves = Saves(tmp_path)
    try:
        watch = Watch(tmp_path, "en", {}, runs, saves)  # type: ignore[arg-type]
        watch.live = False
        watch.draw()
        assert capsys.readouterr().out == ""
        watch.live = True
        watch.draw()
        drawn = capsys.readouterr().out
        assert drawn.startswith("\r\x1b[K") and "m5_overhead.py: measuring, 0 s so far" in drawn
        watch.say("watch_deleted", file="ex01_ridge_point.py")
        assert capsys.readouterr().out.startswith("\r\x1b[Kex01_ridge_point.py was deleted")
    finally:
        saves.close()


def test_a_regrade_cancelled_midway_caches_nothing_and_one_that_ends_caches_its_verdicts(tmp_path) -> None:
    """ex01 whose is_compute_bound sleeps 3 s at its first call: the checks before it are decided, and would
    be kept, before the cancel; nothing of them reaches pytest's cache. The same file regraded to its end
    keeps its verdicts there."""
    path = tmp_path / "ex01_ridge_point.py"
    source = (SOLUTIONS / path.name).read_text(encoding="utf-8")
    slow = "import time as _time\n_SLEPT = []\n\n\ndef is_compute_bound(intensity, ridge):\n"
    slow += "    if not _SLEPT:\n        _SLEPT.append(_time.sleep(3))\n    return intensity >= ridge\n\n\n"
    path.write_text(
        source.replace("def is_compute_bound(intensity, ridge):", slow + "def _old(intensity, ridge):", 1)
    )
    # pytest's cache in this test's folder: where pytest would put it depends on the rootdir it finds from
    # the folder the tests run in (a clone's /tmp/ci put it in /tmp)
    args = ["-q", "--grader-lang", "en", "-W", "ignore::pytest.PytestAssertRewriteWarning"]
    args += ["-o", f"cache_dir={tmp_path / 'cache'}"]

    def entries() -> list[str]:
        return sorted(p.name for p in tmp_path.rglob("*") if p.is_file() and "perfkit" in p.parts)

    runs = Runs(args)
    try:
        runs.ask(path, False, time.monotonic())
        runs.start_next()
        time.sleep(1.5)  # the checks before is_compute_bound decided, and its call asleep
        assert runs.cancel(path)
        assert entries() == []
        runs.ask(path, False, time.monotonic())
        (done,) = _until(runs, 120)
        assert done.status == 0 and entries(), done.output.read_text(encoding="utf-8")
    finally:
        runs.close()
