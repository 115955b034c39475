"""The memory a batch run was given (grader.batch.allotment): Slurm's allocation, a cgroup's limit, or the
machine's, read from injected environments and cgroup trees rather than from this machine."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import grader.batch.cli as cli
from grader.batch import allotment as al

GiB = al.GiB
MiB = al.MiB


def v2_tree(tmp_path: Path, limits: dict[str, str], group: str = "/kubepods/pod1/ctr") -> tuple[Path, Path]:
    """A cgroup v2 mount with ``memory.max`` files (relative folder -> text) and this process in ``group``."""
    root = tmp_path / "cgroup"
    (root / group.lstrip("/")).mkdir(parents=True)
    for folder, text in limits.items():
        (root / folder / "memory.max").write_text(text + "\n")
    membership = tmp_path / "self-cgroup"
    membership.write_text(f"0::{group}\n")
    return root, membership


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"SLURM_MEM_PER_NODE": "32768"}, 32 * GiB),
        ({"SLURM_MEM_PER_CPU": "4096", "SLURM_CPUS_PER_TASK": "8"}, 32 * GiB),
        ({"SLURM_MEM_PER_CPU": "4096", "SLURM_CPUS_ON_NODE": "2"}, 8 * GiB),
        ({"SLURM_MEM_PER_CPU": "4096"}, 4 * GiB),
        ({}, None),
        ({"SLURM_MEM_PER_NODE": "0"}, None),
        ({"SLURM_MEM_PER_NODE": "lots"}, None),
    ],
)
def test_slurm_allocation_from_the_environment(environ: dict[str, str], expected: int | None) -> None:
    assert al.slurm_bytes(environ) == expected


def test_the_smallest_limit_up_the_cgroup_tree_counts(tmp_path: Path) -> None:
    root, membership = v2_tree(
        tmp_path, {"kubepods/pod1/ctr": "max", "kubepods/pod1": str(16 * GiB), "kubepods": str(64 * GiB)}
    )
    assert al.cgroup_bytes(root, membership) == 16 * GiB


def test_no_limit_anywhere_is_none(tmp_path: Path) -> None:
    root, membership = v2_tree(tmp_path, {"kubepods/pod1/ctr": "max", "kubepods": "max"})
    assert al.cgroup_bytes(root, membership) is None
    assert al.cgroup_bytes(root, tmp_path / "absent") is None


def test_cgroup_v1_and_a_namespaced_view(tmp_path: Path) -> None:
    """v1 keeps memory in its own hierarchy; in a cgroup namespace the group shown is not under the mount,
    whose root is then this process's group (as in containers)."""
    root = tmp_path / "cgroup"
    (root / "memory").mkdir(parents=True)
    (root / "memory" / "memory.limit_in_bytes").write_text(str(12 * GiB))
    membership = tmp_path / "self-cgroup"
    membership.write_text("4:memory:/process_api/abc\n1:cpu:/\n")
    assert al.cgroup_bytes(root, membership) == 12 * GiB
    (root / "memory" / "memory.limit_in_bytes").write_text("9223372036854771712")  # v1's "no limit"
    assert al.cgroup_bytes(root, membership) is None


def test_the_smaller_of_slurm_and_the_cgroup_wins(tmp_path: Path) -> None:
    root, membership = v2_tree(tmp_path, {"kubepods/pod1": str(16 * GiB)})
    got = al.allotment({"SLURM_MEM_PER_NODE": "32768"}, root, membership)
    assert got == al.Allotment(16 * GiB, "the cgroup's memory limit")
    got = al.allotment({"SLURM_MEM_PER_NODE": "8192"}, root, membership)
    assert got == al.Allotment(8 * GiB, "the Slurm allocation")
    bare = al.allotment({}, tmp_path / "none", tmp_path / "none")
    assert bare is not None and not bare.allotted and bare.total == al.machine_bytes()


def test_a_child_gets_its_share_of_the_allotment_not_of_the_node() -> None:
    """The issue's case: --mem=32G and 8 jobs on a large node give 4 GiB a child, not 8."""
    assert al.child_memory_bytes(8, al.Allotment(32 * GiB, "the Slurm allocation")) == 4 * GiB
    assert al.child_memory_bytes(8, al.Allotment(1 << 40, "the machine's memory", allotted=False)) == 8 * GiB
    assert al.child_memory_bytes(8, al.Allotment(4 * GiB, "the machine's memory", allotted=False)) == 2 * GiB
    assert al.child_memory_bytes(1, None) == al.CHILD_CAP


@given(
    total=st.integers(min_value=1, max_value=1 << 44),
    jobs=st.integers(min_value=1, max_value=512),
)
def test_allotted_children_never_add_up_past_the_allotment(total: int, jobs: int) -> None:
    each = al.child_memory_bytes(jobs, al.Allotment(total, "the Slurm allocation"))
    assert 0 < each <= al.CHILD_CAP
    assert each * jobs <= max(total, jobs * MiB)


def test_the_command_says_where_the_limit_came_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SLURM_MEM_PER_NODE", "4096")
    monkeypatch.setattr(al, "cgroup_bytes", lambda *a: None)  # whatever cgroup this test runs in
    subs = tmp_path / "subs"
    subs.mkdir()
    seen: list[int] = []

    def fake_grade_batch(submissions, config, out=None):  # stop before grading: the limit is the point
        seen.append(config.limits.memory_bytes)
        raise cli.BatchError("stopped here")

    monkeypatch.setattr(cli, "grade_batch", fake_grade_batch)
    assert cli.main([str(subs), "--jobs", "4", "--out", str(tmp_path / "out")]) == 2
    assert seen == [GiB]  # 4 GiB shared by 4 jobs
    assert "4.00 GiB from the Slurm allocation, shared by 4 jobs" in capsys.readouterr().err
