"""The student's code of a notebook: its code cells, in order, without the cells that import or call the
grader (the notebook's setup and check cells), IPython's own syntax turned into plain Python.

The one reading of a notebook's code, for both of its judges: ``grader.check`` in the student's kernel (from
IPython's history ``In``, :func:`grader.api.notebook_source`) and the judge outside it that decides grades
under ``nbgrader autograde`` (from the submitted notebook's file, :mod:`grader.course.judgecells`). Imports
nothing outside the standard library but IPython, where it is installed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

#: A cell that imports or calls the grader (the notebook's setup and check cells): not the student's code.
GRADER_CELL = re.compile(r"^\s*(import grader|from grader\b)|\bgrader\.(check|grade)\(", re.M)


def cells_source(cells: Iterable[str]) -> str:
    """The module a notebook's code ``cells`` make: those that do not call the grader, in order, blank-line
    separated. IPython's own syntax (``%timeit``, ``!ls``) is turned into plain Python where IPython is
    installed."""
    transform: Callable[[str], str] = str.strip
    try:
        from IPython.core.inputtransformer2 import TransformerManager  # deferred on purpose: optional

        transform = TransformerManager().transform_cell
    except ImportError:  # plain Python cells need no transforming
        pass
    kept = [transform(c) for c in cells if c.strip() and not GRADER_CELL.search(c)]
    return "\n\n".join(kept) + "\n"
