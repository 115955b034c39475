"""The course's commands that need no extra: ``python -m grader stubs`` (:mod:`grader.course.stubs`),
``python -m grader release`` (:mod:`grader.course.release`) and ``python -m grader gradescope``
(:mod:`grader.course.gradescope`), and what the instructor's commands that read ``solutions/`` (``stubs``,
``notebooks``) say where there is none, as in a student kit (:func:`solutions_missing`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from ...results.outcome import DEFERRED_POLICIES
from ...text.catalogue import LANGS
from ...text.lang import command_lang, switch_line
from .. import stubs
from ..gradescope import write_bundle
from ..release import KIT_ROOT, ReleaseError, kit_files, write_release


def solutions_missing(command: str, argv: Sequence[str], root: Path = KIT_ROOT) -> str | None:
    """The message for ``python -m grader COMMAND`` (stubs, notebooks: they read ``solutions/``, or the
    folder their ``--solutions`` names) where that folder is missing, as in a student kit; None where it
    is there, or where help is asked for."""
    if any(a in ("-h", "--help") for a in argv):
        return None
    parser = argparse.ArgumentParser(prog=f"python -m grader {command}", add_help=False)
    parser.add_argument("--solutions", type=Path, default=root / "solutions")
    solutions = parser.parse_known_args(list(argv))[0].solutions
    if solutions.is_dir():
        return None
    return (
        f"python -m grader {command}: 这是老师用的命令，需要参考答案文件夹 {solutions}，这里没有"
        "（学生版不含 solutions/）。\n"
        f"python -m grader {command}: error: this is an instructor's command; it needs the solutions "
        f"folder {solutions}, which is not here (a student kit holds no solutions/)."
    )


def stubs_main(argv: list[str] | None = None) -> int:
    """``python -m grader stubs [--check]``: regenerate ``exercises/`` from ``solutions/``; with ``--check``
    write nothing and exit 1 if a stub is out of date."""
    description = (stubs.__doc__ or "").split("\n\n")[0]
    parser = argparse.ArgumentParser(prog="python -m grader stubs", description=description)
    parser.add_argument("--solutions", type=Path, default=KIT_ROOT / "solutions", help="the single source")
    parser.add_argument("--exercises", type=Path, default=KIT_ROOT / "exercises", help="where the stubs go")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a stub is out of date")
    args = parser.parse_args(argv)
    differing = stubs.generate(args.solutions, args.exercises, check=args.check)
    for path in differing:
        print(f"{'out of date' if args.check else 'wrote'}: {path}")
    if args.check and differing:
        print("exercises/ differs from solutions/: run `python -m grader stubs`")
        return 1
    return 0


def release_main(argv: list[str] | None = None) -> int:
    """``python -m grader release OUT_DIR``: write the student's kit; exit 2 on a refused OUT_DIR."""
    parser = argparse.ArgumentParser(
        prog="python -m grader release",
        description="Write the student's repository (exercises, grader, perfcore, README, pyproject.toml; "
        "no solutions, tests or benchmarks) to OUT_DIR.",
    )
    parser.add_argument("out_dir", metavar="OUT_DIR", help="the folder to write (new or empty, or --force)")
    parser.add_argument(
        "--worked-answers",
        dest="worked_answers",
        action="store_true",
        default=False,
        help="let the tour (python -m perfcore) print the exercises' worked answers (left out by default)",
    )
    parser.add_argument(  # the default now; kept so that the scripts written for it still run
        "--no-worked-answers",
        dest="worked_answers",
        action="store_false",
        help="leave the worked answers out of the tour (the default)",
    )
    parser.add_argument(
        "--lang",
        choices=LANGS,
        default=None,
        help="the course's feedback language, written to the kit's pyproject.toml as [tool.perfkit] lang "
        "(default: none written, so each student's locale decides: zh* Chinese, otherwise English)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace what a non-empty OUT_DIR holds (its .git folder is kept)",
    )
    args = parser.parse_args(argv)
    try:
        out = write_release(
            args.out_dir, worked_answers=args.worked_answers, force=args.force, lang=args.lang
        )
    except ReleaseError as exc:
        parser.error(str(exc))
    except OSError as exc:  # a read-only parent, a full disk: OUT_DIR is as it was
        parser.error(f"cannot write OUT_DIR {args.out_dir!r}: {exc}")
    tour = "with" if args.worked_answers else "without"
    print(f"wrote the student kit: {out} ({len(kit_files(out))} files; the tour {tour} worked answers)")
    print(
        "publish it as the students' repository: git init, add, commit and push it there once; later "
        "releases into the same folder with --force keep its .git"
    )
    return 0


def gradescope_main(argv: list[str]) -> int:
    """``python -m grader gradescope OUT_DIR``: write the Gradescope bundle; exit 2 where it cannot."""
    p = argparse.ArgumentParser(
        prog="python -m grader gradescope",
        description="Write a Gradescope autograder bundle (setup.sh, run_autograder, the kit, autograder.zip).",
    )
    p.add_argument("out", help="an empty or new folder")
    p.add_argument("--exercises", action="append", default=[], help="ids or stems to grade, comma-separated")
    p.add_argument(
        "--lang",
        choices=LANGS,
        default=None,
        help="the language of the feedback on Gradescope (default: [tool.perfkit] lang of the pyproject.toml "
        "from the current folder up, else the locale here: zh* Chinese, otherwise English)",
    )
    p.add_argument("--deferred", choices=DEFERRED_POLICIES, default="defer")
    args = p.parse_args(argv)
    chosen = command_lang(p, args.lang, Path.cwd())
    args.lang = chosen.lang
    grade_args = ["--lang", args.lang, "--deferred", args.deferred]
    for item in args.exercises:
        grade_args += ["--exercises", item]
    try:
        zip_path = write_bundle(args.out, grade_args)
    except (FileExistsError, OSError) as exc:
        print(f"python -m grader gradescope: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {zip_path} (upload it as the assignment's autograder)")
    print(switch_line(chosen, "--lang"))
    return 0
