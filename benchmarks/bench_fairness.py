"""How fair the measurement checks are: how often an honest solution fails them, whichever honest method
times it, on an idle machine and under load, and how often a submission that measures the wrong thing, or
cheats, gets through.

    .venv/bin/python benchmarks/bench_fairness.py --runs 20 --json /tmp/fair.json
    .venv/bin/python benchmarks/bench_fairness.py --runs 1 --loads idle --methods perf_counter \\
        --variants m1_bytes_once --checks m1::copy_bandwidth              # a smoke test, about a minute

What it grades, each run with a fresh :class:`grader.judge.Judge` (sandboxed, as a student's run is) on a
fresh temporary folder holding only the files of that submission:

- **Honest runs**: every ``MeasurementCheck`` and ``ShapeCheck`` of m1, m2, m3, m4, m5 and ex10 (never m6,
  which needs a GPU), once for each honest method of ``--methods`` (``METHODS``): ``benchmark``
  (torch.utils.benchmark's Timer, as ``solutions/`` times), ``perf_counter`` (a plain ``time.perf_counter``
  loop), ``timeit`` (the ``timeit`` module, best of five blocks as its documentation advises), ``numpy``
  (numpy's kernels, for m2 and m4: the other tasks name a torch call), and the other clocks a student may
  reach for, each timing as the ``perf_counter`` files do (m3 as its solution does): ``perf_counter_ns``,
  ``monotonic``, and the CPU-time clocks ``process_time`` and ``thread_time``, which time these tasks
  rightly because each runs on one thread (issue 37: with the worker's old ``RLIMIT_CPU``,
  ``process_time`` read in 4 ms steps). A method's files are
  ``benchmarks/honest/<method>/<solution file>`` (see the README.md there), or the solution file itself
  where that already times this way (m3's, a ``perf_counter`` loop); a method with no file for an exercise
  does not apply to it. Each runs under each load of ``--loads``: ``idle``, ``busy1`` (one busy-looping
  Python process running while the run grades), ``busy2`` (two of them), ``busy4`` (four), ``stream`` (one
  process copying 256 MiB back and forth, a memory-bandwidth neighbour). The busy processes start before
  each run and are killed after it; the loads and methods take turns within each round, so all of them
  see the same drift of the machine.
- **Wrong variants** (``VARIANTS`` of ``benchmarks/fairness_variants.py``): a copy of one solution file
  with one source edit, each measuring the wrong thing by a stated factor (bytes counted once: 0.5x; ...),
  graded on the one check it targets, under each load of ``--variant-loads`` (``idle`` by default).
- **Cheats** (``CHEATS``, beside them): the hostile submissions of issue 20 (a spin for a transpose that
  never runs, k passes extrapolated from two, a smaller matmul than asked, a made-up constant below the
  probe's sizes, a curve drawn through two measured points, a thread that slows perfcore's reference on
  the pinned core, a matmul on every core) and of issue 29 (a constant m3c speedup, a 0.5x on the first
  input met, the handed result left unwritten, the inputs zeroed instead of copied, the work made once and
  then another size's figure spun out, for m2a and m4a, and m4a's k passes made block by block in cache),
  as copies of a solution file with an edit or a function replaced, graded like the variants. Where the
  task's function works on buffers the judge hands it, each leaves the right result there before its
  trick, so that the defence it targets decides, not the result check (but for the two that the result
  check must catch). Their figures are often about right; what is wrong is the work behind them, so their
  "expected" factor is often no plain ratio (each one's description says why).

Before the rounds, each variant's and cheat's actual factor is measured outside the grader: the solution's
function and the variant's, called alternately at the check's input in one process pinned to one core
(``--factor-rounds``, 0 skips it); for a curve, point by point, the point farthest from 1 shown.
``--variants`` takes names, ``mistakes`` (the variants), ``cheats``, ``all`` or ``none``.

What the numbers mean:

- **false fails**: honest outcomes that are neither passed nor deferred (wrong, error, timeout, ...): a
  student who did it right loses the points. The target is none, for every method under every load.
- **deferred**: the check was skipped because the machine was too noisy to measure fairly (or a
  requirement is unmet); its points are left out of the maximum, not lost. Many deferrals under load are
  the price of no false fails; many when idle would make the check useless.
- **catch rate** of a variant or cheat: the share of its runs in which the targeted check was ``wrong``
  (or ``error``); **deferral rate**: the share deferred; **passes**: the wrong method got the points (the
  target for a cheat: none, each caught or deferred).

How long: on the project's 2-core machine one honest run of the ``benchmark`` method (all twelve
measurement checks once) took about 40 s idle, longer under load, where the checks take more rounds
before they decide or defer. The other methods' times are estimates from single-check runs on a busy
machine: ``perf_counter`` about as long; ``timeit`` up to five times as long per check (each of its calls
times five blocks of at least 0.2 s after ``autorange``: m1 18 s against 9, m5's add 32 s against 8, m5's
curve 62 s against 12), about 2 minutes a run; ``numpy`` (m2's two checks) about 10 s; the four other
clocks about as long as ``perf_counter`` each; a variant or cheat run 5 to 10 s; measuring the sixteen
factors about two minutes. A round with three loads, all eight methods and all sixteen variants and cheats
is therefore about 3 x (40 + 40 + 120 + 10 + 4 x 40 s) + 16 x 8 s, some 21 minutes, and ``--runs 20``
about seven hours, more where checks retry (the progress lines on
stderr give each run's time, the report the median). Cut it down with ``--methods``, ``--checks`` and
``--variants``, and run it on an otherwise quiet machine. Quiet matters: the judge pins each measurement
(the student's worker and the reference) to the core that was least busy just before, and another grading
session on the machine (a ``pytest solutions/``, say) comes and goes on it; each run's load average is in
the progress line and the JSON. Ctrl-C abandons the run in progress and reports what was graded so far.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import datetime
import json
import math
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script from anywhere: grader and perfcore of this tree

from grader.judge import Judge, prepare_exercise  # noqa: E402
from grader.registry import load_exercises  # noqa: E402
from grader.results.outcome import Outcome, State  # noqa: E402
from grader.specs.check import Check, Exercise, MeasurementCheck, ShapeCheck  # noqa: E402

# the variants and cheats, data more than code, live beside this file: found whether it runs as a script
# or is loaded from its path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from fairness_variants import ALL_VARIANTS, CHEATS, VARIANTS, Variant  # noqa: E402

SOLUTIONS = ROOT / "solutions"
#: The honest methods' files: benchmarks/honest/<method>/<solution file name> (see its README.md).
HONEST = ROOT / "benchmarks" / "honest"
#: The honest methods, by how they time the task's call: ``benchmark`` torch.utils.benchmark's Timer,
#: ``perf_counter`` a plain time.perf_counter loop, ``timeit`` the timeit module, ``numpy`` numpy's kernels
#: where the task's work is the same in either library (m2's matmuls, m4's passes), and the same loop as
#: ``perf_counter``'s on each other clock of the ``time`` module: ``perf_counter_ns``, ``monotonic``, and
#: the CPU-time ones ``process_time`` and ``thread_time`` (every task here runs on one thread).
METHODS = (
    "benchmark",
    "perf_counter",
    "timeit",
    "numpy",
    "perf_counter_ns",
    "monotonic",
    "process_time",
    "thread_time",
)
#: The method each solution file times with where it is not ``benchmark``: that method grades the
#: solution file itself (benchmarks/honest/ holds no copy of it).
SOLUTION_METHODS = {"m3_transpose": "perf_counter"}
#: The exercises with measurements on the CPU; m6 measures a GPU and is never graded here.
EXERCISE_IDS = ("m1", "m2", "m3", "m4", "m5", "ex10")
#: Load conditions: the number of busy processes running while a run grades.
#: Each load: (busy-looping processes, memory-bandwidth streamers) running beside the graded run.
LOADS = {"idle": (0, 0), "busy1": (1, 0), "busy2": (2, 0), "busy4": (4, 0), "stream": (0, 1)}
#: The columns of the tables, in order; ``other`` is not_attempted, or skipped without deferral.
COLUMNS = ("passed", "wrong", "deferred", "error", "timeout", "other")
#: A busy process: a pure-Python loop that also stops by itself once its parent is gone, so that a
#: benchmark killed with SIGKILL leaves no busy loop behind (the check costs a syscall every ~30 ms).
BUSY_CODE = """
import os
parent = os.getppid()
while os.getppid() == parent:
    for _ in range(1_000_000):
        pass
