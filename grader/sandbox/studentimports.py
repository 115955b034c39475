"""How the student's code imports inside the worker: the kit's packages refused, and source files only.

The worker (:mod:`grader.sandbox.worker`) puts :class:`_Deny` first on ``sys.meta_path`` (the packages that
compute the grader's references, unless a course allows one) and :func:`source_imports` on the path hooks
before it imports any student file: what runs is the source the student handed in, never bytecode read from
``__pycache__`` (a ``.pyc`` compiled with an unchecked hash loads whatever the ``.py`` beside it says), and in
the student's folder only ``.py`` files import (no sourceless ``.pyc``, no compiled extension module).

Like :mod:`grader.sandbox.wire` this module is copied beside the worker (``messages.WORKER_FILES``) and
imports only the standard library.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
from typing import Any

#: The kit's packages graded code may not import (a course may allow perfcore or grader).
DENIED = ("perfcore", "grader", "solutions")


class _Deny(importlib.abc.MetaPathFinder):
    """Refuses the kit's packages: the student's code must not compute the grader's references. (Its name
    is private, as before it moved here: it is what a submission sees on ``sys.meta_path``.)"""

    def __init__(self, denied: tuple[str, ...]) -> None:
        self.denied = denied

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if fullname.split(".")[0] in self.denied:
            raise ImportError(
                f"{fullname} cannot be imported by graded code · 评分时不能导入 {fullname}", name=fullname
            )
        return None


def source_only(folder: str) -> Any:
    """A path hook for ``folder`` and the folders below it that finds ``.py`` files alone; elsewhere
    (the standard library, site-packages) it declines and Python's own hooks answer."""
    top = os.path.realpath(folder)
    finder = importlib.machinery.FileFinder.path_hook(
        (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES)
    )

    def hook(path: str) -> Any:
        real = os.path.realpath(path or ".")
        if real == top or real.startswith(top + os.sep):
            return finder(path)
        raise ImportError("not the student's folder")

    return hook


def source_imports(folder: str, here: str) -> None:
    """Make every import of the student's code compile its ``.py`` (module docstring); ``here`` is the
    worker's own folder, under which no bytecode folder exists."""
    sys.dont_write_bytecode = True
    # bytecode is looked for under this prefix instead of beside the source: a folder that is not there
    sys.pycache_prefix = os.path.join(here, "no-bytecode")
    sys.path_hooks.insert(0, source_only(folder))
    sys.path_importer_cache.clear()
