"""Hostile submissions for tests/hostile/test_hostile.py: one folder per category of cheat, each graded by the
pytest plugin, the batch grader and ``grader.grade(path)``, and each worth exactly what it earned.

A :class:`Folder` is a student's folder: its files (built from the solutions, with a cheat added) and the
points each exercise must get. Exercise 1 is worth 10: the four general functions 2 + 2 + 2 + 1,
``answer_1a`` 1, the four ``answer_1b_*`` 0.5 each. ``WRONG_ANSWERS`` replaces the five ``answer_*``
of exercise 1 with wrong constants (0 for them: the general functions alone earn 7); ``STUB_ANSWERS`` with
``NotImplementedError`` (not attempted: 7 too). A cheat that worked would lift them to 10. The cheats on
measuring checks are in tests/hostile/measurements.py.

``{kit!r}``, ``{decoy!r}``, ``{marker!r}`` and ``{json!r}`` are filled in by the test: the kit's root, a
file outside every submission folder (each cheat also tries to overwrite it), the test's unique marker
(children are started with it in their command line) and the path of the plugin's ``--grader-json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tests.hostile.cases import STUB_ANSWERS

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions"

EX01, EX02, EX08 = "ex01_ridge_point.py", "ex02_memory_bound.py", "ex08_mfu.py"
M1, M5 = "m1_copy_bandwidth.py", "m5_overhead.py"
M2, M3, M4 = "m2_matmul_roofline.py", "m3_transpose.py", "m4_fusion.py"
FULL = {"ex01": 10.0, "ex02": 7.0, "ex08": 7.0}

WRONG_ANSWERS = """
def answer_1a():
    return 0.0
def answer_1b_fp32_bound():
    return "memory"
def answer_1b_fp32_time():
    return 0.0
def answer_1b_bf16_bound():
    return "memory"
def answer_1b_bf16_time():
    return 0.0
"""


#: Every cheat starts with this: an attempt to overwrite a file outside the submission's folder.
DECOY_ATTACK = """
import os as _os
for _path in ({decoy!r},):
    try:
        with open(_path, "w") as _fh:
            _fh.write("hacked")
    except OSError:
        pass
"""

ANSWERS = (
    "answer_1a",
    "answer_1b_fp32_bound",
    "answer_1b_fp32_time",
    "answer_1b_bf16_bound",
    "answer_1b_bf16_time",
)


def solution(name: str) -> str:
    return (SOLUTIONS / name).read_text(encoding="utf-8")


def ex01(cheat: str, answers: str = WRONG_ANSWERS, after: str = "") -> str:
    """The solution of exercise 1, the decoy attack and ``cheat`` in front, ``answers`` and ``after`` last."""
    return DECOY_ATTACK + cheat + "\n" + solution(EX01) + "\n" + answers + "\n" + after


@dataclass(frozen=True)
class Folder:
    """A student's folder: ``files`` {name: text}, ``points`` {exercise: points}, ``states`` (exercise,
    check, state) that must be reported, and ``needs_bwrap`` where only the sandbox can stop the cheat."""

    name: str
    files: dict[str, str]
    points: dict[str, float]
    states: tuple[tuple[str, str, str], ...] = ()
    needs_bwrap: bool = False
    json_inside: bool = (
        False  # the plugin's --grader-json is written inside the folder (the student can reach it)
    )
    messages: tuple[tuple[str, str, str], ...] = ()  # (exercise, check, text the message must contain)
    extra: dict[str, str] = field(default_factory=dict)

    def exercises(self) -> list[str]:
        return list(self.points)


FRAMES = """
import inspect, sys
def _steal():
    found = []
    try:
        frame = sys._getframe(1)
        while frame is not None:
            for key, value in list(frame.f_locals.items()):
                if key in ("expected", "p", "prepared", "reference"):
                    found.append(getattr(value, "expected", value))
            frame = frame.f_back
    except Exception:
        pass
    try:
        for info in inspect.stack():
            for key, value in list(info.frame.f_locals.items()):
                if key in ("expected", "p", "prepared"):
                    found.append(getattr(value, "expected", value))
    except Exception:
        pass
    return next((v for v in found if isinstance(v, (int, float, str)) and v is not None), None)
"""
FRAMES_ANSWERS = "".join(f"def {a}():\n    return _steal()\n" for a in ANSWERS)

GC_REWRITE = """
import gc
def _rewrite():
    for obj in gc.get_objects():
        try:
            if isinstance(obj, dict) and "expected" in obj:
                obj["expected"] = 0.0
            elif hasattr(obj, "expected") and hasattr(obj, "check"):
                object.__setattr__(obj, "expected", 0.0)
                object.__setattr__(obj, "examples", ())
        except Exception:
            pass
