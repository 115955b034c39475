"""A student's rerun measures a deferral again, busy machine or not (issue 47 item 7): at load 2.5 the pytest
front end showed the same deferral on every rerun ("the last result is shown again ... measured again once
the machine is quieter"), where one ``--grader-remeasure`` then passed. Verdicts are still shown from
pytest's cache (tests/grader/pytest/test_session.py's ``test_an_unchanged_folders_measurements_...``)."""

from __future__ import annotations

import pytest

from grader.judge import Judge
from grader.results import reuse
from tests.grader.pytest.graded import METER

pytest_plugins = ["pytester"]


def test_a_deferral_is_measured_again_while_the_machine_stays_busy(session, monkeypatch) -> None:
    ran: list[str] = []
    real = Judge.run_check

    def counted(self, p, *args, **kwargs):
        ran.append(p.check.id)
        return real(self, p, *args, **kwargs)

    monkeypatch.setattr(Judge, "run_check", counted)
    monkeypatch.delenv("CI", raising=False)  # under CI the cache is not read at all
    monkeypatch.setattr(reuse.load, "busy_now", lambda *a, **k: "2.5 of 2 CPUs busy")  # and it stays so
    cached = ("-p", "cacheprovider", "--grader-lang=en")
    first = session(*cached, grader_json=False, fake_meter=METER)
    assert "m_noisy" in ran and "m_ok" in ran
    ran.clear()
    again = session(*cached, grader_json=False)
    assert "m_noisy" in ran, ran  # the deferral: measured again, not shown again
    assert "m_ok" not in ran  # a verdict: shown from the cache
    assert "the last result is shown again" not in again.text and "shown again" not in again.text
    assert [line for line in again.text.splitlines() if line.startswith("total")] == [
        line for line in first.text.splitlines() if line.startswith("total")
    ]


@pytest.mark.parametrize("state", ["skipped", "timeout"])
def test_nothing_but_a_verdict_is_written_to_the_cache(state: str, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PERFKIT_CACHE_DIR", str(tmp_path / "cache"))
    from grader.results.outcome import Outcome

    outcome = Outcome("m1", "c", "m1", state, 0.0, 1.0, "deferred", deferred=state == "skipped")
    assert reuse.entry(outcome, "k") is None
