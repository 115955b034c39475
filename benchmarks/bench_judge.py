"""The separate-worker grader against the in-process one it replaced: the formula part of `pytest solutions/`
and batch grading of formula submissions, both trees side by side in one run.

    .venv/bin/python benchmarks/bench_judge.py [--rounds 3] [--students 100] [--json FILE]

The old tree is a git worktree of ``--old COMMIT`` (default ``OLD_COMMIT``, the commit before the worker
redesign; the grader's restructure into rooms was measured with ``--old 81a31d7 --target 1.1``), made in a temporary
folder and removed at the end (``--workdir DIR --keep`` makes and keeps it there, and a later run with the
same ``--workdir`` reuses it). Each measurement is the wall-clock time of a fresh process, as a student or a
course runs it, interleaved old, new, old, new over ``--rounds`` rounds so that both see the same drift of
the machine:

- ``python -m pytest solutions/ex01..ex09 -q -p no:cacheprovider`` (the formula part), cwd the tree;
- ``python -m grader grade SUBMISSIONS --exercises ex01,...,ex09 --quiet`` over ``--students`` student
  folders (a third the solutions, a third the stubs of ``exercises/``, a third the solutions with one
  function per file returning a wrong value), sandboxed (bubblewrap, both trees' default). Both trees
  grade byte-identical copies of one generated folder, and their ``grades.csv`` scores are compared.

Which ``grader`` each tree runs: the venv holds an editable install of this (the new) tree. The old tree's
commands run with ``PYTHONPATH=<worktree>`` and cwd the worktree, which is enough for its own process and
for pytest (the ``perfkit_grader`` entry point imports whichever ``grader`` comes first). But the old batch
grader starts its workers as ``python -I -m grader.sandbox.worker``, and ``-I`` drops ``PYTHONPATH``: with the venv's
interpreter those workers would import the *new* tree's worker. So the old tree runs under a shim venv made
next to the worktree: the same interpreter binary, the same site-packages (``.pth`` lines: the worktree first,
then this venv's site-packages, whose editable-install hook is then not run). Before measuring, the script
checks, with and without ``-I``, that each tree's interpreter imports ``grader`` and ``perfcore`` from that
tree, and stops with a message if not.

Targets (the issue of the redesign): the formula pytest run no slower than 1.3x the old one (2.0 s then on
the project's 2-core machine), the batch of 100 formula submissions no slower than the old one (57 s then).
"""

from __future__ import annotations

import argparse
import ast
import csv
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OLD_COMMIT = "270d159"
FORMULA_IDS = tuple(f"ex0{i}" for i in range(1, 10))
FORMULA_FILES = sorted(p.name for p in (ROOT / "solutions").glob("ex0*.py"))
TARGET_PYTEST = 1.3  # new / old, at most
TARGET_BATCH = 1.0
PYTEST_NAME = "pytest solutions/ex01..ex09 (formula part)"


