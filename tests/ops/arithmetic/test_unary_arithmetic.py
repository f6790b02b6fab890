"""Unary arithmetic ops (Abs, Negative, Sqrt, Log, Floor, Ceiling, Round, Sign, Erf, trigonometric and
hyperbolic functions and their inverses) against OpenVINO, plus named cases."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.arithmetic.abs import Abs
from irgraph.ops.arithmetic.acos import Acos
from irgraph.ops.arithmetic.acosh import Acosh
from irgraph.ops.arithmetic.asin import Asin
from irgraph.ops.arithmetic.asinh import Asinh
from irgraph.ops.arithmetic.atan import Atan
from irgraph.ops.arithmetic.atanh import Atanh
from irgraph.ops.arithmetic.ceiling import Ceiling
from irgraph.ops.arithmetic.cos import Cos
from irgraph.ops.arithmetic.cosh import Cosh
from irgraph.ops.arithmetic.erf import Erf
from irgraph.ops.arithmetic.floor import Floor
from irgraph.ops.arithmetic.log import Log
from irgraph.ops.arithmetic.negative import Negative
from irgraph.ops.arithmetic.round import Round
from irgraph.ops.arithmetic.sign import Sign
from irgraph.ops.arithmetic.sin import Sin
from irgraph.ops.arithmetic.sinh import Sinh
from irgraph.ops.arithmetic.sqrt import Sqrt
from irgraph.ops.arithmetic.tan import Tan
from irgraph.ops.arithmetic.tanh import Tanh
from tests.ops.differential import OP_EXAMPLES
from tests.ops.helpers import tt
from tests.ops.unary import check_unary

CASES = [
    (Abs(), None, None), (Negative(), None, None), (Sign(), None, None), (Floor(), None, None),
    (Ceiling(), None, None), (Round(), None, None), (Round(mode="half_away_from_zero"), None, None),
    (Sqrt(), 0, 1e9), (Log(), 1, 1e9), (Erf(), -5, 5), (Sin(), -10, 10), (Cos(), -10, 10), (Tan(), -1.5, 1.5),
    (Asin(), -1, 1), (Acos(), -1, 1), (Atan(), -10, 10), (Sinh(), -10, 10), (Cosh(), -10, 10), (Tanh(), -10, 10),
    (Asinh(), -10, 10), (Acosh(), 1, 10), (Atanh(), -0.99, 0.99),
]


@pytest.mark.parametrize(("op", "low", "high"), CASES, ids=lambda v: repr(v) if not isinstance(v, int | None) else "")
@OP_EXAMPLES
@given(data=st.data())
def test_unary_arithmetic_matches_openvino(op, low, high, data):
    check_unary(op, data, low=low, high=high)


@pytest.mark.parametrize(
    ("op", "values", "expected"),
    [
        (Round(), [0.5, 1.5, 2.5, -0.5, -1.5, 2.3], [0.0, 2.0, 2.0, -0.0, -2.0, 2.0]),
        (Round(mode="half_away_from_zero"), [0.5, 1.5, 2.5, -0.5, -1.5, 2.3], [1.0, 2.0, 3.0, -1.0, -2.0, 2.0]),
        (Sign(), [-2.0, -0.0, 0.0, 3.0], [-1.0, 0.0, 0.0, 1.0]),
        (Abs(), [-3.0, 0.0, 2.5], [3.0, 0.0, 2.5]),
        (Ceiling(), [-2.5, 0.0, 2.3], [-2.0, 0.0, 3.0]),
    ],
    ids=["round-half-to-even (spec)", "round-half-away (spec)", "sign", "abs", "ceiling"],
)
def test_spec_examples(op, values, expected):
    (got,) = op.evaluate([np.array(values, np.float32)])
    assert got.dtype == np.float32 and got.tolist() == expected


def test_integer_inputs_follow_the_reference():
    assert Abs().evaluate([np.array([-128, -3], np.int8)])[0].tolist() == [-128, 3]  # wraps
    assert Sqrt().evaluate([np.array([8, 9], np.int32)])[0].tolist() == [3, 3]  # std::round
    assert Sin().evaluate([np.array([-1, 2], np.int32)])[0].tolist() == [0, 0]  # static_cast truncates


def test_boolean_inputs_are_refused_by_name():
    with pytest.raises(OpError, match=r"Arguments cannot have boolean element type \(argument element type: boolean\)"):
        Sqrt().infer([tt("2", "boolean")], [None])


def test_round_mode_is_checked():
    with pytest.raises(OpError, match="Attribute 'mode' must be one of half_to_even, half_away_from_zero. Got: 'up'"):
        Round(mode="up")
