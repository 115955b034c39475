"""perfcore.measure.procstat: the one reader of /proc/stat, on files of other machines."""

from __future__ import annotations

from pathlib import Path

from perfcore.measure import procstat


def test_the_machine_line_and_each_cpu_read_busy_without_idle_iowait_or_steal(tmp_path: Path) -> None:
    path = tmp_path / "stat"
    path.write_text(
        "cpu  18 0 2 100 7 0 0 5 0 0\ncpu0 15 0 0 50 7 0 0 5 0 0\ncpu1 3 0 2 50 0 0 0\nintr 1 2 3\n",
        encoding="ascii",
    )
    assert procstat.machine(str(path)) == procstat.Cpu(20, 5)
    assert procstat.per_cpu(str(path)) == {0: procstat.Cpu(15, 5), 1: procstat.Cpu(5, 0)}


def test_a_file_that_cannot_be_read_gives_nothing(tmp_path: Path) -> None:
    assert procstat.machine(str(tmp_path / "missing")) is None
    assert procstat.per_cpu(str(tmp_path / "missing")) == {}
    (tmp_path / "bad").write_text("cpu0 x 0 0 0 0\n", encoding="ascii")
    assert procstat.per_cpu(str(tmp_path / "bad")) == {}
