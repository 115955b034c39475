"""What a measurement hands the student's function, and what its result must be.

A measurement whose work has a result (a copy, a product, a transpose, k passes) does not let the student's
code make its own inputs: the judge makes them (:class:`Buffer`), fresh for every call, drawn at random in
memory the judge maps too, and after the call reads the outputs in those same pages. A call that leaves an
output wrong or unwritten, or changes an input, did not do the work it timed (:class:`Handed`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: Bytes per element of the dtypes a buffer may be shown in (a dtype not named here shows no size).
ITEM_BYTES = {
    "float16": 2,
    "bfloat16": 2,
    "float32": 4,
    "float64": 8,
    "int8": 1,
    "uint8": 1,
    "int32": 4,
    "int64": 8,
}

#: How an input buffer is drawn: standard normal numbers, uniform in [0, 1), or powers of two (1, 2 or 4: every
#: whole multiple of one is exact in FP32 up to 2^24 of them, so that an accumulator counts its runs). Outputs
#: are filled with NaN, so an output left unwritten is never right; an accumulator's with zero
#: (``zeroed``), none of its runs yet.
FILLS = ("normal", "uniform", "powers")


def back_to_back(counts: Sequence[int], per: int = 1) -> list[tuple[int, int]]:
    """The flat ranges of pieces of ``counts`` rows of ``per`` elements each, laid back to back in order: each
    point's piece of a curve's output (:attr:`Handed.segments`), as ``tensor.split(counts)`` cuts it."""
    ranges, start = [], 0
    for count in counts:
        ranges.append((start * per, (start + count) * per))
        start += count
    return ranges


@dataclass(frozen=True)
class Buffer:
    """One argument the judge makes: ``shape`` of ``dtype``, handed as a numpy array or a torch tensor
    (``library``), an input drawn by ``fill`` or an ``output`` (``zeroed``: an accumulator's, handed at
    zero)."""

    shape: tuple[int, ...]
    library: str = "torch"
    dtype: str = "float32"
    output: bool = False
    fill: str = "normal"
    zeroed: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.shape, tuple) or not all(isinstance(n, int) and n >= 0 for n in self.shape):
            raise ValueError(f"Buffer.shape must be a tuple of non-negative ints, got {self.shape!r}")
        if self.library not in ("numpy", "torch"):
            raise ValueError(f"Buffer.library must be 'numpy' or 'torch', got {self.library!r}")
        if self.fill not in FILLS:
            raise ValueError(f"Buffer.fill must be one of {FILLS}, got {self.fill!r}")
        if self.zeroed and not self.output:
            raise ValueError("Buffer.zeroed is for an output (an accumulator's); an input is drawn by fill")

    @property
    def shown(self) -> str:
        """The buffer as a call's message shows the argument, the same in every language: its library,
        dtype, shape and bytes (``torch.float32[676864] (2707456 B)``), as the student's function meets it."""
        count = 1
        for n in self.shape:
            count *= n
        size = f" ({count * ITEM_BYTES[self.dtype]} B)" if self.dtype in ITEM_BYTES else ""
        return f"{self.library}.{self.dtype}[{', '.join(str(n) for n in self.shape)}]{size}"


