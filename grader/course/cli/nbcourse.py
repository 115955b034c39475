"""The nbgrader course's commands: ``python -m grader notebooks`` (:mod:`grader.course.notebooks`) and
``python -m grader gradebook`` (:mod:`grader.course.gradebook`). Both import nbformat and nbgrader, the
nbgrader extra, so ``python -m grader`` imports this module only when one of them is asked for.

``python -m grader notebooks OUT_DIR [--course-id ID] [--assignment NAME] [--exercises IDS] [--gpu] [--mps]
[--deferred defer|zero] [--force]`` writes the course folder (what it holds: :mod:`grader.course.notebooks`),
prints each file written, the notebooks of an earlier run it left in place and the checks it left out, and
exits 0, or 2 on bad arguments.

``python -m grader gradebook GRADES --course DIR [--assignment NAME] [--db URL] [--create]`` writes a batch
run's points (``GRADES``: its ``--out`` folder or its ``grades.json``) into the nbgrader gradebook of the course
at ``DIR`` (``DIR/gradebook.db`` unless ``--db`` names another) for the assignment (default ``p3``, as
``python -m grader notebooks`` names it). It exits 0 when every student and check found a place, 1 when some
did not (each named), 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path

from ...registry import find_exercise, load_exercises
from ...results.outcome import DEFERRED_POLICIES
from ...specs.check import Exercise
from ...text.catalogue import LANGS
from ...text.lang import command_lang, switch_line
from ..gradebook import GradebookImportError, import_grades, read_grades
from ..notebooks import (
    DEFAULT_ASSIGNMENT,
    DEFAULT_CELL_TIMEOUT_S,
    for_machine,
    needed_accelerators,
    points_en,
    write_course,
)


def _split(values: Iterable[str]) -> list[str]:
    """``["ex01,ex02", "m1"]`` as ``["ex01", "ex02", "m1"]``, each once, in order."""
    return list(dict.fromkeys(v.strip() for item in values for v in item.split(",") if v.strip()))


def notebooks_parser() -> argparse.ArgumentParser:
    """The arguments of ``python -m grader notebooks``."""
    parser = argparse.ArgumentParser(
        prog="python -m grader notebooks",
        description="Write an nbgrader course folder (config and source notebooks) from solutions/.",
    )
    parser.add_argument("out_dir", type=Path, help="the course folder to write (nbgrader's course root)")
    parser.add_argument("--course-id", default="perfkit", help="nbgrader's course id (default: perfkit)")
    parser.add_argument(
        "--assignment",
        default=DEFAULT_ASSIGNMENT,
        help=f"the assignment's name (default: {DEFAULT_ASSIGNMENT})",
    )
    parser.add_argument(
        "--exercises",
        "--exercise",
        dest="exercises",
        action="append",
        default=[],
        metavar="IDS",
        help="only these exercises (ids or modules, comma-separated, e.g. ex01,ex02); repeatable "
        "(default: all)",
    )
    parser.add_argument(
        "--gpu",
        action="store_true",
        help="the grading machine has a CUDA GPU: keep the checks that need one (default: left out, as "
        "pytest defers them on a machine without one)",
    )
    parser.add_argument(
        "--mps",
        action="store_true",
        help="the grading machine has Apple MPS: keep the checks that need it (default: left out)",
    )
    parser.add_argument(
        "--deferred",
        choices=DEFERRED_POLICIES,
        default="defer",
        help="what a deferred check (a requirement the grading machine lacks, too much noise) scores under "
        "autograde: defer (default) leaves its cell to be graded by hand, zero scores it 0",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace an nbgrader_config.py that has no generated block (default: refuse; a file with the "
        "block keeps every line outside it)",
    )
    parser.add_argument(
        "--solutions", type=Path, default=None, help="the solutions folder (default: solutions/)"
    )
    parser.add_argument(
        "--lang",
        choices=LANGS,
        default=None,
        help="the language of the checks' feedback (default: [tool.perfkit] lang of the pyproject.toml from the "
        "current folder up, else the locale: zh* Chinese, otherwise English)",
    )
    parser.add_argument(
        "--timeout",
        type=int,
        default=DEFAULT_CELL_TIMEOUT_S,
        help=f"seconds a cell may run under autograde (default {DEFAULT_CELL_TIMEOUT_S})",
    )
    return parser


def notebooks_main(argv: list[str] | None = None) -> int:
    """``python -m grader notebooks OUT_DIR``: write the nbgrader course folder, then name what it holds that
    this run did not write and the checks it left out."""
    parser = notebooks_parser()
    args = parser.parse_args(argv)
    chosen = command_lang(parser, args.lang, Path.cwd())
    args.lang = chosen.lang

    exercises: list[Exercise] | None = None
    if args.exercises:
        try:
            exercises = list({e.id: e for e in map(find_exercise, _split(args.exercises))}.values())
        except KeyError as exc:
            parser.error(str(exc.args[0]))
        if not exercises:
            parser.error("--exercises names no exercise")
    accelerators = [name for name, wanted in (("cuda", args.gpu), ("mps", args.mps)) if wanted]
    try:
        written = write_course(
            args.out_dir,
            exercises=exercises,
            solutions_dir=args.solutions,
            course_id=args.course_id,
            assignment=args.assignment,
            lang=args.lang,
            timeout_s=args.timeout,
            accelerators=accelerators,
            deferred=args.deferred,
            force=args.force,
        )
    except ValueError as exc:
        parser.error(str(exc))
    for path in written:
        print(f"wrote: {path}")
    print(switch_line(chosen, "--lang"))
    # notebooks of an earlier run (another --exercises, a check now left out) stay in the assignment, and
    # nbgrader would still grade them and count them in the maximum: say so rather than delete them
    for path in sorted(set(written[1].parent.glob("*.ipynb")) - set(written)):
        print(f"not written by this run, still in the assignment: {path} (delete it to leave it out)")
    flags = {"cuda": "--gpu", "mps": "--mps"}
    for exercise in exercises if exercises is not None else load_exercises().values():
        for check in for_machine(exercise, accelerators)[1]:
            needs = [n for n in needed_accelerators(check) if n not in accelerators]
            print(
                f"left out: {exercise.id}::{check.id} ({points_en(check.points)}; needs {', '.join(needs)}: "
                f"{' '.join(flags[n] for n in needs)} keeps it)"
            )
    return 0


def gradebook_main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m grader gradebook",
        description="Write a batch run's points into an nbgrader course's gradebook.",
    )
    parser.add_argument("grades", help="a batch run's --out folder, or its grades.json")
    parser.add_argument("--course", required=True, help="the nbgrader course folder (holds gradebook.db)")
    parser.add_argument(
        "--assignment", default="p3", help="the assignment's name in the gradebook (default p3)"
    )
    parser.add_argument(
        "--db", default=None, help="the gradebook's URL (default sqlite:///COURSE/gradebook.db)"
    )
    parser.add_argument(
        "--create",
        action="store_true",
        help="add students the gradebook does not know (as autograde --create)",
    )
    args = parser.parse_args(argv)
    course = Path(args.course)
    if args.db is None and not (course / "gradebook.db").is_file():
        print(
            f"python -m grader gradebook: --course {args.course!r} holds no gradebook.db; give the nbgrader "
            "course folder, or the gradebook's URL with --db",
            file=sys.stderr,
        )
        return 2
    db_url = args.db or f"sqlite:///{(course / 'gradebook.db').resolve()}"
    try:
        done = import_grades(read_grades(args.grades), db_url, args.assignment, create=args.create)
    except GradebookImportError as exc:
        print(f"python -m grader gradebook: {exc}", file=sys.stderr)
        return 2
    deferred = sum(done.deferred.values())
    print(
        f"wrote {done.cells} grade cells for {len(done.written)} students into {db_url} "
        f"({deferred} deferred cells left to grade by hand)"
    )
    for student in done.unknown_students:
        print(f"  not in the gradebook (add them, or --create): {student}", file=sys.stderr)
    for cell in sorted(set(done.unknown_cells)):
        print(f"  no such grade cell in the gradebook's {args.assignment}: {cell}", file=sys.stderr)
    return 1 if done.unknown_students or done.unknown_cells else 0
