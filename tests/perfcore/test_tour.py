"""The tour: `python -m perfcore` and its five sections print the lecture's tables."""

from __future__ import annotations

import subprocess
import sys

import pytest

import perfcore as pc
from perfcore.__main__ import main
from perfcore.tour import TOUR
from perfcore.tour.gpu import specs_section
from perfcore.tour.transformer import decode_section


def test_listing(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    for name in (*TOUR, "measure", "plot"):
        assert name in out


def test_unknown_section_is_an_error_with_the_choices(capsys):
    assert main(["roofs"]) == 2
    err = capsys.readouterr().err
    assert "roofs" in err and "roofline" in err


@pytest.mark.parametrize("section", list(TOUR))
def test_each_section_prints(section, capsys):
    assert main([section]) == 0
    out = capsys.readouterr().out
    assert out.count("=" * 78) >= 2
    assert "nan" not in out.lower().replace("nanoseconds", "")


def test_gpu_section_values(capsys):
    main(["gpu"])
    out = capsys.readouterr().out
    assert f"{pc.ridge_point(pc.H100):.0f}" in out and f"{pc.ridge_point(pc.A100):.0f}" in out
    waves = [r.waves for r in pc.wave_table()]
    assert all(str(w) in out for w in waves)


def _table_rows(text: str, first_cell: str) -> list[list[str]]:
    """The rows of the tables in ``text`` whose first cell is ``first_cell`` (table rows: digits follow)."""
    rows = (line.split() for line in text.splitlines())
    return [row for row in rows if row[:1] == [first_cell] and len(row) > 1 and row[1][0].isdigit()]


def test_gpu_specs_table_has_gib_and_the_h200_l2():
    out = specs_section()
    assert "HBM GiB" in out and "HBM GB " not in out
    for gpu in pc.GPUS.values():
        (row,) = _table_rows(out, gpu.name)
        # GPU, SMs, BF16, FP32, BF16/FP32, HBM TB/s, HBM GiB, SRAM/SM KiB, L2 MiB, ridge
        assert row[6] == f"{gpu.hbm_bytes / pc.GiB:.0f}"
        assert row[8] == f"{gpu.l2_bytes // pc.MiB}"
    assert _table_rows(out, "H200")[0][8] == "60"
    assert _table_rows(out, "H100")[0][6] == "80"


def test_decode_fits_column_follows_the_usable_hbm():
    out = decode_section()
    fits = {}
    for batch in (1, 8, 32, 64, 128, 256):
        (row,) = _table_rows(out, str(batch))
        fits[batch] = row[-1]
        step = pc.step_estimate(pc.LLAMA3_8B, pc.H100, batch, 1, 2048)
        assert row[-1] == ("yes" if step.fits_in_memory else "NO")
    assert fits[128] == "yes" and fits[256] == "NO"  # §6.2: 64 GiB of KV cache and 15 GiB of weights
    assert f"{pc.decode_time_bound(pc.LLAMA3_8B, pc.H100) * 1e3:.2f} ms" in out


def test_transformer_section_values(capsys):
    main(["transformer"])
    out = capsys.readouterr().out
    prefill = pc.step_estimate(pc.LLAMA3_8B, pc.H100, 1, 2048, 2048)
    assert f"{prefill.flops / 1e12:.1f} TFLOP" in out
    assert f"{prefill.fraction_of_peak:.0%} of peak" in out
    assert f"{pc.training_flops(pc.param_count(pc.LLAMA3_8B), 15e12):.2e}" in out


def test_rebuilt_tables_are_there(capsys):
    main(["all"])
    out = capsys.readouterr().out
    for title in ("GPU specifications", "Common ops on the H100", "prefill", "decode", "Long context"):
        assert title in out


def test_module_entry_point_runs():
    done = subprocess.run(
        [sys.executable, "-m", "perfcore", "tiling"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "2n^3/T + n^2" in done.stdout
