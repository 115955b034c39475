"""The roofline plot (m2): the student's sweep and perfcore's on this machine's measured roofs, beside the
H100's FP32 roofline with the same operations (the sweep's intensities) placed on it; m2a's FLOP/s at its
intensity as single points.

A sweep's points sit where its working set sits: the plot shades the range of intensities each level of
the memory holds (:mod:`grader.reports.html.roofs`: the machine's own cache sizes, the check's own sizes),
names the level above it, and draws the measured roof of every level the sweep touches, and DRAM's (the
profile's ceiling). A touched level the profile has no bandwidth for gets a legend line saying so, so that
points above the DRAM roof read as what they are: in a cache, not faster than the machine.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from perfcore.roofline import attainable_flops
from perfcore.specs import as_gpu

from ...results.outcome import Outcome
from ...text.catalogue import render
from .drawing import (
    PERFCORE,
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
from .figures import measured, median_curve, median_of, number
from .numbers import format_bytes, format_number
from .roofs import DRAM, LevelRange, level_at, level_ranges, sweep_of

#: The GPU whose roofline stands beside the machine's, and the precision of the CPU's measured operations.
GPU = "H100"
GPU_DTYPE = "fp32"
#: Each level's shade behind the points and the dashes of its roof.
SHADES = {"L1": "#e6f2e6", "L2": "#fbeed3", "L3": "#e1ecf8", DRAM: "#efe4f3"}
DASHES = {"L1": ":", "L2": "-.", "L3": "--", DRAM: "-"}
#: The narrowest shaded range (a share of the axis' width) whose level is also named above the axes.
NAMED = 0.08


def _grid(low: float, high: float) -> list[float]:
    return [low * (high / low) ** (i / 200) for i in range(201)]


def sweep_levels(outcomes: Sequence[Outcome], ctx: Context) -> list[LevelRange]:
    """The levels the sweeps of ``outcomes`` touch, from their checks' inputs and the machine's caches."""
    found: dict[str, LevelRange] = {}
    for o in outcomes:
        if measured(o).shape != "roofline":
            continue
        sweep = sweep_of(ctx.inputs.get(o.name))
        if sweep is not None:
            for r in level_ranges(sweep, ctx.roofs):
                found.setdefault(r.level, r)
    return list(found.values())


def _shade(ax: Any, ranges: Sequence[LevelRange], low: float, high: float, ctx: Context) -> list[Any]:
    """Each touched level's range of intensities shaded and named above the axes where it is wide enough;
    the legend's entries for them."""
    from matplotlib.patches import Patch  # deferred on purpose: the optional plot extra

    span = math.log(high / low)
    sizes = dict(ctx.roofs.caches)
    handles = []
    for r in ranges:
        left, right = max(r.low, low), min(r.high, high)
        if right <= left:
            continue
        shade = SHADES.get(r.level, "#eeeeee")
        ax.axvspan(left, right, color=shade, zorder=0, lw=0)
        if math.log(right / left) / span >= NAMED:
            ax.annotate(
                r.level,
                (math.sqrt(left * right), 1.0),
                xycoords=("data", "axes fraction"),
                xytext=(0, 3),
                textcoords="offset points",
                ha="center",
                va="bottom",
                fontsize=SMALLEST,
                annotation_clip=False,
            )
        held = "–".join(dict.fromkeys(format_bytes(s) for s in r.working_sets))
        ms = f"{r.ms[0]}…{r.ms[-1]}" if len(r.ms) > 1 else str(r.ms[0])
        size = sizes.get(r.level)
        key = "plot_level_range" if size else "plot_level_range_dram"
        label = words(ctx, key, level=r.level, ms=ms, sizes=held, size=format_bytes(size) if size else "")
        handles.append(Patch(color=shade, label=label))
    return handles


