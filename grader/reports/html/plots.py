"""The report's plots: which plots an exercise gets, from the kinds of its measured outcomes (so a course's
own measurement checks get them too), and the machine they are drawn against.

Each kind of plot is a module of its own, over what they share (:mod:`grader.reports.html.drawing`: the
context, type sizes, axes and the SVG; :mod:`grader.reports.html.figures`: reading the rounds;
:mod:`grader.reports.html.numbers`: the one number format):

- :mod:`~grader.reports.html.roofline`: a curve of the roofline shape (m2b) and FLOP/s figures with an
  intensity (m2a) on this machine's measured roofs, each level the sweep touches shaded and its roof drawn
  where the profile measured it (:mod:`~grader.reports.html.roofs`), beside the H100's FP32 roofline;
- :mod:`~grader.reports.html.overhead`: a curve of the overhead shape (m5b), log-log, with the floor marked;
- :mod:`~grader.reports.html.bandwidth`: B/s figures (m1, exercise 10, m6a) as bars beside their ceilings;
- :mod:`~grader.reports.html.speedup`: speedups (m3, m4), a graded speedup check's own where it has one;
- :mod:`~grader.reports.html.histogram`: the class's totals (the index page).

Every plot says, on itself and in its caption, which machine it was measured on (CPU, caches, torch) and
when. The machine's roofs come from the cached profile (:func:`perfcore.measure.profile.cached_profile`,
which never measures: grading measured it where a check needed it). Only the outcomes of checks the
student attempted and the judge decided are drawn (:mod:`grader.reports.html.page` says so for an exercise
not attempted, and names the deferred measurements it leaves out: :func:`left_out`); a plot that fails to
draw is a sentence saying why.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence

from perfcore.measure.profile import cached_profile

from ...results.outcome import Outcome
from ...text.catalogue import render
from .bandwidth import bandwidth_plot
from .drawing import Context, Plot, close_all, have_matplotlib, machine_label
from .figures import MAX_POINTS, has_measurements, measured_when, measures, median_curve, median_of, thinned
from .histogram import histogram_plot
from .numbers import format_bytes, format_number
from .overhead import overhead_plot
from .roofline import roofline_plot
from .roofs import MachineRoofs, from_profile
from .speedup import deferred_measurements, left_out, speedup_plot, speedups

#: The plots an exercise may get, in the order they are shown.
PLOTTERS = (roofline_plot, overhead_plot, bandwidth_plot, speedup_plot)


def measured_roofs() -> MachineRoofs:
    """This machine's roofs from its cached profile, and its caches; no roof where no profile is cached or
    it cannot be read. Never measures."""
    try:
        profile = cached_profile()
    except Exception:  # noqa: BLE001 - no torch, an unreadable cache: the plots go without the roofs
        profile = None
    return from_profile(profile)


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
            close_all()
            drawn.append(render("plot_failed", ctx.lang, error=f"{type(exc).__name__}: {exc}"))
            continue
        if plot is not None:
            drawn.append(plot)
    return drawn


__all__ = [
    "MAX_POINTS",
    "PLOTTERS",
    "Context",
    "MachineRoofs",
    "Plot",
    "bandwidth_plot",
    "deferred_measurements",
    "exercise_plots",
    "format_bytes",
    "format_number",
    "from_profile",
    "has_measurements",
    "have_matplotlib",
    "histogram_plot",
    "left_out",
    "machine_label",
    "measured_roofs",
    "measured_when",
    "measures",
    "median_curve",
    "median_of",
    "overhead_plot",
    "roofline_plot",
    "speedup_plot",
    "speedups",
    "thinned",
]
