"""grader.sandbox.worker's own pieces, tested directly (they were tested only through a worker run by the
judge, in test_sandbox.py and test_judge.py): the capped text stream a call's output is kept in, and the
traceback a student is shown, cut to the student's own frames."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from grader.sandbox import worker


def student_module(folder: Path, source: str, name: str = "student_code") -> ModuleType:
    """``source`` as the student's file ``folder/<name>.py``, imported."""
    path = folder / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"_test_worker_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def raised(call) -> BaseException:
    try:
        call()
    except BaseException as exc:  # noqa: BLE001 - whatever the student's code raised
        return exc
    raise AssertionError("the student's code raised nothing")


def test_the_capped_stream_keeps_the_first_characters_and_takes_every_write() -> None:
    stream = worker._Capped()
    assert stream.writable()
    assert stream.write("ab") == 2 and stream.write(12) == 2  # anything written is kept as its text
    print("x" * worker.wire.MAX_TEXT, file=stream)  # past the cap: taken whole, kept up to it
    assert stream.write("more") == 4
    kept = stream.value()
    assert len(kept) == stream.size == worker.wire.MAX_TEXT
    assert kept.startswith("ab12x") and "more" not in kept


def test_a_students_trace_shows_only_the_students_frames_by_their_own_names(tmp_path: Path) -> None:
    folder = tmp_path.resolve()
    code = student_module(
        folder, "def inner(n):\n    raise ValueError(f'bad n={n}')\n\ndef outer():\n    inner(3)\n"
    )
    trace = worker._student_trace(raised(code.outer), str(folder))
    assert 'File "student_code.py", line 5, in outer' in trace
    assert 'File "student_code.py", line 2, in inner' in trace
    assert trace.endswith("ValueError: bad n=3")
    assert __file__ not in trace and str(folder) not in trace  # no frame of this test, no private folder
    assert len(trace) <= worker.wire.MAX_TEXT


def test_a_runaway_recursion_keeps_its_first_and_last_frames(tmp_path: Path) -> None:
    """Frames that differ (two functions calling each other: Python folds only a line repeated in a row)
    are cut to :data:`~grader.sandbox.worker.MAX_TRACE_FRAMES`, the first three and the last ones."""
    folder = tmp_path.resolve()
    code = student_module(
        folder,
        "def ping(n):\n    return pong(n)\n\ndef pong(n):\n    return ping(n + 1) if n < 20 else 1 / 0\n",
    )
    trace = worker._student_trace(raised(lambda: code.ping(0)), str(folder))
    assert trace.count('File "student_code.py"') == worker.MAX_TRACE_FRAMES
    assert f"... {42 - worker.MAX_TRACE_FRAMES} frames ..." in trace
    assert trace.splitlines()[0].strip().startswith('File "student_code.py", line 2, in ping')
    assert trace.endswith("ZeroDivisionError: division by zero")


def test_an_exception_whose_text_cannot_be_made_still_ends_its_trace(tmp_path: Path) -> None:
    folder = tmp_path.resolve()
    code = student_module(
        folder,
        "class Odd(Exception):\n    def __str__(self):\n        raise RuntimeError('no text')\n\n"
        "def f():\n    raise Odd()\n",
    )
    trace = worker._student_trace(raised(code.f), str(folder))
    assert 'File "student_code.py", line 6, in f' in trace
    assert "Odd" in trace.splitlines()[-1] and "no text" not in trace


def test_the_workers_kit_is_its_own_copy_loaded_under_private_names() -> None:
    assert "_perfkit_wire" in sys.modules and worker.wire is sys.modules["_perfkit_wire"]
