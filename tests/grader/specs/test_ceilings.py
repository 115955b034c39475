"""grader.specs.ceilings: a profile measured busy is not evidence (the judge's bounds are the physical ones
then, and m4a's k is drawn from its fixed range), unless every span is read as quiet; no profile, none."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from grader.checks import m4
from grader.judge import Judge
from grader.sandbox import load
from grader.specs import ceilings


@dataclass
class Profile:
    """What the grader reads of a profile: whether it was measured busy, and its two ceilings."""

    measured_busy: bool
    bandwidth_bytes_per_s: float = 16e9
    peak_flops: float = 5e10
    peak_path: str = "torch.mm"
    bandwidth_path: str = "np.copyto"


@pytest.fixture(autouse=True)
def _rate_forgotten():
    """m4's rate is read once per process: the fake profiles' rates must not outlive these tests."""
    yield
    m4.machine_dram_rate.cache_clear()


def given(monkeypatch: pytest.MonkeyPatch, profile: Profile | Exception) -> None:
    def machine_profile() -> Profile:
        if isinstance(profile, Exception):
            raise profile
        return profile

    monkeypatch.setattr(ceilings, "machine_profile", machine_profile)
    monkeypatch.delenv(load.LOAD_ENV, raising=False)
    m4.machine_dram_rate.cache_clear()


def test_a_busy_profile_is_not_evidence(monkeypatch) -> None:
    given(monkeypatch, Profile(measured_busy=True))
    assert ceilings.evidence_profile() is None
    with Judge("en") as judge:
        bounds = judge.sides.bounds()
    assert bounds.dram_limit is None and bounds.compute_limit is None  # the physical bounds alone
    assert m4.machine_dram_rate() is None  # k from PASSES, not raised by a low rate
    assert m4.passes(1 << 20, m4.machine_dram_rate()) == m4.PASSES


def test_a_calm_profile_gives_its_limits(monkeypatch) -> None:
    calm = Profile(measured_busy=False)
    given(monkeypatch, calm)
    assert ceilings.evidence_profile() is calm
    with Judge("en") as judge:
        bounds = judge.sides.bounds()
    assert bounds.dram_limit == pytest.approx(2 * calm.bandwidth_bytes_per_s)
    assert m4.machine_dram_rate() == pytest.approx(2 * calm.bandwidth_bytes_per_s)


def test_read_as_quiet_a_busy_profile_is_calm(monkeypatch) -> None:
    """PERFKIT_LOAD=quiet, the kit's tests' setting, reads every span as quiet: the profile's too, so that
    the verdicts they require do not follow the load the profile happened to be measured under."""
    busy = Profile(measured_busy=True)
    given(monkeypatch, busy)
    monkeypatch.setenv(load.LOAD_ENV, load.QUIET)
    assert ceilings.evidence_profile() is busy


def test_no_profile_is_none(monkeypatch) -> None:
    given(monkeypatch, RuntimeError("no torch"))
    assert ceilings.evidence_profile() is None
