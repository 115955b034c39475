"""Hostile submissions (tests/hostile/suite.py, the measuring ones tests/hostile/measurements.py), each graded
by all four front ends: the pytest plugin (``python -m pytest FOLDER --grader-json X`` in a subprocess,
cwd=FOLDER), the batch grader (``python -m grader grade``), ``python -m grader file`` and
``grader.grade(path, ...)``. Each folder must get exactly the points it earned, the same everywhere; nothing
it started may survive grading; a decoy file outside every folder stays intact.

Every front end runs in a subprocess of its own, all side by side (module fixture), as a student or an
instructor runs them. The measurement folders (m1-m5, which need torch) are graded afterwards, alone, in
one batch run: a cheat is caught where its evidence is one no load can make (a call sooner than its work,
no CPU time, no result in the buffers the judge handed in), and elsewhere never passed (wrong, or deferred where the machine was too busy to judge).
They are then graded again with the machine's load read as quiet (grader.sandbox.load.LOAD_ENV, set for the
judge's process only: the batch grader, and the pytest plugin for two folders), where every round is
evidence: each cheat of measurements.WRONG_WHEN_QUIET must be wrong there, so that a judge that deferred
everything fails this suite (issue 37).
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from grader.reports.files import shared_back
from grader.sandbox import load
from grader.sandbox.confinement import find_bwrap
from tests.hostile.measurements import (
    AFTER_THE_WORK,
    MEASUREMENT_FOLDERS,
    MODELLED,
    QUIET_BY_PYTEST,
    WRONG_WHEN_QUIET,
)
from tests.hostile.suite import EX01, EX02, EX08, FOLDERS, M1, M5, ROOT, Folder, write

BWRAP, WHY_NO_BWRAP = find_bwrap()
#: The children of the fifty_children case are `sleep MARKER`: a number no other process uses.
MARKER = f"86{os.getpid() % 10000:04d}.{random.randint(1000, 9999)}"
FILES = {"ex01": EX01, "ex02": EX02, "ex08": EX08, "m1": M1, "m5": M5}
FRONT_ENDS = ("pytest", "batch", "api", "file")
ACTIVE = [f for f in FOLDERS if BWRAP or not f.needs_bwrap]

API_SCRIPT = """
import json, sys
import grader
jobs = json.loads(sys.argv[1])
out = {}
for name, exercise, path in jobs:
    result = grader.grade(path, exercise, lang="en")
    out.setdefault(name, {})[exercise] = {
        o.check_id: [o.state, o.points, o.message] for o in result.outcomes
    }
print(json.dumps(out))
"""


#: A guard against a hang, never a limit on speed: the module's batch takes a few minutes on a quiet machine,
#: and several times that beside other work (a 2-core machine with three busy loops took over 240 s).
GUARD_S = 1800


def _run(
    cmd: list[str], cwd: Path | None = None, timeout: float = GUARD_S, quiet: bool = False
) -> subprocess.CompletedProcess[str]:
    """``cmd`` with this process's environment, less pytest's own variables; ``quiet``: the judge it starts
    reads the machine's load as quiet (grader.sandbox.load.LOAD_ENV), and never otherwise."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and k != load.LOAD_ENV}
    if quiet:
        env[load.LOAD_ENV] = load.QUIET
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env, check=False)


def graded_both(
    base: Path, folders: Iterable[Folder], exercises: str, quiet: bool = False, workers: int = 2
) -> dict[str, dict]:
    """Every folder of ``folders`` written under ``base`` and graded by both front ends, the batch grader
    beside one pytest run per folder on the machine's two cores (``workers``: 1, one grading at a time):
    {"batch": {student: ...}, "pytest": {student: ...}}; ``quiet``: the load read as quiet in both."""
    subs = base / "subs"
    names = []
    for folder in folders:
        write(folder, subs, {})
        names.append(folder.name)

    def plugin(name: str) -> tuple[str, dict]:
        return name, _grade_with_pytest(subs / name, base / f"{name}.json", quiet=quiet)

    with ThreadPoolExecutor(max_workers=workers) as pool:  # the machine's two cores, no more
        batch = pool.submit(_grade_with_batch, subs, base / "grades", exercises, quiet)
        plugins = dict(pool.map(plugin, names))
    return {
        "batch": batch.result(),
        "pytest": {k: _from_pytest_json(v["json"] or {}) for k, v in plugins.items()},
    }


