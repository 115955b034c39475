"""What a run leaves deferred, said at its end (issue 47 item 3: ``--retry-deferred`` printed "6 checks
graded again" and the scores, and m6's checks and a still-busy m1 stayed deferred in silence): how many,
grouped by reason, which no retry on this machine can decide and where to send them.

The machine is made one without a CUDA GPU for the whole test (``no_gpu_here``, which every requirement
check asks first), so a GPU check defers here whatever machine runs the test; a memory check defers under
``--memory-gib 1`` and not under 4, as in test_journal."""

from __future__ import annotations

import os
import textwrap

import pytest

from grader.batch.engine import BatchConfig
from grader.batch.remaining import deferred_lines, kind_of
from grader.specs import requirements
from grader.specs.check import Exercise, ValueCheck
from grader.specs.requirements import Requirements
from tests.grader.batch.helpers import _cli

CHECKS = textwrap.dedent(
    """
    from grader.specs.check import Exercise, ValueCheck
    from grader.specs.requirements import Requirements

    EXERCISE = Exercise(
        id="rd",
        module="remaining_student",
        title_zh="暂缓",
        title_en="Remaining",
        import_timeout_s=60.0,
        checks=(
            ValueCheck(id="v_plain", part="a", points=1, func="one", expected=lambda: 1, rtol=1e-9),
            ValueCheck(id="v_memory", part="a", points=2, func="two", expected=lambda: 2, rtol=1e-9,
                       timeout_s=30.0, requires=Requirements(memory_bytes=3 << 29)),
            ValueCheck(id="v_gpu", part="a", points=3, func="one", expected=lambda: 1, rtol=1e-9,
                       requires=Requirements(cuda=True)),
        ),
    )
    """
)
RIGHT = "def one():\n    return 1\n\ndef two():\n    return 2\n"


@pytest.fixture
def kit(tmp_path, monkeypatch):
    """The fake checks module importable here and in the processes a run starts, on a machine without CUDA."""
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / "remaining_checks.py").write_text(CHECKS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(modules))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(modules), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setattr(requirements, "no_gpu_here", lambda req: "req_no_cuda" if req.cuda else None)
    return modules


def _grade(tmp_path, *more: str, memory: str) -> int:
    subs = tmp_path / "subs"
    for name in ("alice", "bob"):
        (subs / name).mkdir(parents=True, exist_ok=True)
        (subs / name / "remaining_student.py").write_text(RIGHT, encoding="utf-8")
    return _cli(
        str(subs), "--out", str(tmp_path / "out"), "--grader-checks", "remaining_checks", "--exercises", "rd",
        "--lang", "en", "--memory-gib", memory, "--quiet", *more,
    )  # fmt: skip


def _said(capsys) -> list[str]:
    return [line for line in capsys.readouterr().out.splitlines() if "deferred" in line or "  - " in line]


def test_a_retry_says_what_is_still_deferred_by_reason_and_where_to_send_it(tmp_path, kit, capsys):
    assert _grade(tmp_path, memory="1") == 0
    head, gpu, memory = _said(capsys)
    assert head == "deferred: 4 checks of 2 students, 10 points, by reason:", head
    # no retry here decides the GPU check: said first, with where to send it
    # (without torch installed, the reason names that too: "...has none; needs torch, ...: 2 checks...")
    assert gpu.startswith("  - needs a CUDA GPU, this machine has none"), gpu
    assert ": 2 checks of rd, 2 students (alice, bob)" in gpu, gpu
    assert "No retry on this machine can decide them" in gpu and "GPU node" in gpu, gpu
    assert '"The GPU task on GPU nodes"' in gpu and "--retry-deferred" in gpu
    assert "2 checks of rd" in memory and "--memory-gib" in memory and "No retry" not in memory, memory
    # the retry on the same machine: both still deferred, and said so
    assert _grade(tmp_path, "--retry-deferred", memory="1") == 0
    said = _said(capsys)
    assert said[0].startswith("still deferred after the retry: 4 checks of 2 students"), said
    # with the memory: the memory check is decided, the GPU check is all that is left
    assert _grade(tmp_path, "--retry-deferred", memory="4") == 0
    head, gpu = _said(capsys)
    assert head == "still deferred after the retry: 2 checks of 2 students, 6 points, by reason:", head
    assert "needs a CUDA GPU" in gpu and "No retry on this machine" in gpu


def test_each_reason_says_whether_a_retry_here_decides_it(monkeypatch) -> None:
    config = BatchConfig(lang="en")
    torch_check = ValueCheck(
        id="t", part="a", points=1, func="f", expected=lambda: 1, requires=Requirements(torch="")
    )
    busy_check = ValueCheck(id="b", part="a", points=1, func="f", expected=lambda: 1)
    exercise = Exercise(
        id="xx", module="xx_mod", title_zh="x", title_en="x", checks=(torch_check, busy_check)
    )
    monkeypatch.setattr("grader.batch.remaining.installed_torch_version", lambda: None)
    monkeypatch.setattr(
        "grader.batch.remaining.unmet_reason",
        lambda req, lang: "needs torch" if req.torch is not None else None,
    )
    assert kind_of(exercise, torch_check, config) == ("torch", "needs torch")
    assert kind_of(exercise, busy_check, config)[0] == "busy"
    lines = deferred_lines(
        [("ann", "xx", "t", 1.0), ("ann", "xx", "b", 1.0), ("ben", "xx", "b", 1.0)],
        [exercise],
        config,
        "g",
        True,
    )
    assert lines[0] == "still deferred after the retry: 3 checks of 2 students, 3 points, by reason:"
    assert lines[1].startswith("  - needs torch: 1 check of xx, 1 student (ann). No retry on this machine")
    assert "pip install" in lines[1]
    assert lines[2].startswith("  - the machine was too busy") and "2 students (ann, ben)" in lines[2]
    assert "A retry can decide them" in lines[2] and "once the machine is quieter" in lines[2]
    assert deferred_lines([], [exercise], config, "g", True) == [
        "nothing is deferred any more: every check of every student is decided."
    ]
    assert deferred_lines([], [exercise], config, "g", False) == []
    zh = deferred_lines([("ann", "xx", "b", 1.0)], [exercise], BatchConfig(lang="zh"), "g", True)
    assert zh[0].startswith("重评之后仍暂缓计分") and "--retry-deferred" in zh[1]