"""
#: A memory-bandwidth neighbour, as a shared machine's other jobs are: 256 MiB copied back and forth, until
#: its parent is gone.
STREAM_CODE = """
import os
import numpy as np
parent = os.getppid()
a = np.ones(1 << 26, np.float32)
b = np.empty_like(a)
while os.getppid() == parent:
    np.copyto(b, a)
    np.copyto(a, b)
"""
#: Run in a subprocess: the solution's function and a variant's, alternately, at one input, pinned to
#: one core as the judge pins a measurement; prints the figures as JSON. Where the task's function works on
#: buffers the judge hands it (issue 29), each call gets fresh ones of the check's sizes, as the judge's do.
FACTOR_CODE = """
import importlib.util, json, os, sys
honest_path, variant_path, func, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[5])
kwargs = json.loads(sys.argv[4])
if hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})

def handed(sizes):  # one call's arguments: the check's sizes' buffers, random inputs, NaN (or zero) outputs
    if func not in ("copy_bandwidth", "matmul_flops", "roofline_sweep", "transpose_time", "transpose_speedup",
                    "scale_time", "add_time", "overhead_curve", "matvec_bandwidth"):
        return dict(sizes)
    import numpy as np, torch
    nan = float("nan")
    if func in ("add_time", "overhead_curve"):  # m5: x of 1, 2 and 4, out zeros (its adds accumulate into it);
        n = sizes["n_elements"] if func == "add_time" else sum(sizes["sizes"])  # m5b: every size's back to back
        rest = {} if func == "add_time" else {"sizes": tuple(sizes["sizes"])}
        x = torch.tensor([1.0, 2.0, 4.0])[torch.randint(0, 3, (n,))]
        return {"x": x, "out": torch.zeros(n), **rest}
    if func == "roofline_sweep":  # every m's rows of x and y stacked
        rows, cols, ms = sizes["rows"], sizes["cols"], tuple(sizes["ms"])
        m = sum(ms)
        return {"w": torch.randn(rows, cols), "x": torch.randn(m, rows), "y": torch.full((m, cols), nan),
                "ms": ms}
    if func == "copy_bandwidth":
        n = sizes["n_bytes"] // 4
        return {"src": torch.randn(n), "dst": torch.full((n,), nan)}
    if func == "matmul_flops":
        n = sizes["n"]
        return {"a": torch.randn(n, n), "b": torch.randn(n, n), "c": torch.full((n, n), nan)}
    if func == "scale_time":
        n = sizes["n_elements"]
        return {"x": torch.rand(n), "y": torch.full((n,), nan), "k": sizes["k"], "fused": sizes["fused"]}
    if func == "matvec_bandwidth":
        rows, cols = sizes["rows"], sizes["cols"]
        return {"w": torch.randn(rows, cols), "x": torch.randn(cols), "y": torch.full((rows,), nan)}
    n = sizes["n"]  # m3's transposes: numpy arrays, src of 1, 2 and 4, dst zeros (its runs add src.T into it)
    src = np.array([1.0, 2.0, 4.0], dtype=np.float32)[np.random.default_rng().integers(0, 3, (n, n))]
    rest = {k: v for k, v in sizes.items() if k != "n"}
    return {"src": src, "dst": np.zeros_like(src), **rest}

