"""The report's plots: the measurements of an exercise drawn by matplotlib as inline SVG.

This module owns which plots an exercise gets (from the kinds of its measured outcomes, so a course's own
measurement checks get them too) and how each is drawn:

- a curve of the roofline shape (m2b) and FLOP/s figures with an intensity (m2a): the student's sweep and
  perfcore's on this machine's measured roofline (the cached profile's two ceilings and their ridge),
  beside the H100's FP32 roofline with the same operations (the sweep's intensities) placed on it;
- a curve of the overhead shape (m5b): the student's and perfcore's curves, log-log, with the fixed-overhead
  floor (perfcore's fastest call) marked;
- B/s figures (m1, exercise 10, m6a): bars of the student's median, perfcore's and the ceiling, at the
  check's input and at its probe (m1's in-cache copy beside its DRAM one): the measured DRAM copy for a
  DRAM working set on the CPU, the physical bound of one core otherwise, a GPU's own bound on a GPU; on a
  log axis, so a DRAM bar stays readable beside an in-cache bound 60 times taller;
- speedups (m3, m4): the first timed check's seconds over each later one's, the student's and perfcore's,
  and the speedups the student's own functions return (m3c).

Every plot says, on itself and in its caption, which machine it was measured on (CPU, caches, torch) and
when. matplotlib is imported lazily, with the Agg backend: without it (it is the ``plot`` extra) the report
has its tables and a sentence saying that the plots need matplotlib. The SVG keeps its text as text
(``svg.fonttype: none``), so the page stays searchable; the words drawn on a plot are the catalogue's, in
the page's language where matplotlib has a font for it (:mod:`grader.reports.html.fonts`: it lays the
plot out with that font's metrics), else English, which the page then says. Every SVG gets a ``<title>``
and ``<desc>`` (its alt text, in the page's language) and ``role="img"``. Only the outcomes of checks the
student attempted are drawn (:mod:`grader.reports.html.page` says so for an exercise not attempted).
"""

from __future__ import annotations

import dataclasses
import datetime
import html
import importlib.metadata
import io
import itertools
import math
import re
import statistics
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from perfcore.measure.machine import cache_levels, cpu_model
from perfcore.measure.profile import cached_profile
from perfcore.roofline import attainable_flops
from perfcore.specs import as_gpu

from ...results.outcome import Outcome
from ...text.catalogue import render
from . import fonts

#: The GPU whose roofline stands beside the machine's, and the precision of the CPU's measured operations.
GPU = "H100"
GPU_DTYPE = "fp32"
#: Colours, and hatches and markers beside them: a series never rests on its colour alone.
YOURS = {"color": "#1f5fa8", "hatch": "", "marker": "o"}
PERFCORE = {"color": "#c0501e", "hatch": "//", "marker": "s"}
CEILING = {"color": "#6b6b6b", "hatch": "..", "marker": "^"}


@dataclass(frozen=True)
class Plot:
    """One drawn plot: the SVG (a fragment for the page) and its alt text (title, longer description)."""

    svg: str
    title: str
    desc: str
    #: When it was measured (or, for the index's plot, written).
    when: str = ""


@dataclass(frozen=True)
class Context:
    """What every plot of one page shares: the machine's label, the time, the measured ceilings."""

    lang: str
    machine: str
    when: str
    #: (peak FLOP/s, bandwidth B/s) of the cached machine profile, or None where none is cached.
    ceilings: tuple[float, float] | None = None
    #: The language of the words drawn on the plots ("": the page's, where matplotlib has a font for it).
    labels: str = ""


def words(ctx: Context, key: str, **fields: Any) -> str:
    """A word drawn on a plot, in the plots' language (:func:`grader.reports.html.fonts.label_lang`)."""
    return render(key, ctx.labels or fonts.label_lang(ctx.lang), **fields)


def have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401 - deferred on purpose: is the optional plot extra installed?
    except ImportError:
        return False
    return True


