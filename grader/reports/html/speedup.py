"""The speedup plot (m3, m4): the speedups the graded checks decided, the student's and perfcore's, as
horizontal bars beside the line of no speedup (1x); each bar's figure is written right of both its bar's end
and that line, so the line never crosses it.

A plot never says other than the checks' rows: a graded speedup check (its figures in ``x``, m3c's
``transpose_speedup``) is drawn from its own record, and then no speedup is derived from the timed checks'
seconds (measured at other inputs, their ratio is another figure than the one graded); where there is none,
the first timed check's seconds over each later one's are drawn. A deferred check's measurement was not
graded: it is never drawn, nor a speedup derived from it (a note under the plot names what is left out)."""

from __future__ import annotations

from collections.abc import Sequence

from ...results.outcome import Outcome
from ...text.catalogue import render
from .drawing import (
    PERFCORE,
    ROW,
    SMALLEST,
    TITLE,
    YOURS,
    Context,
    Plot,
    figure,
    legend_below,
    style_axes,
    svg_of,
    words,
)
from .figures import measured, median_of
from .numbers import format_number


def speedups(outcomes: Sequence[Outcome]) -> list[tuple[str, float | None, float | None]]:
    """(label, the student's speedup, perfcore's) of the graded checks (see the module docstring): the
    speedup checks' medians, or where there is none the first timed check's median seconds over each later
    one's; then the speedups the student's functions return (a shape check of one value). A deferred
    check's figures are never used."""
    graded = [o for o in outcomes if not left_out(o)]
    timed = []
    rated: list[tuple[str, float | None, float | None]] = []
    rows: list[tuple[str, float | None, float | None]] = []
    for o in graded:
        m = measured(o)
        if m.unit == "s":
            timed.append((o.check_id, median_of(m.mine), median_of(m.reference)))
        elif m.unit == "x" or m.shape == "value":
            mine, ref = median_of(m.mine), median_of(m.reference)
            if mine is not None or ref is not None:
                (rated if m.unit == "x" else rows).append((o.check_id, mine, ref))
    if rated:
        return rated + rows
    if len(timed) >= 2:
        base_id, base_mine, base_ref = timed[0]
        derived = []
        for check_id, mine, ref in timed[1:]:
            derived.append(
                (
                    f"{base_id} / {check_id}",
                    base_mine / mine if base_mine and mine else None,
                    base_ref / ref if base_ref and ref else None,
                )
            )
        rows = derived + rows
    return rows


def left_out(o: Outcome) -> bool:
    """Whether a check's measurement is kept off the plot: it was deferred, not graded."""
    return o.deferred or o.state == "skipped"


def deferred_measurements(outcomes: Sequence[Outcome]) -> list[str]:
    """The checks whose measurement the plot leaves out, deferred, by id."""
    return [o.check_id for o in outcomes if left_out(o) and o.measured is not None]


def times(value: float | None) -> str:
    """``1.5x``: a speedup in the report's number format; ``-`` where there is none."""
    return "-" if value is None else f"{format_number(value)}x"


def speedup_plot(outcomes: Sequence[Outcome], ctx: Context) -> Plot | None:
    rows = [r for r in speedups(outcomes) if r[1] is not None or r[2] is not None]
    if not rows:  # no empty axes: a speedup with neither figure draws nothing
        return None
    fig, ax = figure(7.6, 1.4 + ROW * 3 * len(rows))
    ticks = []
    for i, (_, mine, ref) in enumerate(rows):
        ticks.append(3 * i + 0.5)
        for offset, value, label, style in (
            (0, mine, words(ctx, "plot_yours"), YOURS),
            (1, ref, words(ctx, "plot_perfcore"), PERFCORE),
        ):
            if value is None:
                continue
            ax.barh(
                3 * i + offset,
                value,
                0.8,
                color=style["color"],
                hatch=style["hatch"],
                edgecolor="white" if not style["hatch"] else "black",
                label=label if i == 0 else None,
            )
            ax.annotate(
                times(value),
                (max(value, 1.0), 3 * i + offset),
                xytext=(4, 0),
                textcoords="offset points",
                ha="left",
                va="center",
                fontsize=SMALLEST,
                bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "edgecolor": "none"},
                annotation_clip=False,
            )
    ax.axvline(1.0, color="black", lw=0.8, ls=":", gid="data-no-speedup")
    ax.set_yticks(ticks, [r[0] for r in rows])
    ax.set_ylim(3 * len(rows) - 1.3, -0.7)
    top = max(v for r in rows for v in r[1:] if v is not None)
    ax.set_xlim(0, max(top, 1.0) * 1.35)  # room right of the longest bar for its figure
    ax.set_xlabel(words(ctx, "plot_speedup"))
    ax.set_title(words(ctx, "plot_speedup_title"), fontsize=TITLE, loc="left")
    legend_below(ax, ncol=2)
    style_axes(ax, x_unit="")
    ax.grid(False, axis="y")
    items = "; ".join(f"{label}: yours {times(mine)}, perfcore {times(ref)}" for label, mine, ref in rows)
    return svg_of(fig, render("alt_speedup", ctx.lang), render("desc_speedup", ctx.lang, items=items), ctx)
