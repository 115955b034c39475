"""A GPU host's smoke test: the GPU measurements and m6 where the GPU is, in under 5 minutes.

    .venv/bin/python benchmarks/gpu_smoke.py [--json FILE] [--keep DIR]

Run it from the kit's root with the kit's environment, on a machine with a CUDA GPU and a CUDA build of
torch. Four steps, each in a fresh process with a time limit of its own (:data:`STEPS`), each reported as
it ends:

1. ``python -m perfcore measure --quick --json``: the whole quick run, its GPU part on the current device;
   the measured copy bandwidth and bf16 matmul rate are printed against the matched spec (or against the
   bound from the memory clock and bus width where no spec matches).
2. ``python -m pytest solutions/m6_gpu.py``: m6 of ``solutions/`` under the pytest plugin (bubblewrap
   where it works); both checks must pass.
3. ``python -m grader grade`` over one student holding ``solutions/m6_gpu.py``, with bubblewrap
   (``--deferred zero``: a check deferred for "no CUDA GPU" inside the sandbox scores 0 and fails here);
   ``grades.json`` must say ``"sandbox": "bwrap"`` and both checks passed.
4. what the run saw (read last, since reading it makes a CUDA context here): the device, its free
   memory, the spec matched, the GPU device files bubblewrap binds, and whether bubblewrap works.

Exit status: 0 every step passed; 1 a step failed (each failure is printed with its reason and the tail of
its output); 3 no CUDA GPU here (torch is missing, a CPU build, or ``torch.cuda.is_available()`` is False):
nothing was run, and the message says which; 2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: Exit status where there is no CUDA GPU to test (distinct from a failure).
NO_GPU = 3
#: Seconds each step may take (together under 5 minutes, with the start-up checks).
STEPS = {"measure": 120, "pytest": 75, "batch": 90}


def no_gpu_reason() -> str | None:
    """Why this machine cannot run the smoke test (no torch, a CPU build, no CUDA device), or None."""
    try:
        import torch
    except ImportError as exc:
        return f"torch is not installed ({exc}); install a CUDA build of torch"
    if torch.version.cuda is None and getattr(torch.version, "hip", None) is None:
        return f"this torch ({torch.__version__}) is a CPU build; install a CUDA build"
    if not torch.cuda.is_available():
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        hint = f" (CUDA_VISIBLE_DEVICES={visible!r})" if visible is not None else ""
        return f"torch.cuda.is_available() is False: no CUDA device is visible{hint}"
    return None


def run_step(name: str, cmd: list[str], cwd: Path, timeout_s: int) -> tuple[bool, str, float]:
    """Run one step's command: (finished with status 0, its output, seconds)."""
    started = time.monotonic()
    try:
        done = subprocess.run(
            cmd,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
            env=os.environ.copy(),
        )
    except subprocess.TimeoutExpired as exc:
        out = (
            (exc.stdout or b"").decode("utf-8", "replace")
            if isinstance(exc.stdout, bytes)
            else exc.stdout or ""
        )
        return False, f"{name}: timed out after {timeout_s} s\n{out}", time.monotonic() - started
    output = (done.stdout or "") + (done.stderr or "")
    if done.returncode != 0:
        output = f"{name}: exit status {done.returncode}\n{output}"
    return done.returncode == 0, output, time.monotonic() - started


def tail(text: str, lines: int = 25) -> str:
    return "\n".join("    " + line for line in text.strip().splitlines()[-lines:])