def _roofs(
    ax: Any, levels: Sequence[str], low: float, high: float, ctx: Context
) -> tuple[list[Any], list[str]]:
    """The measured roof of each of ``levels`` and DRAM's; the legend's entries, and the levels without a
    measured bandwidth."""
    from matplotlib.lines import Line2D  # deferred on purpose: the optional plot extra

    roofs = ctx.roofs
    handles: list[Any] = []
    missing: list[str] = []
    if roofs.peak_flops is None:
        return handles, missing
    peak = roofs.peak_flops
    # the peak is every roof's flat top: its legend entry shows that line, not an entry without a sample
    handles.append(
        Line2D(
            [], [], color="black", lw=1.3, label=words(ctx, "plot_peak", peak=format_number(peak, "FLOP/s"))
        )
    )
    grid = _grid(low, high)
    for level in dict.fromkeys([*levels, DRAM]):
        bw = roofs.bandwidths.get(level)
        if bw is None:
            missing.append(level)
            continue
        (line,) = ax.plot(
            grid,
            [min(peak, x * bw) for x in grid],
            ls=DASHES.get(level, "-"),
            color="black",
            lw=1.6 if level == DRAM else 1.3,
            gid=f"data-roof-{level}",
            label=words(
                ctx,
                "plot_level_roof",
                level=level,
                bw=format_number(bw, "B/s"),
                ridge=format_number(peak / bw, "FLOP/B"),
            ),
        )
        handles.append(line)
    for level in missing:
        handles.append(Line2D([], [], ls="none", label=words(ctx, "plot_roof_missing", level=level)))
    return handles, missing


def _machine_axes(
    ax: Any,
    mine: list[tuple[float, float]],
    ref: list[tuple[float, float]],
    singles: list[tuple[str, float, float | None, float | None]],
    ranges: list[LevelRange],
    ctx: Context,
) -> tuple[list[Any], list[str]]:
    """The left axes: the sweeps on this machine's roofs, each level's range shaded; the legend's entries,
    and the levels touched that the profile has no bandwidth for."""
    xs = [x for x, _ in mine + ref] + [s[1] for s in singles]
    low, high = min(xs) / 4, max(xs) * 4
    for level in {r.level for r in ranges} | {DRAM}:  # the ridges of the roofs drawn stand inside
        bw = ctx.roofs.bandwidths.get(level)
        if bw is not None and ctx.roofs.peak_flops is not None:
            ridge = ctx.roofs.peak_flops / bw
            low, high = min(low, ridge / 8), max(high, ridge * 8)
    handles = _shade(ax, ranges, low, high, ctx)
    roof_handles, missing = _roofs(ax, [r.level for r in ranges], low, high, ctx)
    handles = roof_handles + handles
    for points, who, style, line in (
        (mine, "yours", YOURS, "-"),
        (ref, "perfcore", PERFCORE, "--"),
    ):
        if points:
            (drawn,) = ax.plot(
                [x for x, _ in points],
                [y for _, y in points],
                line,
                marker=style["marker"],
                color=style["color"],
                ms=5,
                lw=1,
                gid=f"data-sweep-{who}",
                label=words(ctx, "plot_your_sweep" if who == "yours" else "plot_perfcore_sweep"),
            )
            handles.append(drawn)
    for check_id, intensity, mine_rate, ref_rate in singles:
        for value, style, who in ((mine_rate, YOURS, "yours"), (ref_rate, PERFCORE, "perfcore")):
            if value is not None:
                handles.append(
                    ax.scatter(
                        [intensity],
                        [value],
                        marker={"yours": "D", "perfcore": "P"}[who],  # the shape tells them apart too
                        s=40,
                        color=style["color"],
                        zorder=3,
                        label=f"{check_id} ({words(ctx, f'plot_{who}')})",
                    )
                )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(low, high)
    ax.set_xlabel(words(ctx, "plot_intensity"))
    ax.set_ylabel("FLOP/s")
    title = "plot_this_machine" if ctx.roofs.peak_flops is not None else "plot_no_ceilings"
    ax.set_title(words(ctx, title), fontsize=TITLE, loc="left", pad=16)
    style_axes(ax, x_unit="", y_unit="FLOP/s")
    return handles, missing


