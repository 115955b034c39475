"""The measured record keeps the plain dict it travels and is kept as: what the runners wrote as a dict
before it was a type reads back as the same dict, key for key, through an outcome's JSON."""

from __future__ import annotations

import json

from grader.results.measured import Load, Measured, Probe
from grader.results.outcome import Outcome

#: A measurement's record as the runner wrote it (m1: a drawn input, a probe, the other library's figures).
MEASUREMENT = {
    "unit": "B/s",
    "kind": "dram",
    "device": "cpu",
    "device_name": None,
    "mine": [1.9e10, 2.0e10, 1.95e10],
    "reference": [2e10, 2.1e10, 2.05e10],
    "bound": 1e12,
    "intensity": 0.25,
    "input": "n_bytes=268435456",
    "load": {"rounds": 3, "clean": 3, "quiet": 2, "others_share": 0.012, "elsewhere": 0.4},
    "also": [1.8e10, 1.9e10],
    "probe": {
        "kind": "cache",
        "input": "n_bytes=1048576",
        "mine": [4e10],
        "reference": [4.2e10],
        "bound": None,
    },
    "at": 86400.0,
}
#: A curve's record (m5: an overhead curve, each round a list of (size, seconds) pairs).
CURVE = {
    "shape": "overhead",
    "mine": [[[16, 1e-6], [256, 2e-6]]],
    "reference": [[[16, 1.1e-6], [256, 2.1e-6]]],
    "load": {"rounds": 1, "clean": 1, "quiet": 1, "others_share": 0.0, "elsewhere": 0.0},
    "at": 86400.0,
}


def _outcome(measured: object) -> Outcome:
    return Outcome("m1", "copy", "a", "passed", 1.0, 1.0, "ok", measured=measured)  # as read from JSON


def test_a_record_reads_back_as_the_dict_it_was_written_as() -> None:
    for data in (MEASUREMENT, CURVE):
        record = Measured.from_dict(data)
        assert record.to_dict() == data
        assert list(record.to_dict()) == list(data)  # the keys in the order the runner wrote them
        kept = json.loads(json.dumps(_outcome(data).to_dict()))
        assert kept["measured"] == data
        assert Outcome.from_dict(kept).measured == record


def test_the_cpu_clocks_rounds_are_written_where_there_were_any() -> None:
    """A record of rounds read on the judge's CPU clock says how many; one without them reads and writes as
    every record before the CPU clock did (the dicts above)."""
    data = {**MEASUREMENT, "load": {**MEASUREMENT["load"], "on_cpu": 2}}
    record = Measured.from_dict(data)
    assert record.load is not None and record.load.on_cpu == 2 and record.to_dict() == data
    plain = Measured.from_dict(MEASUREMENT)
    assert plain.load is not None and plain.load.on_cpu == 0 and "on_cpu" not in plain.to_dict()["load"]


def test_the_reports_read_the_parts_by_attribute() -> None:
    record = _outcome(MEASUREMENT).measured
    assert isinstance(record, Measured) and record.unit == "B/s" and record.intensity == 0.25
    assert isinstance(record.load, Load) and record.load.quiet == 2
    assert isinstance(record.probe, Probe) and record.probe.kind == "cache" and record.probe.bound is None
    curve = _outcome(CURVE).measured
    assert curve is not None and curve.shape == "overhead" and curve.unit is None and curve.probe is None
    assert "unit" not in curve.to_dict() and "bound" not in curve.to_dict()  # a curve's record has neither


def test_a_damaged_record_is_read_as_far_as_it_goes() -> None:
    record = Measured.from_dict({"unit": "s", "mine": "fast", "load": 3, "probe": [1]})
    assert record.mine == [] and record.load is None and record.probe is None and record.unit == "s"
    assert _outcome([1, 2]).measured is None  # no record at all: nothing to draw, as the reports skipped it
