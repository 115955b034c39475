"""The report's pages: one student's (scores, deferred points, every check's feedback, the plots), and what
every page shares (the document, its style, a state's cell); the instructor's index of a batch is
:mod:`grader.reports.html.index`.

A page is one self-contained HTML string: CSS in a ``<style>`` element, plots as inline SVG, no script, no
link to anything outside it but the index's relative links to the students' pages beside it. Every value
from a student (messages, figures, file names) goes through ``html.escape``. The numbers a test or a
script may want to read back are also in ``data-`` attributes (``data-score``, ``data-state``), so that
nobody has to parse the prose. String formatting is enough for pages this regular; a template engine would
add a dependency and a second language for no gain.
"""

from __future__ import annotations

import html
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...registry import load_exercises
from ...results.outcome import Outcome, totals
from ...text.catalogue import LANGS, render
from ...text.report import STATE_SIGNS
from ..table import fmt_points, state_label
from . import fonts, plots
from .numbers import format_number

#: One stylesheet for both pages; black on white, states told by sign and word as well as colour, and a
#: print layout that keeps a check's row and a plot on one sheet.
CSS = """
:root { color-scheme: light; }
body { font-family: system-ui, "Segoe UI", Roboto, "DejaVu Sans", "Noto Sans CJK SC", "Source Han Sans SC",
       "WenQuanYi Micro Hei", "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", sans-serif;
       margin: 1.5rem auto; max-width: 72rem; padding: 0 1rem; color: #111; background: #fff;
       line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; }
h2 { font-size: 1.3rem; border-bottom: 2px solid #333; margin-top: 2rem; }
h3 { font-size: 1.05rem; }
.meta { color: #333; font-size: .9rem; margin: .1rem 0; }
table { border-collapse: collapse; margin: .6rem 0 1rem; width: 100%; }
caption { text-align: left; font-weight: 600; padding: .3rem 0; }
th, td { border: 1px solid #999; padding: .3rem .5rem; text-align: left; vertical-align: top;
         overflow-wrap: anywhere; }
thead th { background: #eee; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.state { font-weight: 600; white-space: nowrap; }
.state-passed { color: #0b6b2b; } .state-wrong, .state-error, .state-timeout { color: #a4161a; }
.state-not_attempted { color: #555; } .state-skipped { color: #7a5200; }
dl.fields { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .15rem .8rem;
            margin: 0; }
dl.fields dt { font-weight: 600; } dl.fields dd { margin: 0; overflow-wrap: anywhere; }
dd code, td code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .85rem; }
pre.message { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; font-size: .8rem;
              font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
details.passed { margin: .6rem 0 1rem; } details.passed > summary { cursor: pointer; font-weight: 600;
                 color: #0b6b2b; padding: .2rem 0; }
details.passed table { margin-top: .3rem; }
figure { margin: 1rem 0; } figure svg { max-width: 100%; height: auto; display: block; }
figcaption { font-size: .85rem; color: #333; }
.bar { display: inline-block; height: .7rem; background: #1f5fa8; vertical-align: middle; }
.total { font-size: 1.2rem; font-weight: 700; }
.en { font-weight: normal; color: #333; font-size: .8em; }
.note { background: #f6f6f6; border-left: 4px solid #777; padding: .4rem .8rem; }
.scroll { overflow-x: auto; max-width: 100%; margin: .6rem 0 1rem; } .scroll > table { margin: 0; }
table.grid { width: auto; }
table.grid caption { white-space: nowrap; }
table.grid th, table.grid td, th.name { overflow-wrap: normal; word-break: keep-all; white-space: nowrap; }
table.grid td { text-align: center; padding: .25rem .45rem; font-variant-numeric: tabular-nums; }
table.grid tbody th { position: sticky; left: 0; background: #fff; }
table.grid td a { display: block; color: inherit; }
.g-full { background: #d6efdc; } .g-part { background: #fff1c2; } .g-low { background: #f7d4d6; }
.g-none { background: #eee; color: #555; }
@media print {
  body { max-width: none; margin: 0; font-size: 10pt; }
  section.exercise, figure, tr { break-inside: avoid; }
  thead th { background: #eee !important; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  a { color: inherit; text-decoration: none; }
}
"""


