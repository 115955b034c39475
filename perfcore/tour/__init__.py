"""The tour: the tables of the lecture's five scripts (01 gpu ... 05 transformer) and of seed 002's first
three demos, computed by perfcore and printed as text.

Where the lecture's text lost a table (01 part 1's specs, 02 part 1's H100 ops, 05's per-op prefill and
decode tables), it is rebuilt here from the formulas. Each section returns its text, so tests can read it.

Some sections also print the worked answers of the exercises (1 to 9). A student kit written by
``python -m grader release --no-worked-answers`` leaves them out: its perfcore holds ``_release.py`` with
``WORKED_ANSWERS = False``, and each of those sections then prints the lecture's own tables and, where an
answer stood, a bilingual line saying it was left out of this kit (:func:`.answers.worked_answers`).

Each script's sections are in a module of their own (:mod:`.gpu`, :mod:`.roofline`, :mod:`.tiling`,
:mod:`.fusion`, :mod:`.transformer`); this one lists the tour.
"""

from __future__ import annotations

from collections.abc import Callable

from .fusion import fusion_tour
from .gpu import gpu_tour
from .roofline import roofline_tour
from .tiling import tiling_tour
from .transformer import transformer_tour

#: The tour: name -> (the lecture's script, what it shows, the function that prints it).
TOUR: dict[str, tuple[str, str, Callable[[], str]]] = {
    "gpu": ("01", "specs, latency hiding, divergence, waves (§1-§2)", gpu_tour),
    "roofline": ("02", "intensity, the roofline, batch size; seed 002 demos 1-3 (§3)", roofline_tour),
    "tiling": ("03", "tiled matmul traffic, tile size, rounding (§4)", tiling_tour),
    "fusion": ("04", "fusion and launch overhead (§5)", fusion_tour),
    "transformer": ("05", "prefill, decode, long context, training (§6)", transformer_tour),
}