def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, func)

def plain(value):  # a number, or a curve of (x, y) points: as JSON
    return [plain(v) for v in value] if isinstance(value, (list, tuple)) else float(value)

honest, variant = load("bench_honest", honest_path), load("bench_variant", variant_path)
figures = {"honest": [], "variant": []}
for _ in range(rounds):
    figures["honest"].append(plain(honest(**handed(kwargs))))
    figures["variant"].append(plain(variant(**handed(kwargs))))
print(json.dumps(figures))
"""


# ---------------------------------------------------------------------------------------------------
# the wrong variants (defined in benchmarks/fairness_variants.py)


class VariantError(RuntimeError):
    """A variant's edit does not apply to the current solution file."""


def variant_source(variant: Variant, exercise: Exercise) -> str:
    """The solution file of ``exercise`` with ``variant``'s edits and replaced functions; VariantError when
    an edit's text is not there exactly once, or a replaced function is not defined there exactly once at
    the top level (the solutions changed: the variant must be brought up to date, not silently run as the
    honest file)."""
    path = SOLUTIONS / f"{exercise.module}.py"
    text = path.read_text(encoding="utf-8")
    for old, new in variant.edits:
        count = text.count(old)
        if count != 1:
            raise VariantError(
                f"variant {variant.name}: the text {old!r} occurs {count} times in {path.relative_to(ROOT)}, "
                "not once; update it in benchmarks/fairness_variants.py"
            )
        text = text.replace(old, new)
    for name, source in variant.functions:
        text = replace_function(text, name, source, f"variant {variant.name}: {path.relative_to(ROOT)}")
    return text