def _from_pytest_json(data: dict) -> dict[str, dict[str, list]]:
    found: dict[str, dict[str, list]] = {}
    for test in data.get("tests", []):
        exercise, check = test["name"].split(" ", 1)[0].split("::")
        found.setdefault(exercise, {})[check] = [test["tags"][3], test["score"], test["output"]]
    return found


def _from_batch_json(data: dict) -> dict[str, dict[str, dict[str, list]]]:
    """{student: {exercise: {check: [state, points, message, deferred]}}}, each message whole (grades.json
    keeps a message several checks of one exercise share once, in file_errors)."""
    graded: dict[str, dict[str, dict[str, list]]] = {}
    for name, student in data["students"].items():
        for o in shared_back(student)["outcomes"]:
            graded.setdefault(name, {}).setdefault(o["exercise"], {})[o["check_id"]] = [
                o["state"],
                o["points"],
                o["message"],
                o.get("deferred", False),
            ]
    return graded


def _grade_with_pytest(folder: Path, json_path: Path, quiet: bool = False) -> dict:
    proc = _run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(folder),
            "-p",
            "no:cacheprovider",
            "-q",
            "--grader-lang",
            "en",
            "--grader-json",
            str(json_path),
            "--assert=plain",
        ],  # no rewriting of the kit's modules: half the CPU
        cwd=folder,
        quiet=quiet,
    )
    data = json.loads(json_path.read_text(encoding="utf-8")) if json_path.exists() else None
    return {"stdout": proc.stdout + proc.stderr, "json": data}