@dataclass(frozen=True, kw_only=True)
class Handed:
    """The student's arguments at one of the check's inputs, and the test of its result.

    ``arguments(**inputs)``: the student's keyword arguments at the check's (drawn) input, each a
    :class:`Buffer` the judge makes or a plain value passed as is. ``result(got, **inputs)``: whether the
    buffers after the call (``got``: name to numpy array; the inputs are checked unchanged first) hold the
    result of the work. ``result_zh``/``result_en``: what that result is, told to the student when it is not
    there ("dst 等于 src" / "dst equal to src").
    """

    arguments: Callable[..., Mapping[str, Any]]
    result: Callable[..., bool]
    result_zh: str
    result_en: str
    #: For a result every run writes anew (a copy, a transpose, a product, k passes): the output the judge
    #: watches while the call runs (:mod:`grader.judge.runners.witness`), and ``at(got, where, **inputs)``:
    #: what a run leaves at the output's flat places ``where``, as (values, how far from each a value may
    #: lie), from the inputs before the call (``got``: the inputs, name to numpy array).
    watched: str | None = None
    at: Callable[..., tuple[Any, Any]] | None = None
    #: For an accumulator instead (m5's ``out += x``: the output after r runs holds r times what one adds),
    #: ``counted(got, where, **inputs)``: what one run adds at the output's flat places ``where``, so that the
    #: witness counts every run however fast (its output is never stamped); with ``watched``, in place of
    #: ``at``.
    counted: Callable[..., Any] | None = None
    #: For a result made by passes, each over the whole output before the next (k passes): with ``at``,
    #: ``stages(got, where, **inputs)``, what the output holds at ``where`` before a run's first pass and after
    #: each (a row a place, a column a pass, in order; None at an input made in one pass), so that the witness
    #: reads at every look how many passes each place has had, and sees a part taken through several passes
    #: before the rest (:mod:`grader.judge.runners.passes`).
    stages: Callable[..., Any] | None = None
    #: ``writes(**inputs)``: how many times one run writes each place of ``watched`` (k passes: k).
    writes: Callable[..., int] = lambda **_: 1
    #: Whether a run's result stays at each place until the next run writes there (a copy, a transpose, an
    #: add, k passes' last pass). False for a product: a BLAS kernel writes its result at a place with the
    #: last panel of its sum and the next run's first panel writes over it, so it stands there for a few
    #: per cent of a run (4.6-6.3% at the best of four places, 0.1% at the last block, measured at m2b's m of
    #: 32-512): only the place where it stood longest can be trusted to see every finish.
    lasting: bool = True
    #: Whether each run writes each place once, with its result and nothing before it (a copy): then a run's
    #: write over the witness's stamp is seen at every place however briefly a look comes, so a place that
    #: saw no timed run finish while another saw two is a part of the output the timed runs left alone
    #: (:meth:`~grader.judge.runners.witness.Crossings.part_outside`). False where a run writes partial
    #: results first (a matrix-vector product's column panels, k passes' first ones): there the result
    #: stands for part of a run only, and a look can miss it at one place every run.
    written_once: bool = False
    #: For a curve (a :class:`~grader.specs.check.ShapeCheck`): ``segments(**inputs)``, the flat ranges
    #: ``(start, stop)`` of ``watched`` that each point's runs write, one per point in the curve's order
    #: (m5b's pieces of ``c``, m2b's row blocks of ``y``): the witness watches each apart, so that each
    #: point is held to its own runs.
    segments: Callable[..., Sequence[tuple[int, int]]] | None = None

    def __post_init__(self) -> None:
        for name in ("arguments", "result"):
            if not callable(getattr(self, name)):
                raise TypeError(f"Handed.{name} must be callable, got {getattr(self, name)!r}")
        for name in ("result_zh", "result_en"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                raise ValueError(f"Handed.{name} must be a non-empty string")
        reads = [f for f in (self.at, self.counted) if f is not None]
        if (self.watched is None) != (not reads) or len(reads) > 1 or not all(map(callable, reads)):
            raise TypeError(
                "Handed.watched goes with one of at and counted, callable; got "
                f"{self.watched!r}, {self.at!r}, {self.counted!r}"
            )
        if self.stages is not None and (self.at is None or not callable(self.stages)):
            raise TypeError(f"Handed.stages must be callable and goes with at, got {self.stages!r}")
        if self.segments is not None and (self.watched is None or not callable(self.segments)):
            raise TypeError(f"Handed.segments must be callable and needs watched, got {self.segments!r}")

    def said(self, lang: str) -> str:
        return self.result_zh if lang == "zh" else self.result_en
