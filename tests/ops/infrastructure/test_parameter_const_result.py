"""Parameter-1, Const (Constant-1) and Result-1."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import Shape, TensorType
from irgraph.ops import Const, Parameter, Result
from tests.ops.helpers import tt


def test_parameter_attributes_follow_openvino_text_and_defaults():
    op = Parameter.from_attributes({"shape": "..5,3,?,7..", "element_type": "f32"})
    assert op.shape == Shape.parse("..5,3,?,7..") and op.element_type is ElementType.F32
    assert op.to_attributes() == {"shape": "..5,3,?,7..", "element_type": "f32"}
    assert Parameter.from_attributes({}) == Parameter(shape=Shape(()), element_type=ElementType.DYNAMIC)
    assert Parameter.from_attributes({"shape": "[2, -1]", "element_type": "F32"}).shape == Shape.parse("2,?")


@pytest.mark.parametrize(("text", "what"), [("2 3", "partial shape"), ("a", "partial shape"),
                                           ("FP32", "IR element type"), ("float32", "IR element type")])
def test_parameter_rejects_bad_attribute_text(text, what):
    key = "shape" if what == "partial shape" else "element_type"
    with pytest.raises(OpError, match=what):
        Parameter.from_attributes({key: text})


def test_parameter_infers_its_declared_type():
    assert [str(t) for t in Parameter(shape=Shape.parse("1..8,?"), element_type=ElementType.BF16).infer([], [])] == [
        "bf16[1..8,?]"]


def test_const_of_python_values_uses_openvino_defaults():
    assert Const.of([1, 2]).element_type is ElementType.I64
    assert Const.of(1.5).element_type is ElementType.F32
    assert Const.of(np.int32(3)).element_type is ElementType.I32
    assert Const.of(np.zeros(2, ml_dtypes.bfloat16)).element_type is ElementType.BF16
    assert Const.of(["ab", ""]).element_type is ElementType.STRING


def test_const_infers_and_evaluates_its_value():
    const = Const.of(np.arange(6, dtype=np.int16).reshape(2, 3))
    assert [str(t) for t in const.infer([], [])] == ["i16[2,3]"]
    assert const.evaluate([])[0].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert const.to_attributes() == {"element_type": "i16", "shape": "2, 3"}


def test_const_checks_value_against_declaration():
    with pytest.raises(OpError, match=r"Const value has shape \[3\] but the declared shape is \[2\]"):
        Const(element_type=ElementType.I64, shape=(2,), value=np.zeros(3, np.int64))
    with pytest.raises(OpError, match="Const shape dims must be >= 0"):
        Const.from_attributes({"element_type": "f32", "shape": "-1, 2"})
    with pytest.raises(OpError, match="Const element_type must be a concrete type"):
        Const.from_attributes({"element_type": "dynamic", "shape": ""})


def test_const_equality_compares_bytes():
    assert Const.of([1, 2]) == Const.of(np.array([1, 2], np.int64))
    assert Const.of([1, 2]) != Const.of([1, 3])
    assert Const.of(np.float32(-0.0)) != Const.of(np.float32(0.0))


def test_result_has_no_outputs():
    assert Result().infer([tt("2,3")], [None]) == []
    assert Result().output_count([None]) == 0


@pytest.mark.parametrize(("spelling", "found"), [("Const", True), ("Constant", False), ("const", False),
                                                 ("CONST", False)])
def test_const_needs_openvinos_exact_spelling(spelling, found):
    from irgraph.ops import lookup

    assert (lookup(spelling, "opset1") is Const) is found


def test_other_ops_match_case_insensitively_in_any_opset_that_has_them():
    from irgraph.ops import Concat, Split, lookup

    assert lookup("split", "opset13") is Split and lookup("CONCAT", "opset8") is Concat
    assert lookup("Concat", "opset17") is None and lookup("Concat", "experimental") is None


def test_const_checks_dims_and_dtype_and_allows_empty_tensors():
    empty = Const(element_type=ElementType.I64, shape=(2, 0), value=np.zeros((2, 0), np.int64))
    assert empty.infer([], []) == [TensorType(ElementType.I64, Shape.parse("2,0"))]
    with pytest.raises(OpError, match=re.escape("Const shape dims must be >= 0. Got: [2, -1]")):
        Const(element_type=ElementType.I64, shape=(2, -1))
    with pytest.raises(OpError, match=re.escape("Const value has dtype float64 but element_type f32 needs float32")):
        Const(element_type=ElementType.F32, shape=(1,), value=np.zeros(1, np.float64))
    with pytest.raises(OpError, match=re.escape("Const has no value (its weights were not loaded)")):
        Const(element_type=ElementType.F32, shape=(1,)).evaluate([])


def test_const_of_takes_a_type_name_and_keeps_an_array_of_that_type_uncopied():
    assert Const.of([1, 2], "f16").value.dtype == np.float16
    array = np.arange(3, dtype=np.int32)
    assert np.shares_memory(Const.of(array).value, array) and "value" not in repr(Const.of(array))


@pytest.mark.parametrize(
    ("value", "type_name", "first"),
    [([255, 300, 400], "u8", "300"), ([0, -1], "u32", "-1"), ([-128, 127, 128], "i8", "128"),
     ([-129, -128], "i8", "-129"), ([2.0, 2.7], "i32", "2.7"), ([np.nan], "i64", "nan"),
     ([65504.0, 1e40], "f16", "1e+40")],
)
def test_const_of_refuses_a_number_its_type_does_not_hold(value, type_name, first):
    """Hand-worked: NumPy's astype would wrap 300 to u8 44, -1 to u32 4294967295, truncate 2.7 to i32 2 and
    overflow 1e40 to f16 inf without a word; the message names the first value that changed."""
    with pytest.raises(OpError, match=f"^the constant value {re.escape(first)} does not fit {type_name}$"):
        Const.of(value, type_name)


def test_const_of_keeps_every_number_its_type_holds_and_rounds_floats():
    assert Const.of([0, 255], "u8").value.tolist() == [0, 255]
    assert Const.of([-128, 127], "i8").value.tolist() == [-128, 127]
    assert Const.of([-3.0, 2.0], "i32").value.tolist() == [-3, 2]
    assert Const.of(np.array([4000000000], np.uint32), "i64").value.tolist() == [4000000000]
    # float to float is rounding, not a change: 1.1 as f16 is its nearest f16, NaN and inf stay
    assert Const.of([1.1, np.inf, 65504.0], "f16").value.tolist() == [np.float16(1.1), np.inf, 65504.0]
    assert np.isnan(Const.of(np.array([np.nan]), "f32").value).all()


def test_const_equality_and_hash():
    f32 = ElementType.F32
    assert Const.of(np.float32(1)).__eq__(1) is NotImplemented and Const.of(np.float32(1)) != 1
    assert (Const.of(np.array([1], np.float32)) == Const.of(np.array([1, 1], np.float32))) is False
    assert Const(element_type=f32, shape=(1,)) == Const(element_type=f32, shape=(1,))
    assert Const(element_type=f32, shape=(1,)) != Const.of(np.ones(1, np.float32))
    assert Const.of(np.array(["a", "b"])) == Const.of(["a", "b"])
    assert Const.of(np.array(["a", "b"])) != Const.of(np.array(["a", "c"]))
    assert hash(Const.of(np.float32(2))) == hash(Const.of(np.float32(3))) == hash((f32, ()))


@pytest.mark.parametrize(
    ("value", "element_type"),
    [(300, "u8"), (-1, "u32"), (2.7, "i32"), (16, "u4"), (8, "i4"), (-9, "i4"), (2, "u1"), (4, "u2"), (8, "u3"),
     (64, "u6"), (16, "nf4"), (0.5, "u4"), (1e40, "f16"), (1e40, "bf16"), (500.0, "f8e4m3"), (-1.0, "f8e8m0")],
)
def test_const_of_refuses_a_value_the_type_cannot_hold(value, element_type):
    # NumPy and ml_dtypes wrap (16 -> 0 as u4), truncate (2.7 -> 2) or overflow (1e40 -> inf) without a word.
    with pytest.raises(OpError, match=f"^the constant value {re.escape(repr(value))} does not fit {element_type}$"):
        Const.of(value, element_type)


@pytest.mark.parametrize(
    ("value", "element_type", "held"),
    [(15, "u4", 15), (-8, "i4", -8), (7, "i4", 7), (1, "u1", 1), (3, "u2", 3), (7, "u3", 7), (63, "u6", 63),
     (15, "nf4", 15), (3.0, "u4", 3), (2**64 - 1, "u64", 2**64 - 1), (-(2**63), "i64", -(2**63)),
     (448.0, "f8e4m3", 448)],
)
def test_const_of_keeps_the_edges_of_each_types_range(value, element_type, held):
    assert Const.of(value, element_type).value.astype(object).item() == held


@pytest.mark.parametrize(
    ("value", "element_type", "message"),
    [(None, "f32", "a constant must hold numbers or strings, not None"),  # NumPy's astype makes it nan
     ([1.0, None], "f32", "a constant must hold numbers or strings: None is neither"),
     ("ab", "i64", "a constant of i64 must hold numbers: invalid literal for int() with base 10: np.str_('ab')"),
     ([2**65], "i64", "the constant value 36893488147419103232 does not fit i64"),
     (np.array([1, 300], object), "u8", "the constant value 300 does not fit u8")],
)
def test_const_of_refuses_what_is_not_a_number_of_its_type(value, element_type, message):
    with pytest.raises(OpError) as raised:
        Const.of(value, element_type)
    assert str(raised.value) == message


def test_a_string_constant_may_come_as_an_object_array_but_no_other_object_may():
    """The writer's round trip of every element type gives strings as an object array (NumPy keeps '' and 'é名')."""
    words = np.array(["", "a,b", "é名"], dtype=object)
    assert Const.of(words, "string").value.tolist() == ["", "a,b", "é名"]
    with pytest.raises(OpError, match=r"^a constant must hold numbers or strings: None is neither$"):
        Const.of(np.array(["a", None], dtype=object), "string")


def test_a_parameter_has_no_values_of_its_own():
    """The interpreter feeds Parameters; evaluating one directly is a programming error, said as such."""
    with pytest.raises(NotImplementedError, match="^Parameter values come from the feeds$"):
        Parameter(element_type=ElementType.F32, shape=Shape.parse("2")).evaluate([])