_rewrite()
"""
GC_ANSWERS = "".join(
    f"def {a}():\n    _rewrite()\n    return {repr('memory') if 'bound' in a else '0.0'}\n" for a in ANSWERS
)

PROFILE_HOOK = """
import sys, threading
def _accept(*args, **kwargs):
    return None
def _hook(frame, event, arg):
    try:
        for name in ("mismatch", "describe", "shape_problem", "wrong", "no_measurement"):
            if name in frame.f_globals:
                frame.f_globals[name] = _accept
    except Exception:
        pass
    return _hook
sys.setprofile(_hook)
threading.setprofile(_hook)
"""

GRADER_DICTS = """
import sys
_refused = []
sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "_Deny"]  # the unconfined fence
for _name in ("grader.judge.runners", "grader.specs.check", "grader.compare.values"):
    try:
        __import__(_name)
    except ImportError as _exc:
        _refused.append(type(_exc).__name__)
    else:
        _module = sys.modules[_name]
        for _attr in ("RUNNERS", "MEASUREMENT_BANDS"):
            try:
                getattr(_module, _attr).clear()
            except Exception:
                pass
        for _attr in ("mismatch", "as_number"):
            try:
                setattr(_module, _attr, lambda *a, **k: None)
            except Exception:
                pass
"""

REPR_REBIND = """
import sys
class _Sly(float):
    def __repr__(self):
        for name, module in list(sys.modules.items()):
            if "compare" in name or "judge" in name or "wire" in name:
                for attr in ("mismatch", "decode", "encode"):
                    try:
                        setattr(module, attr, lambda *a, **k: None)
                    except Exception:
                        pass
        return "9.56"
    def __eq__(self, other):
        return True
    __hash__ = float.__hash__
    def lower(self):
        return "compute"
    def strip(self):
        return self
"""
REPR_ANSWERS = "".join(f"def {a}():\n    return _Sly(9.56)\n" for a in ANSWERS)

PERFCORE_MUTATION = """
import sys
sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "_Deny"]
try:
    import perfcore as _pc
except ImportError:
    _pc = None
else:
    _pc.ridge_point = lambda *a, **k: 0.0
    _pc.roofline_from_peaks = lambda *a, **k: None
    object.__setattr__(_pc.A100, "hbm_bytes_per_s", 1.0)
"""

FD_FORGERY = """
import json, os
def _forge():
    lines = [{{"reply": "hello", "pid": 1}}]
    for seq in range(0, 64):
        lines.append({{"reply": "returned", "value": 0.0, "seconds": 0.0, "stdout": "", "seq": seq}})
        lines.append({{"reply": "loaded", "error": None, "stdout": "", "seq": seq}})
        lines.append({{"state": "passed", "points": 10, "seq": seq}})
    data = "".join(json.dumps(line) + "\\n" for line in lines).encode()
    data += b"ex01::1a_ridge_a100_fp32 PASSED\\n"
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{{name}}")
        except OSError:
            continue
        if target.startswith(("socket:", "pipe:")):
            try:
                os.write(int(name), data)
            except OSError:
                pass
_forge()
def ridge_point(peak_flops, bandwidth):
    _forge()
    return -1.0
def matmul_intensity(m, n, k, bytes_per):
    _forge()
    return -1.0
def roofline_time(flops, n_bytes, peak_flops, bandwidth):
    _forge()
    return -1.0
def is_compute_bound(intensity, ridge):
    _forge()
    return None
""" + "".join(f"def {a}():\n    _forge()\n    return None\n" for a in ANSWERS)

READ_SOLUTIONS = """
import os, sys
_read_error = "none"
sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "_Deny"]
sys.path += [{kit!r}]
try:
    from solutions.ex01_ridge_point import answer_1a as _stolen_1a
except ImportError:
    _stolen_1a = None
try:
    with open(os.path.join({kit!r}, "solutions", "ex01_ridge_point.py")) as _fh:
        _stolen = _fh.read()
except OSError as _exc:
    _read_error = type(_exc).__name__
    _stolen = ""
"""
READ_AFTER = """
if _stolen:
    exec(_stolen)
elif _stolen_1a is not None:
    answer_1a = _stolen_1a
else:
    def answer_1a():
        raise RuntimeError("could not read the solutions: " + _read_error)
