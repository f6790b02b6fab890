"""The binary arithmetic family (Add, Subtract, Multiply, Divide, Power, Maximum, Minimum,
SquaredDifference, FloorMod, Mod) against OpenVINO: generated shapes under every auto_broadcast
mode, every numeric element type, values with NaN/inf/-0.0/extremes; plus named cases."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import Shape
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.arithmetic.divide import Divide
from irgraph.ops.arithmetic.floor_mod import FloorMod
from irgraph.ops.arithmetic.maximum import Maximum
from irgraph.ops.arithmetic.minimum import Minimum
from irgraph.ops.arithmetic.mod import Mod
from irgraph.ops.arithmetic.multiply import Multiply
from irgraph.ops.arithmetic.power import Power
from irgraph.ops.arithmetic.squared_difference import SquaredDifference
from irgraph.ops.arithmetic.subtract import Subtract
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_cpu, same_op
from tests.ops.helpers import tt

FAMILY = [Add, Subtract, Multiply, Divide, Power, Maximum, Minimum, SquaredDifference, FloorMod, Mod]
MODES = ["numpy", "pdpd", "none"]


def pdpd_overruns(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """OpenVINO 2026.4.1 accepts pdpd [1] + [0] but its reference then corrupts the heap; irgraph refuses."""
    return len(b) <= len(a) and any(str(x) == "1" and str(y) == "0" for x, y in zip(a, b, strict=False))


def make(op_class, mode, data):
    if op_class is Divide:
        return Divide(auto_broadcast=mode, m_pythondiv=data.draw(st.booleans()))
    return op_class(auto_broadcast=mode)


@pytest.mark.parametrize("op_class", FAMILY, ids=lambda c: c.type_name)
@OP_EXAMPLES
@given(data=st.data())
def test_binary_arithmetic_matches_openvino(op_class, data):
    mode = data.draw(st.sampled_from(MODES))
    element_type = data.draw(st.sampled_from(S.NUMERIC))
    a_shape, b_shape = data.draw(S.any_pair(mode))
    assume(mode != "pdpd" or not pdpd_overruns(a_shape, b_shape))
    a = S.values(element_type, a_shape, data.draw(S.seeds))
    b = S.values(element_type, b_shape, data.draw(S.seeds))
    a, b = avoid_traps(op_class, a, b)
    op = make(op_class, mode, data)
    check_op(op, [a, b], same_op(op))


def avoid_traps(op_class, a, b):
    """Integer values OpenVINO 2026.4.1's reference dies on (SIGFPE): MIN / -1 for Divide and Mod, x % 0
    for Mod and unsigned FloorMod; and x / 0 for Divide (its reference throws where it folds; the types it
    does not fold have no oracle). irgraph defines MIN / -1 (it wraps) and refuses the zero divisors (see
    the named tests)."""
    if a.dtype.kind == "u" and op_class is FloorMod:
        return a, np.where(b == 0, 1, b).astype(b.dtype)
    if a.dtype.kind not in "iu" or op_class not in (Divide, Mod):
        return a, b
    if a.dtype.kind == "i":
        a = np.where(a == np.iinfo(a.dtype).min, a + 1, a).astype(a.dtype)
    return a, np.where(b == 0, 1, b).astype(b.dtype)


DIMS = st.sampled_from(["1", "2", "3", "?", "1..3", "2..5", "0..1", "0"])


@st.composite
def partial_shape(draw):
    if draw(st.integers(0, 9)) == 0:
        return "..."
    return ",".join(draw(st.lists(DIMS, max_size=3)))


@OP_EXAMPLES
@given(mode=st.sampled_from(MODES), a=partial_shape(), b=partial_shape(),
       types=st.sampled_from([("f32", "f32"), ("i32", "i32"), ("dynamic", "f16"), ("f32", "i32"),
                              ("boolean", "boolean"), ("dynamic", "dynamic")]))
def test_partial_shapes_and_types_infer_as_openvino(mode, a, b, types):
    if mode == "pdpd" and "..." not in (a, b):
        assume(not pdpd_overruns(tuple(a.split(",")) if a else (), tuple(b.split(",")) if b else ()))
    op = Add(auto_broadcast=mode)
    check_types(op, [tt(a, types[0]), tt(b, types[1])], same_op(op))


@pytest.mark.parametrize(
    ("op", "a", "b", "expected"),
    [
        (Divide(), [7, -7, 7, -7, -2**31], [2, 2, -2, -2, -1], [3, -4, -4, 3, -2**31]),
        (Divide(m_pythondiv=False), [7, -7, 7, -7], [2, 2, -2, -2], [3, -3, -3, 3]),
        (FloorMod(), [7, -7, 7, -7], [3, 3, -3, -3], [1, 2, -2, -1]),
        (Mod(), [7, -7, 7, -7], [3, 3, -3, -3], [1, -1, 1, -1]),
        (Power(), [2, 2, 1, -1, 3], [3, -1, -5, -3, 0], [8, 0, 1, -1, 1]),
        (Add(), [127, -128], [1, -1], [-128, 127]),
        (SquaredDifference(), [1, -3], [4, 3], [9, 36]),
    ],
    ids=["divide-floors", "divide-truncates", "floormod-sign-of-divisor", "mod-sign-of-dividend",
         "power-negative-exponent-truncates", "add-wraps", "squared-difference"],
)
def test_integer_semantics(op, a, b, expected):
    dtype = np.int8 if isinstance(op, Add) else np.int32
    (got,) = op.evaluate([np.array(a, dtype), np.array(b, dtype)])
    assert got.dtype == dtype and got.tolist() == expected


@pytest.mark.parametrize(("op", "dtype"), [(Divide(), np.int32), (Divide(m_pythondiv=False), np.int64),
                                           (Mod(), np.int32), (FloorMod(), np.uint8)], ids=repr)
def test_integer_division_by_zero_is_an_error(op, dtype):
    """openvino 2026.4.1's reference throws for Divide and dies of SIGFPE for Mod and unsigned FloorMod."""
    with pytest.raises(OpError, match="integer division by zero"):
        op.evaluate([np.array([1, 2], dtype), np.array([1, 0], dtype)])


