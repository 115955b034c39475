"""A student's traceback shows only the student's frames and file names: no importlib frame, no private
path of the batch's copy, in batch grading as under pytest."""

from __future__ import annotations

import subprocess
import sys

import pytest

from grader.batch.merging import read_output
from tests.grader.batch.helpers import _cli, _json

EX01 = "ex01_ridge_point.py"

SYNTAX_ERROR = "import math\n\n\ndef ridge_point(peak_flops, bandwidth):\n    return peak_flops /\n"
RUNTIME_ERROR = "import math\n\nx = 1 / 0\n"


@pytest.mark.parametrize(
    ("source", "line", "error"), [(SYNTAX_ERROR, 5, "SyntaxError"), (RUNTIME_ERROR, 3, "ZeroDivisionError")]
)
def test_a_traceback_shows_only_the_students_frames_and_names(tmp_path, source, line, error):
    subs = tmp_path / "subs"
    (subs / "alice").mkdir(parents=True)
    (subs / "alice" / EX01).write_text(source, encoding="utf-8")
    out = tmp_path / "out"
    assert _cli(str(subs), "--out", str(out), "--exercises", "ex01", "--lang", "en", "--quiet") == 0
    record = _json(out / "grades.json")["students"]["alice"]
    # once per file (issue 47 item 8: nine times over before), each check referring to it
    message = record["file_errors"]["ex01"]
    assert f'File "{EX01}", line {line}' in message and error in message, message
    assert len(record["outcomes"]) > 1 and all(o["file_error"] == "ex01" for o in record["outcomes"])
    assert (out / "grades.json").read_text(encoding="utf-8").count(f'File \\"{EX01}\\"') == 1
    first = message.splitlines()[0]
    assert all(o["message"].startswith(first) and "file_errors" in o["message"] for o in record["outcomes"])
    # read back (a merge, a regrade), each check has its whole message again
    _, data = read_output(out / "grades.csv", out / "grades.json")
    back = data["students"]["alice"]
    assert "file_errors" not in back and all(o["message"] == message for o in back["outcomes"])
    assert "<frozen" not in message and "importlib" not in message and "perfkit-batch-" not in message
    assert str(tmp_path) not in message
    # pytest, in the student's own folder: the same lines
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", EX01, "-q", "-p", "no:cacheprovider", "--grader-lang=en"],
        cwd=subs / "alice",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert f'File "{EX01}", line {line}' in proc.stdout and error in proc.stdout, proc.stdout
    assert "<frozen" not in proc.stdout and str(tmp_path) not in proc.stdout.split("perfkit score")[0]