def machine_label() -> str:
    """``CPU; caches L1d 48 KiB, L2 2 MiB, L3 32 MiB; torch 2.13.0``: read without importing torch."""
    caches, _ = cache_levels()
    sizes = ", ".join(
        f"L{c.level}{'d' if c.type == 'Data' else ''} {_bytes(c.size_bytes)}"
        for c in caches
        if c.type != "Instruction"
    )
    try:
        torch = "torch " + importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        torch = "no torch"
    return f"{cpu_model()}; caches {sizes or 'unknown'}; {torch}"


def measured_ceilings() -> tuple[float, float] | None:
    """The cached profile's (peak FLOP/s, bandwidth B/s); None where none is cached or it cannot be read.
    Never measures: grading measured it where a check needed it."""
    try:
        profile = cached_profile()
    except Exception:  # noqa: BLE001 - no torch, an unreadable cache: the plots go without the roof
        return None
    return None if profile is None else (profile.peak_flops, profile.bandwidth_bytes_per_s)


def _bytes(n: float) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


def si(value: float, unit: str) -> str:
    """``24.1 GB/s``, ``3.2 µs``: three significant digits with an SI prefix."""
    if not math.isfinite(value) or value == 0:
        return f"{value:g} {unit}"
    prefixes = (
        ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1, ""))
        if unit != "s"
        else ((1, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n"))
    )
    for scale, prefix in prefixes:
        if abs(value) >= scale:
            return f"{value / scale:.3g} {prefix}{unit}"
    scale, prefix = prefixes[-1]
    return f"{value / scale:.3g} {prefix}{unit}"


# ---------------------------------------------------------------------------------------------------
# reading what the rounds gave (the student's values may be anything: every reader skips what is not
# a positive finite number, so a wrong answer is drawn as far as it is drawable and never breaks the page)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value > 0 else None


def median_of(values: Any) -> float | None:
    """The median of the positive finite numbers in ``values``; None where there are none."""
    numbers = [n for n in (_number(v) for v in values or ()) if n is not None]
    return statistics.median(numbers) if numbers else None


#: The most points of one curve a plot draws (and its alt text lists): a student's curve may hold up to the
#: wire's item limit, which would make the page tens of megabytes; evenly spaced points keep its shape.
MAX_POINTS = 200


def thinned(points: Sequence[tuple[float, float]], most: int = MAX_POINTS) -> list[tuple[float, float]]:
    """At most ``most`` of ``points``, evenly spaced, the first and the last among them."""
    if len(points) <= most:
        return list(points)
    step = (len(points) - 1) / (most - 1)
    return [points[round(i * step)] for i in range(most)]


def _curve(value: Any) -> list[tuple[float, float]]:
    """A curve's drawable points, sorted by x, at most MAX_POINTS: pairs of positive finite numbers (a list
    of (x, y) pairs or the pair of lists ``[xs, ys]``)."""
    if not isinstance(value, list):
        return []
    pairs = value
    if len(value) == 2 and all(isinstance(v, list) for v in value) and len(value[0]) != 2:
        pairs = list(zip(value[0], value[1], strict=False))
    points = []
    for pair in pairs:
        if isinstance(pair, (list, tuple)) and len(pair) == 2:
            x, y = _number(pair[0]), _number(pair[1])
            if x is not None and y is not None:
                points.append((x, y))
    return thinned(sorted(points))


def median_curve(curves: Any) -> list[tuple[float, float]]:
    """Point by point, the median y of ``curves`` at each x they share (one noisy round is not the method)."""
    by_x: dict[float, list[float]] = {}
    for curve in curves or ():
        for x, y in _curve(curve):
            by_x.setdefault(x, []).append(y)
    return thinned([(x, statistics.median(ys)) for x, ys in sorted(by_x.items())])


def _measured(o: Outcome) -> dict[str, Any]:
    return dict(o.measured) if isinstance(o.measured, dict) else {}


# ---------------------------------------------------------------------------------------------------
# matplotlib to SVG


def _pyplot() -> Any:
    # matplotlib is deferred on purpose everywhere here: it is the optional, heavy ``plot`` extra
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt  # deferred on purpose: the optional plot extra

    return plt


_SVG_START = re.compile(r"<svg\b")
_PLOT_NUMBERS = itertools.count(1)


def svg_of(fig: Any, title: str, desc: str, ctx: Context) -> Plot:
    """``fig`` as an SVG fragment for the page: no XML prolog, doctype or metadata (which name outside
    URLs), text kept as text, the machine and the time written under it, ``<title>``/``<desc>`` first."""
    import matplotlib.pyplot as plt  # deferred on purpose: the optional plot extra
    from matplotlib.text import Text  # deferred on purpose: the optional plot extra

    if (ctx.labels or fonts.label_lang(ctx.lang)) != "en":  # laid out with the metrics of a CJK font
        for text in fig.findobj(Text):
            text.set_fontfamily([fonts.cjk_font() or "DejaVu Sans", "DejaVu Sans"])
    # below everything drawn so far (labels may hang under the figure's edge; the tight bounding box
    # takes the line in), so it never sits on the axes' labels
    bottom = fig.get_tightbbox(fig.canvas.get_renderer()).y0 / fig.get_figheight()
    fig.text(
        0.01,
        min(0.0, bottom) - 0.01,
        f"{ctx.machine} · {ctx.when}",
        fontsize=6.5,
        color="#444444",
        ha="left",
        va="top",
    )
    buffer = io.StringIO()
    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": "perfkit"}):
        fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    text = buffer.getvalue()
    start = _SVG_START.search(text)
    if start is None:
        raise ValueError("matplotlib wrote no <svg> element")
    text = text[start.start() :]
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)
    # matplotlib's ids (markers, clip paths) repeat from plot to plot: one page may not hold an id twice
    prefix = f"p{next(_PLOT_NUMBERS)}-"
    ids = set(re.findall(r'\bid="([^"]+)"', text))
    if ids:
        names = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
        text = re.sub(rf'\bid="({names})"', lambda m: f'id="{prefix}{m.group(1)}"', text)
        text = re.sub(rf"#({names})\b", lambda m: f"#{prefix}{m.group(1)}", text)
    head_end = text.index(">") + 1
    head = text[: head_end - 1] + ' role="img" focusable="false">'
    labels = f"<title>{html.escape(title)}</title><desc>{html.escape(desc)}</desc>"
    return Plot(svg=head + labels + text[head_end:], title=title, desc=desc, when=ctx.when)