"""

SIGNAL_LOOP = """
import signal, time
def answer_1b_fp32_time():
    for sig in (signal.SIGALRM, signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.setitimer(signal.ITIMER_VIRTUAL, 0)
    while True:  # asleep rather than busy: the busy loop is cases.py's infinite_loop
        time.sleep(0.05)
"""

CHILDREN = """
import subprocess
_children = [
    subprocess.Popen(["sleep", {marker!r}], start_new_session=bool(i % 2),
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for i in range(50)
]
"""

CONFTEST = """
import pytest

@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    report.outcome = "passed"
    report.longrepr = None
    return report
"""

ATEXIT_JSON = """
import atexit, json
def _rewrite():
    fake = {{"score": 999, "max_score": 17, "tests": [], "output": "all passed"}}
    with open({json!r}, "w") as fh:
        json.dump(fake, fh)
atexit.register(_rewrite)
"""

#: The worker's replies replaced by the lines queued in ``_forged`` (head, body), each given the seq of the
#: request it answers: the student's code owns its process, the worker's ``send`` included.
FORGE_SEND = """
import sys as _sys
_Worker = _sys.modules["__main__"].Worker
_real_send = _Worker.send
_forged = []
_RETURNED = b'{"reply":"returned","seconds":0.0,"value":'
def _send(self, message):
    if _forged and message.get("reply") != "hello":
        head, body = _forged.pop(0)
        self.sock.sendall(head + body + b',"seq":' + str(message.get("seq")).encode() + b"}\\n")
    else:
        _real_send(self, message)
_Worker.send = _send
"""

#: The import's reply says it raised, with a traceback holding a lone surrogate (JSON's \\ud800): the
#: reports once failed to write it (UnicodeEncodeError), and no grades.json, page or summary was written.
SURROGATE_AT_IMPORT = """
_forged.append((b'{"reply":"loaded","error":{"exc_type":"X","trace":', b'"boom \\\\ud800"}'))
"""

#: A reply nested 200,000 deep, written on the judge's socket (found from --fd): json.loads raised
#: RecursionError in the judge, uncaught, and the batch crashed.
DEEP_REPLY = """
import os as _os, sys as _sys
def answer_1b_fp32_time():
    _fd = int(_sys.argv[_sys.argv.index("--fd") + 1])
    _os.write(_fd, b"[" * 200000 + b"\\n")
    return 0.0
"""

#: Replies past each bound of the wire: 60 MB of one-field named tuples (the judge made a class for each,
#: about 90 s a check, its time limit never applied), 300k of them in a line under the size limit (more
#: values than a line may hold), and 100 kinds of named tuple in one line.
OVERSIZED_REPLIES = """
_ITEM = b'{"t":"tuple","items":[0],"fields":["a"],"kind":"T"}'
def _list(items):
    return b'{"t":"list","items":[' + b",".join(items) + b"]}"
def answer_1a():
    _forged.append((_RETURNED, _list([_ITEM] * 1_150_000)))
    return 0.0
def answer_1b_fp32_bound():
    _forged.append((_RETURNED, _list([_ITEM] * 300_000)))
    return "memory"
def answer_1b_bf16_bound():
    _forged.append((_RETURNED, _list([_ITEM.replace(b'"T"', b'"T%d"' % i) for i in range(100)])))
    return "memory"
"""

#: An import that takes most of its 30 s limit, and functions that hang: each timeout killed the worker and
#: the next check paid the import again, 35 s a check, with no end for the exercise (ex02: 229 s). ex08's
#: time budget, 30 s + 5 x 10 s = 80 s, runs out during the third check's import; the last two are not run.
SLOW_IMPORT_HANGS = (
    DECOY_ATTACK
    + "import time\ntime.sleep(25)\n"
    + "".join(
        f"def {name}(*args, **kwargs):\n    while True:\n        time.sleep(1)\n"
        for name in ("training_flops", "mfu", "training_days", "answer_8_mfu", "answer_8_days_at_40")
    )
)

EX08_WITH_HELPER = (
    solution(EX08).replace("def mfu(", "def _unused_mfu(") + "\nfrom helpers import mfu  # noqa: E402\n"
)
HELPER_MODULE = (
    "def mfu(model_flops, n_gpus, peak_flops, seconds):\n"
    "    return model_flops / (n_gpus * peak_flops * seconds)\n"
)

#: Opens descriptors until none are left (under a soft limit of at most 1024, so that the run stays cheap
#: wherever the limit is a million) and keeps them: with one process for every file, ex02's import then
#: failed with "Too many open files".
FD_EXHAUSTION = """
import os, resource
_soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, _soft), _hard))
_held = []
try:
    while True:
        _held.append(os.open(os.devnull, os.O_RDONLY))