def test_openvino_refuses_integer_division_by_zero_too():
    outcome = check_op(Divide(), [np.array([1, 2], np.int32), np.array([1, 0], np.int32)], same_op(Divide()))
    assert outcome.refused


def test_integer_divide_floors_as_openvinos_reference_while_its_cpu_plugin_truncates():
    """m_pythondiv="true" (the default): openvino 2026.4.1's reference floors (-7 / 2 = -4), irgraph too; its CPU
    plugin truncates every signed quotient (-3), with or without m_pythondiv. irgraph keeps the reference's answer
    (docs/tolerances.md, "Where OpenVINO's CPU plugin differs"); the harness notes the plugin's deviation."""
    a, b = np.array([-3, 3, -3, 3, -7], np.int32), np.array([2, 2, -2, -2, 2], np.int32)
    outcome = check_op(Divide(), [a, b], same_op(Divide()))
    assert outcome.reference and outcome.cpu_deviation is not None
    assert Divide().evaluate([a, b])[0].tolist() == [-2, 1, 1, -2, -4]  # onnx's test_div_int32_trunc: -1, 1, 1, -1
    assert ov_cpu(same_op(Divide()), [a, b], ())[0].tolist() == [-1, 1, 1, -1, -3]
    assert "truncates" in Divide.cpu_plugin_differs


def test_floor_mod_by_zero_is_computed_in_double_as_openvino():
    (got,) = FloorMod().evaluate([np.array([7, -2**31], np.int32), np.array([0, -1], np.int32)])
    assert got.tolist() == [-2**31, 0]


def test_spec_example_add_numpy_broadcast():
    """Add-1 spec, example 2: [8,1,6,1] + [7,1,5] -> [8,7,6,5]."""
    (inferred,) = Add().infer([tt("8,1,6,1"), tt("7,1,5")], [None, None])
    assert inferred.shape == Shape.parse("8,7,6,5")


@pytest.mark.parametrize(
    ("mode", "a", "b", "message"),
    [
        ("none", "2,3", "3", "Argument shapes are inconsistent. auto_broadcast 'none' needs equal shapes. Got: [2,3] "
                             "and [3]"),
        ("numpy", "2,3", "4", "numpy broadcast of [2,3] and [4]: 3 and 4 differ"),
        ("pdpd", "2", "2,3", "pdpd broadcast needs rank(b) <= rank(a). Got: [2] and [2,3]"),
        ("pdpd", "2,3", "3", "pdpd broadcast of [3] into [2,3]: 3 does not fit 2"),
    ],
)
def test_shape_errors_name_the_rule(mode, a, b, message):
    with pytest.raises(OpError, match=re.escape(message)):
        Add(auto_broadcast=mode).infer([tt(a), tt(b)], [None, None])


def test_type_errors_name_the_rule():
    with pytest.raises(OpError, match=r"Argument element types are inconsistent\. Got: f32, i32"):
        Add().infer([tt("2", "f32"), tt("2", "i32")], [None, None])
    with pytest.raises(OpError, match=r"Arguments cannot have boolean element type \(argument element type: boolean\)"):
        Add().infer([tt("2", "boolean"), tt("2", "boolean")], [None, None])
    with pytest.raises(OpError, match="Attribute 'auto_broadcast' must be one of none, numpy, pdpd. Got: 'explicit'"):
        Add(auto_broadcast="explicit")


def test_members_are_registered_for_every_opset():
    from irgraph.ops import lookup

    for op_class in FAMILY:
        assert lookup(op_class.type_name, "opset1") is op_class and lookup(op_class.type_name, "opset16") is op_class
    assert ElementType.F32  # the family takes every numeric type (see the differential test)