def _figure(width: float, height: float, ncols: int = 1) -> tuple[Any, Any]:
    plt = _pyplot()
    with plt.rc_context({"font.family": ["DejaVu Sans", "sans-serif"]}):
        fig, axes = plt.subplots(1, ncols, figsize=(width, height))
    return fig, axes


def _style_axes(ax: Any) -> None:
    ax.grid(True, which="both", alpha=0.3)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


# ---------------------------------------------------------------------------------------------------
# the plots


def bandwidth_plot(outcomes: Sequence[Outcome], ctx: Context) -> Plot | None:
    """Bars per B/s check: the student's median, perfcore's, and the ceiling of the check's working set."""
    groups: list[tuple[str, float | None, float | None, float | None, str]] = []
    for o in outcomes:
        m = _measured(o)
        if m.get("unit") != "B/s":
            continue
        device = m.get("device", "cpu")
        probe = m.get("probe")
        # the check's own input, then its probe (m1's in-cache copy beside its DRAM one)
        inputs: list[tuple[str, dict[str, Any]]] = [(o.check_id, m)]
        if isinstance(probe, dict):
            inputs.append((words(ctx, "plot_probe", check=o.check_id), probe))
        for name, figures in inputs:
            mine, ref = median_of(figures.get("mine")), median_of(figures.get("reference"))
            if mine is None and ref is None:
                continue
            kind = figures.get("kind", "")
            ceiling: float | None
            if kind == "dram" and device == "cpu" and ctx.ceilings is not None:
                ceiling, ceiling_label = ctx.ceilings[1], words(ctx, "plot_ceiling_dram")
            elif device == "cpu":
                ceiling, ceiling_label = _number(figures.get("bound")), words(ctx, "plot_ceiling_core")
            else:  # a GPU's: its spec, or its memory clock and bus width, never the CPU's DRAM
                ceiling, ceiling_label = _number(figures.get("bound")), words(ctx, "plot_ceiling_gpu")
            groups.append((f"{name}\n({kind})", mine, ref, ceiling, ceiling_label))
    if not groups:
        return None
    gpus = sorted({str(m["device_name"]) for m in map(_measured, outcomes) if m.get("device_name")})
    if gpus:  # measured on a GPU: the plot says which
        ctx = dataclasses.replace(ctx, machine=f"{ctx.machine}; GPU {', '.join(gpus)}")
    fig, ax = _figure(7.2, 3.6)
    width = 0.26
    yours, perfcore = words(ctx, "plot_yours"), words(ctx, "plot_perfcore")
    for i, (_, mine, ref, ceiling, ceiling_label) in enumerate(groups):
        bars = (
            (-width, mine, yours, YOURS),
            (0.0, ref, perfcore, PERFCORE),
            (width, ceiling, words(ctx, "plot_ceiling", what=ceiling_label), CEILING),
        )
        for offset, value, label, style in bars:
            if value is None:
                continue
            ax.bar(
                i + offset,
                value / 1e9,
                width,
                color=style["color"],
                hatch=style["hatch"],
                edgecolor="white" if not style["hatch"] else "black",
                label=label if i == 0 or style is CEILING else None,
            )
            ax.annotate(f"{value / 1e9:.3g}", (i + offset, value / 1e9), ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(groups)), [g[0] for g in groups], fontsize=8)
    ax.set_xlim(-0.8, len(groups) - 0.2)  # one check's bars stay bars, not a wall
    # a log axis: an in-cache bound (1.6e3 GB/s) beside DRAM copies (25 GB/s) left those bars slivers
    drawn = [v / 1e9 for _, *values, _ in groups for v in values if v is not None]
    ax.set_yscale("log")
    ax.set_ylim(min(drawn) / 3, max(drawn) * 3)
    ax.set_ylabel(words(ctx, "plot_gbs_log"))
    ax.set_title(words(ctx, "plot_bandwidth_title"), fontsize=10)
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=True))
    ax.legend(unique.values(), unique.keys(), fontsize=7, frameon=False)
    _style_axes(ax)
    items = "; ".join(
        f"{name.split(chr(10))[0]}: yours {_opt(mine, 'B/s')}, perfcore {_opt(ref, 'B/s')}, "
        f"ceiling {_opt(ceiling, 'B/s')}"
        for name, mine, ref, ceiling, _ in groups
    )
    return svg_of(
        fig, render("alt_bandwidth", ctx.lang), render("desc_bandwidth", ctx.lang, items=items), ctx
    )


