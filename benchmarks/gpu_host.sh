#!/usr/bin/env bash
# benchmarks/gpu_host.sh: m6 graded on a GPU host under the sandbox, by both front ends, in one go.
#
#     OUT=DIR PYTHON=python3 bash benchmarks/gpu_host.sh
#
# Why: benchmarks/gpu_smoke.py checks that the honest m6 passes; this script records what an instructor's GPU
# host does with m6 as a whole (issue 45, item 7): the honest solution, the stub and submissions that must
# not pass, each through the pytest plugin and the batch grader, with bubblewrap on, and whether bubblewrap
# confines there at all. It needs no installed kit (the kit's root goes on PYTHONPATH, the pytest plugin is
# named with -p where no entry point is installed) and no network. Steps, in this order, each in a fresh
# process with a time limit of its own, all of them inside one budget (GPU_HOST_BUDGET_S, default 400 s):
#
#   host       nvidia-smi -L, the driver, the kernel, Python, torch, bubblewrap's version, where libcuda is
#   confine    the grader's own bubblewrap probe (grader.sandbox.confinement.find_bwrap), the GPU device
#              files it binds, and CUDA inside the grader's sandbox with the worker's limits and environment
#              (a tensor made and summed on the GPU there)
#   measure    python -m perfcore measure --quick --only gpu: the copy bandwidth and the bf16 matmul rate
#              against the matched spec
#   pytest     python -m pytest solutions/m6_gpu.py with the plugin: both checks must pass
#   batch      python -m grader grade over six students, bubblewrap on: the solution (must pass), the stub
#              exercises/m6_gpu.py (must score 0 and not crash), and four that must not pass: `constant`
#              (figures typed in, no GPU work), `model` (a fraction of the device's spec, read by name),
#              `no_sync` (the classic mistake: a wall clock around asynchronous work, no synchronize) and
#              `less_work` (events around a 64x smaller copy and a 4x smaller matmul)
#   stub       python -m pytest exercises/m6_gpu.py with the plugin: must score 0 and not crash
#   hostile    python -m pytest over `model` with the plugin
#
# Without a GPU (or without torch) every step still runs and m6 is deferred ("no CUDA GPU"): the script
# itself must not fail there. bubblewrap: the one on PATH, else a carried copy in .gpucarry/bin (its
# libraries in .gpucarry/lib, used only where the loader cannot find them); GPU_HOST_CARRIED_BWRAP=1 takes
# the carried copy even where one is on PATH. Output: $OUT/gpu_host.log (every step's verdict, figures,
# scores and messages, and the tail of each step's output) and $OUT/gpu_host.tar.gz (each step's whole
# output and reports). Exit status 0 when the script ran through (the verdicts are in the log), 2 when it
# could not start (no Python).

