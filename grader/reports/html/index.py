"""The instructor's index of a batch: every student's standing, ranked, with a link to their page; a
histogram of the percentages; each check's outcomes over the class. The numbers are
:mod:`grader.reports.classview`'s; this module only lays them out, as :mod:`grader.reports.html.page` does
a student's page (whose document, style and cells it shares).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...results.outcome import STATES
from ...text.catalogue import render
from ...text.report import STATE_SIGNS
from ..classview import (
    Cell,
    CheckCounts,
    GridRow,
    Standing,
    Students,
    check_counts,
    exercises_of,
    grid,
    standings,
)
from ..files import fmt_percent
from ..table import fmt_points, state_label
from . import plots
from .page import anchor, context, document, esc, figure_html, header, labels_note, words


def _head(columns: Sequence[tuple[str, str]], lang: str) -> str:
    """Column headings from their keys, each with its English beside it on a page in another language."""
    return "".join(f'<th scope="col"{cls}>{words(key, lang)}</th>' for key, cls in columns)


def _standing_row(s: Standing, pages: Mapping[str, str], lang: str) -> str:
    link = pages.get(s.name)
    cell = (
        f'<a href="{esc(link)}" aria-label="{esc(render("open_page", lang, name=s.name))}">{esc(link)}</a>'
        if link
        else ""
    )
    tt = s.totals
    return (
        f'<tr data-student="{esc(s.name)}"><td class="num" data-rank="{s.rank}">{s.rank}</td>'
        f'<th scope="row" class="name">{esc(s.name)}</th>'
        f'<td class="num" data-percent="{"" if s.share is None else f"{s.share:g}"}">'
        f"{fmt_percent(s.share) or '-'}</td>"
        f'<td class="num" data-score="{tt.score:g}">{fmt_points(tt.score)}</td>'
        f'<td class="num" data-max="{tt.max_score:g}">{fmt_points(tt.max_score)}</td>'
        f'<td class="num" data-deferred="{tt.deferred_points:g}">{fmt_points(tt.deferred_points)}</td>'
        f"<td>{cell}</td></tr>"
    )


def _students_section(
    ranked: Sequence[Standing], pages: Mapping[str, str], lang: str, ctx: plots.Context | None
) -> list[str]:
    """The students ranked by percentage (two students' maxima differ where one had checks deferred), and
    the histogram of the percentages."""
    head = _head(
        (
            ("rank", ' class="num"'),
            ("student", ""),
            ("percent", ' class="num"'),
            ("table_points", ' class="num"'),
            ("max", ' class="num"'),
            ("deferred_points", ' class="num"'),
            ("page", ""),
        ),
        lang,
    )
    rows = "".join(_standing_row(s, pages, lang) for s in ranked)
    body = [f'<section id="students"><h2>{words("students", lang)}</h2>']
    body.append(
        f'<div class="scroll"><table><caption>{words("students_ranked", lang)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>"
    )
    shares = [s.share for s in ranked if s.share is not None]
    if shares:
        body.append(f"<h3>{words('histogram_percent', lang)}</h3>")
        body.append(labels_note(ctx, lang))
        if ctx is None:
            body.append(f'<p class="note">{esc(render("no_plots_matplotlib", lang))}</p>')
        else:
            try:
                plot = plots.histogram_plot(shares, ctx)
            except Exception as exc:  # noqa: BLE001 - the table holds the same numbers
                body.append(figure_html(render("plot_failed", lang, error=repr(exc)), ctx))
            else:
                if plot is not None:
                    body.append(figure_html(plot, ctx, "drawn_caption"))
    body.append("</section>")
    return body


def _check_row(c: CheckCounts) -> str:
    cells = "".join(
        f'<td class="num" data-state="{s}" data-count="{c.counts[s]}">{c.counts[s]}'
        + (
            f' <span class="bar" style="width:{round(3 * c.counts[s] / c.students, 2)}rem" aria-hidden="true"></span>'
            if c.students and c.counts[s]
            else ""
        )
        + "</td>"
        for s in STATES
    )
    shown = "-" if c.mean is None else f"{c.mean:.2f}"
    return (
        f'<tr data-check="{esc(c.name)}"><th scope="row" class="name">{esc(c.name)}</th>{cells}'
        f'<td class="num" data-graded="{c.graded}">{c.graded} / {c.students}</td>'
        f'<td class="num" data-mean="{"" if c.mean is None else f"{c.mean:g}"}">'
        f"{shown} / {fmt_points(c.max_points)}</td></tr>"
    )


def _distribution_section(rows: Sequence[CheckCounts], lang: str) -> str:
    """For every check, the number of students in each state and the mean points of those graded on it
    (a deferred check is left out, and the number graded shown)."""
    state_heads = "".join(
        f'<th scope="col" class="num" data-state="{s}"><span aria-hidden="true">{STATE_SIGNS[s]}</span> '
        f"{esc(state_label(s, lang))}</th>"
        for s in STATES
    )
    head = (
        f'<th scope="col">{words("table_check", lang)}</th>{state_heads}'
        f'<th scope="col" class="num">{words("graded_students", lang)}</th>'
        f'<th scope="col" class="num">{words("mean_points_graded", lang)}</th>'
    )
    return (
        f'<section id="distribution"><h2>{words("distribution", lang)}</h2>'
        f'<div class="scroll"><table class="checks"><caption>{words("distribution_caption_graded", lang)}'
        f"</caption><thead><tr>{head}</tr></thead><tbody>{''.join(_check_row(c) for c in rows)}</tbody></table>"
        "</div></section>"
    )


def _grid_class(cell: Cell) -> str:
    """The cell's shade, beside its number and marks (never colour alone)."""
    if not cell.attempted or cell.share is None:
        return "g-none"
    return "g-full" if cell.share >= 100 else "g-part" if cell.share >= 50 else "g-low"


def _grid_cell(name: str, cell: Cell | None, page: str | None, lang: str) -> str:
    if cell is None:
        return '<td class="g-none" data-percent="">—</td>'
    shown = "○" if not cell.attempted else fmt_percent(cell.share) or "—"
    if cell.deferred:
        shown += "*"
    more = render("grid_cell_deferred", lang, n=cell.deferred) if cell.deferred else ""
    if not cell.attempted:
        more += render("grid_cell_not_attempted", lang)
    score, most = fmt_points(cell.score), fmt_points(cell.max_score)
    label = render("grid_cell", lang, name=name, exercise=cell.exercise, score=score, max=most, deferred=more)
    inner = esc(shown)
    if page:
        link = f"{page}#{anchor(cell.source, cell.exercise)}"
        inner = f'<a href="{esc(link)}" title="{esc(label)}" aria-label="{esc(label)}">{inner}</a>'
    else:
        inner = f'<span title="{esc(label)}">{inner}</span>'
    return (
        f'<td class="{_grid_class(cell)}" data-exercise="{esc(cell.exercise)}" '
        f'data-percent="{"" if cell.share is None else f"{cell.share:g}"}" data-score="{cell.score:g}" '
        f'data-max="{cell.max_score:g}" data-deferred="{cell.deferred}" '
        f'data-attempted="{str(cell.attempted).lower()}">{inner}</td>'
    )


def _grid_section(
    rows: Sequence[GridRow],
    exercises: Sequence[str],
    titles: Mapping[str, str],
    pages: Mapping[str, str],
    lang: str,
) -> str:
    """The student × exercise grid, first: a student's row says where they stopped. It scrolls inside its
    own box where the screen is narrower than it, the student's name kept in view."""
    head = f'<th scope="col">{words("student", lang)}</th>'
    head += f'<th scope="col" class="num">{words("grid_total", lang)}</th>'
    head += "".join(
        f'<th scope="col" data-exercise="{esc(e)}" title="{esc(titles.get(e, e))}">{esc(e)}</th>'
        for e in exercises
    )
    body = []
    for row in rows:
        total = fmt_percent(row.share) or "—"
        cells = "".join(_grid_cell(row.name, row.cells.get(e), pages.get(row.name), lang) for e in exercises)
        body.append(
            f'<tr data-student="{esc(row.name)}"><th scope="row">{esc(row.name)}</th>'
            f'<td class="num" data-percent="{"" if row.share is None else f"{row.share:g}"}">{total}</td>'
            f"{cells}</tr>"
        )
    return (
        f'<section id="grid"><h2>{words("grid_heading", lang)}</h2>'
        f'<p class="meta" data-legend="grid">{words("grid_legend", lang)}</p>'
        f'<div class="scroll" data-scroll="grid"><table class="grid"><caption>{words("grid_caption", lang)}'
        f"</caption><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div></section>"
    )


def index_page(
    students: Students,
    checks: Sequence[str],
    pages: Mapping[str, str],
    *,
    lang: str,
    deferred: str,
    when: str,
) -> str:
    """The instructor's page: each student's total and percentage (their score over the maximum counted
    for them), ranked by it, with a link to their page; a histogram of the percentages; and for every check
    the number of students in each state and the mean points of those graded on it (a deferred check is
    left out, and the number graded shown)."""
    title = render("index_title", lang)
    ctx = context(lang, when)
    machine = ctx.machine if ctx is not None else plots.machine_label()
    body = [*header("index_title", lang, when, machine), "<main>"]
    if not students:
        body.append(f"<p>{esc(render('no_students', lang))}</p>")
    else:
        titles = {o.exercise: f"{o.exercise} {o.title}".strip() for _, items in students for o in items}
        exercises = exercises_of(students, checks)
        body.append(_grid_section(grid(students, deferred), exercises, titles, pages, lang))
    body += _students_section(standings(students, deferred), pages, lang, ctx)
    body.append(_distribution_section(check_counts(students, checks), lang))
    body.append("</main>\n")
    return document(title, "\n".join(body), lang)