def _opt(value: float | None, unit: str) -> str:
    return "-" if value is None else si(value, unit)


def _points_text(points: Iterable[tuple[float, float]], x_unit: str, y_unit: str) -> str:
    return ", ".join(f"({si(x, x_unit).strip()}, {si(y, y_unit)})" for x, y in points) or "-"


def roofline_plot(outcomes: Sequence[Outcome], ctx: Context) -> Plot | None:
    """The student's sweep and perfcore's on this machine's roofline, beside the H100's with the same ops."""
    mine: list[tuple[float, float]] = []
    ref: list[tuple[float, float]] = []
    singles = []  # FLOP/s checks with an intensity (m2a's matmul)
    for o in outcomes:
        m = _measured(o)
        if m.get("shape") == "roofline":
            mine += median_curve(m.get("mine"))
            ref += median_curve(m.get("reference"))
        elif m.get("unit") == "FLOP/s" and _number(m.get("intensity")) is not None:
            singles.append(
                (o.check_id, float(m["intensity"]), median_of(m.get("mine")), median_of(m.get("reference")))
            )
    if not (mine or ref or singles):
        return None
    fig, (left, right) = _figure(10.5, 4.2, ncols=2)
    xs = [x for x, _ in mine + ref] + [s[1] for s in singles]
    low, high = min(xs) / 4, max(xs) * 4
    if ctx.ceilings is not None:
        peak, bw = ctx.ceilings
        low, high = min(low, peak / bw / 8), max(high, peak / bw * 8)
        grid = [low * (high / low) ** (i / 200) for i in range(201)]
        roof = [min(peak, x * bw) for x in grid]
        left.plot(grid, roof, "-", color="black", lw=1.6, label=words(ctx, "plot_roof"))
        left.axvline(peak / bw, color="black", ls=":", lw=0.9)
        left.annotate(
            f"{words(ctx, 'plot_ridge')} {peak / bw:.3g} FLOP/B\n{si(peak, 'FLOP/s')}, {si(bw, 'B/s')}",
            (peak / bw, peak),
            textcoords="offset points",
            xytext=(6, -26),
            fontsize=7,
        )
    for points, label, style, line in (
        (mine, words(ctx, "plot_your_sweep"), YOURS, "-"),
        (ref, words(ctx, "plot_perfcore_sweep"), PERFCORE, "--"),
    ):
        if points:
            left.plot(
                [x for x, _ in points],
                [y for _, y in points],
                line,
                marker=style["marker"],
                color=style["color"],
                ms=5,
                lw=1,
                label=label,
            )
    for check_id, intensity, mine_rate, ref_rate in singles:
        for value, style, who in ((mine_rate, YOURS, "yours"), (ref_rate, PERFCORE, "perfcore")):
            if value is not None:
                left.scatter(
                    [intensity],
                    [value],
                    marker={"yours": "D", "perfcore": "P"}[who],  # the shape tells them apart too
                    s=40,
                    color=style["color"],
                    zorder=3,
                    label=f"{check_id} ({words(ctx, f'plot_{who}')})",
                )
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel(words(ctx, "plot_intensity"))
    left.set_ylabel("FLOP/s")
    left.set_title(words(ctx, "plot_this_machine" if ctx.ceilings else "plot_no_ceilings"), fontsize=10)
    left.legend(fontsize=7, frameon=False, loc="lower right")
    _style_axes(left)

    spec = as_gpu(GPU)
    gpeak, gbw = spec.peak(GPU_DTYPE), spec.hbm_bytes_per_s
    # the operations are the check's (perfcore's sweep where there is one: a student's intensities may be
    # the mistake), placed where the H100's roofline says they would run
    ops = sorted({x for x, _ in (ref or mine)} | {s[1] for s in singles})
    glow, ghigh = min(ops + [gpeak / gbw]) / 8, max(ops + [gpeak / gbw]) * 8
    grid = [glow * (ghigh / glow) ** (i / 200) for i in range(201)]
    right.plot(
        grid,
        [min(gpeak, x * gbw) for x in grid],
        "-",
        color="black",
        lw=1.6,
        label=f"{spec.name} {GPU_DTYPE}: {si(gpeak, 'FLOP/s')}, {si(gbw, 'B/s')}",
    )
    right.axvline(gpeak / gbw, color="black", ls=":", lw=0.9)
    placed = [(x, float(attainable_flops(x, gpeak, gbw))) for x in ops]
    right.scatter(
        [x for x, _ in placed],
        [y for _, y in placed],
        marker="o",
        s=30,
        color=YOURS["color"],
        zorder=3,
        label=words(ctx, "plot_same_ops"),
    )
    right.annotate(
        f"{words(ctx, 'plot_ridge')} {gpeak / gbw:.3g} FLOP/B",
        (gpeak / gbw, gpeak),
        textcoords="offset points",
        xytext=(6, -14),
        fontsize=7,
    )
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel(words(ctx, "plot_intensity"))
    right.set_ylabel(words(ctx, "plot_attainable"))
    right.set_title(words(ctx, "plot_gpu_roofline", gpu=spec.name), fontsize=10)
    right.legend(fontsize=7, frameon=False, loc="lower right")
    _style_axes(right)
    fig.tight_layout()
    if ctx.ceilings is not None:
        peak, bw = ctx.ceilings
        bw_text, peak_text, ridge = si(bw, "B/s"), si(peak, "FLOP/s"), f"{peak / bw:.3g}"
    else:
        bw_text = peak_text = ridge = render("desc_no_profile", ctx.lang)
    single_points = [(s[1], s[2]) for s in singles if s[2] is not None]
    desc = render(
        "desc_roofline",
        ctx.lang,
        bw=bw_text,
        peak=peak_text,
        ridge=ridge,
        mine=_points_text(mine + single_points, "", "FLOP/s"),
        reference=_points_text(ref, "", "FLOP/s"),
        gpu=_points_text(placed, "", "FLOP/s"),
    )
    return svg_of(fig, render("alt_roofline", ctx.lang), desc, ctx)