except OSError:
    pass
"""

#: Leaves its process changed for whatever file comes next: umask, environment, signal handlers, a thread
#: spinning, stdout, and the import machinery itself made to refuse any other exercise's file.
STATE_LEFT_BEHIND = """
import importlib.util, os, signal, sys, threading
os.umask(0o777)
os.environ.clear()
os.environ["PYTHONPATH"] = "/nowhere"
for _sig in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM):
    signal.signal(_sig, signal.SIG_IGN)
threading.Thread(target=lambda: [None for _ in iter(int, 1)], daemon=True).start()
sys.stdout = sys.stderr = open(os.devnull, "w")
_real_spec = importlib.util.spec_from_file_location
def _spec(name, *args, **kwargs):
    if "ex01" not in name:
        raise ImportError("sabotaged by ex01")
    return _real_spec(name, *args, **kwargs)
importlib.util.spec_from_file_location = _spec
"""

#: Correct answers of exercise 1 in other types of number: a Decimal from ridge_point, a Fraction, an
#: np.longdouble and a float subclass whose methods all say 0.0 (its stored value is the right one).
NUMBER_TYPES = """
from decimal import Decimal
from fractions import Fraction
import numpy as np
class _Quiet(float):
    def __float__(self):
        return 0.0
    def __repr__(self):
        return "0.0"
_ridge, _a, _t32, _t16 = ridge_point, answer_1a, answer_1b_fp32_time, answer_1b_bf16_time
def ridge_point(peak_flops, bandwidth):
    return Decimal(_ridge(peak_flops, bandwidth))
def answer_1a():
    return Fraction(_a())
def answer_1b_fp32_time():
    return np.longdouble(_t32())
def answer_1b_bf16_time():
    return _Quiet(_t16())