def replace_function(text: str, name: str, source: str, where: str) -> str:
    """``text`` with its top-level function ``name`` (decorators included) replaced by ``source``."""
    found = [
        node
        for node in ast.parse(text).body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name
    ]
    if len(found) != 1:
        raise VariantError(f"{where} defines {name}() {len(found)} times at the top level, not once")
    node = found[0]
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    lines = text.splitlines(keepends=True)
    end = node.end_lineno
    assert end is not None  # set by ast.parse on Python 3.8+
    # the function's own trailing comments (the solutions' "### END SOLUTION") go with it
    while end < len(lines) and lines[end].startswith((" ", "\t")) and lines[end].strip().startswith("#"):
        end += 1
    return "".join(lines[: first - 1]) + source.strip("\n") + "\n" + "".join(lines[end:])


def variant_factor(variant: Variant, exercise: Exercise, source: str, rounds: int) -> dict[str, Any]:
    """The variant's figure over the solution's (medians of ``rounds`` alternate calls at the check's
    input, outside the grader), with the figures; ``error`` instead when the calls failed."""
    check = exercise.check(variant.check)
    with tempfile.TemporaryDirectory(prefix="bench-fairness-factor-") as folder:
        path = Path(folder, f"{exercise.module}.py")
        path.write_text(source, encoding="utf-8")
        cmd = [sys.executable, "-c", FACTOR_CODE, str(SOLUTIONS / f"{exercise.module}.py"), str(path)]
        cmd += [check.func, json.dumps(dict(getattr(check, "kwargs", {}))), str(rounds)]
        out = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, check=False, timeout=600)
    try:
        figures = json.loads(out.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return {"error": f"exit status {out.returncode}: {out.stderr.strip()[-500:]}"}
    return {**figure_factor(figures["honest"], figures["variant"]), **figures}


def figure_factor(honest: list[Any], variant: list[Any]) -> dict[str, Any]:
    """The variant's figure over the honest one, medians over the rounds: for a curve of (x, y) points,
    the ratio of each point's y (``points``), and as ``factor`` the one farthest from 1 (in log terms)."""
    if not honest or not isinstance(honest[0], list):
        return {"factor": statistics.median(variant) / statistics.median(honest)}
    points = [
        statistics.median(v[i][1] for v in variant) / statistics.median(h[i][1] for h in honest)
        for i in range(min(len(honest[0]), len(variant[0])))
    ]
    return {"factor": max(points, key=lambda f: abs(math.log(f)) if f > 0 else math.inf), "points": points}


# ---------------------------------------------------------------------------------------------------
# grading


@dataclass
class Graded:
    """One check's outcome in one run, reduced to what the report counts."""

    check: str
    state: str
    deferred: bool
    seconds: float
    message: str

    @property
    def column(self) -> str:
        if self.state == State.SKIPPED:
            return "deferred" if self.deferred else "other"
        return self.state if self.state in COLUMNS else "other"

    @property
    def false_fail(self) -> bool:
        """For an honest submission: the points lost (not passed, not deferred)."""
        return self.column not in ("passed", "deferred")


@dataclass
class Run:
    """One graded submission: honest or a variant, under one load."""

    kind: str  # "honest" or a variant's name
    load: str
    round: int
    seconds: float
    graded: list[Graded] = field(default_factory=list)
    #: The 1-minute load average as the run started: other work on the machine (another grading session
    #: pins its measurements to the same last core as this one) shows here, and can explain an outlier.
    load_average: float = 0.0
    #: The honest method graded ("" for a variant).
    method: str = ""

    @property
    def label(self) -> str:
        return f"honest {self.method}" if self.kind == "honest" else self.kind


def measurement_checks(exercise: Exercise) -> list[Check]:
    return [c for c in exercise.checks if isinstance(c, (MeasurementCheck, ShapeCheck))]


def method_file(method: str, exercise: Exercise) -> Path | None:
    """The file that ``method`` grades for ``exercise``: its own under benchmarks/honest/, else the
    solution file where that times this way already; None where the method does not apply."""
    path = HONEST / method / f"{exercise.module}.py"
    if path.exists():
        return path
    if SOLUTION_METHODS.get(exercise.module, "benchmark") == method:
        return SOLUTIONS / f"{exercise.module}.py"
    return None


@contextlib.contextmanager
def busy_processes(load: tuple[int, int]) -> Iterator[None]:
    """The processes of ``load`` (busy loops, memory streamers) for the duration of the block; always
    killed at its end."""
    count, streams = load
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for code in [BUSY_CODE] * count + [STREAM_CODE] * streams:
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-c", code],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        yield
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait()


def graded_run(files: Mapping[str, str], plan: Sequence[tuple[Exercise, list[str]]]) -> list[Graded]:
    """Grade ``plan`` (exercises and their check ids) on ``files`` ({file name: source}), written to a
    fresh folder that holds nothing else, with a fresh Judge: as one student's run."""
    folder = tempfile.mkdtemp(prefix="bench-fairness-")
    try:
        for name, text in files.items():
            Path(folder, name).write_text(text, encoding="utf-8")
        graded = []
        with Judge("en") as judge:
            for exercise, check_ids in plan:
                # prepared in the run, as every front end does, before the student's code runs
                for prepared in prepare_exercise(exercise, "en", checks=check_ids):
                    started = time.perf_counter()
                    outcome: Outcome = judge.run_check(prepared, Path(folder, f"{exercise.module}.py"))
                    graded.append(
                        Graded(
                            outcome.name,
                            outcome.state,
                            outcome.deferred,
                            time.perf_counter() - started,
                            outcome.message,
                        )
                    )
        return graded
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def one_line(message: str, chars: int = 220) -> str:
    text = " ".join(message.split())
    return text if len(text) <= chars else text[: chars - 3] + "..."


def progress(run: Run, runs: int) -> None:
    counts = Counter(g.column for g in run.graded)
    summary = ", ".join(f"{counts[c]} {c}" for c in COLUMNS if counts[c])
    bad = [f"{g.check} {g.column}" for g in run.graded if g.column != "passed"]
    detail = f" ({'; '.join(bad)})" if bad else ""
    print(
        f"[{run.round}/{runs}] {run.label} {run.load}: {summary}{detail}; {run.seconds:.0f} s "
        f"(load average {run.load_average:.2f} before)",
        file=sys.stderr,
        flush=True,
    )
    if run.kind == "honest":  # a false fail or a deferral: say why, there and then
        for g in run.graded:
            if g.column != "passed":
                print(f"    {g.check}: {one_line(g.message, 600)}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------------
# the report


def counts_by_check(runs: Sequence[Run]) -> dict[str, Counter[str]]:
    """{check: Counter of columns} over ``runs``, the checks in the order graded."""
    table: dict[str, Counter[str]] = {}
    for run in runs:
        for g in run.graded:
            table.setdefault(g.check, Counter())[g.column] += 1
    return table


def false_fails(counts: Mapping[str, int]) -> int:
    return sum(counts.get(c, 0) for c in COLUMNS if c not in ("passed", "deferred"))


def methods_table(loads: Sequence[str], methods: Sequence[str], runs: Sequence[Run]) -> list[str]:
    """One row per honest method and load: its check outcomes, false fails and deferrals in all."""
    lines = ["honest methods: false fails and deferrals per method and load (target: 0 false fails)"]
    header = (
        f"  {'method':<14}{'load':<7}{'runs':>6}{'outcomes':>10}{'false fails':>13}{'deferred':>10}"
        f"{'runs with a false fail':>24}{'median s':>10}"
    )
    lines += [header, "  " + "-" * (len(header) - 2)]
    for method in methods:
        for load in loads:
            mine = [r for r in runs if r.kind == "honest" and r.method == method and r.load == load]
            if not mine:
                continue
            total: Counter[str] = Counter()
            for counts in counts_by_check(mine).values():
                total.update(counts)
            failed = sum(any(g.false_fail for g in r.graded) for r in mine)
            lines.append(
                f"  {method:<14}{load:<7}{len(mine):>6}{sum(total.values()):>10}{false_fails(total):>13}"
                f"{total['deferred']:>10}{f'{failed}/{len(mine)}':>24}"
                f"{statistics.median(r.seconds for r in mine):>10.0f}"
            )
    return lines


def honest_table(load: str, methods: Sequence[str], runs: Sequence[Run]) -> list[str]:
    """The lines of one load's table: per check and method the counts of each column, false fails, median
    seconds; then the messages of what did not pass."""
    by_method = {m: [r for r in runs if r.method == m] for m in methods}
    by_method = {m: mine for m, mine in by_method.items() if mine}
    tables = {m: counts_by_check(mine) for m, mine in by_method.items()}
    seconds: dict[tuple[str, str], list[float]] = {}
    for run in runs:
        for g in run.graded:
            seconds.setdefault((g.check, run.method), []).append(g.seconds)
    checks = list(dict.fromkeys(c for table in tables.values() for c in table))
    lines = [
        f"honest runs, load {load}: " + "; ".join(f"{m} {len(mine)} runs" for m, mine in by_method.items())
    ]
    header = (
        f"  {'check':<30}{'method':<14}"
        + "".join(f"{c:>9}" for c in COLUMNS)
        + f"{'false fails':>13}{'median s':>10}"
    )
    lines += [header, "  " + "-" * (len(header) - 2)]
    total: Counter[str] = Counter()
    for check in checks:
        for method, table in tables.items():
            if check not in table:
                continue
            counts = table[check]
            total.update(counts)
            lines.append(
                f"  {check:<30}{method:<14}"
                + "".join(f"{counts[c]:>9}" for c in COLUMNS)
                + f"{false_fails(counts):>13}{statistics.median(seconds[check, method]):>10.1f}"
            )
    lines.append(f"  {'all':<44}" + "".join(f"{total[c]:>9}" for c in COLUMNS) + f"{false_fails(total):>13}")
    messages = Counter(
        (g.check, r.method, g.column, one_line(g.message))
        for r in runs
        for g in r.graded
        if g.column != "passed"
    )
    for (check, method, column, message), n in messages.most_common():
        lines.append(f"    {n}x {check} ({method}) {column}: {message}")
    return lines


def variant_rows(variant: Variant, runs: Sequence[Run]) -> dict[str, Any]:
    """Counts and rates of one variant's runs under one load (its targeted check only)."""
    states = Counter(g.column for r in runs for g in r.graded if g.check == variant.target)
    n = sum(states.values())
    caught = states["wrong"] + states["error"]
    return {
        "runs": n,
        "caught": caught,
        "deferred": states["deferred"],
        "passed": states["passed"],
        "other": states["timeout"] + states["other"],
        "catch_rate": caught / n if n else None,
        "deferral_rate": states["deferred"] / n if n else None,
    }


def percent(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.0f}%"


def variant_table(
    title: str,
    load: str,
    variants: Sequence[Variant],
    runs: Sequence[Run],
    factors: Mapping[str, Mapping[str, Any]],
) -> list[str]:
    lines = [f"{title}, load {load}"]
    header = (
        f"  {'variant':<24}{'target':<28}{'expected':>9}{'measured':>10}{'runs':>6}{'caught':>8}"
        f"{'deferred':>10}{'passed':>8}{'other':>7}{'catch':>7}{'defer':>7}"
    )
    lines += [header, "  " + "-" * (len(header) - 2)]
    messages = []
    for v in variants:
        mine = [r for r in runs if r.kind == v.name and r.load == load]
        row = variant_rows(v, mine)
        factor = factors.get(v.name, {}).get("factor")
        measured = f"{factor:.2f}x" if isinstance(factor, float) else "-"
        lines.append(
            f"  {v.name:<24}{v.target:<28}{v.expected:>9}{measured:>10}{row['runs']:>6}{row['caught']:>8}"
            f"{row['deferred']:>10}{row['passed']:>8}{row['other']:>7}{percent(row['catch_rate']):>7}"
            f"{percent(row['deferral_rate']):>7}"
        )
        seen = Counter((g.column, one_line(g.message)) for r in mine for g in r.graded)
        messages += [f"    {n}x {v.name} {col}: {msg}" for (col, msg), n in seen.most_common()]
    return lines + messages


# ---------------------------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    from perfcore.measure.machine import cache_levels, cpu_model

    caches, source = cache_levels()
    try:
        from importlib.metadata import version

        torch_version = version("torch")
    except Exception:  # noqa: BLE001 - no torch: the report says so
        torch_version = "not installed"
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "caches": [asdict(c) for c in caches],
        "cache_source": source,
        "torch": torch_version,
        "python": platform.python_version(),
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def git_state() -> str:
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=False
        ).stdout.strip()

    dirty = git("status", "--porcelain", "--", "grader", "perfcore", "solutions")
    return git("rev-parse", "--short", "HEAD") + (" (grader/perfcore/solutions modified)" if dirty else "")


def names(text: str, known: Sequence[str], what: str, parser: argparse.ArgumentParser) -> list[str]:
    """The comma-separated names of ``text``, each one of ``known`` ("all": every one, "none": none)."""
    if text == "all":
        return list(known)
    if text in ("none", ""):
        return []
    chosen = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in chosen if n not in known]
    if unknown:
        parser.error(f"unknown {what} {', '.join(unknown)}; known: {', '.join(known)}")
    return list(dict.fromkeys(chosen))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--runs", type=int, default=20, help="rounds: runs per load, method and variant (default 20)"
    )
    parser.add_argument(
        "--loads",
        default="idle,busy1,busy2",
        help="loads of the honest runs (idle,busy1,busy2,busy4,stream or none)",
    )
    parser.add_argument(
        "--methods",
        default="all",
        help=f"honest methods graded: all, none, or names of {', '.join(METHODS)}, comma-separated",
    )
    parser.add_argument(
        "--variants",
        default="all",
        help="all, none, mistakes, cheats, or variant names, comma-separated (default all)",
    )
    parser.add_argument("--variant-loads", default="idle", help="loads of the variants' runs (default idle)")
    parser.add_argument("--checks", help="only these checks, e.g. m1::copy_bandwidth,m5::overhead_curve")
    parser.add_argument(
        "--factor-rounds",
        type=int,
        default=3,
        help="rounds of measuring each variant's factor outside the grader (default 3; 0 skips it)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args()
    if args.runs < 1 or args.factor_rounds < 0:
        parser.error("--runs must be at least 1 and --factor-rounds at least 0")

    exercises = load_exercises()
    candidates = {
        f"{e}::{c.id}": (exercises[e], c) for e in EXERCISE_IDS for c in measurement_checks(exercises[e])
    }
    selected = set(names(args.checks or "all", list(candidates), "check", parser))
    loads = names(args.loads, list(LOADS), "load", parser)
    variant_loads = names(args.variant_loads, list(LOADS), "load", parser)
    methods = names(args.methods, list(METHODS), "method", parser)
    groups = {"mistakes": VARIANTS, "cheats": CHEATS}
    chosen = (
        [v.name for v in groups[args.variants]]
        if args.variants in groups
        else names(args.variants, [v.name for v in ALL_VARIANTS], "variant", parser)
    )
    variants = [v for v in ALL_VARIANTS if v.name in chosen]
    notes: list[str] = []
    if args.checks:  # a variant runs only where its target check does
        left_out = [v.name for v in variants if v.target not in selected]
        if left_out and args.variants not in ("all", *groups):
            parser.error(f"the targets of {', '.join(left_out)} are not among --checks")
        variants = [v for v in variants if v.target in selected]
        if left_out:
            notes.append(f"variants left out by --checks: {', '.join(left_out)}")

    # the honest plan: per exercise its selected measurement checks, in the exercise's order
    plan = [
        (exercises[e], [c.id for c in measurement_checks(exercises[e]) if f"{e}::{c.id}" in selected])
        for e in EXERCISE_IDS
    ]
    plan = [(e, ids) for e, ids in plan if ids]
    # each method's files and plan: the exercises it applies to (see benchmarks/honest/README.md)
    honest: dict[str, tuple[dict[str, str], list[tuple[Exercise, list[str]]]]] = {}
    for method in methods:
        files: dict[str, str] = {}
        method_plan = []
        for exercise, ids in plan:
            path = method_file(method, exercise)
            if path is not None:
                files[f"{exercise.module}.py"] = path.read_text(encoding="utf-8")
                method_plan.append((exercise, ids))
        skipped = [e.id for e, _ in plan if e.id not in {x.id for x, _ in method_plan}]
        if skipped:
            notes.append(f"method {method} does not apply to {', '.join(skipped)} (no file for it)")
        if method_plan:
            honest[method] = (files, method_plan)
    for exercise, ids in plan:  # requirements unmet here make a check skipped in every run: say so once
        for p in prepare_exercise(exercise, "en", checks=ids):
            if p.unmet is not None or p.error is not None:
                notes.append(
                    f"{exercise.id}::{p.check.id} cannot run here: {one_line(p.unmet or p.error or '')}"
                )
    try:  # every variant made before anything runs: an edit that no longer applies stops the benchmark
        variant_files = {
            v.name: {f"{exercises[v.exercise].module}.py": variant_source(v, exercises[v.exercise])}
            for v in variants
        }
    except VariantError as exc:
        sys.exit(f"bench_fairness: {exc}")

    info = machine()
    print(
        f"machine: {info['cpu']}, {info['cores']} cores; torch {info['torch']}; {info['date']}; "
        f"load average {info['load_average_at_start']}",
        file=sys.stderr,
    )
    for note in notes:
        print(f"note: {note}", file=sys.stderr)

    # SIGTERM as Ctrl-C is handled: the finally blocks kill the busy processes and the judge's workers
    def terminate(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminate)

    factors: dict[str, dict[str, Any]] = {}
    if args.factor_rounds and variants:
        for v in variants:
            exercise = exercises[v.exercise]
            source = variant_files[v.name][f"{exercise.module}.py"]
            factors[v.name] = variant_factor(v, exercise, source, args.factor_rounds)
            got = factors[v.name]
            shown = f"{got['factor']:.3g}x" if "factor" in got else f"failed: {one_line(got['error'])}"
            print(
                f"factor of {v.name} ({v.target}): expected {v.expected}, measured {shown}", file=sys.stderr
            )

    runs: list[Run] = []
    interrupted = False
    started = time.perf_counter()
    try:
        for r in range(1, args.runs + 1):
            # within a round the loads and variants take turns, so that all see the same drift
            jobs: list[tuple[str, str, str, Mapping[str, str], list[tuple[Exercise, list[str]]]]] = [
                ("honest", method, load, files, method_plan)
                for load in loads
                for method, (files, method_plan) in honest.items()
            ]
            jobs += [
                (v.name, "", load, variant_files[v.name], [(exercises[v.exercise], [v.check])])
                for load in variant_loads
                for v in variants
            ]
            for kind, method, load, files, job_plan in jobs:
                load_average = os.getloadavg()[0]  # before the busy processes add to it
                t0 = time.perf_counter()
                with busy_processes(LOADS[load]):
                    graded = graded_run(files, job_plan)
                run = Run(kind, load, r, time.perf_counter() - t0, graded, round(load_average, 2), method)
                runs.append(run)
                progress(run, args.runs)
    except KeyboardInterrupt:
        interrupted = True
        print("interrupted: the report covers the runs finished so far", file=sys.stderr)
    info["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    info["benchmark_seconds"] = round(time.perf_counter() - started, 1)

    lines = [
        f"machine: {info['cpu']}, {info['cores']} cores; torch {info['torch']}; {info['date']}; "
        f"commit {git_state()}",
        f"load average at start {info['load_average_at_start']}, at end {info['load_average_at_end']}; "
        f"{args.runs} rounds{' (interrupted)' if interrupted else ''}, {info['benchmark_seconds']:.0f} s",
    ]
    lines += [f"note: {n}" for n in notes]
    graded_methods = [m for m in honest if any(r.kind == "honest" and r.method == m for r in runs)]
    if graded_methods:
        lines += ["", *methods_table(loads, graded_methods, runs)]
    for load in loads:
        mine = [r for r in runs if r.kind == "honest" and r.load == load]
        if mine:
            lines += ["", *honest_table(load, graded_methods, mine)]
    for title, group in (("wrong variants", VARIANTS), ("cheats", CHEATS)):
        chosen_group = [v for v in variants if v in group]
        for load in variant_loads:
            if any(r.kind in {v.name for v in chosen_group} and r.load == load for r in runs):
                lines += ["", *variant_table(title, load, chosen_group, runs, factors)]
    print("\n".join(lines))

    if args.json:
        payload = {
            "machine": info,
            "commit": git_state(),
            "runs": args.runs,
            "interrupted": interrupted,
            "loads": loads,
            "methods": list(honest),
            "variant_loads": variant_loads,
            "checks": sorted(selected),
            "notes": notes,
            "honest": {
                method: {
                    load: {
                        "runs": len(mine),
                        "run_seconds": [round(r.seconds, 2) for r in mine],
                        "counts": {c: dict(n) for c, n in counts_by_check(mine).items()},
                        "false_fails": {c: false_fails(n) for c, n in counts_by_check(mine).items()},
                        "deferred": {c: n["deferred"] for c, n in counts_by_check(mine).items()},
                        "runs_with_false_fail": sum(any(g.false_fail for g in r.graded) for r in mine),
                    }
                    for load in loads
                    for mine in [
                        [r for r in runs if r.kind == "honest" and r.method == method and r.load == load]
                    ]
                }
                for method in honest
            },
            "variants": {
                v.name: {
                    "target": v.target,
                    "cheat": v.cheat,
                    "what": v.what,
                    "expected": v.expected,
                    "measured": factors.get(v.name),
                    "by_load": {
                        load: variant_rows(v, [r for r in runs if r.kind == v.name and r.load == load])
                        for load in variant_loads
                    },
                }
                for v in variants
            },
            "outcomes": [
                {"kind": r.kind, "method": r.method, "load": r.load, "round": r.round}
                | {"seconds": round(r.seconds, 2)}
                | {"load_average": r.load_average}
                | {"graded": [asdict(g) | {"seconds": round(g.seconds, 2)} for g in r.graded]}
                for r in runs
            ],
        }
        Path(args.json).write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
