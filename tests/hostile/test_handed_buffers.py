"""Issue 37, point 1: the judge cannot be crashed through the buffers it hands a measuring function.

Each submission of tests/hostile/handed_buffers.py turns m3's measuring functions on their buffers' files:
cut to nothing, grown, sealed against writing, or cut by a thread some 20 ms after each call returned. Each
is graded by the pytest plugin (``python -m pytest FOLDER --grader-json X`` in a subprocess, cwd=FOLDER) and
by the batch grader (``python -m grader grade``), beside an honest student with exercise 1's formulas only.
No front end may crash (a Bus error, batch status 135, no grades.json), every student gets its entries, no
attacked check passes or is the grader's error, and a worker that dies says it was the worker running the
student's code, never "the grading process".

Graded as shipped, with the buffers sealed; and again with :data:`grader.sandbox.shared.SEALS` off (a
plugin module that turns it off before the judge starts), the path a system without seals takes, where the
attacks go through and the judge must read around them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hostile.handed_buffers import CUTTERS, HANDED_CHECKS
from tests.hostile.suite import EX01, FULL, M3, ROOT, SOLUTIONS
from tests.hostile.test_hostile import GUARD_S, _from_batch_json, _from_pytest_json

pytestmark = [
    pytest.mark.skipif(
        not os.path.isdir("/proc/self/fd") or not hasattr(os, "memfd_create"),
        reason="the attacks find the buffers' memfds in /proc/self/fd (Linux)",
    ),
    # without torch every measurement check is deferred before a buffer is handed: nothing to attack
    pytest.mark.skipif(
        importlib.util.find_spec("torch") is None, reason="no torch: the measurement checks hand no buffer"
    ),
]

#: Loaded by the front ends (``-p``, or imported before ``grader``'s main) to grade with seals off.
UNSEALED = "from grader.sandbox import shared\n\nshared.SEALS = False\n"
MODES = ("sealed", "unsealed")
#: The honest student beside the attackers in the batch: exercise 1's formulas, no measurement.
HONEST = "formula_only"


def _run(cmd: list[str], cwd: Path, mode: str, plugins: Path) -> subprocess.CompletedProcess[str]:
    """``cmd`` with this checkout's kit first on the path (and, unsealed, the plugin module beside it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    paths = [str(ROOT)] + ([str(plugins)] if mode == "unsealed" else [])
    env["PYTHONPATH"] = os.pathsep.join(paths + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=GUARD_S, env=env, check=False)


def _with_pytest(folder: Path, mode: str, plugins: Path) -> dict:
    json_path = folder.parent / f"{folder.name}.json"
    extra = ["-p", "perfkit_unsealed"] if mode == "unsealed" else []
    cmd = [sys.executable, "-m", "pytest", str(folder), "-p", "no:cacheprovider", "-q", *extra]
    cmd += ["--grader-lang", "en", "--grader-json", str(json_path), "--assert=plain"]
    proc = _run(cmd, folder, mode, plugins)
    data = json.loads(json_path.read_text(encoding="utf-8")) if json_path.exists() else None
    return {"rc": proc.returncode, "output": proc.stdout + proc.stderr, "json": data}


def _with_batch(subs: Path, out: Path, mode: str, plugins: Path) -> dict:
    # the kit's main run as ``python -m grader``, the plugin module imported first where unsealed
    main = "import runpy, sys\n"
    main += "import perfkit_unsealed\n" if mode == "unsealed" else ""
    main += "sys.argv[0] = 'grader'\nrunpy.run_module('grader', run_name='__main__', alter_sys=True)\n"
    cmd = [sys.executable, "-c", main, "grade", str(subs), "--out", str(out), "--exercises", "ex01,m3"]
    cmd += ["--lang", "en", "--quiet", "--grace", "3"]
    proc = _run(cmd, subs.parent, mode, plugins)
    grades = out / "grades.json"
    data = json.loads(grades.read_text(encoding="utf-8")) if grades.exists() else None
    return {"rc": proc.returncode, "output": proc.stdout + proc.stderr, "json": data}


