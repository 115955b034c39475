"""``python -m grader grade SUBMISSIONS_DIR [--shard K/N]`` and ``python -m grader merge OUT...``: the command
lines of batch grading (see ``grader.batch.engine``) and of merging the shards it graded (``grader.batch.merging``).

A grade run ended by SIGTERM or SIGHUP (a scheduler's stop, a closed terminal) ends as Ctrl-C does: the
signal becomes an exception in the main thread, so every worker is stopped and the private copies of the
students' code are removed before the command exits (with 128 + the signal's number); killed outright
(SIGKILL, the OOM killer), the run leaves them, and the next run removes them (``grader.sandbox.scratch``)
and resumes from the journal what was graded (``grader.batch.journal``).
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Collection, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

from ..judge import DEFAULT_MAX_NOISE
from ..reports.html import HtmlPathError, check_folder
from ..results.outcome import DEFERRED_POLICIES
from ..sandbox.confinement import GiB, Limits
from ..text.catalogue import LANGS
from ..text.lang import Chosen, choose_lang, switch_line
from .allotment import allotment, child_memory_bytes, usable_cores
from .console import graded_line, notebook_lines
from .engine import BatchConfig, BatchResult, check_ids, grade_batch, selected_exercises
from .errors import BatchError
from .journal import JOURNAL
from .merging import merge_notes, merged_grades, output_files, read_shard_output, write_merged
from .output import grades_json, grades_table, write_outputs, write_pages
from .regrade import check_alike, existing_output, recorded_shard, regraded_into
from .remaining import deferred_lines, deferred_of
from .shard import SHARD_USAGE, Shard, parse_shard, shard_record
from .stale import earlier_pages, tidy_run


def _split(values: list[str]) -> tuple[str, ...]:
    return tuple(v.strip() for item in values for v in item.split(",") if v.strip())


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m grader grade",
        description="Grade a folder of submissions (one sub-folder per student, each a copy of exercises/), "
        "each student's code in its own confined worker process; write grades.csv and grades.json.",
    )
    p.add_argument("submissions", help="folder with one sub-folder per student")
    p.add_argument("--out", default="grades", help="output folder (default: ./grades)")
    p.add_argument("--exercises", action="append", default=[], help="ids or stems to grade, comma-separated")
    p.add_argument(
        "--lang",
        choices=LANGS,
        default=None,
        help="language of the feedback, the progress and the pages (default: when regrading into --out, its "
        "earlier run's; else [tool.perfkit] lang of the pyproject.toml from the current folder up; else the "
        "locale: zh* Chinese, otherwise English)",
    )
    p.add_argument("--deferred", choices=DEFERRED_POLICIES, default="defer", help="deferred checks' points")
    p.add_argument("--max-noise", type=float, default=DEFAULT_MAX_NOISE, help="measurement noise limit")
    p.add_argument("--jobs", type=int, default=0, help="parallel children for formula exercises (0: cores)")
    p.add_argument(
        "--measure-jobs",
        type=int,
        default=1,
        help="students whose measurement exercises are graded at a time, each lane on cores of its own (default 1)",
    )
    p.add_argument(
        "--memory-gib",
        type=float,
        default=0,
        help="memory limit per child (default: what Slurm or the cgroup allotted, else the machine's memory, divided by the jobs; at most 8 GiB)",
    )
    p.add_argument(
        "--grace",
        type=float,
        default=15.0,
        help="seconds beyond a check's own limit before the process is killed",
    )
    p.add_argument("--no-sandbox", action="store_true", help="do not use bubblewrap even where it works")
    p.add_argument("--grader-checks", action="append", default=[], help="extra checks modules (installed)")
    p.add_argument(
        "--allow",
        action="append",
        default=[],
        choices=("perfcore", "grader"),
        help="a kit package graded code may import (a course's choice; none by default)",
    )
    p.add_argument("--gradescope", action="store_true", help="also write gradescope/<student>/results.json")
    p.add_argument(
        "--html",
        metavar="DIR",
        help="also write HTML reports: DIR/index.html (the class, each check's distribution) and "
        "DIR/students/<student>.html; with --student, every student of --out's grades, the regraded ones anew",
    )
    p.add_argument(
        "--student",
        action="append",
        default=[],
        metavar="NAME",
        help="grade only this student (a folder's name; repeatable); where --out holds an earlier run's "
        "grades, their grades there are replaced (but a check now deferred keeps its decided grade of the same "
        "file) and every other student's kept",
    )
    p.add_argument(
        "--retry-deferred",
        action="store_true",
        help="grade again only the checks deferred in --out's earlier run (its journal.jsonl), for every "
        "student or those --student names, and write --out's files anew; a decided grade is never replaced",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--shard",
        metavar="K/N",
        help=f"grade only shard K of N: {SHARD_USAGE}; a student's shard is a hash of the folder name; "
        "join the shards' outputs with python -m grader merge",
    )
    return p


class Stopped(BaseException):
    """Raised in the main thread by SIGTERM or SIGHUP. Not an Exception: the grading's own ``except
    Exception`` (a grader bug costs one check, not the batch) must not take it for one."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