def figures_against_spec(report: dict[str, Any]) -> tuple[list[str], dict[str, Any], str | None]:
    """Lines comparing the GPU figures of a ``measure`` report with the spec, the figures, and why the GPU
    part is not there (None where it is)."""
    if "gpu" in report.get("errors", {}):
        return [], {}, f"the GPU experiment failed: {report['errors']['gpu']}"
    g = report.get("experiments", {}).get("gpu")
    if g is None:
        return [], {}, "the report has no GPU experiment"
    if g.get("skipped"):
        return [], {}, f"the GPU experiment was skipped: {g.get('reason')}"
    copy = g["copy"]["rate"]
    best_mm = max(g["matmul"], key=lambda f: f["rate"])
    figures = {
        "device": g["device_name"],
        "device_index": g.get("device_index"),
        "spec": g["spec"],
        "spec_note": g.get("spec_note"),
        "copy_bytes_per_s": copy,
        "matmul_flops": best_mm["rate"],
        "matmul": best_mm["name"],
        "spec_bandwidth": g["spec_bandwidth"],
        "spec_bf16_flops": g["spec_peak_flops"],
        "bandwidth_bound": g.get("bandwidth_bound"),
    }
    lines = [
        f"device: {g['device_name']} (cuda:{g.get('device_index')}); spec: {g['spec'] or g.get('spec_note')}"
    ]
    spec_bw, spec_fl, bound = g["spec_bandwidth"], g["spec_peak_flops"], g.get("bandwidth_bound")
    against = (
        f" = {copy / spec_bw:.0%} of the spec's {spec_bw / 1e12:.2f} TB/s"
        if spec_bw
        else f" = {copy / bound:.0%} of the {bound / 1e12:.2f} TB/s of its memory clock and bus"
        if bound
        else " (no spec, no bound)"
    )
    lines.append(f"copy bandwidth: {copy / 1e12:.3f} TB/s{against}")
    against = (
        f" = {best_mm['rate'] / spec_fl:.0%} of the spec's {spec_fl / 1e12:.0f} TFLOP/s"
        if spec_fl
        else " (no spec)"
    )
    lines.append(f"{best_mm['name']}: {best_mm['rate'] / 1e12:.1f} TFLOP/s{against}")
    return lines, figures, None


def step_measure(work: Path, results: dict[str, Any]) -> str | None:
    out = work / "measure.json"
    cmd = [sys.executable, "-m", "perfcore", "measure", "--quick", "--json", str(out)]
    ok, output, took = run_step("measure", cmd, ROOT, STEPS["measure"])
    results["measure_s"] = round(took, 1)
    if not out.exists():
        return f"no report written\n{tail(output)}"
    report = json.loads(out.read_text(encoding="utf-8"))
    lines, figures, why = figures_against_spec(report)
    results["gpu"] = figures
    for line in lines:
        print(f"    {line}")
    if why is not None:
        return why
    if not ok:  # an error in another experiment (a rate above a bound), reported with its reason
        return f"the run reported errors: {report.get('errors')}\n{tail(output)}"
    return None


def step_pytest(work: Path, results: dict[str, Any]) -> str | None:
    out = work / "pytest.json"
    cmd = [sys.executable, "-m", "pytest", "solutions/m6_gpu.py", "-q", "-p", "no:cacheprovider",
           "--grader-lang", "en", "--grader-json", str(out)]  # fmt: skip
    ok, output, took = run_step("pytest", cmd, ROOT, STEPS["pytest"])
    results["pytest_s"] = round(took, 1)
    if not out.exists():
        return f"no results.json written\n{tail(output)}"
    data = json.loads(out.read_text(encoding="utf-8"))
    results["pytest"] = {t["name"]: t["output"][:300] for t in data.get("tests", [])}
    for test in data.get("tests", []):
        print(f"    {test['name']}: {test['score']:g}/{test['max_score']:g} {test['output'][:160]!r}")
    if not ok or not data.get("max_score") or data.get("score") != data.get("max_score"):
        return f"m6 scored {data.get('score')}/{data.get('max_score')} under pytest\n{tail(output)}"
    return None


