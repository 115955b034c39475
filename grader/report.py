"""Reporting outcomes: the terminal score table and Gradescope's results.json.

``score_table`` gives the lines of the table students read at the end of ``pytest exercises/`` (each
check's part, state and points, a total per exercise and overall, deferred points listed apart).
``gradescope_results`` builds the dict Gradescope's autograder expects (top level ``score``,
``max_score``, ``execution_time``, ``output``, ``visibility``, ``stdout_visibility``, ``extra_data``,
``tests``; each test ``name``, ``number``, ``score``, ``max_score``, ``status``, ``output``, ``tags``,
``visibility``), so a course can upload it as is. Under the ``defer`` policy a deferred check appears with
``max_score`` 0 and an output saying why; Gradescope would infer "passed" for 0/0, and so do we.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import os
import platform
import sys
import tempfile
import unicodedata
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any

from perfcore.measure.machine import cpu_model

from .messages import render
from .outcome import Outcome, totals


def fmt_points(x: float) -> str:
    """``2`` for 2.0, ``1.5`` for 1.5."""
    return f"{x:.0f}" if float(x).is_integer() else f"{x:.4g}"


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _width(text))


def state_label(state: str, lang: str) -> str:
    return render(f"state_{state}", lang)


def _groups(outcomes: Iterable[Outcome]) -> OrderedDict[tuple[str, str], list[Outcome]]:
    groups: OrderedDict[tuple[str, str], list[Outcome]] = OrderedDict()
    for o in sorted(outcomes, key=Outcome.sort_key):
        groups.setdefault((o.source, o.exercise), []).append(o)
    return groups


def score_table(outcomes: Sequence[Outcome], lang: str = "zh", deferred: str = "defer") -> list[str]:
    """The score table's lines (no title bar): one row per check, totals, then the deferred checks."""
    header = [
        render(k, lang)
        for k in ("table_exercise", "table_part", "table_check", "table_state", "table_points")
    ]
    rows: list[list[str]] = []
    group_totals: list[tuple[str, str]] = []
    for (source, exercise), items in _groups(outcomes).items():
        for o in items:
            mark = "*" if o.deferred else ""
            shown_max = fmt_points(o.counted_max(deferred))
            rows.append(
                [
                    o.exercise,
                    o.part,
                    o.check_id,
                    state_label(o.state, lang) + mark,
                    f"{fmt_points(o.points)} / {shown_max}",
                ]
            )
        t = totals(items, deferred)
        title = items[0].title
        label = f"{exercise} {title}".strip() + (f" ({source})" if source else "")
        group_totals.append((label, f"{fmt_points(t.score)} / {fmt_points(t.max_score)}"))
    widths = [max(_width(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(_pad(cell, w) for cell, w in zip(header, widths, strict=True)).rstrip()]
    lines += ["  ".join(_pad(cell, w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    lines.append("-" * max(_width(lines[0]), 40))
    label_width = max([_width(label) for label, _ in group_totals] + [_width(render("table_total", lang))])
    for label, points in group_totals:
        lines.append(f"{_pad(label, label_width)}  {points}")
    overall = totals(outcomes, deferred)
    lines.append(
        f"{_pad(render('table_total', lang), label_width)}  "
        f"{fmt_points(overall.score)} / {fmt_points(overall.max_score)}"
    )
    deferred_items = [o for o in sorted(outcomes, key=Outcome.sort_key) if o.deferred]
    if deferred_items:
        key = "table_deferred" if deferred == "defer" else "table_deferred_zero"
        lines.append(f"* {render(key, lang)}: {fmt_points(overall.deferred_points)}")
        for o in deferred_items:
            lines.append(f"  {o.name} ({fmt_points(o.max_points)}): {o.message}")
    return lines


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def gpu_name() -> str:
    """The GPU torch works on (the current device, as the measurements do), or "none" (torch is only
    imported when installed)."""
    if _version("torch") is None:
        return "none"
    try:
        import torch

        if torch.cuda.is_available():
            return torch.cuda.get_device_name(torch.cuda.current_device())
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            return "Apple MPS"
    except Exception as exc:  # a broken CUDA install should not lose the results
        return f"unknown ({type(exc).__name__})"
    return "none"


def environment() -> dict[str, Any]:
    """What the grade was measured on: CPU, GPU, Python, torch, numpy, platform."""
    return {
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "gpu": gpu_name(),
        "python": platform.python_version(),
        "torch": _version("torch"),
        "numpy": _version("numpy"),
        "perfkit": _version("perfkit"),
        "platform": platform.platform(),
        "python_implementation": sys.implementation.name,
    }


def gradescope_test(o: Outcome, lang: str = "zh", deferred: str = "defer") -> dict[str, Any]:
    """One entry of ``tests[]``."""
    max_score = o.counted_max(deferred)
    return {
        "name": f"{o.name} ({o.title})" if o.title else o.name,
        "number": o.number,
        "score": float(o.points),
        "max_score": float(max_score),
        "status": "passed" if o.passed or (o.deferred and max_score == 0) else "failed",
        "output": f"[{state_label(o.state, lang)}] {o.message}",
        "tags": [o.exercise, f"part {o.part}", o.kind or "check", o.state],
        "visibility": o.visibility,
        # the comparison's parts as fields beside the prose (Gradescope keeps extra keys as they are)
        "extra_data": {"state": o.state, **(dict(o.details) if o.details else {})},
    }


def gradescope_results(
    outcomes: Sequence[Outcome],
    lang: str = "zh",
    deferred: str = "defer",
    execution_time: float = 0.0,
    env: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Gradescope's results.json as a dict (see the module docstring)."""
    t = totals(outcomes, deferred)
    table = (
        "\n".join(score_table(outcomes, lang, deferred)) if outcomes else render("report_no_exercise", lang)
    )
    return {
        "score": t.score,
        "max_score": t.max_score,
        "execution_time": round(float(execution_time), 3),
        "output": table,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {
            "environment": env if env is not None else environment(),
            "deferred_policy": deferred,
            "deferred_points": t.deferred_points,
            "deferred": [o.name for o in outcomes if o.deferred],
            "lang": lang,
        },
        "tests": [gradescope_test(o, lang, deferred) for o in sorted(outcomes, key=Outcome.sort_key)],
    }


#: What a spreadsheet reads as the start of a formula (OWASP's CSV injection list): a cell (a student's
#: folder name) that begins so is written with a leading apostrophe, which spreadsheets show as text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_text(cell: str) -> str:
    """``cell`` as grades.csv writes it: never a formula a spreadsheet would evaluate. Spreadsheets skip
    leading blanks before they look for a formula (``" =1+1"`` is evaluated), so the start is looked for
    past any leading whitespace, the tab and CR being formula starts themselves."""
    formula = cell.startswith(FORMULA_STARTS) or cell.lstrip().startswith(FORMULA_STARTS)
    return "'" + cell if formula else cell


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` by replacing it: a new file beside it, then ``os.replace``. A link planted
    at ``path`` is replaced, never followed, so a report cannot be steered to a file elsewhere."""
    target = os.path.abspath(os.fspath(path))
    directory = os.path.dirname(target)
    os.makedirs(directory, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=".perfkit-", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_json(path: str | os.PathLike[str], data: dict[str, Any]) -> None:
    """Write ``data`` as UTF-8 JSON (Chinese kept readable), creating the folder (see :func:`write_text`)."""
    write_text(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")