#: The signals that end a run with its cleanup, where the platform has them (Windows has no SIGHUP).
STOPPING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def stopped_cleanly() -> Iterator[None]:
    """While inside, SIGTERM and SIGHUP raise :class:`Stopped`, once: a second one while the first is being
    cleaned up is ignored, so that the cleanup ends. The former handlers come back after. Only the main
    thread can set handlers; elsewhere (a test calling :func:`main` in a thread) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        for other in STOPPING:
            signal.signal(other, signal.SIG_IGN)
        raise Stopped(signum)

    former = {signum: signal.signal(signum, stop) for signum in STOPPING}
    try:
        yield
    finally:
        for signum, handler in former.items():
            signal.signal(signum, handler)


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    with stopped_cleanly():
        try:
            return _grade(args)
        except Stopped as stop:
            print(
                f"python -m grader grade: stopped by {stop}; every child process was stopped and the copies "
                "of the submissions removed",
                file=sys.stderr,
            )
            return 128 + stop.signum


#: A run's grades.csv rows (header first) and grades.json data.
Grades = tuple[list[list[str]], dict[str, Any]]


def _child_limits(args: argparse.Namespace) -> Limits:
    """Each child's limits: ``--memory-gib``, else the memory Slurm, the cgroup or the machine allotted,
    shared by the jobs (said on stderr where it was allotted); ``--grace`` beyond a check's own limit."""
    jobs = args.jobs
    if args.memory_gib < 0:
        raise BatchError(f"--memory-gib must be positive, got {args.memory_gib}")
    if args.memory_gib:
        memory = int(args.memory_gib * GiB)
    else:
        given = allotment()
        memory = child_memory_bytes(jobs or usable_cores(), given)
        if given is not None and given.allotted:
            print(
                f"grader: {memory / GiB:.2f} GiB a child: {given.total / GiB:.2f} GiB from {given.source}, "
                f"shared by {jobs or usable_cores()} jobs (--memory-gib sets it)",
                file=sys.stderr,
            )
    return Limits(memory_bytes=memory, grace_s=args.grace)


def _regraded_output(args: argparse.Namespace, shard: Shard | None) -> tuple[Grades | None, Shard | None]:
    """With ``--student``: the run already in ``--out`` that the named students are regraded into (None
    where it holds none), and the shard to grade, the one it was graded as; a BatchError where ``--shard``
    names another. Without: None and ``shard``."""
    if not args.student:
        return None, shard
    earlier = existing_output(args.out)
    recorded = recorded_shard(earlier[1]) if earlier is not None else None
    if earlier is not None and shard != recorded and (shard is not None or recorded is None):
        raise BatchError(
            f"--shard {shard}: --out {args.out!r} holds the grades of "
            f"{f'shard {recorded}' if recorded else 'a run without --shard'}; regrade into it as it was graded"
        )
    return earlier, shard or recorded


def _batch_config(args: argparse.Namespace, limits: Limits, shard: Shard | None) -> BatchConfig:
    """The run's settings, from its arguments."""
    return BatchConfig(
        exercises=_split(args.exercises),
        lang=args.lang,
        deferred=args.deferred,
        max_noise=args.max_noise,
        jobs=args.jobs,
        measure_jobs=args.measure_jobs,
        limits=limits,
        sandbox=not args.no_sandbox,
        grader_checks=_split(args.grader_checks),
        allow=tuple(args.allow),
        progress=not args.quiet,
        shard=shard,
        students=tuple(args.student),
        retry_deferred=args.retry_deferred,
    )


def run_lang(args: argparse.Namespace) -> Chosen:
    """The run's language, by the rule of every front end (:func:`grader.text.lang.choose_lang`): ``--lang``;
    else, regrading into ``--out``'s earlier run (``--student``, ``--retry-deferred``), that run's, which a
    regrade must keep; else the course's setting from the current folder up; else the locale."""
    if args.lang is None and (args.student or args.retry_deferred):
        try:
            earlier = existing_output(args.out)
        except BatchError:  # said where the regrade reads it
            earlier = None
        lang = earlier[1].get("lang") if earlier is not None else None
        if lang in LANGS:
            return Chosen(str(lang), "earlier", str(args.out))
    return choose_lang(args.lang, Path.cwd())