#: The message of a check that passed with nothing more to say, in each language.
PASSED_WORDS = frozenset(render("passed", lang) for lang in LANGS)


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def document(title: str, body: str, lang: str) -> str:
    """A whole page: the doctype, the language, the character set, the style, ``body``."""
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{"zh-CN" if lang == "zh" else "en"}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n{body}</body>\n</html>\n"
    )


def words(key: str, lang: str, **fields: Any) -> str:
    """A heading's or caption's words, escaped; on a page in another language than English the English
    follows, marked ``lang="en"``, so that a machine with no font for the page's script still reads what
    each part of the page is."""
    shown = esc(render(key, lang, **fields))
    if lang == "en":
        return shown
    return f'{shown} <span class="en" lang="en">{esc(render(key, "en", **fields))}</span>'


def header(title_key: str, lang: str, when: str, machine: str, heading: str = "") -> list[str]:
    """A page's header: its title (the student or the run after it), when and where it was written, its
    language and how to have it in the other."""
    named = f": {esc(heading)}" if heading else ""
    return [
        f"<header><h1>{words(title_key, lang)}{named}</h1>",
        f'<p class="meta">{esc(render("generated", lang, when=when))}</p>',
        f'<p class="meta">{esc(render("machine", lang, machine=machine))}</p>',
        f'<p class="meta" data-lang="{esc(lang)}">{esc(render("page_lang_switch", lang))}</p></header>',
    ]


def state_cell(state: str, lang: str, deferred: bool = False) -> str:
    """A state as a sign and its name (never colour alone), its value in ``data-state`` (a deferred check's
    ``skipped``, as grades.json has it, and ``data-deferred``); a deferred check is named "deferred", as
    every view names it (:func:`grader.reports.table.state_label`)."""
    label = esc(state_label(state, lang))
    if deferred:  # the mark says what it means, and leads to the reasons
        label += f'<a href="#deferred" title="{esc(render("deferred_mark", lang))}">*</a>'
    marked = ' data-deferred="true"' if deferred else ""
    return (
        f'<td class="state state-{esc(state)}" data-state="{esc(state)}"{marked}>'
        f'<span aria-hidden="true">{STATE_SIGNS.get(state, "?")}</span> {label}</td>'
    )


def _groups(outcomes: Iterable[Outcome]) -> OrderedDict[tuple[str, str], list[Outcome]]:
    groups: OrderedDict[tuple[str, str], list[Outcome]] = OrderedDict()
    for o in sorted(outcomes, key=Outcome.sort_key):
        groups.setdefault((o.source, o.exercise), []).append(o)
    return groups


def anchor(source: str, exercise: str) -> str:
    return "ex-" + "".join(c if c.isalnum() else "-" for c in f"{exercise}-{source}").strip("-")


def _checks(outcomes: Iterable[Outcome], extra_checks: Iterable[str] = ()) -> dict[str, Any]:
    """``{exercise::check: Check}`` from the registry (the trusted checks; a check it lacks has none)."""
    try:
        exercises = load_exercises(extra_checks)
    except Exception:  # noqa: BLE001 - a page without hints is still a page
        return {}
    found = {}
    for o in outcomes:
        exercise = exercises.get(o.exercise)
        if exercise is None:
            continue
        try:
            found[o.name] = exercise.check(o.check_id)
        except (KeyError, ValueError):
            continue
    return found


def english_titles(groups: Iterable[tuple[str, str]], extra_checks: Iterable[str] = ()) -> dict[str, str]:
    """``{exercise: its English title}`` from the registry for the ``(source, exercise)`` groups of a page
    in another language (an exercise the registry lacks has none)."""
    try:
        exercises = load_exercises(extra_checks)
    except Exception:  # noqa: BLE001 - a page without them is still a page
        return {}
    return {e: exercises[e].title("en") for _, e in groups if e in exercises}


def hints(outcomes: Iterable[Outcome], lang: str, extra_checks: Iterable[str] = ()) -> dict[str, str]:
    """``{exercise::check: hint}`` from the registry (the trusted checks; a check it lacks has none)."""
    found = {}
    for name, check in _checks(outcomes, extra_checks).items():
        hint = check.hint(lang)
        if hint:
            found[name] = hint
    return found