def step_batch(work: Path, results: dict[str, Any]) -> str | None:
    student = work / "submissions" / "smoke"
    student.mkdir(parents=True)
    shutil.copyfile(ROOT / "solutions" / "m6_gpu.py", student / "m6_gpu.py")
    grades = work / "grades"
    cmd = [sys.executable, "-m", "grader", "grade", str(work / "submissions"), "--exercises", "m6",
           "--out", str(grades), "--lang", "en", "--deferred", "zero", "--quiet"]  # fmt: skip
    ok, output, took = run_step("batch", cmd, ROOT, STEPS["batch"])
    results["batch_s"] = round(took, 1)
    path = grades / "grades.json"
    if not path.exists():
        return f"no grades.json written\n{tail(output)}"
    data = json.loads(path.read_text(encoding="utf-8"))
    mine = data["students"]["smoke"]
    results["batch"] = {"sandbox": data.get("sandbox"), "states": [o["state"] for o in mine["outcomes"]]}
    print(f"    sandbox: {data.get('sandbox')}; score {mine['score']}/{mine['max_score']}")
    for o in mine["outcomes"]:
        print(f"    {o['check_id']}: {o['state']} {o['message'][:200]!r}")
    if data.get("sandbox") != "bwrap":
        return f"the batch grader ran without bubblewrap ({data.get('sandbox')})\n{tail(output)}"
    if not ok or not mine["outcomes"] or any(o["state"] != "passed" for o in mine["outcomes"]):
        return f"m6 scored {mine['score']}/{mine['max_score']} in the batch grader\n{tail(output)}"
    return None


def describe_host(results: dict[str, Any]) -> None:
    """Print what the run sees: the current device, its free memory, its spec, and the device files."""
    sys.path.insert(0, str(ROOT))
    from grader.sandbox import confinement
    from perfcore.measure import gpu

    device = gpu.cuda_device()
    spec, note = gpu.spec_match(device.name)
    bwrap, why = confinement.find_bwrap()
    host = {
        "device": device.name,
        "index": device.index,
        "free_gib": round((device.free_bytes or 0) / 2**30, 2),
        "total_gib": round((device.total_bytes or 0) / 2**30, 2),
        "l2_mib": (device.l2_bytes or 0) / 2**20,
        "spec": spec.name if spec else note,
        "bandwidth_bound": device.bandwidth_bound,
        "device_files": [target for _, target in confinement.gpu_devices()],
        "bwrap": bwrap or why,
        "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES"),
    }
    results["host"] = host
    for key, value in host.items():
        print(f"    {key}: {value}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks/gpu_smoke.py", description=__doc__.split("\n")[0])
    parser.add_argument("--json", metavar="FILE", help="also write what was measured and seen as JSON")
    parser.add_argument("--keep", metavar="DIR", help="keep the reports in DIR (default: a temporary folder)")
    args = parser.parse_args(argv)
    why = no_gpu_reason()
    if why is not None:
        print(f"gpu_smoke: no CUDA GPU here, nothing run: {why}. Exit status {NO_GPU}.", file=sys.stderr)
        return NO_GPU
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="perfkit-gpu-smoke-"))
    work.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {}
    failures: dict[str, str] = {}
    started = time.monotonic()
    for name, step in (("measure", step_measure), ("pytest", step_pytest), ("batch", step_batch)):
        print(f"{name} (limit {STEPS[name]} s):")
        try:
            problem = step(work, results)
        except Exception as exc:  # noqa: BLE001 - one broken step must not hide the others
            problem = f"{type(exc).__name__}: {exc}"
        if problem:
            failures[name] = problem
        print(f"  {name}: {'FAILED: ' + problem if problem else 'ok'} ({results.get(name + '_s', 0)} s)")
    # Last: reading the free memory makes a CUDA context in this process, which would hold GPU memory
    # through the steps.
    print("host:")
    try:
        describe_host(results)
    except Exception as exc:  # noqa: BLE001 - reported as the step it is
        failures["host"] = f"{type(exc).__name__}: {exc}"
    results["failures"] = failures
    results["total_s"] = round(time.monotonic() - started, 1)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"gpu_smoke: {'every step passed' if not failures else 'failed: ' + ', '.join(failures)} "
          f"in {results['total_s']} s; reports in {work}")  # fmt: skip
    if not args.keep and not failures:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
