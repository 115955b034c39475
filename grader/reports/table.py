"""The terminal score table students read at the end of ``pytest exercises/``: each check's part, state and
points, a total per exercise and overall, deferred points listed apart, and measurements shown again from
an earlier run (``~``) listed with when they were measured.
"""

from __future__ import annotations

import unicodedata
from collections import OrderedDict
from collections.abc import Iterable, Sequence

from ..results.outcome import Outcome, totals
from ..text.catalogue import render, render_count


def fmt_points(x: float) -> str:
    """``2`` for 2.0, ``1.5`` for 1.5."""
    return f"{x:.0f}" if float(x).is_integer() else f"{x:.4g}"


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _width(text))


def state_label(state: str, lang: str) -> str:
    """A state's name as every view a person reads says it: ``skipped`` (a deferred check's state in
    grades.json, kept there for the scripts that read it) is "deferred" / "暂缓计分", the one name of it."""
    return render("state_deferred" if state in ("skipped", "deferred") else f"state_{state}", lang)


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
            mark = "*" if o.deferred else "~" if o.reused else ""
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
    reused_items = [o for o in sorted(outcomes, key=Outcome.sort_key) if o.reused]
    if reused_items:
        lines.append(f"~ {render('table_reused', lang)}:")
        for o in reused_items:
            lines.append(f"  {o.name}: {render('table_reused_at', lang, when=o.reused)}")
    return lines


def next_step(outcomes: Sequence[Outcome], files: dict[str, str], lang: str = "zh") -> str | None:
    """The line that ends a run where checks still await an answer: how many, and which file to open first
    (the first exercise, in the course's order, with a check not attempted; ``files`` maps an exercise id to
    the file a student opens for it). None once every check has an answer."""
    waiting = [o for o in outcomes if o.state == "not_attempted"]
    if not waiting:
        return None
    first = min(waiting, key=Outcome.sort_key).exercise
    return render_count("next_step", lang, len(waiting), file=files.get(first, first))