def _grade_with_batch(subs: Path, out: Path, exercises: str, quiet: bool = False) -> dict:
    proc = _run(
        [
            sys.executable,
            "-m",
            "grader",
            "grade",
            str(subs),
            "--out",
            str(out),
            "--exercises",
            exercises,
            "--lang",
            "en",
            "--quiet",
            "--grace",
            "3",
        ],
        quiet=quiet,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((out / "grades.json").read_text(encoding="utf-8"))
    assert (data["environment"].get("load") == load.QUIET) == quiet, data["environment"]
    return _from_batch_json(data)


def _grade_with_api(jobs: list[tuple[str, str, str]]) -> dict:
    proc = _run([sys.executable, "-c", API_SCRIPT, json.dumps(jobs)])
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


_ROW = re.compile(
    r"^(\S+)\s+(\S+)\s+(\S+)\s+(passed|wrong|not attempted|error|timeout|skipped)\*?\s+([\d.]+) / "
)


def _grade_with_file(jobs: list[tuple[str, str, str]]) -> dict:
    """``python -m grader file EXERCISE PATH`` for each job, read back from the table it prints (a check's
    message is the whole output: the feedback follows the table)."""
    found: dict[str, dict[str, dict[str, list]]] = {}
    for name, exercise, path in jobs:
        proc = _run([sys.executable, "-m", "grader", "file", exercise, path, "--lang", "en"])
        assert proc.returncode in (0, 1), proc.stderr[-3000:]
        for line in proc.stdout.splitlines():
            row = _ROW.match(line)
            if row and row.group(1) == exercise:
                state = row.group(4).replace(" ", "_")
                found.setdefault(name, {}).setdefault(exercise, {})[row.group(3)] = [
                    state,
                    float(row.group(5)),
                    proc.stdout,
                ]
    return found


def _survivors(needles: list[str]) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            cmdline = (
                Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            )
        except OSError:
            continue
        if any(n in cmdline for n in needles):
            found.append(f"{pid}: {cmdline[:200]}")
    return found


def _wait_for_none(needles: list[str], seconds: float = 5.0) -> list[str]:
    deadline = time.monotonic() + seconds
    while True:
        left = _survivors(needles)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp(f"hostile{MARKER.replace('.', '')}")
    decoy = base / "decoy.txt"
    decoy.write_text("intact", encoding="utf-8")
    subs, jsons = base / "subs", base / "json"
    jsons.mkdir()
    folders, json_paths = {}, {}
    for folder in ACTIVE:
        json_path = (
            (subs / folder.name / "results.json") if folder.json_inside else jsons / f"{folder.name}.json"
        )
        values = {"kit": str(ROOT), "decoy": str(decoy), "marker": MARKER, "json": str(json_path)}
        folders[folder.name] = write(folder, subs, values)
        json_paths[folder.name] = json_path
    jobs = [(f.name, e, str(folders[f.name] / FILES[e])) for f in ACTIVE for e in f.points]
    started = time.monotonic()
    scratch = base / "tmp"  # every front end's temporary directory: grading must leave nothing there
    scratch.mkdir()
    with pytest.MonkeyPatch.context() as patch, ThreadPoolExecutor(max_workers=4) as pool:
        patch.setenv("TMPDIR", str(scratch))
        batch = pool.submit(_grade_with_batch, subs, base / "grades", "ex01,ex02,ex08")
        api = pool.submit(_grade_with_api, jobs)
        file = pool.submit(_grade_with_file, jobs)
        runs = {f.name: pool.submit(_grade_with_pytest, folders[f.name], json_paths[f.name]) for f in ACTIVE}
        results = {
            "batch": batch.result(),
            "api": api.result(),
            "file": file.result(),
            "pytest": {name: run.result() for name, run in runs.items()},
        }
    results["elapsed"] = time.monotonic() - started
    results["survivors"] = _wait_for_none([MARKER, str(base)])
    results["decoy"] = decoy
    results["left_in_tmp"] = sorted(p.name for p in scratch.iterdir())
    return results


def _points(checks: dict[str, list]) -> float:
    return sum(float(c[1]) for c in checks.values())


def _graded(graded, front_end: str, name: str) -> dict[str, dict[str, list]]:
    if front_end == "pytest":
        data = graded["pytest"][name]["json"]
        assert data is not None, f"pytest wrote no JSON:\n{graded['pytest'][name]['stdout'][-3000:]}"
        return _from_pytest_json(data)
    return graded[front_end].get(name, {})


@pytest.mark.parametrize("front_end", FRONT_ENDS)
@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_each_cheat_gets_exactly_what_it_earned(graded, folder, front_end):
    if folder.needs_bwrap and BWRAP is None:
        pytest.skip(f"only bubblewrap can stop this, and {WHY_NO_BWRAP}")
    got = _graded(graded, front_end, folder.name)
    for exercise, points in folder.points.items():
        checks = got.get(exercise, {})
        assert checks, f"{exercise} was not graded"
        shown = [(c, s[0], s[1], s[2][:160]) for c, s in checks.items()]
        assert _points(checks) == points, shown
    for exercise, check, state in folder.states:
        assert got[exercise][check][0] == state, got[exercise][check]
    for exercise, check, text in folder.messages:
        assert text in got[exercise][check][2]


def test_pytest_writes_table_and_json_after_a_timeout_and_an_exit(graded):
    for name in ("signal_loop", "os_exit_at_import"):
        run = graded["pytest"][name]
        assert "perfkit score" in run["stdout"], run["stdout"][-2000:]
        assert run["json"] is not None and run["json"]["score"] <= run["json"]["max_score"]
    assert graded["pytest"]["os_exit_at_import"]["json"]["score"] == 7.0  # ex02 unaffected


def test_a_conftest_that_passes_every_report_changes_no_point(graded):
    run = graded["pytest"]["conftest_passes_all"]
    data = run["json"]
    assert data["score"] == 14.0 and data["max_score"] == 17.0
    assert data["untrusted_setup"] == ["conftest.py"]
    assert "untrusted setup" in run["stdout"]


def test_an_atexit_handler_cannot_rewrite_the_json(graded):
    data = graded["pytest"]["atexit_json"]["json"]
    assert data["score"] == 14.0 and data["max_score"] == 17.0 and data["tests"]


def test_nothing_survives_grading(graded):
    assert graded["survivors"] == []


def test_grading_leaves_nothing_in_the_temporary_directory(graded):
    assert graded["left_in_tmp"] == []


def test_the_decoy_outside_the_folders_is_intact(graded):
    if BWRAP is None:
        pytest.skip(f"only bubblewrap can stop this, and {WHY_NO_BWRAP}")
    assert graded["decoy"].read_text(encoding="utf-8") == "intact"


# ---------------------------------------------------------------------------------------------------
# measurements without measuring: one batch run, alone on the machine


@pytest.fixture(scope="module")
def measured(graded, tmp_path_factory):
    base = tmp_path_factory.mktemp("measured")
    for folder in MEASUREMENT_FOLDERS:
        write(folder, base / "subs", {})
    return _grade_with_batch(base / "subs", base / "grades", "m1,m2,m3,m4,m5")


@pytest.fixture(scope="module")
def measured_quiet(measured, tmp_path_factory):
    """The measurement folders graded again, with the machine's load read as quiet (grader.sandbox.load's
    LOAD_ENV in the judge's environment): every round is evidence, whatever else runs on the machine. The
    batch grader grades most; the pytest plugin, in a subprocess in the folder, QUIET_BY_PYTEST (mostly
    asleep: they take little from the batch beside them). {student: {exercise: {check: [state, points,
    message, deferred]}}}."""
    base = tmp_path_factory.mktemp("quiet")
    folders = {
        f.name: write(f, base / ("alone" if f.name in QUIET_BY_PYTEST else "subs"), {})
        for f in MEASUREMENT_FOLDERS
    }
    with ThreadPoolExecutor(max_workers=1 + len(QUIET_BY_PYTEST)) as pool:
        batch = pool.submit(_grade_with_batch, base / "subs", base / "grades", "m1,m2,m3,m4,m5", True)
        runs = {
            name: pool.submit(_grade_with_pytest, folders[name], base / f"{name}.json", True)
            for name in QUIET_BY_PYTEST
        }
        graded = batch.result()
        for name, run in runs.items():
            done = run.result()
            data = done["json"]
            assert data is not None, f"pytest wrote no JSON:\n{done['stdout'][-3000:]}"
            assert data["extra_data"]["environment"].get("load") == load.QUIET, data["extra_data"]
            graded[name] = {
                exercise: {check: [*got, got[0] == "skipped"] for check, got in checks.items()}
                for exercise, checks in _from_pytest_json(data).items()
            }
    return graded


def _measured_outcome(measured, student: str, exercise: str, check: str) -> list:
    state, points, message, deferred = measured[student][exercise][check]
    if state == "skipped" and "torch" in message:
        pytest.skip(f"the grader deferred this check here (no torch): {message[:200]}")
    return [state, points, message, deferred]


def _not_passed(state: str, points: float, message: str, deferred: bool) -> None:
    """A cheat whose evidence is a comparison with perfcore's figures (a ratio, a probe, a curve): wrong
    where the machine can show it, deferred where it was too busy or noisy to judge; never passed, never
    a point, never an error or a timeout of the grader's."""
    assert points == 0, (state, message[:300])
    assert state == "wrong" or (state == "skipped" and deferred), (state, deferred, message[:300])


@pytest.mark.parametrize(
    ("student", "exercise", "check"),
    [
        ("measure_constants", "m1", "copy_bandwidth"),
        ("measure_sleeping", "m1", "copy_bandwidth"),
        ("measure_sleeping_thread", "m1", "copy_bandwidth"),
    ],
    ids=["m1-constant", "m1-sleeping", "m1-sleeping-ending-a-thread"],
)
def test_a_measurement_that_does_not_measure_is_caught(measured_quiet, student, exercise, check):
    """A constant rate (0.2 GB/s, after the one copy that leaves the result) claims a copy many times longer
    than the call lasted, and a sleeping call keeps no CPU busy for the time it claims past its one copy.
    Read with the load as quiet: beside other work the CPU rule gives up the share others took of the core,
    and a sleeping call could then be deferred (issue 37)."""
    state, points, message, _ = _measured_outcome(measured_quiet, student, exercise, check)
    assert points == 0, (state, message[:300])
    assert state == "wrong", message[:300]


@pytest.mark.parametrize(
    ("student", "exercise", "check"),
    [
        ("measure_constants", "m5", "add_16"),
        ("measure_constants", "m5", "overhead_curve"),
        ("measure_timer_patch", "m5", "add_16"),
    ],
    ids=["m5-add-constant", "m5-made-up-curve", "m5-patched-timer"],
)
def test_a_measurement_that_does_not_measure_scores_zero(measured, student, exercise, check):
    """A made-up time (3 µs claims no more time than the call takes), a made-up curve and a clock ten times
    too fast are told apart only by perfcore's figures beside them: wrong, or deferred on a busy machine."""
    _not_passed(*_measured_outcome(measured, student, exercise, check))


@pytest.mark.parametrize(("exercise", "check"), MODELLED, ids=[f"{e}-{c}" for e, c in MODELLED])
def test_a_model_of_the_graded_input_scores_nothing(measured, exercise, check):
    """A figure made up from a model of the graded input (half the naive time after a naive transpose, one
    pass times k after the k multiplications made block by block in cache, a constant for the small sizes)
    is met at a drawn input where it stops following perfcore's, or returns sooner than it claims: wrong, or
    deferred where this machine cannot show it; never passed."""
    _not_passed(*_measured_outcome(measured, "measure_models", exercise, check))


def test_a_thread_spinning_between_calls_cannot_slow_perfcores_side(measured):
    """m1's bytes counted once (0.5x perfcore's) with a thread that spins on the pinned core whenever the
    student's call is not running: perfcore measures with the student's tree stopped, so the 0.5x shows
    (wrong), where other work on the machine leaves it a ratio to judge (deferred otherwise, never passed)."""
    _not_passed(*_measured_outcome(measured, "measure_spinner", "m1", "copy_bandwidth"))


#: The cores two spinning processes must get together for the machine to have had one to spare.
SPARE_CORE = 1.6


def _cores_given_to_two_spinners(seconds: float = 1.0) -> float:
    """A control: two spinning processes on two of this process's cores for ``seconds``; the cores' worth of
    CPU time the machine gave them (2.0 on an idle machine, about 1.0 where other work holds a core)."""
    cores = sorted(os.sched_getaffinity(0))[:2]
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in cores]
    try:
        for proc, core in zip(spinners, cores, strict=True):
            os.sched_setaffinity(proc.pid, {core})
        time.sleep(0.3)  # started, imported, spinning
        before = sum(_cpu_seconds(proc.pid) for proc in spinners)
        time.sleep(seconds)
        return (sum(_cpu_seconds(proc.pid) for proc in spinners) - before) / seconds
    finally:
        for proc in spinners:
            proc.kill()
            proc.wait()


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _two_cores_and_their_cpu_time() -> None:
    """Skip where "more than one core" cannot be shown: no CPU time of another process, or one core."""
    if not os.path.exists(f"/proc/{os.getpid()}/stat"):
        pytest.skip("the kernel gives no CPU time of another process here (no /proc)")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core here: a call cannot keep more than one busy")


