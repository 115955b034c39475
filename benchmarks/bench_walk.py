"""The walk a newcomer takes through the judge: the grader's files one handed measurement enters, the calls
that cross from one file into another, and the pairs of files that call each other (back and forth),
for this tree and an older commit side by side.

    .venv/bin/python benchmarks/bench_walk.py [--old COMMIT] [--exercise m3 --check transpose_time_naive]
        [--json FILE] [--workdir DIR --keep]

Each tree grades its own solution of the check through ``grader.grade`` in a fresh process, the judge's
side traced with ``sys.setprofile`` (and ``threading.setprofile``) from the call to ``grade`` on: the
imports done before it are not part of the walk, a module first imported while grading is. A call's file
is its code object's; its caller is the nearest frame below it in the grader's own files, so a call
through numpy or the standard library back into the grader counts as the grader calling itself. A
generator expression is not a call (it is read where it is written, though it runs where consumed). The
worker runs in its own process and is not traced: the walk is what a reader of the judge follows.

Counts, not times: the edges are a set, so more rounds on a busy machine do not lengthen the walk. The
old tree is a git worktree of ``--old`` under a shim venv, as ``bench_judge.py`` makes it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_judge import ROOT, Tree, check_imports, git, new_tree, old_tree

#: The commit the issue "The house, round four" walked.
OLD_COMMIT = "4577ed0"

#: Run by each tree's interpreter: argv = tree root, exercise, check; prints the walk as JSON.
WALK = r"""
import json, os, sys, threading
root = os.path.realpath(sys.argv[1])
own = os.path.join(root, "grader") + os.sep
import grader, grader.api, grader.registry
files, edges = set(), set()

def rel(path):
    return os.path.relpath(os.path.realpath(path), root)

def profile(frame, event, arg):
    if event != "call":
        return
    name = frame.f_code.co_filename
    if frame.f_code.co_name == "<genexpr>" or not os.path.realpath(name).startswith(own):
        return  # a generator expression is read where it is written, wherever it is consumed
    here = rel(name)
    files.add(here)
    back = frame.f_back
    while back is not None and not os.path.realpath(back.f_code.co_filename).startswith(own):
        back = back.f_back
    if back is not None and rel(back.f_code.co_filename) != here:
        edges.add((rel(back.f_code.co_filename), here))

solution = os.path.join(root, "solutions", grader.registry.find_exercise(sys.argv[2]).module + ".py")
threading.setprofile(profile)
sys.setprofile(profile)
result = grader.grade(solution, sys.argv[2], checks=[sys.argv[3]], lang="en")
sys.setprofile(None)
threading.setprofile(None)
mutual = sorted({tuple(sorted(e)) for e in edges if (e[1], e[0]) in edges})
print(json.dumps({
    "files": sorted(files), "edges": sorted(edges), "mutual": mutual,
    "states": [o.state for o in result.outcomes],
}))
"""


def walk(tree: Tree, exercise: str, check: str) -> dict:
    """The walk of ``tree`` grading its solution of ``exercise``'s ``check``."""
    proc = subprocess.run(
        [tree.python, "-c", WALK, str(tree.root), exercise, check],
        cwd=tree.root,
        env=tree.env,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    if proc.returncode != 0:
        sys.exit(f"bench_walk: the {tree.name} tree's walk failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--old", default=OLD_COMMIT, help=f"the commit to compare with (default {OLD_COMMIT})"
    )
    parser.add_argument("--exercise", default="m3", help="the exercise of the check (default m3)")
    parser.add_argument(
        "--check",
        default="transpose_time_naive",
        help="a handed measurement check (default transpose_time_naive)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write both walks as JSON")
    parser.add_argument("--workdir", help="folder for the worktree (default: a temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the worktree")
    args = parser.parse_args()
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="bench-walk-"))
    trees = [old_tree(workdir, args.old), new_tree(workdir)]
    try:
        walks = {}
        for tree in trees:
            check_imports(tree)
            walks[tree.name] = walk(tree, args.exercise, args.check)
    finally:
        if not args.keep:
            git("worktree", "remove", "--force", str(workdir / "old"))
    print(f"\n{args.exercise} {args.check}, old = {args.old}, new = {git('rev-parse', '--short', 'HEAD')}")
    print(f"{'tree':<5} {'files':>6} {'calls across':>13} {'back and forth':>15}  states")
    for name, one in walks.items():
        row = f"{name:<5} {len(one['files']):>6} {len(one['edges']):>13} {len(one['mutual']):>15}"
        print(f"{row}  {', '.join(one['states'])}")
    for name, one in walks.items():
        print(f"\n{name}: back and forth")
        for a, b in one["mutual"]:
            print(f"  {a} <-> {b}")
    if args.json:
        Path(args.json).write_text(json.dumps(walks, indent=1), encoding="utf-8")
        print(f"\nwrote {args.json}")
    if ROOT.resolve() != trees[1].root.resolve():
        print("note: the new tree ran under a shim venv")


if __name__ == "__main__":
    main()
