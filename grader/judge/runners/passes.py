"""The order of k passes, as the judge's witness reads it off the output at one look (issue 45: m4a's passes
made block by block in cache, the same result bit for bit at 0.77x the time, inside the band).

k passes each go over the whole output before the next begins. So at any moment every place of the output
has had the same number of passes, or one more where the pass under way has reached it. A look reads a few
places one after another, not at one moment; but where the look took less than one pass can take (the
pass's bytes at the machine's fastest rate), at most one pass ended while it read them. Then, of two places:

- one read earlier has had at most one pass more than one read later (it was at most one ahead when it was
  read, and the later one has only gained since);
- one read later has had at most two passes more than one read earlier (one ahead, and one pass ended).

A look that reads places further apart than that saw passes out of order: a part of the output taken
through several passes before the rest (m4a's first 35% through all k passes, 64 Ki elements at a time in
L2, then the rest through k whole passes), or two passes made together block by block. The witness reads the
places in an order drawn anew each look, so that either way of sweeping shows.

The passes count around a circle of k: the last pass of one run is followed by the first of the next, which
writes over it (reading ``x``). A run that copies ``x`` into the output first (state 0) puts that copy halfway
between the last pass and the first, so that the copy and the first pass together count as one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Passes a place read earlier may be ahead of one read later, in one short look of honest passes.
AHEAD_EARLIER = 1
#: Passes any two places may be apart, in one short look of honest passes.
APART = 2


@dataclass(frozen=True)
class Apart:
    """A look that saw places further apart than passes in order leave them: how long it took to read them
    (seconds, on the judge's clock), and the passes (0 for ``x`` copied in, k for the last) the two places
    had had, the more first (around the circle either may be the one ahead)."""

    took: float
    more: int
    fewer: int


def apart(stages: np.ndarray, k: int, took: float) -> Apart | None:
    """The pair of places out of order among ``stages`` (the passes each place had had, in the order the
    look read them; -1 where its value is none of the stages), read in ``took`` seconds; None where they lie
    as passes in order leave them."""
    known = stages[stages >= 0]
    if len(known) < 2 or k < 1:
        return None
    where = np.where(known == 0, 0.5, known.astype(np.float64))  # a copy of x: halfway into the first pass
    # how far the row's place is ahead of the column's, on the circle
    ahead = (where[:, None] - where[None, :] + k / 2) % k - k / 2
    earlier = np.triu(np.ones(ahead.shape, dtype=bool), 1)  # row read before column
    out = (earlier & (ahead > AHEAD_EARLIER)) | (np.abs(ahead) > APART)
    if not out.any():
        return None
    row, column = (int(i) for i in np.argwhere(out)[0])
    pair = sorted((int(known[row]), int(known[column])), reverse=True)
    return Apart(took, pair[0], pair[1])
