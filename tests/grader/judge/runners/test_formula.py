"""grader.judge.runners.formula: what a value or choice check takes for the number, word or flag it asks for
(numpy scalars, the numeric tower, one-element tensors), and what it does not (a doctored object, a number
whose conversion fails), graded through a Judge as every check is."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.specs.check import ChoiceCheck
from tests.grader.judge.helpers import exercise, grade, student, value


def test_a_doctored_result_object_is_not_a_plain_value(tmp_path: Path) -> None:
    code = """
    class Sneaky(tuple):
        def __len__(self):
            raise RuntimeError("gotcha")
        def __eq__(self, other):
            return True
    def f():
        return Sneaky((1.0, 2.0))
    """
    (o,) = grade(exercise(value()), student(tmp_path, code))
    assert o.state == "wrong" and o.points == 0 and "Sneaky" in o.message


def test_a_one_element_tensor_is_a_number() -> None:
    torch = pytest.importorskip("torch")
    from grader.sandbox import wire

    value_ = wire.decode(wire.encode(torch.tensor([2.5])))
    from grader.compare.values import mismatch

    assert mismatch(2.5, value_, 1e-6, None) is None
    assert "torch.Tensor" in (mismatch(2.5, wire.decode(wire.encode(torch.ones(3))), 1e-6, None) or ("",))[
        1
    ].get("kind", "")


def test_numpy_scalars_are_the_numbers_bools_and_strings_they_hold(tmp_path: Path) -> None:
    code = """
    import numpy as np
    def f():
        return (np.float64(1.0), np.float32(2.0))
    def g():
        return np.str_("memory")
    def h():
        return np.bool_(True)
    """
    ex = exercise(
        value("pair", func="f"),
        ChoiceCheck(
            id="choice", points=1, func="g", part="a", expected="memory", choices=("memory", "compute")
        ),
        value("flag", func="h", expected=lambda: True, rtol=None),
    )
    outcomes = grade(ex, student(tmp_path, code))
    assert [o.state for o in outcomes] == ["passed"] * 3, [o.message for o in outcomes]


def test_honest_numbers_of_every_type_pass_and_a_failing_conversion_is_that_checks_error(
    tmp_path: Path,
) -> None:
    code = """
    from decimal import Decimal
    from fractions import Fraction
    import numpy as np
    class Mine(float):
        def __float__(self):
            return 0.0
        def __repr__(self):
            return "0.0"
    class Broken(Fraction):
        @property
        def numerator(self):
            raise ValueError("no numerator")
    def f():
        return (Fraction(1), np.longdouble(2))
    def g():
        return (Mine(1.0), Decimal("2"))
    def h():
        return (np.array(1.0, dtype=np.longdouble), Fraction(2))
    def bad():
        return (Broken(1), 2.0)
    """
    checks = (value("f", func="f"), value("g", func="g"), value("h", func="h"), value("bad", func="bad"))
    *honest, bad = grade(exercise(*checks), student(tmp_path, code))
    assert [o.state for o in honest] == ["passed"] * 3, [o.message for o in honest]
    assert bad.state == "error" and "ValueError" in bad.message and "no numerator" in bad.message
