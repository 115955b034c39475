"""grader.results.reuse: what a second run would repeat is kept as a verdict; what the machine's load may
have decided (a wrong under load, a deferral, a timeout) is not kept, and a rerun measures it again, busy
machine or not (issue 47 item 7: it was shown again while the machine stayed busy). The load is injected."""

from __future__ import annotations

import pytest

from grader.results import reuse
from grader.results.outcome import Outcome
from grader.results.secret import KEY_FILE, signing_key


def outcome(state: str, *, quiet: int | None = 5, deferred: bool = False, rounds: int = 5) -> Outcome:
    measured = None if quiet is None else {"load": {"rounds": rounds, "clean": quiet, "quiet": quiet}}
    return Outcome(
        exercise="m1",
        check_id="copy_bandwidth",
        part="m1",
        state=state,
        points=3.0 if state == "passed" else 0.0,
        max_points=3.0,
        message="the message",
        deferred=deferred,
        measured=measured,
    )


@pytest.fixture(autouse=True)
def secret_folder(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's cache folder, where the secret that signs entries is made: a fresh one per test."""
    monkeypatch.setenv("PERFKIT_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def machine(monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201 - a setter
    """``machine(None)`` quiet now, ``machine("2.0 of 2 CPUs busy")`` busy now."""

    def now(busy: str | None) -> None:
        monkeypatch.setattr(reuse.load, "busy_now", lambda *a, **k: busy)

    return now


def test_a_pass_and_a_quiet_wrong_are_verdicts(machine) -> None:
    machine("2.0 of 2 CPUs busy")  # the load now does not matter to a verdict
    for state in ("passed", "wrong"):
        kept = reuse.entry(outcome(state), "k")
        assert kept is not None and "retry" not in kept
        again = reuse.reused(kept, "m1", "copy_bandwidth", "m1.py")
        assert again is not None and again.state == state and again.reused and again.message == "the message"


def test_a_wrong_taken_under_load_is_not_kept_so_a_rerun_measures_it_again(machine) -> None:
    """Before issue 47 it was kept as a retry and shown again while the machine stayed busy."""
    machine("2.0 of 2 CPUs busy")
    assert reuse.entry(outcome("wrong", quiet=2), "k") is None
    machine(None)
    assert reuse.entry(outcome("wrong", quiet=2), "k") is None  # its rounds were loaded, whatever now


def test_a_wrong_with_no_rounds_is_kept_only_where_the_machine_is_quiet_as_it_is_kept(machine) -> None:
    machine(None)
    kept = reuse.entry(outcome("wrong", quiet=None))
    assert kept is not None and reuse.reused(kept, "m1", "copy_bandwidth", "m1.py") is not None
    machine("2.0 of 2 CPUs busy")
    assert reuse.entry(outcome("wrong", quiet=None)) is None


@pytest.mark.parametrize("state", ["skipped", "timeout"])
def test_deferrals_and_timeouts_are_measured_again_on_a_busy_machine_too(machine, state: str) -> None:
    """Issue 47 item 7: a student at load 2.5 saw the same deferral on every rerun ("the last result is shown
    again ... measured again once the machine is quieter"). Not kept: the rerun measures again. An entry an
    older kit kept as a retry (signed, so it verifies) is not shown again either."""
    machine("1.9 of 2 CPUs busy")
    deferred = outcome(state, quiet=0, deferred=state == "skipped")
    assert reuse.entry(deferred) is None
    secret = signing_key()
    assert secret is not None
    older = {"outcome": deferred.to_dict(), "measured_at": "2026-12-05 10:00", "retry": True}
    older["mac"] = reuse.signature(older, "k", secret)
    assert reuse.verified(older, "k")
    assert reuse.reused(older, "m1", "copy_bandwidth", "m1.py", "zh") is None


def test_errors_and_plain_skips_are_never_kept(machine) -> None:
    machine("2.0 of 2 CPUs busy")
    assert reuse.entry(outcome("error")) is None
    assert reuse.entry(outcome("skipped", deferred=False)) is None


def test_a_forged_retry_cannot_turn_into_a_pass(machine) -> None:
    """An entry marked retry whose outcome says passed is not a retry of anything: not taken."""
    machine("2.0 of 2 CPUs busy")
    kept = reuse.entry(outcome("passed"))
    assert kept is not None
    assert reuse.reused({**kept, "retry": True}, "m1", "copy_bandwidth", "m1.py") is None


def test_entries_are_signed_with_a_secret_outside_the_repository(tmp_path) -> None:
    kept = reuse.entry(outcome("passed"), "k1")
    assert kept is not None and reuse.verified(kept, "k1")
    assert not reuse.verified(kept, "k2")  # moved to another key
    assert not reuse.verified({**kept, "outcome": {**kept["outcome"], "points": 99.0}}, "k1")  # edited
    assert not reuse.verified({k: v for k, v in kept.items() if k != "mac"}, "k1")  # never signed
    secret = tmp_path / "cache" / KEY_FILE
    assert secret.stat().st_mode & 0o777 == 0o600 and len(secret.read_bytes()) == 32
    secret.write_bytes(b"another account's secret, 32 bytes long")
    assert not reuse.verified(kept, "k1")


def test_under_ci_the_cache_is_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    assert not reuse.readable()
    monkeypatch.delenv("CI")
    assert reuse.readable()


@pytest.mark.parametrize("state", ["passed", "wrong", "not_attempted"])
def test_a_formula_outcome_is_kept_whatever_the_load(machine, state: str) -> None:
    """Issue 30: a formula check's answer is the same on every run: kept under load too, never as a retry;
    a measurement's not attempted is no verdict of it."""
    machine("2.0 of 2 CPUs busy")
    kept = reuse.entry(outcome(state, quiet=0), "k", formula=True)
    assert kept is not None and "retry" not in kept
    machine(None)
    again = reuse.reused(kept, "m1", "copy_bandwidth", "m1.py", formula=True)
    assert again is not None and again.state == state
    if state == "not_attempted":
        assert reuse.reused(kept, "m1", "copy_bandwidth", "m1.py") is None


@pytest.mark.parametrize("state", ["error", "timeout", "skipped"])
def test_a_formula_check_that_did_not_answer_is_graded_again(machine, state: str) -> None:
    machine(None)
    assert reuse.entry(outcome(state, deferred=state == "skipped"), "k", formula=True) is None
