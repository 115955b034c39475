"""grader.sandbox.studentimports: the kit's packages are refused to graded code, and the student's folder
imports its source alone (moved from tests/grader/sandbox/test_worker.py with the code, no assertion
changed but the copy's private names, now tested beside the worker)."""

from __future__ import annotations

import pytest

from grader.sandbox import studentimports


@pytest.mark.parametrize("name", ["perfcore", "grader.judge", "solutions.m1"])
def test_the_kits_packages_are_refused_to_graded_code(name: str) -> None:
    with pytest.raises(ImportError, match="cannot be imported by graded code"):
        studentimports._Deny(studentimports.DENIED).find_spec(name)
    assert studentimports._Deny(studentimports.DENIED).find_spec("numpy") is None
