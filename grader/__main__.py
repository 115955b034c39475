"""``python -m grader``: the grader outside pytest.

python -m grader file ex01 path/to/ex01_ridge_point.py [--lang en] [--html PATH]   grade one file
python -m grader watch [PATH] [--lang en]   grade PATH (default exercises/), then each file again as it is saved
python -m grader stubs [--check]                                     regenerate exercises/ from solutions/
python -m grader notebooks OUT_DIR [--course-id ID] [--assignment NAME]  write an nbgrader course folder
    [--exercises IDS] [--gpu] [--mps] [--deferred defer|zero] [--force]   (the nbgrader extra;
    CUDA/MPS checks left out unless asked for)
python -m grader grade SUBMISSIONS_DIR [--out DIR] [--exercises IDS]   batch-grade one folder per student
    [--html DIR]   (DIR/index.html for the instructor, DIR/students/<student>.html)
python -m grader grade SUBMISSIONS_DIR --shard K/N --out OUT_K         grade shard K of N only
python -m grader merge OUT_1 ... OUT_N [--out DIR] [--allow-partial]   merge the shards' grades
python -m grader gradebook GRADES --course DIR [--assignment NAME]   write a batch run's points into an
    [--db URL] [--create]                                              nbgrader course's gradebook
python -m grader gradescope OUT_DIR [--exercises IDS] [--lang en]      write a Gradescope autograder bundle
python -m grader release OUT_DIR [--worked-answers] [--lang zh|en] [--force]   write the student's repository
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from .api import grade
from .batch.cli import main as batch_main
from .batch.cli import merge_main
from .course.cli.kit import gradescope_main, release_main, solutions_missing, stubs_main
from .reports.html import HtmlPathError, check_file, write_report
from .reports.table import score_table
from .text.catalogue import LANGS, render
from .text.lang import command_lang, switch_line

#: The modules of each extra a command needs beyond the grader's own dependencies (pyproject.toml's
#: optional-dependencies): without one, the command names the extra to install and exits 2.
EXTRA_MODULES = {"nbgrader": ("nbformat", "nbgrader", "ipykernel", "traitlets", "nbconvert")}


#: The commands that need the nbgrader extra: the module (below ``grader``) and the name of each one's main.
NBGRADER_COMMANDS = {
    "notebooks": (".course.cli.nbcourse", "notebooks_main"),
    "gradebook": (".course.cli.nbcourse", "gradebook_main"),
}


def nbgrader_command(name: str, argv: list[str]) -> int:
    """Run the command ``name`` of :data:`NBGRADER_COMMANDS`; without the nbgrader extra, say which to install
    and exit 2 rather than a traceback."""
    module, attribute = NBGRADER_COMMANDS[name]
    try:
        # deferred on purpose: these need nbformat and nbgrader, the nbgrader extra, which the others do not
        main = getattr(importlib.import_module(module, __package__), attribute)
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in EXTRA_MODULES["nbgrader"]:
            raise
        print(missing_extra(f"python -m grader {name}", "nbgrader", exc.name), file=sys.stderr)
        return 2
    return int(main(argv))


def missing_extra(command: str, extra: str, module: str | None) -> str:
    """What a command says when ``module`` of its ``extra`` is not installed: in Chinese, then English."""
    name = module or "?"
    return "\n".join(
        render("missing_extra", lang, command=command, extra=extra, module=name) for lang in LANGS
    )


def grade_file(argv: list[str]) -> int:
    """Grade one exercise file and print the table and the feedback; exit 1 unless every check passed."""
    parser = argparse.ArgumentParser(prog="python -m grader file", description="Grade one exercise file.")
    parser.add_argument("exercise", help="exercise id, e.g. ex01")
    parser.add_argument("file", help="the student's file, e.g. exercises/ex01_ridge_point.py")
    parser.add_argument(
        "--lang",
        choices=LANGS,
        default=None,
        help="language of the feedback (default: [tool.perfkit] lang of the kit's pyproject.toml, else the "
        "locale: zh* Chinese, otherwise English)",
    )
    parser.add_argument("--grader-checks", action="append", default=[], help="extra checks modules")
    parser.add_argument("--allow", action="append", default=[], choices=("perfcore", "grader"))
    parser.add_argument("--html", metavar="PATH", help="also write a self-contained HTML report to PATH")
    args = parser.parse_args(argv)
    chosen = command_lang(parser, args.lang, Path(args.file).resolve().parent)
    args.lang = chosen.lang
    if args.html is not None:  # a path that cannot be written is refused before grading
        try:
            check_file(args.html, "--html")
        except HtmlPathError as exc:
            parser.error(str(exc))
    result = grade(
        args.file, args.exercise, lang=args.lang, extra_checks=args.grader_checks, allow=args.allow
    )
    print("\n".join(score_table(result.outcomes, args.lang, result.deferred)))
    for o in result.outcomes:
        if not o.passed:
            print(f"\n{o.name}: {o.message}")
    if args.html is not None:
        try:
            path = write_report(
                args.html,
                result.outcomes,
                lang=args.lang,
                deferred=result.deferred,
                heading=args.file,
                extra_checks=args.grader_checks,
            )
        except HtmlPathError as exc:
            print(f"python -m grader file: {exc}", file=sys.stderr)
            return 2
        print(f"\nHTML report: {path}")
    print(switch_line(chosen, "--lang"))
    return 0 if all(o.passed or o.deferred for o in result.outcomes) else 1


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    commands = {"file": grade_file}
    if args and args[0] == "grade":
        return batch_main(args[1:])
    if args and args[0] == "watch":
        from .watch.cli import main as watch_main  # deferred on purpose: watchdog is this command's alone

        return watch_main(args[1:])
    if args and args[0] == "merge":
        return merge_main(args[1:])
    if args and args[0] == "gradescope":
        return gradescope_main(args[1:])
    if args and args[0] == "release":
        return release_main(args[1:])
    if args and args[0] in ("stubs", "notebooks"):
        # both read solutions/, which a student kit does not hold: say so rather than a traceback
        if (message := solutions_missing(args[0], args[1:])) is not None:
            print(message, file=sys.stderr)
            return 2
    if args and args[0] == "stubs":
        return stubs_main(args[1:])
    if args and args[0] in NBGRADER_COMMANDS:
        return nbgrader_command(args[0], args[1:])
    if not args or args[0] not in commands:
        print(__doc__.strip(), file=sys.stderr)
        return 0 if args and args[0] in ("-h", "--help") else 2
    return commands[args[0]](args[1:])


if __name__ == "__main__":
    sys.exit(main())