def _measured_text(o: Outcome, lang: str) -> str | None:
    """``yours 21.3 GB/s, perfcore's 22.0 GB/s (5 rounds)`` for a check of one figure."""
    m = o.measured
    if m is None or not isinstance(m.unit, str):
        return None
    unit = m.unit
    mine, ref = plots.median_of(m.mine), plots.median_of(m.reference)
    if mine is None and ref is None:
        return None
    rounds = len(m.mine)
    return render(
        "measured_value",
        lang,
        mine=format_number(mine, unit),
        reference=format_number(ref, unit),
        rounds=rounds,
    )


def message_html(message: str) -> str:
    """A message as the page shows it: one with line breaks (a traceback, a worker's output) in a ``pre``
    that keeps them, where HTML would run its lines together; a sentence as text that wraps."""
    if "\n" in message.strip("\n"):
        return f'<pre class="message">{esc(message.strip(chr(10)))}</pre>'
    return esc(message)


def feedback_cell(o: Outcome, lang: str, hint: str | None) -> str:
    """The feedback as fields (expected, got, input, tolerance, measured, hint), then the message whole."""
    details = dict(o.details or {})
    rows = []
    for key in ("expected", "got", "input", "tolerance"):
        if details.get(key):
            rows.append((render(f"field_{key}", lang), f"<code>{esc(details[key])}</code>"))
    measured = _measured_text(o, lang)
    if measured:
        rows.append((render("field_measured", lang), esc(measured)))
    if hint and not o.passed:
        rows.append((render("field_hint", lang), esc(hint)))
    if not (o.passed and o.message.strip() in PASSED_WORDS):  # "passed." on a passed row says nothing
        rows.append((render("field_message", lang), message_html(o.message)))
    items = "".join(f'<dt data-field="{esc(k)}">{esc(k)}</dt><dd>{v}</dd>' for k, v in rows)
    return f'<td><dl class="fields">{items}</dl></td>'


def figure_html(plot: plots.Plot | str, ctx: plots.Context, key: str = "plot_caption") -> str:
    if isinstance(plot, str):
        return f'<p class="note">{esc(plot)}</p>\n'
    caption = render(key, ctx.lang, machine=ctx.machine, when=plot.when or ctx.when)
    return f"<figure>\n{plot.svg}\n<figcaption>{esc(plot.title)}. {esc(caption)}</figcaption>\n</figure>\n"


#: A numeric column's class attribute (its cells right-aligned by the style).
_NUM = ' class="num"'


def _head(columns: Sequence[tuple[str, str]], lang: str) -> str:
    """A table's column headings from their catalogue keys, each with its class attribute (or "")."""
    return "".join(f'<th scope="col"{cls}>{esc(render(key, lang))}</th>' for key, cls in columns)


def _summary_table(groups: Mapping[tuple[str, str], list[Outcome]], lang: str, deferred: str) -> str:
    head = _head((("table_exercise", ""), ("table_points", _NUM), ("deferred_points", _NUM)), lang)
    rows = []
    for (source, exercise), items in groups.items():
        tt = totals(items, deferred)
        title = f"{exercise} {items[0].title}".strip()
        rows.append(
            f'<tr data-exercise="{esc(exercise)}"><th scope="row"><a href="#{anchor(source, exercise)}">'
            f"{esc(title)}</a></th>"
            f'<td class="num" data-score="{tt.score:g}" data-max="{tt.max_score:g}">'
            f"{fmt_points(tt.score)} / {fmt_points(tt.max_score)}</td>"
            f'<td class="num">{fmt_points(tt.deferred_points)}</td></tr>'
        )
    overall = totals([o for items in groups.values() for o in items], deferred)
    rows.append(
        f'<tr><th scope="row">{esc(render("table_total", lang))}</th>'
        f'<td class="num total">{fmt_points(overall.score)} / {fmt_points(overall.max_score)}</td>'
        f'<td class="num">{fmt_points(overall.deferred_points)}</td></tr>'
    )
    return (
        f"<table><caption>{words('summary', lang)}</caption><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>\n"
    )