set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2
PY=${PYTHON:-python3}
command -v "$PY" >/dev/null 2>&1 || { echo "gpu_host: no $PY" >&2; exit 2; }
OUT=${OUT:-$(mktemp -d /tmp/perfkit-gpu-host-out.XXXXXX)}
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/perfkit-gpu-host.XXXXXX)
LOG=$OUT/gpu_host.log
: >"$LOG"
BUDGET=${GPU_HOST_BUDGET_S:-400}
export PYTHONPATH=$ROOT${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 PERFKIT_CACHE_DIR=$WORK/cache
export PYTHONDONTWRITEBYTECODE=1

say() { echo "$*" | tee -a "$LOG"; }

# bubblewrap: the one on PATH, else the carried one
if [ -x "$ROOT/.gpucarry/bin/bwrap" ] && { [ -n "${GPU_HOST_CARRIED_BWRAP:-}" ] || ! command -v bwrap >/dev/null; }; then
    mkdir -p "$WORK/bin"
    if ldd "$ROOT/.gpucarry/bin/bwrap" 2>&1 | grep -q 'not found'; then
        loader=$(ldd "$ROOT/.gpucarry/bin/bwrap" | awk '/ld-linux/ {print $1}')
        printf '#!/bin/sh\nexec %s --library-path %s %s "$@"\n' "$loader" "$ROOT/.gpucarry/lib" \
            "$ROOT/.gpucarry/bin/bwrap" >"$WORK/bin/bwrap"
        chmod +x "$WORK/bin/bwrap"
        say "bwrap: the carried copy, its libraries from .gpucarry/lib (the loader found none of its own)"
    else
        ln -s "$ROOT/.gpucarry/bin/bwrap" "$WORK/bin/bwrap"
        say "bwrap: the carried copy (.gpucarry/bin/bwrap)"
    fi
    export PATH=$WORK/bin:$PATH
fi

# the pytest plugin: by its entry point where the kit is installed, else named
PLUGIN=()
"$PY" -c 'import sys, importlib.metadata as m
sys.exit(0 if any(e.value == "grader.plugin" for e in m.entry_points(group="pytest11")) else 1)' 2>/dev/null \
    || PLUGIN=(-p grader.plugin)

# step NAME LIMIT CMD...: run CMD with a time limit (never past the budget), its output in $WORK/NAME.log
step() {
    local name=$1 limit=$2 left rc t0 t1
    shift 2
    left=$((BUDGET - SECONDS - 5))
    [ "$left" -lt "$limit" ] && limit=$left
    if [ "$limit" -lt 10 ]; then
        say "== $name: not run, the budget of ${BUDGET} s is spent"
        return 99
    fi
    say "== $name (limit ${limit} s): $*"
    t0=$EPOCHREALTIME
    timeout -k 10 "$limit" "$@" >"$WORK/$name.log" 2>&1
    rc=$?
    t1=$EPOCHREALTIME
    say "$(awk -v a="$t0" -v b="$t1" -v n="$name" -v r="$rc" \
        'BEGIN {printf "-- %s: exit status %s%s in %.1f s", n, r, (r == 124 ? " (TIMED OUT)" : ""), b - a}')"
    return "$rc"
}

show_tail() { tail -n "${2:-15}" "$WORK/$1.log" | sed 's/^/    | /' | tee -a "$LOG"; }

# summary KIND FILE...: the scores and messages of a pytest JSON or a batch grades.json
summary() {
    "$PY" - "$@" <<'EOF' 2>&1 | tee -a "$LOG"
import json, sys
kind, path = sys.argv[1], sys.argv[2]
try:
    data = json.load(open(path, encoding="utf-8"))
except (OSError, ValueError) as exc:
    print(f"    no report: {exc}")
    sys.exit(0)
if kind == "pytest":
    print(f"    score {data.get('score')}/{data.get('max_score')}")
    for t in data.get("tests", []):
        print(f"    {t['name']}: {t['score']:g}/{t['max_score']:g} {t['output'][:400]!r}")
else:
    print(f"    sandbox: {data.get('sandbox')!r}")
    for name, s in sorted(data.get("students", {}).items()):
        print(f"    {name}: {s.get('score')}/{s.get('max_score')}")
        for o in s.get("outcomes", []):
            flag = " deferred" if o.get("deferred") else ""
            print(f"      {o['check_id']}: {o['state']}{flag} {o['message'][:400]!r}")
EOF
}

# ---------------------------------------------------------------------------------------------------------
say "gpu_host: $(date -u +%Y-%m-%dT%H:%M:%SZ), root $ROOT, python $PY, budget ${BUDGET} s, plugin ${PLUGIN[*]:-entry point}"
{
    echo "== host"
    nvidia-smi -L 2>&1 || echo "nvidia-smi: none"
    nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used,clocks.max.sm --format=csv 2>&1 || true
    echo "kernel: $(uname -r)"
    echo "bwrap: $(command -v bwrap || echo none) $(bwrap --version 2>&1)"
    echo "max_user_namespaces: $(cat /proc/sys/user/max_user_namespaces 2>&1); uid $(id -u)"
    echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
    (ldconfig -p 2>/dev/null | grep -E 'libcuda\.so|libnvidia-ml\.so') || echo "ldconfig: no libcuda in the cache"
    grep -E 'nvidia|cgroup' /proc/mounts | head -n 8 || true
    "$PY" -c 'import sys, platform; print("python", sys.version.split()[0], sys.executable)
try:
    import torch
    print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())
except Exception as exc:
    print("torch:", type(exc).__name__, exc)'
} 2>&1 | tee -a "$LOG"

