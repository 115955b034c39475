"""The buffers of one measuring call: made and drawn before it, read after it (:mod:`grader.specs.handed`
says what they are; :class:`CallBuffers` holds them; :func:`call_buffers` makes them).

For a check with ``handed`` (a measurement's, or a curve's: m2b's sweep, m5b's overhead curve), every call
of the student's function gets buffers of its own (:class:`grader.sandbox.shared.Shared`): inputs drawn
from a seed nobody else knows (new for every call, so nothing computed before the call is its answer),
outputs filled with NaN (an accumulator's with zero). After the call the judge reads
them where the student's code wrote them: an input that changed (a copy "done" by zeroing both buffers), or
an output without the result of the work, is wrong, "the timed work did not produce its result", whatever
figure the call returned. A measurement's input is compared at :data:`INPUT_SAMPLE` places, one in each
of as many equal strata of it, drawn by the judge alone and kept, with what it wrote there, in the judge's
memory: the student's code cannot know them, so a change over any run two strata long is found, and a
change at a share f of scattered places escapes with odds (1 - f)^16384 (10^-7 at f = 0.1%); a change that
small saves no work on one figure. A curve's input is kept whole (a copy in the judge's memory, compared
whole): one point's piece of it can be smaller than a stratum. The result tests sample their places too
(:mod:`grader.compare.outputs`). Drawing a 150 MB input again after every call, to compare it whole, cost
the judge 0.06 s of each of m4a's 0.37 s calls.

The student's code holds the buffers' descriptors, and could cut or grow their files to crash the process
reading them. Their sizes are sealed before they are sent where the kernel can seal (the judge then reads
its own mapping, no copy); where not, the judge reads them by ``pread`` into its own memory, once each, the
size checked before every slice. A buffer whose size changed either way is the student's doing: wrong, with
the sizes named, never a crash of the judge nor an error of the grader's.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...results.outcome import State
from ...sandbox import channel
from ...sandbox.shared import Buffers, Resized, Shared
from ...specs.check import MeasurementCheck, ShapeCheck
from ...specs.handed import Buffer
from ...text.catalogue import render
from ..verdicts import GraderError, Verdict, inputs_text
from .witness import Witness, watch

#: Elements drawn per slice: an input is written a slice at a time, through one scratch slice.
SLICE = 1 << 22
#: The places of a measurement's input the judge keeps and compares after the call (see the module).
INPUT_SAMPLE = 1 << 14


@dataclass(frozen=True)
class Kept:
    """An input's numbers at the places the judge drew (flat indices, sorted; None: every place), as it wrote
    them."""

    where: np.ndarray | None
    values: np.ndarray

    def unchanged(self, now: np.ndarray) -> bool:
        """Whether ``now`` (flat) still holds them, bit for bit (a NaN written over a number is a change)."""
        read = now if self.where is None else now[self.where]
        return read.size == self.values.size and bool(
            np.array_equal(read.view(np.uint8), self.values.view(np.uint8))
        )


def _places(count: int) -> np.ndarray | None:
    """The places of an input of ``count`` numbers the judge compares: one drawn in each of
    :data:`INPUT_SAMPLE` equal strata, from the system's randomness (not the input's seed); None (every
    place) where there are no more numbers than that."""
    if count <= INPUT_SAMPLE:
        return None
    edges = np.linspace(0, count, INPUT_SAMPLE + 1).astype(np.int64)
    rng = np.random.default_rng(secrets.randbits(64))
    return edges[:-1] + (rng.random(INPUT_SAMPLE) * np.diff(edges)).astype(np.int64)


def _drawn(buffer: Buffer, seed: int, size: int, dtype: np.dtype) -> Iterator[tuple[int, np.ndarray]]:
    """``(start, numbers)`` for each slice of ``buffer``'s ``size`` numbers drawn from ``seed``, written into
    one scratch slice reused."""
    rng = np.random.default_rng(seed)
    scratch = np.empty(min(SLICE, size), dtype=dtype)
    for start in range(0, size, SLICE):
        count = min(SLICE, size - start)
        part = scratch[:count]
        if buffer.fill == "normal":
            rng.standard_normal(dtype=part.dtype, out=part)
        elif buffer.fill == "powers":
            np.ldexp(1.0, rng.integers(0, 3, size=count), out=part, casting="unsafe")
        else:
            rng.random(dtype=part.dtype, out=part)
        yield start, part


def _fill(buffer: Buffer, shared: Shared, seed: int | None, whole: bool = False) -> Kept | None:
    """Write ``shared``'s numbers before the call, a slice at a time: ``buffer``'s drawn from ``seed``, or
    NaN for an output (``seed`` None; zero for an accumulator's). An input's numbers at its :func:`_places`
    are kept (every one where ``whole``); None for an output."""
    dtype = np.dtype(shared.dtype)
    if seed is None:
        nan = np.full(min(SLICE, shared.count), 0.0 if buffer.zeroed else np.nan, dtype=dtype)
        for start in range(0, shared.count, SLICE):
            shared.write(start, nan[: min(SLICE, shared.count - start)])
        return None
    where = None if whole else _places(shared.count)
    values = np.empty(shared.count if where is None else where.size, dtype=dtype)
    for start, part in _drawn(buffer, seed, shared.count, dtype):
        shared.write(start, part)
        if where is None:
            values[start : start + part.size] = part
        else:
            first, last = np.searchsorted(where, (start, start + part.size))
            values[first:last] = part[where[first:last] - start]
    return Kept(where, values)


@dataclass
class CallBuffers:
    """One call's buffers: :attr:`kwargs` (plain values only) go with the request as its arguments,
    :attr:`sent` as the buffers it hands; :meth:`verdict` reads them after the call. :attr:`shared` holds
    the judge's side of each buffer, :attr:`specs` what the check said of it, :attr:`kept` an input's
    numbers at the places the judge compares."""

    check: MeasurementCheck | ShapeCheck
    inputs: Mapping[str, Any]
    kwargs: dict[str, Any] = field(default_factory=dict)
    shared: dict[str, Shared] = field(default_factory=dict)
    specs: dict[str, Buffer] = field(default_factory=dict)
    kept: dict[str, Kept] = field(default_factory=dict)

    @property
    def sent(self) -> Buffers | None:
        """What the request hands the worker (:class:`~grader.sandbox.shared.Buffers`); None for a check
        that hands no buffers."""
        return Buffers.of(self.shared.values()) if self.shared else None

    def witness(self, avoid: set[int] | None = None) -> Witness | None:
        """The judge's witness of this call's output, started now (:mod:`.witness`); None for a check whose
        result no run writes anew, or that hands no buffers. ``avoid``: the measured core."""
        handed = self.check.handed
        if handed is None or handed.watched is None:
            return None
        try:
            segments = handed.segments(**self.inputs) if handed.segments is not None else None
            return watch(
                self.shared,
                handed.watched,
                handed.at,
                self.inputs,
                avoid,
                segments,
                handed.counted,
                handed.stages,
            )
        except Exception as exc:
            raise GraderError(f"the witness of {self.check.id} could not start: {exc!r}") from exc

    def verdict(self, lang: str) -> None:
        """Raise the wrong verdict where an input changed or the outputs lack the result (nothing to read for
        a check that hands no buffers)."""
        if self.check.handed is None:
            return
        shown = inputs_text(self.check, (), self.inputs)
        got: dict[str, np.ndarray] = {}
        try:
            self._judge(got, shown, lang)
        finally:  # the views of the judge's mappings go now, not with a traceback that holds this frame
            got.clear()

    def _judge(self, got: dict[str, np.ndarray], shown: str, lang: str) -> None:
        assert self.check.handed is not None
        for name, one in self.shared.items():
            try:
                got[name] = one.contents()
            except Resized as exc:
                message = render(
                    "handed_resized",
                    lang,
                    func=self.check.func,
                    inputs=shown,
                    name=name,
                    size=f"{exc.size:,}",
                    expected=f"{exc.expected:,}",
                )
                raise Verdict(
                    State.WRONG, message, details={"input": shown, "got": f"{name} resized"}
                ) from None
            except OSError as exc:
                raise GraderError(f"could not read the buffer {name} of {self.check.id}: {exc!r}") from exc
        for name, buffer in self.specs.items():
            if not buffer.output and not self.kept[name].unchanged(got[name].reshape(-1)):
                message = render("handed_input_changed", lang, func=self.check.func, inputs=shown, name=name)
                raise Verdict(State.WRONG, message, details={"input": shown, "got": f"{name} changed"})
        try:
            right = bool(self.check.handed.result(got, **self.inputs))
        except Exception as exc:
            raise GraderError(f"the result test of {self.check.id} raised {exc!r}") from exc
        if not right:
            said = self.check.handed.said(lang)
            message = render("handed_no_result", lang, func=self.check.func, inputs=shown, result=said)
            raise Verdict(State.WRONG, message, details={"input": shown, "got": "no result"})

    def close(self) -> None:
        for one in self.shared.values():
            one.close()
        self.shared.clear()


@contextmanager
def call_buffers(check: MeasurementCheck | ShapeCheck, inputs: Mapping[str, Any]) -> Iterator[CallBuffers]:
    """The buffers of one call of ``check`` at ``inputs``, drawn now; closed when the block ends. Without
    ``handed`` the student's arguments are the inputs themselves. Where the worker's channel passes no
    descriptors (Windows) the buffers go by a file's path."""
    by_path = not channel.PASSES_FDS
    one = CallBuffers(check, inputs)
    if check.handed is None:
        one.kwargs = dict(inputs)
        yield one
        return
    try:
        for name, value in check.handed.arguments(**inputs).items():
            if not isinstance(value, Buffer):
                one.kwargs[name] = value
                continue
            shared = Shared(name, value.shape, value.dtype, value.library, by_path=by_path)
            one.shared[name], one.specs[name] = shared, value
            seed = None if value.output else secrets.randbits(64)
            kept = _fill(value, shared, seed, whole=check.handed.segments is not None)
            if kept is not None:
                one.kept[name] = kept
    except (OSError, ValueError, TypeError) as exc:
        one.close()
        raise GraderError(f"could not make the buffers of {check.id}: {exc!r}") from exc
    try:
        yield one
    finally:
        one.close()
