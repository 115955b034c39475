"""Without torch: perfcore and its formulas still import and work; the measuring parts say how to install it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

BLOCK_TORCH = textwrap.dedent(
    """
    import sys
    sys.modules["torch"] = None  # import torch now raises ImportError, as where it is not installed
    """
)


def run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", BLOCK_TORCH + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def test_formulas_work_and_measuring_asks_for_torch():
    out = run(
        """
        import perfcore
        from perfcore import A100, matmul_cost, roofline
        r = roofline(*matmul_cost(4096, 4096, 4096, bytes_per=4), A100, dtype="fp32")
        assert r.bound == "compute" and round(r.time_s * 1e3, 1) == 7.0
        import perfcore.measure
        from perfcore.measure import machine_info
        from perfcore.measure.timing import require_torch
        assert machine_info().torch_version == "not installed"
        try:
            require_torch()
        except ImportError as exc:
            assert "pip install" in str(exc), exc
            print("OK", exc)
        else:
            raise SystemExit("require_torch() did not raise")
        assert "torch" not in [m for m, v in sys.modules.items() if v is not None]
        """
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("OK") and "pip install" in out.stdout


def test_the_measure_command_is_skipped_with_a_message():
    out = run(
        """
        from perfcore.measure.cli import main
        raise SystemExit(main(["--quick"]))
        """
    )
    assert out.returncode == 0, out.stderr
    assert "skipped" in out.stderr and "pip install" in out.stderr


def test_the_gpu_part_says_torch_is_missing():
    out = run(
        """
        from perfcore.measure.gpu import gpu_experiments
        r = gpu_experiments()
        assert r.skipped and "pip install" in r.reason, r
        """
    )
    assert out.returncode == 0, out.stderr
