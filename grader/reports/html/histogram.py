"""The index page's plot: the distribution of the class's percentages (each student's score over the
maximum counted for them: totals over unequal maxima would rank a student with deferred checks wrongly)."""

from __future__ import annotations

from collections.abc import Sequence

from ...text.catalogue import render
from ..files import fmt_percent
from .drawing import TITLE, YOURS, Context, Plot, figure, style_axes, svg_of, words


def histogram_plot(percents: Sequence[float], ctx: Context) -> Plot | None:
    """The distribution of the class's percentages (the index page), in bins of 10 from 0 to 100."""
    if not percents:
        return None
    fig, ax = figure(6.4, 3.0)
    ax.hist(
        [min(max(p, 0.0), 100.0) for p in percents],
        bins=10,
        range=(0, 100),
        color=YOURS["color"],
        edgecolor="white",
    )
    ax.set_xlim(0, 100)
    ax.set_xlabel(words(ctx, "plot_percent"))
    ax.set_ylabel(words(ctx, "plot_students"))
    from matplotlib.ticker import MaxNLocator  # deferred on purpose: the optional plot extra

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # students come whole
    ax.set_title(words(ctx, "plot_percent_title"), fontsize=TITLE, loc="left")
    style_axes(ax, x_unit="", y_unit="")
    shown = ", ".join(f"{fmt_percent(p)}%" for p in sorted(percents))
    desc = render("desc_histogram_percent", ctx.lang, n=len(percents), scores=shown)
    return svg_of(fig, render("alt_histogram_percent", ctx.lang), desc, ctx)
