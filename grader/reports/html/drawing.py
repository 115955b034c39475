"""What every plot of the report shares: its context, its words, its type sizes, its axes, and the SVG.

matplotlib is imported lazily, with the Agg backend (it is the optional ``plot`` extra). The SVG keeps its
text as text (``svg.fonttype: none``), so the page stays searchable; the words drawn on a plot are the
catalogue's, in the page's language where matplotlib has a font for it (:mod:`grader.reports.html.fonts`),
else English, which the page then says. Every SVG gets a ``<title>`` and ``<desc>`` (its alt text) and
``role="img"``, and says under it which machine measured it and when.

Legibility is a rule here, not a taste: no text is drawn under :data:`SMALLEST` points (12 px where the page
shows the plot at its own size, as it does 1280 px wide), every number is :func:`format_number`'s (ticks
too: no ``10^9`` in a smaller superscript), legends sit outside the axes, and the lines the data draws carry
a ``data-`` id (``gid``), so a test can find them in the SVG and check that no label is crossed by one.
"""

from __future__ import annotations

import html
import importlib.metadata
import io
import itertools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from perfcore.measure.machine import cache_levels, cpu_model

from ...text.catalogue import render
from . import fonts
from .numbers import format_bytes, format_number
from .roofs import MachineRoofs

#: Colours, and hatches and markers beside them: a series never rests on its colour alone.
YOURS = {"color": "#1f5fa8", "hatch": "", "marker": "o"}
PERFCORE = {"color": "#c0501e", "hatch": "//", "marker": "s"}
CEILING = {"color": "#6b6b6b", "hatch": "..", "marker": "^"}
#: Type sizes in points (a plot is shown at its own size: 1 pt is 4/3 px). SMALLEST is 12 px.
SMALLEST = 9.0
TICKS = 9.0
LABELS = 10.0
TITLE = 11.0
#: One row of a horizontal bar plot (the bandwidth and speedup plots), in inches.
ROW = 0.3
#: The prefix of the ``gid`` of every line the data draws (a roof, a sweep, a floor): an id in the SVG.
DATA = "data-"


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
    """What every plot of one page shares: the machine's label, the time, its measured roofs."""

    lang: str
    machine: str
    when: str
    #: The machine's roofs and caches (its cached profile's; no roof where none is cached).
    roofs: MachineRoofs = field(default_factory=MachineRoofs)
    #: The language of the words drawn on the plots ("": the page's, where matplotlib has a font for it).
    labels: str = ""
    #: Each check's input, by its name (``exercise::check``): a sweep's sizes give its working sets.
    inputs: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def ceilings(self) -> tuple[float, float] | None:
        """The profile's (peak FLOP/s, DRAM B/s), or None where none is cached."""
        return self.roofs.ceilings


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
        f"L{c.level}{'d' if c.type == 'Data' else ''} {format_bytes(c.size_bytes)}"
        for c in caches
        if c.type != "Instruction"
    )
    try:
        torch = "torch " + importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        torch = "no torch"
    return f"{cpu_model()}; caches {sizes or 'unknown'}; {torch}"


# ---------------------------------------------------------------------------------------------------
# matplotlib


def pyplot() -> Any:
    # matplotlib is deferred on purpose everywhere here: it is the optional, heavy ``plot`` extra
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt  # deferred on purpose: the optional plot extra

    return plt


def figure(width: float, height: float, ncols: int = 1) -> tuple[Any, Any]:
    plt = pyplot()
    with plt.rc_context({"font.family": ["DejaVu Sans", "sans-serif"]}):
        fig, axes = plt.subplots(1, ncols, figsize=(width, height))
    return fig, axes


def style_axes(ax: Any, x_unit: str | None = None, y_unit: str | None = None) -> None:
    """The grid behind everything, no top or right spine, and the ticks in the report's number format
    (``x_unit``/``y_unit``: the unit each tick writes; None leaves an axis' ticks as they are)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter  # deferred on purpose: the plot extra

    ax.set_axisbelow(True)
    ax.grid(True, which="both", alpha=0.3)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(labelsize=TICKS)
    for axis, unit in ((ax.xaxis, x_unit), (ax.yaxis, y_unit)):
        if unit is None:
            continue
        axis.set_major_formatter(FuncFormatter(lambda value, _pos, unit=unit: format_number(value, unit)))
        if axis.get_scale() == "log":
            low, high = sorted(axis.get_view_interval())
            # a log axis of less than a decade has no major tick to label: its 2 and 5 are labelled then;
            # a y axis with fewer than three labelled decades too (two ticks read as no scale at all),
            # where the height leaves their labels room (not on the x axis, whose labels are wider)
            few = low > 0 and (high / low < 10 or axis is ax.yaxis and _decades(low, high) < 3)
            axis.set_minor_formatter(
                FuncFormatter(
                    lambda value, _pos, unit=unit: (
                        format_number(value, unit) if f"{value:.1e}"[0] in "25" else ""
                    )
                )
                if few
                else NullFormatter()
            )


def _decades(low: float, high: float) -> int:
    """How many powers of ten lie in [low, high] (the labelled major ticks of a log axis)."""
    return max(0, math.floor(math.log10(high) + 1e-9) - math.ceil(math.log10(low) - 1e-9) + 1)


#: How far under the axes' bottom edge a legend starts, in points: below the ticks' labels and the x label.
BELOW = 42.0


def legend_below(ax: Any, handles: Any = None, labels: Any = None, ncol: int = 1) -> None:
    """The legend under the axes (under the x label), where no line of the data runs through it. A plot
    that lays its axes out (``tight_layout``) does so first: the legend then adds to the figure's height."""
    from matplotlib.transforms import offset_copy  # deferred on purpose: the optional plot extra

    args = () if handles is None else (handles, labels)
    ax.legend(
        *args,
        fontsize=SMALLEST,
        frameon=False,
        loc="upper left",
        bbox_to_anchor=(0.0, 0.0),
        bbox_transform=offset_copy(ax.transAxes, fig=ax.figure, y=-BELOW, units="points"),
        borderaxespad=0.0,
        ncol=ncol,
    )


def stamp(machine: str, when: str, width: int) -> str:
    """``machine · when`` in lines of at most ``width`` characters, broken only between the machine's parts
    (``; ``) and before the time, so a CPU's name or the time is never cut in two."""
    pieces = [p + ";" for p in machine.split("; ")]
    pieces[-1] = pieces[-1][:-1] + " ·"
    pieces.append(when)
    lines: list[str] = []
    for piece in pieces:
        if lines and len(lines[-1]) + 1 + len(piece) <= width:
            lines[-1] += " " + piece
        else:
            lines.append(piece)
    return "\n".join(lines)


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
    renderer = fig.canvas.get_renderer()
    box = fig.get_tightbbox(renderer)
    # below everything drawn so far (legends hang under the axes; the tight bounding box takes the line
    # in), so it never sits on a label; wrapped to the plot's width, so it never widens the plot
    bottom = box.y0 / fig.get_figheight()
    chars = max(40, int(box.width * 72 / (SMALLEST * 0.62)))
    fig.text(
        0.01,
        min(0.0, bottom) - 0.01,
        stamp(ctx.machine, ctx.when, chars),
        fontsize=SMALLEST,
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


def close_all() -> None:
    import matplotlib.pyplot as plt  # deferred on purpose: the optional plot extra

    plt.close("all")
