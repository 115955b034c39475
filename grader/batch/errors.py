"""The batch grader's one error: a bad argument or folder, said to the instructor with what is allowed.

Its own module so that every part of :mod:`grader.batch` (the engine, the shards, the command line) can
raise it without importing another part.
"""

from __future__ import annotations


class BatchError(ValueError):
    """A bad argument or folder given to the batch grader."""
