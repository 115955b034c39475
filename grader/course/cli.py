"""The course's command lines kept apart from their logic, as nbgrader keeps its ``apps/`` apart:
``python -m grader gradebook`` (:mod:`grader.course.gradebook`).

``python -m grader gradebook GRADES --course DIR [--assignment NAME] [--db URL] [--create]`` writes a batch
run's points (``GRADES``: its ``--out`` folder or its ``grades.json``) into the nbgrader gradebook of the course
at ``DIR`` (``DIR/gradebook.db`` unless ``--db`` names another) for the assignment (default ``p3``, as
``python -m grader notebooks`` names it). It exits 0 when every student and check found a place, 1 when some
did not (each named), 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .gradebook import GradebookImportError, import_grades, read_grades


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