def _deferred_section(outcomes: Sequence[Outcome], lang: str, deferred: str) -> str:
    items = [o for o in sorted(outcomes, key=Outcome.sort_key) if o.deferred]
    body = f'<section id="deferred"><h2>{words("deferred_heading", lang)}</h2>\n'
    if not items:
        return body + f"<p>{esc(render('deferred_none', lang))}</p></section>\n"
    points = fmt_points(totals(outcomes, deferred).deferred_points)
    how = render("deferred_defer" if deferred == "defer" else "deferred_zero", lang)
    body += f"<p>{esc(render('deferred_intro', lang, points=points, how=how))}</p>\n<ul>\n"
    for o in items:
        body += (
            f'<li data-check="{esc(o.name)}"><strong>{esc(o.name)}</strong> '
            f"({fmt_points(o.max_points)}): {message_html(o.message)}</li>\n"
        )
    return body + "</ul></section>\n"


def _exercise_section(
    source: str,
    exercise: str,
    items: list[Outcome],
    lang: str,
    deferred: str,
    found_hints: Mapping[str, str],
    ctx: plots.Context | None,
    plots_note: str | None,
    title_en: str = "",
) -> str:
    tt = totals(items, deferred)
    title = f"{exercise} {items[0].title}".strip()
    out = [f'<section class="exercise" id="{anchor(source, exercise)}" data-exercise="{esc(exercise)}">']
    english = f' <span class="en" lang="en">{esc(title_en)}</span>' if lang != "en" and title_en else ""
    out.append(f"<h2>{esc(title)}{english}</h2>")
    if source:
        out.append(f'<p class="meta"><code>{esc(source)}</code></p>')
    score = f"{fmt_points(tt.score)} / {fmt_points(tt.max_score)}"
    out.append(
        f'<p class="score" data-score="{tt.score:g}" data-max="{tt.max_score:g}">'
        f"{esc(render('exercise_score', lang, score=score))}</p>"
    )
    parts = ("table_part", ""), ("table_check", ""), ("table_state", "")
    head = _head((*parts, ("table_points", _NUM), ("col_feedback", "")), lang)
    rows: dict[bool, list[str]] = {False: [], True: []}
    for o in items:
        shown_max = fmt_points(o.counted_max(deferred))
        rows[o.passed].append(
            f'<tr data-check="{esc(o.name)}"><td>{esc(o.part)}</td><th scope="row">{esc(o.check_id)}</th>'
            f"{state_cell(o.state, lang, o.deferred)}"
            f'<td class="num" data-points="{o.points:g}" data-max="{o.counted_max(deferred):g}">'
            f"{fmt_points(o.points)} / {shown_max}</td>"
            f"{feedback_cell(o, lang, found_hints.get(o.name))}</tr>"
        )
    # what still needs the student's eye first; the passed rows folded, open on a click (no script)
    if rows[False]:
        caption = words("checks_caption_open", lang, exercise=exercise)
        out.append(
            f"<table><caption>{caption}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(rows[False])}</tbody></table>"
        )
    if rows[True]:
        n = len(rows[True])
        summary = render("passed_some_folded" if rows[False] else "passed_folded", lang, n=n)
        caption = words("checks_caption_passed", lang, exercise=exercise)
        out.append(
            f'<details class="passed" data-passed="{n}"><summary>{esc(summary)}</summary>'
            f"<table><caption>{caption}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(rows[True])}</tbody></table></details>"
        )
    out.extend(_plots_part(items, lang, ctx, plots_note))
    out.append("</section>\n")
    return "\n".join(out)