def test_a_single_core_measurement_on_every_core_is_told_it_used_more_than_one(measured):
    """m2a widened to every core (its affinity and torch's threads): the CPU time of the call past its wall
    time says it kept more than one core busy, whatever its figure. Beside other work its threads get less
    than a core each and the CPU time may not show it; its figure (one core's FLOP/s per core it got) then
    reads faster than perfcore's, or the check is deferred: never passed."""
    _two_cores_and_their_cpu_time()
    state, points, message, deferred = _measured_outcome(measured, "measure_all_cores", "m2", "matmul_flops")
    if state == "passed":  # only where the machine had a core to spare can a call on every core show it
        given = _cores_given_to_two_spinners()
        if given < SPARE_CORE:
            pytest.skip(f"the machine gave two spinners {given:.2f} cores: no core to spare for the cheat")
    _not_passed(state, points, message, deferred)
    if state == "wrong":  # the CPU-time rule, or the ratio's evidence where the load hid the CPU time
        assert "more than one core" in message or "reads faster than perfcore" in message, message[:300]


@pytest.mark.parametrize("student", ["measure_sleeping", "measure_sleeping_thread"])
def test_a_call_that_sleeps_out_its_time_is_told_it_used_no_cpu(measured_quiet, student):
    """The graded DRAM copy's sleep keeps no CPU busy: wrong, "CPU" (graded by the pytest plugin with the
    load read as quiet: the rule then gives up no share to other work). Where the judge's coin puts the
    in-cache probe first (issue 29), its sleep claims less than the CPU rule reads and the probe's band
    tells it first: wrong there, never passed either way."""
    if not os.path.exists(f"/proc/{os.getpid()}/stat"):
        pytest.skip("the kernel gives no CPU time of another process here (no /proc)")
    state, _, message, _ = _measured_outcome(measured_quiet, student, "m1", "copy_bandwidth")
    told = "CPU" in message or "another input you have not seen" in message
    assert state == "wrong" and told, message[:300]  # no CPU time: no load can add any


