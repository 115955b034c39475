"""The measured record: what a measuring check's rounds gave, as the runners build it and the reports read it.

A measurement's runner (:mod:`grader.judge.runners.measurement`) and a curve's
(:mod:`grader.judge.runners.curve`) construct one :class:`Measured` as their rounds start and fill it as
they go (the lists grow round by round, the load is updated after each), so a check that fails half way
still carries every round it took. The reports (:mod:`grader.reports.html`, the reuse of a quiet
measurement in :mod:`grader.results.reuse`) read it by attribute: a runner that renames a part breaks the
type check, not the report silently.

On the wire and in JSON (xdist's reports, ``--grader-json``, pytest's cache) it is the plain dict it always
was: :meth:`Measured.to_dict` writes only the parts a runner set, and :meth:`Measured.from_dict` reads
that dict back (and an older one). The student's figures and curves are kept as they came (a curve is a
list of pairs, a figure may be anything a student returned): the reports skip what they cannot draw.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Load:
    """How busy the rounds of a check were (:meth:`grader.judge.runners.busy.Loads.load`): how many
    rounds were taken, how many of them were clean (nothing else on the measured core) and quiet (little
    anywhere), and the load of the busiest (the share of the measured core others took, the other cores
    busy elsewhere)."""

    rounds: int = 0
    clean: int = 0
    quiet: int = 0
    others_share: float = 0.0
    elsewhere: float = 0.0
    #: Rounds read on the judge's CPU clock (:mod:`grader.judge.runners.cpuclock`); written where any were.
    on_cpu: int = 0

    def to_dict(self) -> dict[str, Any]:
        written: dict[str, Any] = {
            "rounds": self.rounds,
            "clean": self.clean,
            "quiet": self.quiet,
            "others_share": self.others_share,
            "elsewhere": self.elsewhere,
        }
        return {**written, "on_cpu": self.on_cpu} if self.on_cpu else written

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Load:
        return cls(
            rounds=data.get("rounds", 0),
            clean=data.get("clean", 0),
            quiet=data.get("quiet", 0),
            others_share=data.get("others_share", 0.0),
            elsewhere=data.get("elsewhere", 0.0),
            on_cpu=data.get("on_cpu", 0),
        )


@dataclass
class Probe:
    """A measurement's (first) probe: an input the student has not seen, drawn beside the check's own.
    ``bound``: the most (a rate) or least (seconds) figure the probe's work allows; None where none does."""

    kind: str
    input: str
    mine: list[Any] = field(default_factory=list)
    reference: list[Any] = field(default_factory=list)
    bound: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "input": self.input,
            "mine": self.mine,
            "reference": self.reference,
            "bound": self.bound,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Probe:
        return cls(
            kind=data.get("kind", ""),
            input=data.get("input", ""),
            mine=_list(data.get("mine")),
            reference=_list(data.get("reference")),
            bound=data.get("bound"),
        )


@dataclass
class Measured:
    """What a measuring check's rounds gave: the student's figures or curves (``mine``) and perfcore's
    (``reference``), round by round.

    A measurement's record has a ``unit`` and with it the ``kind`` of quantity, the ``device`` it ran on
    (and the GPU's ``device_name``, None on the CPU) and the physical ``bound`` (None where there is none);
    where the check has them, the drawn ``input``, the arithmetic ``intensity`` of its work, the other honest
    library's figures (``also``) and the first ``probe``. A curve's record has a ``shape`` ("roofline",
    "overhead", "value" for a custom test of one value). Both carry the ``load`` of their rounds once one
    was taken, and the judge stamps ``at``, when it was measured (seconds since the epoch).
    """

    mine: list[Any] = field(default_factory=list)
    reference: list[Any] = field(default_factory=list)
    shape: str | None = None
    unit: str | None = None
    kind: str = ""
    device: str = "cpu"
    device_name: str | None = None
    bound: float | None = None
    intensity: float | None = None
    input: str | None = None
    also: list[Any] | None = None
    probe: Probe | None = None
    load: Load | None = None
    at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """The record as the plain dict it travels and is kept as: the measurement's parts (unit, kind,
        device, device_name, bound) together where it is a measurement's, the shape where it is a curve's,
        and each other part only where it was set."""
        data: dict[str, Any] = {}
        if self.shape is not None:
            data["shape"] = self.shape
        if self.unit is not None:
            data.update(unit=self.unit, kind=self.kind, device=self.device, device_name=self.device_name)
        data.update(mine=self.mine, reference=self.reference)
        if self.unit is not None:
            data["bound"] = self.bound
        for name in ("intensity", "input"):
            if getattr(self, name) is not None:
                data[name] = getattr(self, name)
        if self.load is not None:
            data["load"] = self.load.to_dict()
        if self.also is not None:
            data["also"] = self.also
        if self.probe is not None:
            data["probe"] = self.probe.to_dict()
        if self.at is not None:
            data["at"] = self.at
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Measured:
        """The record of :meth:`to_dict`'s dict; a part that is missing takes its default, and a nested
        part that is not a dict (a damaged record) is left out."""
        load, probe, also = data.get("load"), data.get("probe"), data.get("also")
        return cls(
            mine=_list(data.get("mine")),
            reference=_list(data.get("reference")),
            shape=data.get("shape"),
            unit=data.get("unit"),
            kind=data.get("kind", ""),
            device=data.get("device", "cpu"),
            device_name=data.get("device_name"),
            bound=data.get("bound"),
            intensity=data.get("intensity"),
            input=data.get("input"),
            also=list(also) if isinstance(also, list) else None,
            probe=Probe.from_dict(probe) if isinstance(probe, Mapping) else None,
            load=Load.from_dict(load) if isinstance(load, Mapping) else None,
            at=data.get("at"),
        )


def _list(value: Any) -> list[Any]:
    """A list of rounds as it came; an empty one where it is no list (a damaged record)."""
    return list(value) if isinstance(value, list) else []
