"""Hostile and broken submissions for tests/grader/batch/test_hostile_batch.py: each case is ex01 made from
the solution.

A case is the solution of exercise 1 with code appended (a later ``def`` replaces the solution's) or put
in front, and the points it earns by construction (exercise 1 is worth 10: the four general functions
2 + 2 + 2 + 1, ``answer_1a`` 1, the four ``answer_1b_*`` 0.5 each). ``{kit}``, ``{victim}`` and
``{other}`` are filled in by the test: the kit's root, a file outside the submissions, another student's
file. Every hostile student also hands in a correct ex02 (7 points), which must be unaffected.

The cheats aimed at the grader itself (reading its frames, rewriting its objects, patching its
comparison, forging its channel, reading the solutions, signals, children, conftest, atexit) are in
``tests/hostile/suite.py``, graded by all three front ends in tests/hostile/test_hostile.py.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    name: str
    ex01_points: float
    append: str = ""
    prepend: str = ""
    stub_answers: bool = False  # replace every answer_* with a stub (not attempted)
    needs_bwrap: bool = False
    extra_files: tuple[tuple[str, str], ...] = ()  # (path in the folder, text); its folders are made
    states: tuple[tuple[str, str], ...] = ()  # (check id, state) that must be reported
    notes: tuple[str, ...] = ()  # words the student's notes (what the copy left out) must hold


STUB_ANSWERS = """
def answer_1a():
    raise NotImplementedError()
def answer_1b_fp32_bound():
    raise NotImplementedError()
def answer_1b_fp32_time():
    raise NotImplementedError()
def answer_1b_bf16_bound():
    raise NotImplementedError()
def answer_1b_bf16_time():
    raise NotImplementedError()
