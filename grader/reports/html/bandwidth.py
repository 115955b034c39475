"""The bandwidth plot: for each B/s check (m1, exercise 10, m6a), bars of the student's median, perfcore's
and the ceiling, at the check's input and at its probe (m1's in-cache copy beside its DRAM one).

The ceiling is the measured DRAM copy for a DRAM working set on the CPU, the physical bound of one core
otherwise, a GPU's own bound on a GPU. The bars lie on a log axis, so a DRAM bar stays readable beside an
in-cache bound 60 times longer, and they are horizontal, so each bar's figure is written at its end on a
row of its own, where no other label or line reaches it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ...results.measured import Measured, Probe
from ...results.outcome import Outcome
from ...text.catalogue import render
from .drawing import (
    CEILING,
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
from .figures import measured, median_of, number
from .numbers import format_number


def _groups(outcomes: Sequence[Outcome], ctx: Context) -> list[tuple[str, list[tuple[str, float | None]]]]:
    """(the input's name, [(the bar's series, B/s)]) for each check's input and probe."""
    groups = []
    for o in outcomes:
        m = measured(o)
        if m.unit != "B/s":
            continue
        device = m.device
        inputs: list[tuple[str, Measured | Probe]] = [(o.check_id, m)]
        if m.probe is not None:
            inputs.append((words(ctx, "plot_probe", check=o.check_id), m.probe))
        for name, figures in inputs:
            mine, ref = median_of(figures.mine), median_of(figures.reference)
            if mine is None and ref is None:
                continue
            kind = figures.kind
            ceiling: float | None
            if kind == "dram" and device == "cpu" and ctx.ceilings is not None:
                ceiling, what = ctx.ceilings[1], words(ctx, "plot_ceiling_dram")
            elif device == "cpu":
                ceiling, what = number(figures.bound), words(ctx, "plot_ceiling_core")
            else:  # a GPU's: its spec, or its memory clock and bus width, never the CPU's DRAM
                ceiling, what = number(figures.bound), words(ctx, "plot_ceiling_gpu")
            bars = [("yours", mine), ("perfcore", ref), (words(ctx, "plot_ceiling", what=what), ceiling)]
            groups.append((f"{name} ({kind})" if kind else name, bars))
    return groups


def bandwidth_plot(outcomes: Sequence[Outcome], ctx: Context) -> Plot | None:
    """Bars per B/s check: the student's median, perfcore's, and the ceiling of the check's working set."""
    groups = _groups(outcomes, ctx)
    if not groups:
        return None
    gpus = sorted({str(m.device_name) for m in map(measured, outcomes) if m.device_name})
    if gpus:  # measured on a GPU: the plot says which
        ctx = dataclasses.replace(ctx, machine=f"{ctx.machine}; GPU {', '.join(gpus)}")
    rows = sum(len(bars) for _, bars in groups) + len(groups)
    fig, ax = figure(7.6, 1.4 + ROW * rows)
    names = {"yours": words(ctx, "plot_yours"), "perfcore": words(ctx, "plot_perfcore")}
    ticks, tick_labels, drawn = [], [], []
    y = 0.0
    for name, bars in groups:
        ticks.append(y + (len(bars) - 1) / 2)
        tick_labels.append(name)
        for series, value in bars:
            style = {"yours": YOURS, "perfcore": PERFCORE}.get(series, CEILING)
            if value is not None:
                ax.barh(
                    y,
                    value,
                    0.8,
                    color=style["color"],
                    hatch=style["hatch"],
                    edgecolor="white" if not style["hatch"] else "black",
                    label=names.get(series, series),
                )
                ax.annotate(
                    format_number(value, "B/s"),
                    (value, y),
                    xytext=(4, 0),
                    textcoords="offset points",
                    ha="left",
                    va="center",
                    fontsize=SMALLEST,
                    bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "edgecolor": "none"},
                    annotation_clip=False,
                )
                drawn.append(value)
            y += 1
        y += 1
    ax.set_yticks(ticks, tick_labels)
    ax.set_ylim(y - 1.5, -0.7)  # the first check on top
    # a log axis: an in-cache bound (1.6 TB/s) beside DRAM copies (25 GB/s) left those bars slivers
    ax.set_xscale("log")
    ax.set_xlim(min(drawn) / 3, max(drawn) * 3)
    ax.set_xlabel(words(ctx, "plot_bandwidth_log"))
    ax.set_title(words(ctx, "plot_bandwidth_title"), fontsize=TITLE, loc="left")
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=True))
    legend_below(ax, list(unique.values()), list(unique.keys()), ncol=2)
    style_axes(ax, x_unit="B/s")
    ax.grid(False, axis="y")
    items = "; ".join(
        f"{name.split(' (')[0]}: "
        f"yours {format_number(bars[0][1], 'B/s')}, perfcore {format_number(bars[1][1], 'B/s')}, "
        f"ceiling {format_number(bars[2][1], 'B/s')}"
        for name, bars in groups
    )
    return svg_of(
        fig, render("alt_bandwidth", ctx.lang), render("desc_bandwidth", ctx.lang, items=items), ctx
    )