def _gpu_axes(ax: Any, ops: list[float], ctx: Context) -> list[tuple[float, float]]:
    """The right axes: the same operations on the H100's FP32 roofline; where they land."""
    spec = as_gpu(GPU)
    gpeak, gbw = spec.peak(GPU_DTYPE), spec.hbm_bytes_per_s
    glow, ghigh = min(ops + [gpeak / gbw]) / 8, max(ops + [gpeak / gbw]) * 8
    grid = _grid(glow, ghigh)
    ax.plot(
        grid,
        [min(gpeak, x * gbw) for x in grid],
        "-",
        color="black",
        lw=1.6,
        gid="data-roof-gpu",
        label=words(
            ctx,
            "plot_gpu_roof",
            gpu=f"{spec.name} {GPU_DTYPE}",
            peak=format_number(gpeak, "FLOP/s"),
            bw=format_number(gbw, "B/s"),
            ridge=format_number(gpeak / gbw, "FLOP/B"),
        ),
    )
    placed = [(x, float(attainable_flops(x, gpeak, gbw))) for x in ops]
    ax.scatter(
        [x for x, _ in placed],
        [y for _, y in placed],
        marker="o",
        s=30,
        color=YOURS["color"],
        zorder=3,
        label=words(ctx, "plot_same_ops"),
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(glow, ghigh)
    ax.set_xlabel(words(ctx, "plot_intensity"))
    ax.set_ylabel(words(ctx, "plot_attainable"))
    ax.set_title(words(ctx, "plot_gpu_roofline", gpu=spec.name), fontsize=TITLE, loc="left", pad=16)
    style_axes(ax, x_unit="", y_unit="FLOP/s")
    return placed


def _points_text(points: Sequence[tuple[float, float]], ranges: Sequence[LevelRange]) -> str:
    """``(0.5, 2.1 GFLOP/s, L3), ...``: a sweep's points, each with its level where one is known."""
    items = []
    for x, y in points:
        level = level_at(x, ranges) if ranges else None
        items.append(f"({format_number(x)}, {format_number(y, 'FLOP/s')}{f', {level}' if level else ''})")
    return ", ".join(items) or "-"


def roofline_plot(outcomes: Sequence[Outcome], ctx: Context) -> Plot | None:
    """The student's sweep and perfcore's on this machine's roofs, beside the H100's with the same ops."""
    mine: list[tuple[float, float]] = []
    ref: list[tuple[float, float]] = []
    singles = []  # FLOP/s checks with an intensity (m2a's matmul)
    for o in outcomes:
        m = measured(o)
        intensity = number(m.intensity)  # the student's record: any value may be odd
        if m.shape == "roofline":
            mine += median_curve(m.mine)
            ref += median_curve(m.reference)
        elif m.unit == "FLOP/s" and intensity is not None:
            singles.append((o.check_id, intensity, median_of(m.mine), median_of(m.reference)))
    if not (mine or ref or singles):
        return None
    ranges = sweep_levels(outcomes, ctx)
    fig, (left, right) = figure(10.4, 4.4, ncols=2)
    handles, missing = _machine_axes(left, mine, ref, singles, ranges, ctx)
    # the operations are the check's (perfcore's sweep where there is one: a student's intensities may be
    # the mistake), placed where the H100's roofline says they would run
    ops = sorted({x for x, _ in (ref or mine)} | {s[1] for s in singles})
    placed = _gpu_axes(right, ops, ctx)
    fig.tight_layout(w_pad=3)
    legend_below(left, handles, [h.get_label() for h in handles])  # under the laid-out axes
    legend_below(right)
    roofs = ctx.roofs
    if roofs.peak_flops is not None:
        drawn = [f"{level} {format_number(bw, 'B/s')}" for level, bw in roofs.bandwidths.items()]
        peak = format_number(roofs.peak_flops, "FLOP/s")
        roof_text = render("desc_roofs", ctx.lang, peak=peak, roofs=", ".join(drawn))
    else:
        roof_text = render("desc_no_profile", ctx.lang)
    if ranges:
        items = "; ".join(
            render("desc_level", ctx.lang, level=r.level, ms=", ".join(map(str, r.ms))) for r in ranges
        )
        levels = render("desc_levels", ctx.lang, items=items)
    else:
        levels = render("desc_levels_unknown", ctx.lang)
    if missing and roofs.peak_flops is not None:
        levels += " " + render("desc_roofs_missing", ctx.lang, levels=", ".join(missing))
    single_points = [(s[1], s[2]) for s in singles if s[2] is not None]
    desc = render(
        "desc_roofline",
        ctx.lang,
        roofs=roof_text,
        levels=levels,
        mine=_points_text(mine + single_points, ranges),
        reference=_points_text(ref, ranges),
        gpu=_points_text(placed, ()),
    )
    return svg_of(fig, render("alt_roofline", ctx.lang), desc, ctx)