# the grader's own probe, then CUDA inside its sandbox with the worker's limits and environment
cat >"$WORK/confine.py" <<'EOF'
import os, subprocess, sys, tempfile, time
from grader.sandbox import confinement
bwrap, why = confinement.find_bwrap()
print("find_bwrap:", bwrap or f"none: {why}")
print("gpu device files:", [t for _, t in confinement.gpu_devices()])
print("memory rlimit:", confinement.memory_rlimit(bool(confinement.gpu_devices())))
code = ("import os, torch; print('inside: torch.cuda.is_available() =', torch.cuda.is_available()); "
        "x = torch.ones(1 << 20, device='cuda'); print('inside: sum on', torch.cuda.get_device_name(), "
        "'=', x.sum().item()); print('inside: /dev', sorted(os.listdir('/dev')))")
with tempfile.TemporaryDirectory() as folder:
    env = confinement.worker_env(folder)
    prefix = confinement.launcher(sys.executable, confinement.Limits(memory_bytes=4 << 30))
    for label, wrap in (("plain (limits only)", []), ("sandbox", confinement.bwrap_command(bwrap, folder, folder) if bwrap else None)):
        if wrap is None:
            print(f"{label}: not run ({why})")
            continue
        t0 = time.monotonic()
        r = subprocess.run([*prefix, *wrap, sys.executable, "-I", "-c", code], capture_output=True, text=True,
                           env=env, cwd=folder, timeout=120)
        print(f"{label}: exit status {r.returncode} in {time.monotonic() - t0:.1f} s")
        print("   ", (r.stdout + r.stderr).strip()[-1500:].replace("\n", "\n    "))
        if label == "sandbox" and r.returncode != 0 and confinement.gpu_devices():
            # a diagnosis in the same run: the driver's libraries, as the loader's cache finds them, bound too
            cache = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout.splitlines()
            dirs = sorted({os.path.dirname(l.split("=>")[-1].strip()) for l in cache
                           if ("libcuda.so" in l or "libnvidia-ml.so" in l) and "=>" in l})
            extra = [a for d in dirs for a in ("--ro-bind", d, d)]
            r = subprocess.run([*prefix, *wrap[:-1], *extra, "--", sys.executable, "-I", "-c", code],
                               capture_output=True, text=True, env=env, cwd=folder, timeout=120)
            print(f"sandbox with the driver's folders {dirs} bound: exit status {r.returncode}")
            print("   ", (r.stdout + r.stderr).strip()[-800:].replace("\n", "\n    "))
EOF
step confine 150 "$PY" "$WORK/confine.py"
show_tail confine 30

# perfcore's GPU measurements, once
step measure 150 "$PY" -m perfcore measure --quick --only gpu --json "$WORK/measure.json"
"$PY" - "$ROOT/benchmarks/gpu_smoke.py" "$WORK/measure.json" <<'EOF' 2>&1 | tee -a "$LOG"
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("gpu_smoke", sys.argv[1])
smoke = importlib.util.module_from_spec(spec)
spec.loader.exec_module(smoke)
try:
    report = json.load(open(sys.argv[2], encoding="utf-8"))
except (OSError, ValueError) as exc:
    print(f"    no report: {exc}")
    sys.exit(0)
lines, figures, why = smoke.figures_against_spec(report)
for line in lines:
    print(f"    {line}")
if why:
    print(f"    {why}")
if report.get("errors"):
    print(f"    errors: {report['errors']}")
EOF
show_tail measure 8

# the submissions
SUBS=$WORK/submissions
mkdir -p "$SUBS"/{solution,stub,constant,model,no_sync,less_work}
cp solutions/m6_gpu.py "$SUBS/solution/"
cp exercises/m6_gpu.py "$SUBS/stub/"
cat >"$SUBS/constant/m6_gpu.py" <<'EOF'
"""Typed in: about what an H100 gives, no GPU work at all."""


