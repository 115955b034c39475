"""Plots: each renders a non-empty PNG quickly, from a small measured report (not a full measurement)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("matplotlib", reason="perfcore.plots needs matplotlib (pip install perfkit[plot])")

from perfcore import plots  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def is_png(path) -> bool:
    data = path.read_bytes()
    return data.startswith(PNG_MAGIC) and len(data) > 5000


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    pytest.importorskip("torch", reason="the measured plots need a measured report, which needs torch")
    from perfcore.measure.suite import Plan, run_all

    mp = pytest.MonkeyPatch()
    mp.setenv("PERFKIT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    try:
        yield run_all(Plan.tiny(), progress=None, only=tuple({n for v in plots.NEEDS.values() for n in v}))
    finally:
        mp.undo()


def test_latency_hiding_needs_no_measurement(tmp_path):
    assert is_png(plots.plot_latency_hiding(tmp_path / "latency.png"))


@pytest.mark.parametrize("name", ["transpose", "fusion", "overhead"])
def test_each_measured_plot_renders(report, tmp_path, name):
    fn = getattr(plots, f"plot_{name}")
    assert is_png(fn(report, tmp_path / f"{name}.png"))


def test_the_roofline_beside_another_gpu(report, tmp_path):
    assert is_png(plots.plot_roofline(report, tmp_path / "roofline.png", gpu="A100"))


def test_every_experiment_with_arithmetic_is_a_point_on_the_roofline(report):
    series = {p["series"] for p in plots.measured_points(report)}
    assert {
        "§3.5 X[m] @ W (128 MiB)",
        "matmul n x n",
        "elementwise (seed 002)",
        "bandwidth",
        "exercise 10 (m = 1)",
        "fusion (§5.2)",
        "add (§5.3)",
    } <= series
    assert all(p["intensity"] > 0 and p["flops"] > 0 for p in plots.measured_points(report))


def test_command_line_from_a_saved_report(report, tmp_path, capsys):
    saved = tmp_path / "report.json"
    saved.write_text(json.dumps(report))
    assert plots.main(["all", "--out", str(tmp_path / "all"), "--from", str(saved)]) == 0  # roofline included
    for name in plots.PLOTS:
        assert is_png(tmp_path / "all" / f"{name}.png")
    assert "wrote" in capsys.readouterr().out


def test_command_line_latency_and_errors(tmp_path, capsys):
    assert plots.main(["latency", "--out", str(tmp_path / "l.png")]) == 0
    assert is_png(tmp_path / "l.png")
    with pytest.raises(SystemExit):
        plots.main(["nonsense", "--out", str(tmp_path / "x.png")])
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"experiments": {}, "ceilings": {}}))
    assert plots.main(["transpose", "--out", str(tmp_path / "t.png"), "--from", str(empty)]) == 1
    assert "transpose" in capsys.readouterr().err
