"""``python -m perfcore measure``: run the lecture's experiments on this machine, print the tables, write JSON.

Exit status: 0 when every experiment gave its figures (or torch is missing and the run is skipped, as the
message says), 1 when a measurement came out above the machine's physical bound (reported as an error,
never as a figure) or an experiment failed (a GPU out of memory, a cuBLAS error: reported with its reason,
the other experiments' figures kept), 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PROG = "python -m perfcore measure"


def build_parser() -> argparse.ArgumentParser:
    from .suite import EXPERIMENTS

    parser = argparse.ArgumentParser(
        prog=PROG,
        description=(
            "Measure the lecture's CPU experiments on one core of this machine (and the GPU ones where CUDA "
            "or MPS is available): bandwidth, matmul vs the roofline, the empirical roofline, exercise 10, "
            "tiling numerics, transpose, fusion, GELU, overhead. The machine's ceilings are measured once "
            "and cached (see --refresh)."
        ),
    )
    parser.add_argument(
        "--quick", action="store_true", help="fewer sizes and rounds (about 10 s instead of 30 s)"
    )
    parser.add_argument("--json", metavar="FILE", help="write the report as JSON to FILE ('-' for stdout)")
    parser.add_argument(
        "--refresh",
        action="store_true",
        help="measure the machine profile again instead of reading the cached one "
        "(also: PERFKIT_REFRESH_PROFILE=1; the cache is in $PERFKIT_CACHE_DIR, else $XDG_CACHE_HOME/perfkit, "
        "else ~/.cache/perfkit)",
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=list(EXPERIMENTS),
        metavar="NAME",
        help=f"run only this experiment (repeatable): {', '.join(EXPERIMENTS)}",
    )
    parser.add_argument(
        "--no-gpu", action="store_true", help="skip the GPU experiments even where a GPU is present"
    )
    parser.add_argument(
        "--profile", action="store_true", help="print the machine profile (ceilings) as JSON and stop"
    )
    parser.add_argument(
        "--tiny", action="store_true", help=argparse.SUPPRESS
    )  # the tests' plan: seconds, not DRAM
    return parser


def write_json(report: Any, target: str) -> None:
    """Write ``report`` to ``target`` (atomically: a temporary file, then os.replace), or stdout for '-'."""
    text = json.dumps(report, indent=2, ensure_ascii=False, sort_keys=False)
    if target == "-":
        print(text)
        return
    path = Path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        from .timing import require_torch

        require_torch()
    except ImportError as exc:
        print(f"{PROG}: skipped, nothing measured: {exc}", file=sys.stderr)
        return 0
    from .suite import Plan, format_report, run_all, stderr_progress

    if args.profile:
        from .profile import machine_profile

        profile = machine_profile(refresh=args.refresh, progress=stderr_progress)
        write_json({**profile.to_dict(), "ceilings": profile.ceilings()}, args.json or "-")
        return 0
    plan = Plan.tiny() if args.tiny else Plan.quick() if args.quick else Plan.full()
    if args.no_gpu:
        plan = dataclasses.replace(plan, gpu=False)
    started = time.perf_counter()
    report = run_all(plan, refresh=args.refresh, progress=stderr_progress, only=tuple(args.only or ()))
    text = format_report(report)
    if args.json == "-":
        print(text, file=sys.stderr)
        write_json(report, "-")
    else:
        print(text)
        if args.json:
            write_json(report, args.json)
            print(f"\nJSON written to {args.json}")
    print(f"({time.perf_counter() - started:.1f} s in all)", file=sys.stderr)
    return 1 if report["errors"] else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