def gpu_copy_bandwidth(n_bytes):
    return 2.95e12


def gpu_bf16_matmul_flops(n):
    return 7.6e14
EOF
cat >"$SUBS/model/m6_gpu.py" <<'EOF'
"""A model: a fraction of the device's spec, read by name; nothing timed, no work done."""
import torch

_SPECS = {"H100": (3.35e12, 989.4e12), "H200": (4.8e12, 989.4e12), "A100": (2.039e12, 312e12)}


def _spec():
    name = torch.cuda.get_device_name()
    return next((v for k, v in _SPECS.items() if k in name), (1e12, 1e14))


def gpu_copy_bandwidth(n_bytes):
    return 0.89 * _spec()[0]


def gpu_bf16_matmul_flops(n):
    return 0.78 * _spec()[1]
EOF
cat >"$SUBS/no_sync/m6_gpu.py" <<'EOF'
"""The classic mistake: a wall clock around asynchronous GPU work, no synchronize."""
import time

import torch


def _seconds(fn, repeats=10):
    fn()
    t0 = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - t0) / repeats


def gpu_copy_bandwidth(n_bytes):
    n = n_bytes // 4
    src, dst = torch.ones(n, device="cuda"), torch.zeros(n, device="cuda")
    return 2 * n * 4 / _seconds(lambda: dst.copy_(src))


def gpu_bf16_matmul_flops(n):
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    return 2 * n**3 / _seconds(lambda: a @ b)
EOF
sed -e 's/^    n = n_bytes \/\/ 4$/    n = n_bytes \/\/ 4 \/\/ 64/' \
    -e 's/^    return 2 \* n \* 4 \/ _seconds/    return 2 * (n * 64) * 4 \/ _seconds/' \
    -e 's/^    a = torch.randn(n, n,/    n, k = n \/\/ 4, n\n    a = torch.randn(n, n,/' \
    -e 's/^    return 2 \* n\*\*3 \/ _seconds/    return 2 * k**3 \/ _seconds/' \
    solutions/m6_gpu.py >"$SUBS/less_work/m6_gpu.py"
grep -q 'n_bytes // 4 // 64' "$SUBS/less_work/m6_gpu.py" && grep -q 'k\*\*3' "$SUBS/less_work/m6_gpu.py" \
    || say "less_work: the solution's lines changed; that submission is the solution as it stands"

# m6 under the pytest plugin
step pytest 150 "$PY" -m pytest "${PLUGIN[@]}" solutions/m6_gpu.py -q -p no:cacheprovider --grader-lang en \
    --grader-json "$WORK/pytest_solution.json"
summary pytest "$WORK/pytest_solution.json"
grep -iE 'bubblewrap|bwrap|sandbox|confine' "$WORK/pytest.log" | head -n 5 | sed 's/^/    | /' | tee -a "$LOG"
show_tail pytest 6

# m6 by the batch grader, bubblewrap on where it works
step batch 300 "$PY" -m grader grade "$SUBS" --exercises m6 --out "$WORK/grades" --lang en --quiet
summary batch "$WORK/grades/grades.json"
show_tail batch 10

# the stub, and a model, under the pytest plugin
step stub 90 "$PY" -m pytest "${PLUGIN[@]}" exercises/m6_gpu.py -q -p no:cacheprovider --grader-lang en \
    --grader-json "$WORK/pytest_stub.json"
summary pytest "$WORK/pytest_stub.json"
show_tail stub 6
step hostile 90 "$PY" -m pytest "${PLUGIN[@]}" "$SUBS/model/m6_gpu.py" -q -p no:cacheprovider \
    --rootdir "$SUBS/model" --grader-lang en --grader-json "$WORK/pytest_model.json"
summary pytest "$WORK/pytest_model.json"
show_tail hostile 6

say "gpu_host: done in ${SECONDS} s"
tar -czf "$OUT/gpu_host.tar.gz" -C "$WORK" --exclude cache . 2>/dev/null || true
rm -rf "$WORK"
exit 0
