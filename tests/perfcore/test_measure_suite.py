"""The whole run: every experiment of the lecture in one report (JSON-ready) and the tables printed from it."""

from __future__ import annotations

import json
import math

import pytest

torch = pytest.importorskip("torch", reason="perfcore.measure needs torch (pip install perfkit[torch])")

from perfcore.measure.suite import EXPERIMENTS, Plan, format_report, run_all  # noqa: E402


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("PERFKIT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    mp.delenv("PERFKIT_REFRESH_PROFILE", raising=False)
    messages: list[str] = []
    try:
        yield run_all(Plan.tiny(), progress=messages.append), messages
    finally:
        mp.undo()


def _numbers(obj):
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _numbers(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _numbers(v)
    elif isinstance(obj, float):
        yield obj


def test_every_experiment_has_an_entry(report):
    r, _ = report
    assert not r["errors"], r["errors"]
    assert set(r["experiments"]) == set(EXPERIMENTS)
    assert r["experiments"]["gpu"]["skipped"] is True


def test_the_report_is_json_with_machine_and_ceilings(report):
    r, _ = report
    text = json.dumps(r)  # no NaN, no objects
    back = json.loads(text)
    for key in ("cpu_model", "caches", "flags", "blas", "torch_version", "numpy_version", "threads"):
        assert key in back["machine"]
    c = back["ceilings"]
    assert c["bandwidth_bytes_per_s"] > 0 and c["peak_flops"] > 0
    assert c["bandwidth_path"] in ("torch copy_", "np.copyto") and c["peak_path"] in ("torch.mm", "np.matmul")
    assert all(math.isfinite(x) for x in _numbers(back["experiments"]))


def test_every_figure_carries_its_noise(report):
    r, _ = report

    def figures(obj):
        if isinstance(obj, dict):
            if {"rate", "noise", "time_s", "unit"} <= set(obj):
                yield obj
            for v in obj.values():
                yield from figures(v)
        elif isinstance(obj, list):
            for v in obj:
                yield from figures(v)

    found = list(figures(r["experiments"]))
    assert len(found) > 20
    assert all(f["noise"] >= 0 and f["rate"] > 0 for f in found)


def test_rates_under_the_measured_ceilings(report):
    r, _ = report
    b = r["bounds"]
    for p in r["experiments"]["matmul"]["points"]:
        assert p["figure"]["rate"] <= b["compute_limit"]
    for p in r["experiments"]["roofline"]["points"]:
        assert p["figure"]["rate"] <= b["compute_limit"]


def test_progress_is_shown_and_tables_print(report):
    r, messages = report
    assert any(m.startswith("[1/") for m in messages)
    text = format_report(r)
    for title in EXPERIMENTS.values():
        assert title in text
    assert "MEASUREMENT ERROR" not in text
    assert format_report(json.loads(json.dumps(r))) == text  # the tables read the JSON as well


def test_a_measurement_error_is_reported_not_printed_as_a_figure(report):
    r, _ = report
    broken = json.loads(json.dumps(r))
    del broken["experiments"]["transpose"]
    broken["errors"]["transpose"] = "transpose: measured 9e15 bytes/s, above the physical bound"
    text = format_report(broken)
    assert "MEASUREMENT ERROR (no figure reported): transpose: measured" in text


def test_only_and_unknown_names(tmp_path, monkeypatch):
    monkeypatch.setenv("PERFKIT_CACHE_DIR", str(tmp_path))
    r = run_all(Plan.tiny(), progress=None, only=("overhead",))
    assert set(r["experiments"]) == {"overhead"}
    with pytest.raises(ValueError, match="only"):
        run_all(Plan.tiny(), progress=None, only=("nonsense",))