def test_a_fork_chain_cannot_run_beside_perfcores_side(measured):
    """Issue 29: a chain that forks its successor every millisecond escaped a stop in the listed order and
    ran beside perfcore's reference (m1 passed at 0.5x). Now its tree's cgroup is frozen (or swept until
    nothing new runs, a round it ran through void): the 0.5x shows where the machine can show it (deferred
    where it was too busy), or the chain is named; never passed."""
    _not_passed(*_measured_outcome(measured, "measure_fork_chain", "m1", "copy_bandwidth"))


def test_a_curve_measured_on_every_core_is_told_it_used_more_than_one(measured):
    """Issue 29: the curve runner held neither the CPU-time nor the one-core rule, so a sweep on every core
    was judged as one core's. Where its threads got a second core, the one-core rule or its figure says so;
    where they shared the one core it was pinned to, its figure is one core's rate (measurements.
    ONE_CORE_IN_EFFECT: passed or deferred by the band as an honest figure is), never a grader error."""
    _two_cores_and_their_cpu_time()
    state, points, message, deferred = _measured_outcome(
        measured, "measure_curve_all_cores", "m2", "roofline_sweep"
    )
    assert state in ("passed", "wrong") or (state == "skipped" and deferred), (state, message[:300])
    if state == "wrong":
        assert "more than one core" in message or "perfcore" in message, message[:300]