def _plots_part(
    items: list[Outcome], lang: str, ctx: plots.Context | None, plots_note: str | None
) -> list[str]:
    """An exercise's plots, under their heading: a line where nothing was attempted, the note where
    matplotlib is missing, the figures of what the graded checks decided and a line naming those deferred."""
    out = []
    attempted = [o for o in items if o.state != "not_attempted"]
    if plots.measures(items) and not attempted:  # nothing of the student's to draw: say so, draw nothing
        out.append(f"<h3>{words('plots_heading', lang)}</h3>")
        out.append(
            f'<p class="note" data-plots="not-attempted">{esc(render("plots_not_attempted", lang))}</p>'
        )
    elif plots.has_measurements(attempted):
        # a plot draws only what the graded checks decided: a deferred measurement is named, not drawn
        graded = [o for o in attempted if not plots.left_out(o)]
        held = plots.deferred_measurements(attempted)
        drawn = [] if ctx is None else plots.exercise_plots(graded, ctx)
        if ctx is None or drawn or held:  # no heading over nothing (a GPU rate has no plot of its own)
            out.append(f"<h3>{words('plots_heading', lang)}</h3>")
        if ctx is None:
            out.append(f'<p class="note">{esc(plots_note or "")}</p>')
        else:
            out.extend(figure_html(p, ctx) for p in drawn)
            if held:
                left = render("plot_deferred_left_out", lang, checks=", ".join(held))
                out.append(f'<p class="note" data-plots="deferred-left-out">{esc(left)}</p>')
    return out


def context(
    lang: str, when: str, outcomes: Iterable[Outcome] = (), extra_checks: Iterable[str] = ()
) -> plots.Context | None:
    """The plots' shared context, or None where matplotlib is missing. The cached profile is read only
    where some outcome measured, since reading it imports torch; the checks' inputs (a sweep's sizes)
    come from the registry."""
    if not plots.have_matplotlib():
        return None
    outcomes = list(outcomes)
    measured = plots.has_measurements(outcomes)
    roofs = plots.measured_roofs() if measured else plots.MachineRoofs()
    inputs = {}
    if measured:
        for name, check in _checks([o for o in outcomes if o.measured], extra_checks).items():
            kwargs = getattr(check, "kwargs", None)
            if kwargs:
                inputs[name] = dict(kwargs)
    return plots.Context(
        lang=lang,
        machine=plots.machine_label(),
        when=when,
        roofs=roofs,
        labels=fonts.label_lang(lang),
        inputs=inputs,
    )


def labels_note(ctx: plots.Context | None, lang: str) -> str:
    """The sentence saying that the plots' words are English on a page in another language (no font for
    it in matplotlib's list), as a note; nothing where they are the page's own."""
    if ctx is None or ctx.labels == lang:
        return ""
    return f'<p class="note" data-plots="labels-english">{words("plots_labels_english", lang)}</p>'


def student_page(
    outcomes: Sequence[Outcome],
    *,
    lang: str,
    deferred: str,
    when: str,
    heading: str = "",
    extra_checks: Iterable[str] = (),
    notes: Sequence[str] = (),
) -> str:
    """One student's page (see the module docstring). ``heading`` names the student (a batch) or the run;
    ``notes`` are sentences shown first (an untrusted setup)."""
    title = render("page_title", lang) + (f": {heading}" if heading else "")
    ctx = context(lang, when, outcomes, extra_checks)
    note = None if ctx is not None else render("no_plots_matplotlib", lang)
    machine = ctx.machine if ctx is not None else plots.machine_label()
    tt = totals(outcomes, deferred)
    body = header("page_title", lang, when, machine, heading)
    body.insert(
        1,
        f'<p class="total" id="total" data-score="{tt.score:g}" data-max="{tt.max_score:g}" '
        f'data-deferred="{tt.deferred_points:g}">{esc(render("table_total", lang))}: '
        f"{fmt_points(tt.score)} / {fmt_points(tt.max_score)}</p>",
    )
    body.append("<main>")
    body += [f'<p class="note">{esc(n)}</p>' for n in notes]
    if plots.has_measurements(o for o in outcomes if o.state != "not_attempted"):
        body.append(labels_note(ctx, lang))
    groups = _groups(outcomes)
    if not groups:
        body.append(f"<p>{esc(render('no_outcomes', lang))}</p>")
    else:
        body.append(_summary_table(groups, lang, deferred))
        body.append(_deferred_section(outcomes, lang, deferred))
        found = hints(outcomes, lang, extra_checks)
        english = {} if lang == "en" else english_titles(groups, extra_checks)
        for (source, exercise), items in groups.items():
            body.append(
                _exercise_section(
                    source, exercise, items, lang, deferred, found, ctx, note, english.get(exercise, "")
                )
            )
    body.append("</main>\n")
    return document(title, "\n".join(body), lang)
