"""The overhead plot (m5b): the student's curve of seconds per call against size and perfcore's, log-log,
with the fixed-overhead floor (perfcore's fastest call) marked; the legend under the axes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ...results.outcome import Outcome
from ...text.catalogue import render
from .drawing import (
    CEILING,
    PERFCORE,
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
from .figures import measured, median_curve
from .numbers import format_number


def points_text(points: Iterable[tuple[float, float]], x_unit: str, y_unit: str) -> str:
    """``(16, 1.2 µs), (256, 3.4 µs)``: a curve's points for an alt text, in the report's number format."""
    return ", ".join(f"({format_number(x, x_unit)}, {format_number(y, y_unit)})" for x, y in points) or "-"


def overhead_plot(outcomes: Sequence[Outcome], ctx: Context) -> Plot | None:
    """The student's overhead curve and perfcore's, log-log, with perfcore's fixed-overhead floor marked."""
    curves = []
    for o in outcomes:
        m = measured(o)
        if m.get("shape") == "overhead":
            curves.append((o.check_id, median_curve(m.get("mine")), median_curve(m.get("reference"))))
    curves = [c for c in curves if c[1] or c[2]]
    if not curves:
        return None
    fig, ax = figure(7.6, 4.0)
    floor = None
    for check_id, mine, ref in curves:
        for points, who, style, line in (
            (mine, words(ctx, "plot_yours"), YOURS, "-"),
            (ref, words(ctx, "plot_perfcore"), PERFCORE, "--"),
        ):
            if points:
                ax.plot(
                    [x for x, _ in points],
                    [y for _, y in points],
                    line,
                    marker=style["marker"],
                    color=style["color"],
                    label=f"{check_id}: {who}",
                    gid=f"data-{check_id}-{'yours' if style is YOURS else 'perfcore'}",
                )
        if ref:
            floor = min(y for _, y in ref) if floor is None else min(floor, *(y for _, y in ref))
    if floor is not None:
        ax.axhline(
            floor,
            color=CEILING["color"],
            ls=":",
            lw=1.2,
            label=words(ctx, "plot_fixed_overhead", floor=format_number(floor, "s")),
            gid="data-floor",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(words(ctx, "plot_elements"))
    ax.set_ylabel(words(ctx, "plot_seconds_per_call"))
    ax.set_title(words(ctx, "plot_overhead_title"), fontsize=TITLE, loc="left")
    legend_below(ax, ncol=2)
    style_axes(ax, x_unit="", y_unit="s")
    desc = render(
        "desc_overhead",
        ctx.lang,
        floor=format_number(floor, "s"),
        mine=points_text([p for c in curves for p in c[1]], "", "s"),
        reference=points_text([p for c in curves for p in c[2]], "", "s"),
    )
    return svg_of(fig, render("alt_overhead", ctx.lang), desc, ctx)
