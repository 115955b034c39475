"""``python -m grader``: grade one file outside pytest (batch grading comes later).

python -m grader ex01 path/to/ex01_ridge_point.py [--lang en]
"""

from __future__ import annotations

import argparse
import sys

from .api import grade
from .report import score_table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader", description="Grade one exercise file.")
    parser.add_argument("exercise", help="exercise id, e.g. ex01")
    parser.add_argument("file", help="the student's file, e.g. exercises/ex01_ridge_point.py")
    parser.add_argument("--lang", choices=("zh", "en"), default="zh")
    args = parser.parse_args(argv)
    result = grade(args.file, args.exercise, lang=args.lang)
    print("\n".join(score_table(result.outcomes, args.lang, result.deferred)))
    for o in result.outcomes:
        if not o.passed:
            print(f"\n{o.name}: {o.message}")
    return 0 if all(o.passed or o.deferred for o in result.outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