"""

CASES = (
    Case(
        "infinite_loop",
        9.5,
        append="def answer_1b_bf16_time():\n    while True:\n        pass\n",
        states=(("1b_bf16_time", "timeout"),),
    ),
    Case(
        "sys_exit_at_import", 0, append="import sys\nsys.exit(0)\n", states=(("1a_ridge_a100_fp32", "error"),)
    ),
    Case("os_exit_at_import", 0, append="import os\nos._exit(0)\n", states=(("1a_ridge_formula", "error"),)),
    Case(
        "os_exit_in_a_call",
        9.5,
        append="import os\ndef answer_1b_bf16_bound():\n    os._exit(0)\n",
        states=(("1b_bf16_bound", "error"),),
    ),
    Case(
        "huge_allocation_at_import",
        0,
        append="_hog = bytearray(50 << 30)\n",
        states=(("1a_ridge_formula", "error"),),
    ),
    Case(
        "huge_allocation_in_a_call",
        9.5,
        append="def answer_1b_bf16_time():\n    return len(bytearray(50 << 30))\n",
        states=(("1b_bf16_time", "error"),),
    ),
    Case(
        # shared anonymous memory, which RLIMIT_DATA (a GPU host's cap) does not count: the judge's own
        # watch of the worker's resident memory ends it there, RLIMIT_AS here
        "shared_memory_fill_in_a_call",
        9.5,
        append=(
            "import mmap\n"
            "def answer_1b_bf16_time():\n"
            "    hog = mmap.mmap(-1, 50 << 30)\n"
            "    for at in range(0, len(hog), 4096):\n"
            "        hog[at] = 1\n"
            "    return 1.0\n"
        ),
        states=(("1b_bf16_time", "error"),),
    ),
    Case(
        "child_process_left_running",
        10,
        append="import subprocess\n_child = subprocess.Popen(['sleep', '4321.5'])\n",
    ),
    Case(
        "conftest_and_pytest_ini",
        7,
        stub_answers=True,
        extra_files=(
            ("conftest.py", "open('/tmp/perfkit-hostile-conftest-ran', 'w').write('x')\n"),
            ("pytest.ini", "[pytest]\naddopts = -p no:perfkit_grader\n"),
            ("test_mine.py", "def test_all():\n    assert True\n"),
        ),
    ),
    Case(
        "fake_results_and_lines",
        7,
        stub_answers=True,
        append=(
            "import json, os, sys\n"
            "fake = {'score': 100, 'max_score': 100, 'tests': []}\n"
            "for where in (os.getcwd(), os.path.dirname(os.path.abspath(__file__)), '/autograder/results'):\n"
            "    for name in ('results.json', 'grades.json', 'grades.csv'):\n"
            "        try:\n"
            "            json.dump(fake, open(os.path.join(where, name), 'w'))\n"
            "        except OSError:\n"
            "            pass\n"
            "print('ex01::1a_ridge_a100_fp32 PASSED\\n100/100 passed')\n"
            'print(\'{"type": "outcome"}\', file=sys.stderr)\n'
        ),
    ),
    Case(
        "weird_return_values",
        0,
        append=(
            "import numpy as np\n"
            "try:\n    import torch\n    _vector = torch.ones(3)\n"
            "except ImportError:  # the tox environment without torch: an array is just as wrong\n"
            "    _vector = np.ones(3)\n"
            "def ridge_point(peak_flops, bandwidth):\n    return float('nan')\n"
            "def matmul_intensity(m, n, k, bytes_per):\n    return float('inf')\n"
            "def roofline_time(flops, n_bytes, peak_flops, bandwidth):\n    return 'fast'\n"
            "def is_compute_bound(intensity, ridge):\n    return np.array([1.0, 2.0])\n"
            "def answer_1a():\n    return _vector\n"
            "def answer_1b_fp32_bound():\n    return 42\n"
            "def answer_1b_fp32_time():\n    return 'inf'\n"
            "def answer_1b_bf16_bound():\n    return None\n"
            "def answer_1b_bf16_time():\n    return [1e-3]\n"
        ),
        states=(("1a_ridge_formula", "wrong"), ("1a_ridge_a100_fp32", "wrong"), ("roofline_time", "wrong")),
    ),
    Case(
        # an int past the largest float: comparing it raised OverflowError, which lost the whole batch's
        # grades; it is a wrong answer (and 1b_fp32_bound, which calls answer_1a, is wrong with it)
        "huge_int_answer",
        8.5,
        append="def answer_1a():\n    return 2**1024 - 1\n",
        states=(("1a_ridge_a100_fp32", "wrong"), ("1b_fp32_bound", "wrong")),
    ),
    Case(
        # a folder nested 1200 deep: walking it recursively raised RecursionError, which lost the batch
        "folder_nested_1200_deep",
        10,
        extra_files=(("d/" * 1200 + "f.txt", "deep\n"), ("helper/deeper/data.txt", "kept\n")),
        notes=("deeper than 16 levels", "d/d/d/d"),
    ),
    Case(
        "write_outside_its_folder",
        10,
        needs_bwrap=True,
        append=(
            "import os\n"
            "for path in ({victim!r}, {other!r}):\n"
            "    try:\n"
            "        open(path, 'w').write('hacked')\n"
            "    except OSError:\n"
            "        pass\n"
            "    try:\n"
            "        os.remove(path)\n"
            "    except OSError:\n"
            "        pass\n"
            "import subprocess\n"
            "for _dir in ('/', {kit!r}, os.path.dirname({other!r}), os.path.dirname({victim!r})):\n"
            "    subprocess.run(['mount', '-o', 'remount,bind,rw', _dir], capture_output=True)\n"
            "try:\n"
            "    open(os.path.join({kit!r}, 'grader', '_hostile_marker.py'), 'w').write('x = 1')\n"
            "except OSError:\n"
            "    pass\n"
        ),
    ),
    Case(
        "import_solutions",
        7,
        stub_answers=True,
        append=(
            "try:\n    from solutions.ex01_ridge_point import *  # noqa\nexcept ImportError:\n    pass\n"
        ),
    ),
    Case(
        "read_instructor_files",
        7,
        stub_answers=True,
        needs_bwrap=True,
        append=(
            "import os, sys\n"
            "sys.path += [{kit!r}, '.', '..']\n"
            "try:\n"
            "    from solutions.ex01_ridge_point import *  # noqa\n"
            "except ImportError:\n"
            "    pass\n"
            "for _path in (os.path.join({kit!r}, 'solutions', 'ex01_ridge_point.py'), {solutions_copy!r}):\n"
            "    try:\n"
            "        exec(open(_path).read())\n"
            "    except OSError:\n"
            "        pass\n"
        ),
    ),
)


#: ex01's answers taken from a classmate: it looks through every folder the sandbox binds for another
#: student's exercise 1 (tests/grader/batch/test_engine.py starts a batch where the working folder holds
#: the copies).
THIEF = """
import os
def _bound():
    args = open("/proc/1/cmdline", "rb").read().split(b"\\0")
    return [args[i + 1].decode() for i, a in enumerate(args[:-1]) if a == b"--ro-bind"]
def _steal():
    mine = os.path.realpath(os.getcwd())
    for top in set(_bound()) - {"/usr", "/etc"}:
        for root, dirs, files in os.walk(top):
            if "ex01_ridge_point.py" in files and os.path.realpath(root) != mine:
                return open(os.path.join(root, "ex01_ridge_point.py")).read()
    return None
_code = _steal()
if _code:
    exec(_code)
"""


#: An answer whose exception text and printed output hold terminal escapes: they could clear the screen of
#: whoever runs the grader and draw a score table of their own (tests/grader/batch/test_cli.py).
LOUD_ANSWER = """
class _Loud(Exception):
    def __str__(self):
        return '\\x1b[2J\\x1b[31mex01 10/10 passed'
def answer_1a():
    print('\\x1b]0;title\\x07')
    raise _Loud()
"""
