"""Models built in code (Model methods and the generated builders, irgraph.builders): values of the wrong kind or
absurd size are refused with an IrError naming them, before anything is allocated or changed silently."""

from __future__ import annotations

import numpy as np
import pytest

import irgraph as ir
from irgraph.core.errors import GraphError, IrParseError, OpError


@pytest.mark.parametrize(("dims", "message"), [
    ([2.5, 6], "a dimension is an int, None, '?' or a range like '1..8', got 2.5"),  # before: made [2,6]
    ([True, 6], "a dimension is an int, None, '?' or a range like '1..8', got True"),  # before: made [1,6]
    ([-3, 6], "dimension must be >= -1, got -3"),  # before: a ValueError outside IrError
])
def test_a_dimension_that_is_no_integer_is_refused_not_truncated(dims, message):
    model = ir.Model("built")
    with pytest.raises(IrParseError, match=message.replace("?", r"\?").replace(".", r"\.")):
        model.parameter("x", dims, "f32")
    assert len(model) == 0


def test_integral_dimensions_of_any_integer_type_still_make_a_shape():
    model = ir.Model("built")
    port = model.parameter("x", [np.int64(2), np.uint8(6), -1, None, "1..8"], "f32")
    assert str(model.node(port.node_id).op.shape) == "[2,6,?,?,1..8]"


@pytest.mark.parametrize(("value", "element_type", "message"), [
    (300, "u8", "the constant value 300 does not fit u8"),  # before: 44
    (-1, "u32", "the constant value -1 does not fit u32"),  # before: 4294967295
    (-1, "u64", "the constant value -1 does not fit u64"),
    (2.7, "i32", "the constant value 2.7 does not fit i32"),  # before: 2
    (float("nan"), "i32", "the constant value nan does not fit i32"),  # before: -2147483648
    (1e40, "f16", "the constant value 1e+40 does not fit f16"),  # before: inf
    ([[1], [1, 2]], None, "a constant must be a rectangular array of numbers"),  # before: a ValueError
])
def test_a_constant_that_does_not_survive_its_cast_is_refused(value, element_type, message):
    model = ir.Model("built")
    with pytest.raises(OpError, match=message.replace("+", r"\+").replace(".", r"\.")):
        model.const(value, element_type)
    assert len(model) == 0


def test_a_constant_that_survives_its_cast_or_only_rounds_is_kept():
    model = ir.Model("built")
    values = [model.node(model.const(v, t).node_id).op.value for v, t in
              [(255, "u8"), (3.0, "i8"), (0.1, "f16"), (float("inf"), "f16"), (2**64 - 1, "u64"), (True, "f32")]]
    assert [v.item() for v in values] == [255, 3, np.float16(0.1).item(), float("inf"), 2**64 - 1, 1.0]


def test_a_builder_value_that_is_ragged_is_an_op_error_and_the_model_stays_as_it_was():
    model = ir.Model("built")
    x = model.parameter("x", [2, 6], "f32")
    with pytest.raises(OpError, match="a constant must be a rectangular array of numbers"):
        ir.ops.add(x, [[1.0], [1.0, 2.0]])
    assert len(model) == 1


def test_a_split_of_2_to_the_62_parts_is_refused_before_its_outputs_are_made():
    # Before: a MemoryError making 2**62 outputs' name lists (the builder's and Model.split's).
    model = ir.Model("built")
    x = model.parameter("x", [2, 6], "f32")
    with pytest.raises(GraphError, match="Split-1 asks for 4611686018427387904 outputs, more than the 65536"):
        ir.ops.split(x, 1, num_splits=2**62)
    assert len(model) == 1
    with pytest.raises(GraphError, match="Split-1 asks for 4611686018427387904 outputs"):
        model.split(x, 1, num_splits=2**62)