@pytest.fixture(scope="module", params=MODES)
def graded(request, tmp_path_factory) -> dict:
    mode = request.param
    base = tmp_path_factory.mktemp(f"handed_{mode}")
    plugins = base / "plugins"
    plugins.mkdir()
    (plugins / "perfkit_unsealed.py").write_text(UNSEALED, encoding="utf-8")
    subs = base / "subs"
    for name, text in CUTTERS.items():
        (subs / name).mkdir(parents=True)
        (subs / name / M3).write_text(text, encoding="utf-8")
    (subs / HONEST).mkdir()
    shutil.copy(SOLUTIONS / EX01, subs / HONEST / EX01)
    alone = base / "alone"  # each attacker's folder for the plugin, outside the batch's class
    shutil.copytree(subs, alone, ignore=shutil.ignore_patterns(HONEST))
    batch = _with_batch(subs, base / "grades", mode, plugins)
    by_pytest = {name: _with_pytest(alone / name, mode, plugins) for name in CUTTERS}
    return {"mode": mode, "batch": batch, "pytest": by_pytest}


def _m3_of_pytest(run: dict) -> dict[str, list]:
    assert "Bus error" not in run["output"] and "Fatal Python error" not in run["output"], run["output"][
        -3000:
    ]
    assert run["rc"] in (0, 1), (run["rc"], run["output"][-3000:])  # 135 / -7: killed by SIGBUS
    assert run["json"] is not None, f"pytest wrote no JSON:\n{run['output'][-3000:]}"
    return _from_pytest_json(run["json"])["m3"]


def _m3_of_batch(graded: dict, student: str) -> dict[str, list]:
    batch = graded["batch"]
    assert batch["rc"] == 0 and batch["json"] is not None, (batch["rc"], batch["output"][-3000:])
    return _from_batch_json(batch["json"])[student]["m3"]


def _attacked_check_is_not_passed(mode: str, student: str, check: str, outcome: list) -> None:
    """Never passed, never a point, never the grader's error; sealed, the attack changes nothing and the
    result the call never made is missing; unsealed, the judge reads around a resized buffer, or the worker
    the attack killed is named as the worker running the student's code."""
    state, points, message = outcome[0], float(outcome[1]), outcome[2]
    shown = (student, check, state, message[:400])
    assert points == 0 and state != "passed", shown
    assert "the grader itself failed" not in message and "grading process" not in message, shown
    if mode == "sealed":
        assert state == "wrong" and "did not produce its result" in message, shown
    elif state == "error":
        assert "The worker process running your code" in message, shown
    else:
        assert state == "wrong" and "did not produce its result" in message, shown
    if mode == "unsealed" and student in ("buffers_truncated", "buffers_grown"):
        assert "changed the size of the buffer src" in message, shown  # cut before the call returned


@pytest.mark.parametrize("student", sorted(CUTTERS))
def test_the_pytest_plugin_survives_every_attack_on_its_buffers(graded, student) -> None:
    m3 = _m3_of_pytest(graded["pytest"][student])
    for check in HANDED_CHECKS:
        assert check in m3, f"{check} was not graded: {sorted(m3)}"
        _attacked_check_is_not_passed(graded["mode"], student, check, m3[check])


@pytest.mark.parametrize("student", sorted(CUTTERS))
def test_the_batch_grades_every_attacker(graded, student) -> None:
    m3 = _m3_of_batch(graded, student)
    for check in HANDED_CHECKS:
        assert check in m3, f"{check} was not graded: {sorted(m3)}"
        _attacked_check_is_not_passed(graded["mode"], student, check, m3[check])


def test_the_honest_student_beside_them_gets_its_grades(graded) -> None:
    batch = graded["batch"]
    assert batch["rc"] == 0 and batch["json"] is not None, (batch["rc"], batch["output"][-3000:])
    students = _from_batch_json(batch["json"])
    assert set(students) == {HONEST, *CUTTERS}
    ex01 = students[HONEST]["ex01"]
    assert sum(float(c[1]) for c in ex01.values()) == FULL["ex01"], ex01
