"""grader.compare.values and grader.specs.tolerance: tolerance per quantity, structure by structure, student values that are not numbers."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np
import pytest

from grader.compare.values import NotANumber, as_number, describe, mismatch
from grader.specs.tolerance import check_tolerance


class Pair(NamedTuple):
    flops: float
    bytes: float


def test_relative_and_absolute_tolerances() -> None:
    assert mismatch(100.0, 100.5, rtol=0.01, atol=None) is None
    assert mismatch(100.0, 102.0, rtol=0.01, atol=None).key == "num_rel"
    assert mismatch(0.0, 1e-9, rtol=0.01, atol=1e-6) is None
    assert mismatch(0.0, 1e-3, rtol=None, atol=1e-6).key == "num_abs"
    assert mismatch(10.0, 12.0, rtol=0.1, atol=0.5).key == "num_both"
    assert mismatch(10.0, 10.9, rtol=0.1, atol=0.5) is None  # max(rtol*|e|, atol) = 1.0
    assert mismatch(3, 3, rtol=None, atol=None) is None
    assert mismatch(3, 4, rtol=None, atol=None).key == "exact"


def test_numbers_from_numpy_torch_and_fractions() -> None:
    assert mismatch(2.0, np.float32(2.0)) is None
    assert mismatch(2.0, np.array(2.0)) is None
    assert mismatch(2, np.int64(2)) is None
    assert mismatch(0.5, Fraction(1, 2)) is None
    torch = pytest.importorskip("torch")
    assert mismatch(2.0, torch.tensor(2.0)) is None
    assert mismatch(2.0, torch.tensor([2.0])) is None
    assert mismatch(2.0, torch.tensor([2.0, 2.0])).key == "not_number"
    assert mismatch(1.0, torch.tensor(True)).key == "not_number"


@pytest.mark.parametrize(
    "got",
    ["2.0", True, None, [2.0], np.array([2.0, 2.0]), {"x": 2.0}, 2 + 0j, object()],
    ids=["str", "bool", "none", "list", "array", "dict", "complex", "object"],
)
def test_values_that_are_not_numbers_are_refused(got: object) -> None:
    text = mismatch(2.0, got, rtol=1e-6)
    assert text is not None and text.key == "not_number"
    with pytest.raises(NotANumber):
        as_number(got)


def test_nan_and_inf_are_wrong() -> None:
    assert mismatch(2.0, float("nan")).key == "not_finite"
    assert mismatch(2.0, math.inf).key == "not_finite"
    assert mismatch(2.0, np.float64("nan")).key == "not_finite"


def test_a_doctored_float_subclass_cannot_pass() -> None:
    class Always(float):
        def __eq__(self, other: object) -> bool:
            return True

        def __sub__(self, other: object) -> float:
            return 0.0

        __hash__ = float.__hash__

    assert mismatch(2.0, Always(5.0), rtol=1e-6) is not None


def test_bools_strings_and_none_compare_exactly() -> None:
    assert mismatch(True, True) is None
    assert mismatch(True, 1).key == "not_bool"
    assert mismatch("compute", "compute") is None
    assert mismatch("compute", "Compute").key == "exact"
    assert mismatch("compute", 3).key == "not_str"
    assert mismatch(None, None) is None and mismatch(None, 0).key == "not_none"


def test_sequences_namedtuples_and_dicts_report_where() -> None:
    assert mismatch((1.0, 2.0), [1.0, 2.0]) is None
    assert mismatch((1.0, 2.0), np.array([1.0, 2.0])) is None
    assert mismatch((1.0, 2.0), (1.0,)).key == "wrong_length"
    text = mismatch(Pair(1.0, 2.0), (1.0, 3.0), rtol=1e-6)
    assert text.fields["_where"] == ".bytes"
    assert describe(text, "en").startswith("at .bytes: expected 2.0, got 3.0")
    text = mismatch({"a": {"b": [1, 2]}}, {"a": {"b": [1, 5]}}, rtol=1e-6)
    assert text.fields["_where"] == "['a']['b'][1]"
    assert describe(text, "zh").startswith("['a']['b'][1] 处：期望 2")
    assert mismatch({"a": 1}, {}).key == "missing_key"
    assert mismatch({"a": 1}, [1]).key == "not_mapping"


def test_arrays_shape_finiteness_and_worst_element() -> None:
    expected = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert mismatch(expected, expected.tolist(), rtol=1e-9) is None
    assert mismatch(expected, np.ones(3)).key == "wrong_shape"
    assert mismatch(expected, [[1, 2], [3, np.nan]]).key == "array_not_finite"
    text = mismatch(expected, [[1.0, 2.5], [3.0, 9.0]], rtol=0.01)
    assert text.key == "array_item" and text.fields["index"] == [1, 1] and text.fields["count"] == 2
    assert mismatch(expected, "1 2 3 4").key == "not_array"


def test_dataclass_results_compare_field_by_field() -> None:
    import perfcore

    ref = perfcore.roofline(*perfcore.matmul_cost(64, 64, 64), perfcore.H100)
    assert mismatch(ref, ref) is None
    assert mismatch(ref, object()).key == "missing_field"


def test_tolerance_fields_are_validated() -> None:
    assert check_tolerance("rtol", None) is None
    assert check_tolerance("rtol", 1e-3) == 1e-3
    with pytest.raises(ValueError, match="rtol"):
        check_tolerance("rtol", -1)
    with pytest.raises(TypeError, match="atol"):
        check_tolerance("atol", "0.1")


def test_a_formula_computed_in_float32_is_the_formula() -> None:
    """torch's default dtype rounds to about 1e-7: a ridge point computed with tensors, 4e-8 off, passes a
    check asking for 1e-9; a value 1e-5 off does not, and its message shows digits that tell them apart."""
    import numpy as np

    from grader.compare.values import FLOAT32_RTOL, mismatch

    exact = 989e12 / 3.35e12 * 1e4
    assert mismatch(exact, float(np.float32(exact)), rtol=1e-9) is None
    off = mismatch(exact, exact * (1 + 1e-5), rtol=1e-9)
    assert off is not None and off.fields["expected"] != off.fields["got"]
    assert off.fields["rtol"] == f"{FLOAT32_RTOL:.3g}"
    assert mismatch(7, 7.000001) is not None  # no tolerance asked: exact, as before


@pytest.mark.parametrize(
    "got",
    [2**1024 - 1, -(2**1024), 10**5000, Fraction(2**1024, 1), Fraction(2**1025, 3)],
    ids=["2**1024-1", "-2**1024", "10**5000", "fraction", "fraction-over-3"],
)
@pytest.mark.parametrize("expected", [5.0, 5], ids=["float", "int"])
def test_an_int_too_large_for_a_float_is_a_wrong_answer(expected: float, got: object) -> None:
    """Subtracting a float from an int past the largest float raised OverflowError, which lost a whole batch
    (tests/hostile/cases.py "huge_int_answer"): it is wrong, by an error of inf, and says how large it is."""
    for rtol, atol in ((1e-6, None), (None, 1e-3), (1e-6, 1e-3), (None, None)):
        text = mismatch(expected, got, rtol=rtol, atol=atol)
        assert text is not None and text.key in ("num_rel", "num_abs", "num_both", "exact")
        for lang in ("zh", "en"):
            rendered = describe(text, lang)
            assert "e+30" in rendered or "e+500" in rendered, rendered
    inside = mismatch((1.0, expected), [1.0, got], rtol=1e-6)
    assert inside is not None and inside.fields["_where"] == "[1]"
    array = mismatch(np.array([1.0, 2.0]), [1.0, got], rtol=1e-6)
    assert array is not None and array.key in ("array_not_finite", "array_item")
    assert mismatch(2.0**1023, 2**1023, rtol=1e-6) is None  # a large int that a float holds still compares