"""


FOLDERS = (
    Folder(
        "frames",
        {EX01: ex01(FRAMES, FRAMES_ANSWERS)},
        {"ex01": 7.0},
        (("ex01", "1a_ridge_a100_fp32", "wrong"),),
    ),
    Folder(
        "gc_rewrite",
        {EX01: ex01(GC_REWRITE, GC_ANSWERS)},
        {"ex01": 7.0},
        (("ex01", "1b_fp32_bound", "wrong"),),
    ),
    Folder(
        "profile_hook", {EX01: ex01(PROFILE_HOOK)}, {"ex01": 7.0}, (("ex01", "1a_ridge_a100_fp32", "wrong"),)
    ),
    Folder("grader_dicts", {EX01: ex01(GRADER_DICTS)}, {"ex01": 7.0}, (("ex01", "1b_bf16_time", "wrong"),)),
    # a float subclass is sent as the float it stores, whatever its methods say: 9.56 is the ridge point
    # (9.5635) within its tolerance, so answer_1a earns its point (8); the lies earn nothing
    Folder(
        "repr_rebind",
        {EX01: ex01(REPR_REBIND, REPR_ANSWERS)},
        {"ex01": 8.0},
        (
            ("ex01", "1a_ridge_a100_fp32", "passed"),
            ("ex01", "1b_fp32_bound", "wrong"),
            ("ex01", "1b_fp32_time", "wrong"),
        ),
    ),
    Folder(
        "perfcore_mutation",
        {EX01: ex01(PERFCORE_MUTATION)},
        {"ex01": 7.0},
        (("ex01", "1a_ridge_a100_fp32", "wrong"),),
    ),
    Folder(
        "fd_forgery",
        {EX01: DECOY_ATTACK + FD_FORGERY, EX02: solution(EX02)},
        {"ex01": 0.0, "ex02": 7.0},
    ),
    Folder(
        "read_solutions",
        {EX01: ex01(READ_SOLUTIONS, STUB_ANSWERS, READ_AFTER)},
        {"ex01": 7.0},
        (("ex01", "1a_ridge_a100_fp32", "error"), ("ex01", "1b_fp32_bound", "not_attempted")),
        needs_bwrap=True,
        messages=(("ex01", "1a_ridge_a100_fp32", "FileNotFoundError"),),
    ),
    Folder(
        "signal_loop",
        {EX01: ex01("", "", SIGNAL_LOOP)},
        {"ex01": 9.5},
        (("ex01", "1b_fp32_time", "timeout"), ("ex01", "1b_bf16_bound", "passed")),
    ),
    Folder(
        "os_exit_at_import",
        {EX01: ex01("", "", "import os\nos._exit(0)\n"), EX02: solution(EX02)},
        {"ex01": 0.0, "ex02": 7.0},
        (("ex01", "1a_ridge_formula", "error"), ("ex01", "1b_bf16_time", "error")),
    ),
    Folder("fifty_children", {EX01: ex01(CHILDREN, "")}, {"ex01": 10.0}),
    Folder(
        "conftest_passes_all",
        {EX01: ex01("", STUB_ANSWERS), EX02: solution(EX02), "conftest.py": CONFTEST},
        {"ex01": 7.0, "ex02": 7.0},
        (("ex01", "1a_ridge_a100_fp32", "not_attempted"),),
    ),
    Folder(
        "atexit_json",
        {EX01: ex01(ATEXIT_JSON, STUB_ANSWERS), EX02: solution(EX02)},
        {"ex01": 7.0, "ex02": 7.0},
        json_inside=True,
    ),
    Folder("helper_module", {EX08: EX08_WITH_HELPER, "helpers.py": HELPER_MODULE}, {"ex08": 7.0}),
    Folder(
        "surrogate_reply",
        {EX01: ex01(FORGE_SEND + SURROGATE_AT_IMPORT), EX02: solution(EX02)},
        {"ex01": 0.0, "ex02": 7.0},
        (("ex01", "1a_ridge_formula", "error"),),
        messages=(("ex01", "1a_ridge_formula", "boom \\ud800"),),
    ),
    Folder(
        "deep_reply",
        {EX01: ex01("", "", DEEP_REPLY)},
        {"ex01": 9.5},
        (("ex01", "1b_fp32_time", "error"), ("ex01", "1b_bf16_bound", "passed")),
        messages=(("ex01", "1b_fp32_time", "RecursionError"),),
    ),
    Folder(
        "oversized_reply",
        {EX01: ex01(FORGE_SEND, "", OVERSIZED_REPLIES)},
        {"ex01": 8.0},
        (
            ("ex01", "1a_ridge_a100_fp32", "error"),
            ("ex01", "1b_fp32_bound", "error"),
            ("ex01", "1b_bf16_bound", "error"),
            ("ex01", "1b_fp32_time", "passed"),
        ),
        messages=(
            ("ex01", "1a_ridge_a100_fp32", "32 MiB a line"),
            ("ex01", "1b_fp32_bound", "2,000,000 values"),
            ("ex01", "1b_bf16_bound", "64 kinds of named tuple"),
        ),
    ),
    Folder(
        "slow_import_hangs",
        {EX08: SLOW_IMPORT_HANGS, EX02: solution(EX02)},
        {"ex08": 0.0, "ex02": 7.0},
        (
            ("ex08", "training_flops", "timeout"),
            ("ex08", "training_days", "timeout"),
            ("ex08", "8_days_at_40", "timeout"),
        ),
        messages=(
            ("ex08", "training_days", "used up the time budget of ex08, 80 s"),
            ("ex08", "8_days_at_40", "this check was not run"),
        ),
    ),
    # ex01 exhausts the descriptors of its process at import: it earns what its functions earn (7, with
    # wrong answers); ex02, imported in a fresh process of its own, all of its 7
    Folder(
        "fd_exhaustion",
        {EX01: ex01(FD_EXHAUSTION), EX02: solution(EX02)},
        {"ex01": 7.0, "ex02": 7.0},
    ),
    # ex01 changes umask, environment, signal handlers, stdout and the import machinery, and leaves a
    # thread spinning: 7 for its own functions, and ex02 loses nothing (all 7)
    Folder(
        "state_left_behind",
        {EX01: ex01(STATE_LEFT_BEHIND), EX02: solution(EX02)},
        {"ex01": 7.0, "ex02": 7.0},
    ),
    # every right answer of ex01 in another type of number (Decimal, Fraction, np.longdouble, a float
    # subclass whose methods lie but whose value is right): full marks, 10
    Folder("number_types", {EX01: ex01("", "", NUMBER_TYPES)}, {"ex01": 10.0}),
)


def fill(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace("{" + key + "!r}", repr(value))
    return text.replace("{{", "{").replace("}}", "}")


def write(folder: Folder, into: Path, values: dict[str, str]) -> Path:
    """Write ``folder``'s files into ``into/<name>``; return that folder."""
    target = into / folder.name
    target.mkdir(parents=True)
    for name, text in folder.files.items():
        (target / name).write_text(fill(text, values), encoding="utf-8")
    return target