@dataclass
class Tree:
    """One grader to measure: its checkout, the interpreter to run it with and the environment."""

    name: str
    root: Path
    python: str
    env: dict[str, str]
    times: dict[str, list[float]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def machine() -> dict[str, object]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "bwrap": shutil.which("bwrap"),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


# ---------------------------------------------------------------------------------------------------
# the two trees


def old_tree(workdir: Path, commit: str = OLD_COMMIT) -> Tree:
    """The worktree of ``commit`` under ``workdir`` (made, or reused) and its shim venv."""
    wt = workdir / "old"
    want = git("rev-parse", f"{commit}^{{commit}}")
    if wt.exists():
        head = subprocess.run(
            ["git", "-C", str(wt), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
        if head != want:
            sys.exit(
                f"bench_judge: {wt} exists but is not a worktree of {commit}; remove it or use another --workdir"
            )
        print(f"reusing the worktree {wt} ({commit})")
    else:
        git("worktree", "prune")
        git("worktree", "add", "--detach", str(wt), commit)
        print(f"made the worktree {wt} ({commit})")
    return shim_tree("old", wt, workdir / "old-venv")


def shim_tree(name: str, root: Path, venv: Path) -> Tree:
    """``root`` run under a shim venv at ``venv`` whose site-packages puts ``root`` first (module docstring)."""
    wt = root
    purelib = sysconfig.get_paths()["purelib"]  # this venv's site-packages (torch, numpy, pytest, ...)
    if not (venv / "bin" / "python").exists():
        base = getattr(sys, "_base_executable", None) or sys.executable
        subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True)
    shim_python = str(venv / "bin" / "python")
    shim_purelib = subprocess.run(
        [shim_python, "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(shim_purelib, "perfkit_old_tree.pth").write_text(f"{wt}\n{purelib}\n")
    env = {**os.environ, "PYTHONPATH": str(wt)}
    env.pop("PYTHONHOME", None)
    return Tree(name, wt, shim_python, env)


def new_tree(workdir: Path) -> Tree:
    """This tree, with this interpreter where its editable install is this tree; else (a second checkout
    of the project, a git worktree, beside the one the venv installs) under a shim venv like the old one's."""
    env = {**os.environ}
    env.pop("PYTHONPATH", None)
    found = subprocess.run(
        [sys.executable, "-I", "-c", "import grader; print(grader.__file__)"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    if found and Path(found).resolve().is_relative_to(ROOT.resolve()):
        return Tree("new", ROOT, sys.executable, env)
    return shim_tree("new", ROOT, workdir / "new-venv")


def check_imports(tree: Tree) -> None:
    """Stop unless ``tree.python`` imports grader and perfcore from ``tree.root``, with and without -I
    (the batch workers of the old tree run under -I), and pytest loads the plugin from there."""
    code = "import grader, perfcore; print(grader.__file__); print(perfcore.__file__)"
    for flags in ([], ["-I"]):
        out = subprocess.run(
            [tree.python, *flags, "-c", code],
            cwd=tree.root,
            env=tree.env,
            capture_output=True,
            text=True,
            check=False,
        )
        files = out.stdout.split()
        root = str(tree.root.resolve())
        if (
            out.returncode != 0
            or len(files) != 2
            or not all(str(Path(f).resolve()).startswith(root + os.sep) for f in files)
        ):
            sys.exit(
                f"bench_judge: the {tree.name} tree's interpreter {tree.python} {' '.join(flags)} does not import "
                f"grader and perfcore from {root}: got {files or out.stderr.strip()[-500:]}. "
                "Its measurements would be of the wrong code; stopping."
            )
        print(f"{tree.name}: python {' '.join(flags) or '(plain)':<8} grader from {files[0]}")
    plugin = subprocess.run(
        [
            tree.python,
            "-c",
            "import importlib.metadata as m; "
            "ep = [e for e in m.entry_points(group='pytest11') if e.name == 'perfkit_grader'][0]; "
            "print(ep.load().__file__)",
        ],
        cwd=tree.root,
        env=tree.env,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    if not plugin.startswith(str(tree.root.resolve()) + os.sep):
        sys.exit(
            f"bench_judge: pytest's perfkit_grader plugin of the {tree.name} tree loads from {plugin!r}; stopping."
        )


# ---------------------------------------------------------------------------------------------------
# the submissions

WRONG_HELPER = """

def _bench_wrong(x):  # added by benchmarks/bench_judge.py: a wrong answer of the same type
    if isinstance(x, bool):
        return not x
    if isinstance(x, (int, float)):
        return x * 1.37 + 1
    if isinstance(x, str):
        return x + "?"
    if isinstance(x, (tuple, list)):
        return type(x)(_bench_wrong(v) for v in x)
    if isinstance(x, dict):
        return {k: _bench_wrong(v) for k, v in x.items()}
    if hasattr(x, "dtype"):
        return x * 1.37 + 1
    return x
"""


def wrong_version(source: str, pick: int) -> str:
    """``source`` with the returned values of one top-level function (the ``pick``-th, cyclically, of
    those that return a value) passed through ``_bench_wrong``."""
    funcs: list[list[ast.expr]] = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            values = [r.value for r in ast.walk(node) if isinstance(r, ast.Return) and r.value is not None]
            if values:
                funcs.append(values)
    if not funcs:
        return source
    data = source.encode("utf-8")  # ast's column offsets count UTF-8 bytes
    starts = [0]
    for line in data.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    spans = sorted(
        (
            starts[v.lineno - 1] + v.col_offset,
            starts[(v.end_lineno or v.lineno) - 1] + (v.end_col_offset or 0),
        )
        for v in funcs[pick % len(funcs)]
    )
    for start, end in reversed(spans):  # from the end, so the earlier offsets stay valid
        data = data[:start] + b"_bench_wrong((" + data[start:end] + b"))" + data[end:]  # (( )): a bare tuple
    return data.decode("utf-8") + WRONG_HELPER


def make_submissions(folder: Path, students: int) -> dict[str, str]:
    """``students`` folders under ``folder`` from this tree's solutions and stubs; {student: kind}."""
    kinds = {}
    for i in range(students):
        name = f"student{i:03d}"
        kind = ("correct", "stubs", "one-wrong")[i % 3]
        kinds[name] = kind
        sub = folder / name
        sub.mkdir(parents=True)
        for n, fname in enumerate(FORMULA_FILES):
            src = ROOT / ("exercises" if kind == "stubs" else "solutions") / fname
            text = src.read_text(encoding="utf-8")
            if kind == "one-wrong":
                text = wrong_version(text, i // 3 + n)
            (sub / fname).write_text(text, encoding="utf-8")
    return kinds


# ---------------------------------------------------------------------------------------------------
# the runs


def timed(tree: Tree, cmd: list[str], log: Path) -> tuple[float, int, str]:
    with open(log, "wb") as fh:
        started = time.perf_counter()
        rc = subprocess.run(
            cmd, cwd=tree.root, env=tree.env, stdout=fh, stderr=subprocess.STDOUT, check=False
        ).returncode
        elapsed = time.perf_counter() - started
    tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    return elapsed, rc, (tail[-1] if tail else "")


def run_pytest(tree: Tree, work: Path, tag: str) -> float:
    files = [f"solutions/{f}" for f in FORMULA_FILES]
    cmd = [tree.python, "-m", "pytest", *files, "-q", "-p", "no:cacheprovider"]
    elapsed, rc, last = timed(tree, cmd, work / f"pytest-{tree.name}-{tag}.log")
    if rc != 0:
        tree.notes.append(f"pytest exit status {rc} ({tag}): {last}")
    return elapsed


def run_batch(tree: Tree, master: Path, work: Path, tag: str) -> tuple[float, Grades]:
    """Grade a fresh copy of ``master``; the time and the grades."""
    subs = work / f"subs-{tree.name}-{tag}"
    out = work / f"grades-{tree.name}-{tag}"
    shutil.rmtree(subs, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(master, subs)
    cmd = [tree.python, "-m", "grader", "grade", str(subs), "--out", str(out)]
    cmd += ["--exercises", ",".join(FORMULA_IDS), "--quiet"]
    log = work / f"batch-{tree.name}-{tag}.log"
    elapsed, rc, _ = timed(tree, cmd, log)
    text = log.read_text(encoding="utf-8", errors="replace")
    if rc != 0:
        tree.notes.append(f"batch exit status {rc} ({tag}): {text.strip()[-300:]}")
    if "(bwrap)" not in text:
        tree.notes.append(f"batch ({tag}) not sandboxed with bwrap: {text.strip()[-300:]}")
    rows: dict[str, list[str]] = {}
    try:
        with open(out / "grades.csv", encoding="utf-8", newline="") as fh:
            table = list(csv.reader(fh))
        rows[""] = table[0]
        rows.update({r[0]: r[1:] for r in table[1:]})
    except (OSError, IndexError) as exc:
        tree.notes.append(f"batch ({tag}): no grades.csv ({exc})")
    outcomes: dict[str, dict[str, str]] = {}
    try:
        students = json.loads((out / "grades.json").read_text(encoding="utf-8"))["students"]
        for student, entry in students.items():
            outcomes[student] = {
                f"{o['exercise']}::{o['check_id']}": f"{o['state']}: {' '.join(str(o['message']).split())[:160]}"
                for o in entry["outcomes"]
            }
    except (OSError, KeyError, TypeError, ValueError) as exc:
        tree.notes.append(f"batch ({tag}): grades.json unreadable ({exc})")
    shutil.rmtree(subs, ignore_errors=True)
    return elapsed, Grades(tree.name, tag, rows, outcomes)


@dataclass
class Grades:
    """One batch run's grades: the rows of grades.csv by student (the header under "") and, by student and
    ``exercise::check``, the state and message of grades.json."""

    tree: str
    tag: str
    rows: dict[str, list[str]]
    outcomes: dict[str, dict[str, str]]


def compare_scores(x: Grades, y: Grades, kinds: dict[str, str], details: bool = True) -> list[str]:
    """Lines describing every student whose score (or maximum) differs between two runs: the points of
    each differing check and, with ``details``, both runs' state and message for it."""
    lines = []
    hx, hy = x.rows.get("", []), y.rows.get("", [])
    lx, ly = f"{x.tree} {x.tag}", f"{y.tree} {y.tag}"
    for student in sorted((set(x.rows) | set(y.rows)) - {""}):
        a, b = x.rows.get(student), y.rows.get(student)
        if a is None or b is None:
            lines.append(f"{student} ({kinds.get(student)}): only in {lx if b is None else ly}")
            continue
        if a[:2] == b[:2]:
            continue
        pa = dict(zip(hx[1:], a, strict=True))
        pb = dict(zip(hy[1:], b, strict=True))
        checks = [c for c in hx[4:] + [c for c in hy[4:] if c not in hx] if pa.get(c) != pb.get(c)]
        lines.append(
            f"{student} ({kinds.get(student)}): {lx} {a[0]}/{a[1]}, {ly} {b[0]}/{b[1]}; "
            + ", ".join(f"{c} {pa.get(c, '-')}->{pb.get(c, '-')}" for c in checks)
        )
        if details:
            for c in checks:
                lines.append(f"    {c} {lx}: {x.outcomes.get(student, {}).get(c, '?')}")
                lines.append(f"    {c} {ly}: {y.outcomes.get(student, {}).get(c, '?')}")
    return lines


# ---------------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="interleaved old/new rounds (default 3)")
    parser.add_argument("--students", type=int, default=100, help="students in the batch (default 100)")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument(
        "--workdir", help="folder for the worktree and scratch files (default: a temporary one)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the worktree and scratch files")
    parser.add_argument(
        "--old", default=OLD_COMMIT, help=f"the commit to compare with (default {OLD_COMMIT})"
    )
    parser.add_argument(
        "--target", type=float, help="the largest new/old ratio allowed for both (default: 1.3 and 1.0)"
    )
    args = parser.parse_args()
    if args.rounds < 1 or args.students < 1:
        parser.error("--rounds and --students must be at least 1")

    info = machine()
    print(f"machine: {info['cpu']}, {info['cores']} cores; python {info['python']}; {info['date']}")
    if not info["bwrap"]:
        print("note: bubblewrap (bwrap) is not installed: both batch runs are confined by limits alone")
    workdir = Path(args.workdir).resolve() if args.workdir else Path(tempfile.mkdtemp(prefix="bench-judge-"))
    workdir.mkdir(parents=True, exist_ok=True)
    old = old_tree(workdir, args.old)
    new = new_tree(workdir)
    try:
        return measure(args, info, workdir, old, new)
    finally:
        if not args.keep:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old.root)], check=False
            )
            shutil.rmtree(workdir, ignore_errors=True)
            print(f"removed the worktree and {workdir}")
        else:
            print(f"kept {workdir}")


def measure(args: argparse.Namespace, info: dict[str, object], workdir: Path, old: Tree, new: Tree) -> int:
    trees = (old, new)
    for tree in trees:
        check_imports(tree)
    for fname in FORMULA_FILES:  # the inputs are generated from this tree; the old one should match
        for kind in ("solutions", "exercises"):
            if (old.root / kind / fname).read_bytes() != (ROOT / kind / fname).read_bytes():
                print(f"note: {kind}/{fname} differs between the trees (the submissions are this tree's)")
    work = workdir / "scratch"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    master = work / "submissions"
    kinds = make_submissions(master, args.students)
    batch_name = f"grade {args.students} formula submissions (bwrap)"

    for tree in trees:  # untimed: compile the bytecode of a fresh worktree, warm the file cache
        run_pytest(tree, work, "warmup")
        tree.notes.clear()
        tree.times = {PYTEST_NAME: [], batch_name: []}
    scores: dict[str, list[Grades]] = {"old": [], "new": []}
    for r in range(args.rounds):
        for tree in trees:
            tree.times[PYTEST_NAME].append(run_pytest(tree, work, f"r{r + 1}"))
        for tree in trees:
            elapsed, grades = run_batch(tree, master, work, f"r{r + 1}")
            tree.times[batch_name].append(elapsed)
            scores[tree.name].append(grades)
        print(
            f"round {r + 1}/{args.rounds}: pytest old {old.times[PYTEST_NAME][-1]:.1f} s new "
            f"{new.times[PYTEST_NAME][-1]:.1f} s; batch old {old.times[batch_name][-1]:.1f} s new "
            f"{new.times[batch_name][-1]:.1f} s",
            flush=True,
        )

    # scores: old against new (first round), and each tree against itself over the rounds
    disagreements = compare_scores(scores["old"][0], scores["new"][0], kinds)
    unstable = [
        line
        for runs in scores.values()
        for later in runs[1:]
        for line in compare_scores(runs[0], later, kinds)
    ]
    by_kind: dict[str, dict[str, list[float]]] = {}
    for name, runs in scores.items():
        for student, row in runs[0].rows.items():
            if student and row:
                by_kind.setdefault(kinds.get(student, "?"), {}).setdefault(name, []).append(float(row[0]))

    info["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    print()
    print(
        f"machine: {info['cpu']}, {info['cores']} cores; {info['date']}; {args.rounds} rounds, old = {args.old}"
    )
    print(
        f"load average (1, 5, 15 min) at start {info['load_average_at_start']}, at end {info['load_average_at_end']}"
        " (other work on the machine slows both trees alike only on average)"
    )
    header = (
        f"{'run':<46} {'tree':<4} {'median s':>9} {'min s':>7} {'max s':>7} {'new/old':>8} {'target':>7}  ok"
    )
    print(header)
    print("-" * len(header))
    results: dict[str, object] = {}
    verdicts = []
    for name, target in (
        (PYTEST_NAME, args.target or TARGET_PYTEST),
        (batch_name, args.target or TARGET_BATCH),
    ):
        med = {t.name: statistics.median(t.times[name]) for t in trees}
        ratio = med["new"] / med["old"]
        ok = ratio <= target
        verdicts.append(ok)
        for t in trees:
            v = t.times[name]
            tail = (
                f" {ratio:>8.2f} {'<=' + format(target, 'g'):>7}  {'yes' if ok else 'NO'}" if t is new else ""
            )
            print(
                f"{name if t is old else '':<46} {t.name:<4} {med[t.name]:>9.2f} {min(v):>7.2f} {max(v):>7.2f}{tail}"
            )
        results[name] = {
            "old_s": old.times[name],
            "new_s": new.times[name],
            "old_median_s": med["old"],
            "new_median_s": med["new"],
            "ratio": ratio,
            "target": target,
            "ok": ok,
        }
    print()
    for kind, per_tree in sorted(by_kind.items()):
        print(
            f"scores, {kind:<9}: "
            + "; ".join(f"{n} mean {statistics.mean(v):.2f} of {len(v)}" for n, v in sorted(per_tree.items()))
        )
    differing = sum(not line.startswith(" ") for line in disagreements)
    if disagreements:
        print(f"scores DIFFER between old and new (round 1) for {differing} of {args.students} students:")
        for line in disagreements:
            print("  " + line)
    else:
        print(f"scores: old and new agree for all {args.students} students (round 1)")
    if unstable:
        print("scores that changed between rounds of the same tree (round 1 -> round N):")
        for line in unstable:
            print("  " + line)
    for t in trees:
        for line in t.notes:
            print(f"note ({t.name}): {line}")
    print("targets: " + ("all hold" if all(verdicts) else "NOT all hold"))

    if args.json:
        payload = {
            "machine": info,
            "old_commit": args.old,
            "new_commit": git("rev-parse", "--short", "HEAD")
            + (" (dirty)" if git("status", "--porcelain") else ""),
            "rounds": args.rounds,
            "students": args.students,
            "runs": results,
            "score_disagreements": disagreements,
            "score_instability": unstable,
            "notes": {t.name: t.notes for t in trees},
        }
        Path(args.json).write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
