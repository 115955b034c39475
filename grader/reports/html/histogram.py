"""The index page's plot: the distribution of the class's totals."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ...text.catalogue import render
from ..table import fmt_points
from .drawing import TITLE, YOURS, Context, Plot, figure, style_axes, svg_of, words


def histogram_plot(scores: Sequence[float], max_score: float, ctx: Context) -> Plot | None:
    """The distribution of the class's totals (the index page)."""
    if not scores:
        return None
    fig, ax = figure(6.4, 3.0)
    top = max([max_score, *scores, 1.0])
    bins = min(20, max(5, int(math.ceil(top))))
    ax.hist(scores, bins=bins, range=(0, top), color=YOURS["color"], edgecolor="white")
    ax.set_xlabel(words(ctx, "plot_total_score"))
    ax.set_ylabel(words(ctx, "plot_students"))
    from matplotlib.ticker import MaxNLocator  # deferred on purpose: the optional plot extra

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # students come whole
    ax.set_title(words(ctx, "plot_totals_title"), fontsize=TITLE, loc="left")
    style_axes(ax, x_unit="", y_unit="")
    scores_text = ", ".join(fmt_points(s) for s in sorted(scores))
    desc = render("desc_histogram", ctx.lang, n=len(scores), scores=scores_text)
    return svg_of(fig, render("alt_histogram", ctx.lang), desc, ctx)