def overhead_plot(outcomes: Sequence[Outcome], ctx: Context) -> Plot | None:
    """The student's overhead curve and perfcore's, log-log, with perfcore's fixed-overhead floor marked."""
    curves = []
    for o in outcomes:
        m = _measured(o)
        if m.get("shape") == "overhead":
            curves.append((o.check_id, median_curve(m.get("mine")), median_curve(m.get("reference"))))
    curves = [c for c in curves if c[1] or c[2]]
    if not curves:
        return None
    fig, ax = _figure(7.2, 3.8)
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
                )
        if ref:
            floor = min(y for _, y in ref) if floor is None else min(floor, *(y for _, y in ref))
    if floor is not None:
        ax.axhline(
            floor,
            color=CEILING["color"],
            ls=":",
            lw=1.2,
            label=words(ctx, "plot_fixed_overhead", floor=si(floor, "s")),
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(words(ctx, "plot_elements"))
    ax.set_ylabel(words(ctx, "plot_seconds_per_call"))
    ax.set_title(words(ctx, "plot_overhead_title"), fontsize=10)
    ax.legend(fontsize=7, frameon=False)
    _style_axes(ax)
    desc = render(
        "desc_overhead",
        ctx.lang,
        floor=_opt(floor, "s"),
        mine=_points_text([p for c in curves for p in c[1]], "", "s"),
        reference=_points_text([p for c in curves for p in c[2]], "", "s"),
    )
    return svg_of(fig, render("alt_overhead", ctx.lang), desc, ctx)


def speedups(outcomes: Sequence[Outcome]) -> list[tuple[str, float | None, float | None]]:
    """(label, the student's speedup, perfcore's): the first timed check's median seconds over each later
    one's, then the speedups the student's functions return (a shape check of one value)."""
    timed = []
    rows: list[tuple[str, float | None, float | None]] = []
    for o in outcomes:
        m = _measured(o)
        if m.get("unit") == "s":
            timed.append((o.check_id, median_of(m.get("mine")), median_of(m.get("reference"))))
        elif m.get("shape") == "value":
            mine, ref = median_of(m.get("mine")), median_of(m.get("reference"))
            if mine is not None or ref is not None:
                rows.append((o.check_id, mine, ref))
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


def speedup_plot(outcomes: Sequence[Outcome], ctx: Context) -> Plot | None:
    rows = [r for r in speedups(outcomes) if r[1] is not None or r[2] is not None]
    if not rows:  # no empty axes: a speedup with neither figure draws nothing
        return None
    fig, ax = _figure(7.2, 3.4)
    width = 0.36
    for i, (_, mine, ref) in enumerate(rows):
        for offset, value, label, style in (
            (-width / 2, mine, words(ctx, "plot_yours"), YOURS),
            (width / 2, ref, words(ctx, "plot_perfcore"), PERFCORE),
        ):
            if value is None:
                continue
            ax.bar(
                i + offset,
                value,
                width,
                color=style["color"],
                hatch=style["hatch"],
                edgecolor="white" if not style["hatch"] else "black",
                label=label if i == 0 else None,
            )
            ax.annotate(f"{value:.3g}x", (i + offset, value), ha="center", va="bottom", fontsize=7)
    ax.axhline(1.0, color="black", lw=0.8, ls=":")
    ax.set_xticks(range(len(rows)), [r[0] for r in rows], fontsize=8)
    ax.set_xlim(-0.8, len(rows) - 0.2)
    ax.set_ylabel(words(ctx, "plot_speedup"))
    ax.set_title(words(ctx, "plot_speedup_title"), fontsize=10)
    ax.legend(fontsize=7, frameon=False)
    _style_axes(ax)
    items = "; ".join(
        f"{label}: yours {'-' if mine is None else f'{mine:.3g}x'}, perfcore {'-' if ref is None else f'{ref:.3g}x'}"
        for label, mine, ref in rows
    )
    return svg_of(fig, render("alt_speedup", ctx.lang), render("desc_speedup", ctx.lang, items=items), ctx)


#: The plots an exercise may get, in the order they are shown.
PLOTTERS = (roofline_plot, overhead_plot, bandwidth_plot, speedup_plot)


def has_measurements(outcomes: Iterable[Outcome]) -> bool:
    return any(o.measured for o in outcomes)


def measures(outcomes: Iterable[Outcome]) -> bool:
    """Whether some of ``outcomes`` is a measuring check's (measured or not: one not attempted has none)."""
    return any(o.measured or o.kind in ("measurement", "shape") for o in outcomes)


def measured_when(outcomes: Iterable[Outcome]) -> str | None:
    """When the last of ``outcomes``' measurements ended (the judge stamps each), in UTC; None if unknown."""
    stamps = [_number(_measured(o).get("at")) for o in outcomes]
    known = [s for s in stamps if s is not None]
    if not known:
        return None
    moment = datetime.datetime.fromtimestamp(max(known), tz=datetime.timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def exercise_plots(outcomes: Sequence[Outcome], ctx: Context) -> list[Plot | str]:
    """The plots of one exercise's outcomes; a plot that fails to draw is a sentence saying why, so that
    one odd figure never costs the student the rest of the page."""
    ctx = dataclasses.replace(ctx, when=measured_when(outcomes) or ctx.when)
    drawn: list[Plot | str] = []
    for plotter in PLOTTERS:
        try:
            with warnings.catch_warnings():  # a student's odd figures (one point, equal limits) warn
                warnings.simplefilter("ignore", UserWarning)
                plot = plotter(outcomes, ctx)
        except Exception as exc:  # noqa: BLE001 - the page is written whatever a student's figures are
            _close_all()
            drawn.append(render("plot_failed", ctx.lang, error=f"{type(exc).__name__}: {exc}"))
            continue
        if plot is not None:
            drawn.append(plot)
    return drawn


def _close_all() -> None:
    import matplotlib.pyplot as plt  # deferred on purpose: the optional plot extra

    plt.close("all")


def histogram_plot(scores: Sequence[float], max_score: float, ctx: Context) -> Plot | None:
    """The distribution of the class's totals (the index page)."""
    if not scores:
        return None
    fig, ax = _figure(6.4, 3.0)
    top = max([max_score, *scores, 1.0])
    bins = min(20, max(5, int(math.ceil(top))))
    ax.hist(scores, bins=bins, range=(0, top), color=YOURS["color"], edgecolor="white")
    ax.set_xlabel(words(ctx, "plot_total_score"))
    ax.set_ylabel(words(ctx, "plot_students"))
    from matplotlib.ticker import MaxNLocator  # deferred on purpose: the optional plot extra

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # students come whole
    ax.set_title(words(ctx, "plot_totals_title"), fontsize=10)
    _style_axes(ax)
    scores_text = ", ".join(f"{s:g}" for s in sorted(scores))
    desc = render("desc_histogram", ctx.lang, n=len(scores), scores=scores_text)
    return svg_of(fig, render("alt_histogram", ctx.lang), desc, ctx)
