"""The runners: one module per kind of check, each a function ``run(judge, prepared, path) -> measured``.

- :mod:`.formula`: value, choice and property checks (compared with what was prepared; nothing measured);
- :mod:`.measurement`: a measurement's rounds against perfcore's, and its probe;
- :mod:`.curve`: a curve's shape and its points against perfcore's, or a custom test of one value;
- :mod:`.paired`: what both share, one object for a check's paired rounds (the student's call with its
  handed buffers, perfcore's call, one round A B, the budget loop, a probe's extra rounds);
- :mod:`.honesty`, :mod:`.rounds`, :mod:`.cores`: the rules every measuring call is held to, the rounds'
  budget and the probe's seed, and the core both sides are pinned to.

A runner asks the judge only what :class:`~.protocol.JudgeSide` lists. May import: the text, sandbox
(the wire's types), comparison, specs and results layers, and the judge's ``verdicts``, ``prepare`` and
``reference``; never the judge's core.
"""

from __future__ import annotations

from ...specs.check import Check, ChoiceCheck, MeasurementCheck, PropertyCheck, ShapeCheck, ValueCheck
from ..verdicts import GraderError
from .curve import run_shape
from .formula import run_choice, run_property, run_value
from .measurement import run_measurement
from .protocol import Runner

RUNNERS: dict[type, Runner] = {
    ValueCheck: run_value,
    ChoiceCheck: run_choice,
    PropertyCheck: run_property,
    MeasurementCheck: run_measurement,
    ShapeCheck: run_shape,
}


def runner_for(check: Check) -> Runner:
    """The runner of ``check``'s kind; GraderError for a kind no runner grades."""
    for cls, runner in RUNNERS.items():
        if isinstance(check, cls):
            return runner
    raise GraderError(f"no runner for checks of type {type(check).__name__}")
