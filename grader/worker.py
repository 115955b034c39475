"""The child process of batch grading: ``python -I -m grader.worker``, one per student and phase.

The parent (:mod:`grader.batch`) starts it in the student's temporary folder (a copy holding only the
student's exercise files), inside bubblewrap where it is available, under resource limits. It grades the
exercises of a *plan* (a JSON list of ``[exercise id, [check ids] or null]``) with the in-process runner
(``grader.runner``: references computed before student code runs, every student call bracketed by the
sandbox snapshot and restore and by the check's time limit), and reports on the file descriptor given by
``--fd``, one JSON object per line:

- ``{"type": "hello"}`` once the grader is imported;
- ``{"type": "prepared", "exercise": id}`` once the reference side of an exercise is computed;
- ``{"type": "loaded", "exercise": id}`` once the student's file is imported (or failed to import);
- ``{"type": "outcome", "outcome": {...}}`` after each check, in the plan's order;
- ``{"type": "done"}`` at the end.

Nothing goes to stdout or to a file: the parent ignores what the student prints or writes, so fake
"passed" lines or a fake ``results.json`` change nothing. The parent knows the plan, so it knows which step
was running when the process died (``os._exit``, a signal, a limit) and restarts a worker for the rest.

Before any student code runs, path entries that would let the submission import the kit's answers are
removed: any ``sys.path`` entry holding a ``solutions`` package or one of the registered student modules,
other than the student's own folder (an editable install of the kit puts nothing there; a ``PYTHONPATH``
pointing at the repository would).

Residual risk, stated plainly: the student's code runs in this process, so a determined submission can
find the result descriptor (``/proc/self/fd``) or the worker's frames and write its own lines. The parent
catches lines that are out of the plan's order or inconsistent with the trusted registry, not a forgery
that follows the protocol exactly. The file-system, network and process isolation come from bubblewrap,
not from this module.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

#: Exit status when a MemoryError escapes the grader (the parent says "ran out of memory").
EXIT_MEMORY = 86
#: Exit status for a worker started with bad arguments (a grader bug, not the student's).
EXIT_USAGE = 87


def _scrub_path(own_dir: str, student_modules: set[str]) -> None:
    """Drop sys.path entries through which the kit's answers could be imported (see the module docstring)."""
    own = os.path.realpath(own_dir)
    kept = []
    for entry in sys.path:
        path = os.path.realpath(entry or os.getcwd())
        if path != own and os.path.isdir(path):
            try:
                names = set(os.listdir(path))
            except OSError:
                names = set()
            if "solutions" in names or any(f"{m}.py" in names for m in student_modules):
                continue
        kept.append(entry)
    sys.path[:] = kept
    for name in [n for n in sys.modules if n == "solutions" or n.startswith("solutions.")]:
        del sys.modules[name]


class _Channel:
    """Line-delimited JSON on an inherited descriptor; a closed channel is the parent's business."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8")
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m grader.worker", description=__doc__.splitlines()[0])
    parser.add_argument("--fd", type=int, required=True, help="descriptor to report on")
    parser.add_argument("--dir", required=True, help="the student's temporary folder")
    parser.add_argument("--plan", required=True, help='JSON: [["ex01", null], ["ex03", ["3b_step_time"]]]')
    parser.add_argument("--lang", choices=("zh", "en"), default="zh")
    parser.add_argument("--max-noise", type=float, required=True)
    parser.add_argument("--grader-checks", action="append", default=[], help="extra checks modules")
    return parser.parse_args(argv)


def run(argv: list[str]) -> int:
    args = _parse(argv)
    channel = _Channel(args.fd)
    from .registry import load_exercises
    from .runner import load_submission, preimport_references, prepare_exercise, run_check

    exercises = load_exercises(args.grader_checks)
    plan = json.loads(args.plan)
    _scrub_path(args.dir, {e.module for e in exercises.values()})
    for exercise_id, _ in plan:  # before any student code runs: see runner.preimport_references
        preimport_references(exercises[exercise_id])
    channel.send({"type": "hello"})
    for exercise_id, check_ids in plan:
        exercise = exercises[exercise_id]
        prepared = prepare_exercise(exercise, args.lang, check_ids)
        channel.send({"type": "prepared", "exercise": exercise_id})
        path = os.path.join(args.dir, f"{exercise.module}.py")
        submission = load_submission(path, exercise, args.lang)
        channel.send({"type": "loaded", "exercise": exercise_id})
        for p in prepared:
            outcome = run_check(p, submission, args.lang, args.max_noise)
            channel.send({"type": "outcome", "outcome": outcome.to_dict()})
    channel.send({"type": "done"})
    return 0


def main(argv: list[str] | None = None) -> int:
    try:
        return run(list(sys.argv[1:] if argv is None else argv))
    except MemoryError:
        os._exit(EXIT_MEMORY)
    except SystemExit as exc:  # argparse: bad arguments from the parent
        if exc.code not in (0, None):
            os._exit(EXIT_USAGE)
        raise


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)  # no atexit handlers a submission may have registered