def test_a_constant_speedup_is_met_where_perfcores_leaves_it(measured):
    """Issue 29: m3c accepted any constant above 1.2. Its speedup is now judged against perfcore's at three
    drawn inputs, from where tiling loses to where it wins: a constant cannot follow both."""
    _not_passed(*_measured_outcome(measured, "measure_constant_speedup", "m3", "transpose_speedup"))


def test_the_first_input_a_function_meets_is_not_always_the_graded_one(measured):
    """Issue 29: the graded input was the first a function met. A cheat on the first input it meets now
    lands on the graded copy or on the probe, by a coin of the submission's seed: never passed."""
    _not_passed(*_measured_outcome(measured, "measure_first_input", "m1", "copy_bandwidth"))


#: The judge's words for a call that left its result wrong or unwritten, or changed an input (issue 29).
NO_RESULT = "did not produce its result"


@pytest.mark.parametrize(
    ("student", "exercise", "check"),
    [
        ("measure_result_unwritten", "m1", "copy_bandwidth"),
        ("measure_inputs_overwritten", "m1", "copy_bandwidth"),
        ("measure_result_unwritten", "m2", "matmul_flops"),
        ("measure_half_input_zeroed", "m1", "copy_bandwidth"),
    ],
    ids=["m1-unwritten", "m1-overwritten", "m2a-smaller-instead", "m1-half-input-zeroed"],
)
def test_a_call_that_does_not_leave_its_result_scores_nothing(measured, student, exercise, check):
    """Issue 29: the judge hands m1 its src and dst (fresh, random, dst filled with NaN) and checks them after
    the call. A figure of src copied into a buffer of the function's own, dst never written, and a src and
    dst both zeroed instead of copied (dst equals src, but src is not the input handed in), or half of each
    zeroed and the other half copied (the judge's sample of src's places finds the half), are wrong whatever
    their figures, on any machine and under any load: no comparison with perfcore decides it. So is m2a's
    smaller matmul timed instead of the graded product (issue 20's model, which the band could not see)."""
    state, points, message, _ = _measured_outcome(measured, student, exercise, check)
    assert points == 0 and state == "wrong", (state, message[:300])
    assert NO_RESULT in message, message[:300]