def _graded(
    args: argparse.Namespace,
) -> tuple[BatchResult, Grades | None, Shard | None, frozenset[str]]:
    """Grade the run: its result, the whole output's grades after a regrade into an earlier run (None
    otherwise), its shard, and the students that earlier run held (none without one). Every argument is checked before grading; a BatchError says what is wrong."""
    args.chosen = run_lang(args)
    args.lang = args.chosen.lang
    limits = _child_limits(args)
    shard = parse_shard(args.shard) if args.shard is not None else None
    if args.retry_deferred and not (Path(args.out) / JOURNAL).is_file():
        raise BatchError(
            f"--retry-deferred: --out {args.out!r} holds no journal of an earlier run ({JOURNAL}); "
            "grade into it first, then retry its deferred checks"
        )
    earlier, shard = _regraded_output(args, shard)
    if args.html is not None:  # refused before grading, not after it
        check_folder(args.html, "--html")
    config = _batch_config(args, limits, shard)
    if earlier is not None:  # refused before grading, not after it
        record = shard_record(shard, config.max_noise, config.allow, config.grader_checks) if shard else None
        settings = {"deferred_policy": config.deferred, "lang": config.lang, "shard": record}
        check_alike(earlier[1], {**settings, "checks": check_ids(selected_exercises(config))}, args.out)
    result = grade_batch(args.submissions, config, out=args.out)
    grades = None
    if earlier is not None:  # the named students' grades in place of their former ones
        grades = regraded_into(*earlier, grades_table(result), grades_json(result), args.out)
    return result, grades, shard, frozenset(earlier[1]["students"] if earlier is not None else ())


def _graded_line(
    args: argparse.Namespace,
    result: BatchResult,
    grades: Grades | None,
    shard: Shard | None,
    earlier: Collection[str] | None = None,
) -> str:
    """What the run says it graded (:func:`grader.batch.console.graded_line`): ``earlier``, the students
    the output it regraded into held before, tells the students graded again from new ones."""
    return graded_line(
        [(s.name, s.outcomes) for s in result.students],
        deferred=args.deferred,
        lang=args.lang,
        elapsed_s=result.elapsed_s,
        sandbox=result.sandbox,
        out=args.out,
        shard=str(shard) if shard is not None else None,
        reused=sum(1 for s in result.students if s.reused),
        earlier=earlier if grades is not None else None,
        total=len(grades[0]) - 1 if grades is not None else 0,
        notebooks={s.name for s in result.students if s.notebooks},
    )


def _grade(args: argparse.Namespace) -> int:
    try:
        result, grades, shard, before = _graded(args)
    except (BatchError, ValueError) as exc:
        print(f"python -m grader grade: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("python -m grader grade: interrupted; every child process was stopped", file=sys.stderr)
        return 130
    earlier_html = earlier_pages(args.out)  # read before grades.json is rewritten
    try:
        paths = write_outputs(result, args.out, gradescope=args.gradescope, grades=grades, html=args.html)
    except OSError as exc:  # a full disk, or --out in a folder that cannot be written: said, not a traceback
        print(f"python -m grader grade: cannot write the grades under {args.out}: {exc}", file=sys.stderr)
        return 1
    pages: list[Path] = []
    if args.html is not None:
        try:
            # after a regrade, the pages of the whole output's grades: the index says what grades.csv says
            pages = write_pages(args.html, result, grades=grades[1] if grades else None, out=args.out)
        except HtmlPathError as exc:
            print(f"python -m grader grade: {exc}", file=sys.stderr)
            return 2
        print(f"wrote {pages[0]} and {len(pages) - 1} student pages")
    print(_graded_line(args, result, grades, shard, before))
    for line in notebook_lines({s.name: s.notebooks for s in result.students}, args.lang):
        print(line)
    left = deferred_of(result, grades[1] if grades is not None else None)
    for line in deferred_lines(left, result.exercises, result.config, args.out, args.retry_deferred):
        print(line)
    data = grades[1] if grades is not None else None
    html = {"gradescope": args.gradescope, "html": args.html, "written": pages, "earlier": earlier_html}
    for line in tidy_run(args.out, result, data, **html):
        print(line)
    print(switch_line(args.chosen, "--lang"))
    print(
        "wrote "
        + ", ".join(str(p) for p in paths[:2])
        + (f" and {len(paths) - 2} more" if len(paths) > 2 else "")
    )
    return 0


def merge_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m grader merge",
        description="Merge the outputs of python -m grader grade --shard K/N into the grades.csv and "
        "grades.json of one unsharded run.",
    )
    p.add_argument("shards", nargs="+", metavar="OUT", help="a shard's output folder, or its grades.json/csv")
    p.add_argument("--out", default="grades", help="output folder (default: ./grades)")
    p.add_argument(
        "--allow-partial",
        action="store_true",
        help="merge even when some of the N shards are missing (listed in grades.json's missing_shards)",
    )
    return p


def merge_main(argv: list[str]) -> int:
    args = merge_parser().parse_args(argv)
    try:
        outputs = [read_shard_output(*pair) for pair in output_files(args.shards)]
        rows, data = merged_grades(outputs, allow_partial=args.allow_partial)
        paths = write_merged(rows, data, args.out, outputs)
    except BatchError as exc:
        print(f"python -m grader merge: {exc}", file=sys.stderr)
        return 2
    for note in merge_notes(data):
        print(f"python -m grader merge: {note}", file=sys.stderr)
    shards = ", ".join(f"{s['index']}/{s['count']}" for s in data["shards"])
    print(f"merged shards {shards} ({len(rows) - 1} students): wrote {paths[0]}, {paths[1]}")
    return 0