def test_the_k_passes_made_once_then_an_in_cache_pass_scaled_up_is_not_passed(measured):
    """Issue 29: m4a's k passes made once on the handed buffers (the right result), then one pass over 1 MiB
    in cache timed and scaled to the k passes over the handed size, the call spun out to the time it claims:
    the Work floor, the claimed-time and the CPU rule all hold, but a cache's rate is not DRAM's (0.46x the
    time per element here, docs/measurement.md): wrong, or deferred where the machine was too busy to
    judge; never passed."""
    _not_passed(*_measured_outcome(measured, "measure_model_then_spin", "m4", "k8_passes"))


@pytest.mark.parametrize(
    ("student", "exercise", "check"), AFTER_THE_WORK, ids=["m2a-256-after", "m2a-640-then-spin"]
)
def test_a_smaller_matmuls_rate_after_the_graded_product_is_judged_as_a_measurement(
    measured, student, exercise, check
):
    """Issue 29: m2a's product made once at the graded n, then a 256 x 256 or a 640 x 640 matmul timed and
    its rate returned (the second spun out to the 2 n^3 / rate it claims). The product is read back and
    right, so the result check says nothing; the 2 n^3 FLOP the cheat used to save are done, and its figure
    is this core's matmul rate from a smaller sample, which the band judges as any honest method's
    (docs/measurement.md): its points only where it passed, never an error or a timeout of the grader's."""
    state, points, message, deferred = _measured_outcome(measured, student, exercise, check)
    assert NO_RESULT not in message, message[:300]
    assert state == "passed" or state == "wrong" or (state == "skipped" and deferred), (state, message[:300])
    assert (points > 0) == (state == "passed"), (state, points, message[:300])


# ---------------------------------------------------------------------------------------------------
# every cheat twice: beside the machine's real load (never passed), and with the load read as quiet (wrong)


@pytest.mark.parametrize(
    ("student", "exercise", "check"), WRONG_WHEN_QUIET, ids=[f"{s}-{e}-{c}" for s, e, c in WRONG_WHEN_QUIET]
)
def test_beside_the_real_load_a_cheat_is_never_passed(measured, student, exercise, check):
    """Beside other work a round may be no evidence, and a check without enough is deferred: never passed."""
    _not_passed(*_measured_outcome(measured, student, exercise, check))


@pytest.mark.parametrize(
    ("student", "exercise", "check"), WRONG_WHEN_QUIET, ids=[f"{s}-{e}-{c}" for s, e, c in WRONG_WHEN_QUIET]
)
def test_with_the_load_read_as_quiet_a_cheat_is_wrong(measured_quiet, student, exercise, check):
    """Issue 37: the deferral the real load allows hid whether the judge could tell these cheats at all (a
    judge that deferred everything passed the suite). With every round evidence, each is wrong."""
    state, points, message, deferred = _measured_outcome(measured_quiet, student, exercise, check)
    assert points == 0 and state == "wrong", (state, deferred, message[:300])
