"""Eye-9 against OpenVINO: shapes, diagonals beyond the matrix, batches, output types; huge sizes refused."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import IrError, OpError
from irgraph.graph import Model
from irgraph.ops.generation.eye import Eye
from irgraph.runtime.interpreter import Interpreter
from tests.ops.differential import OP_EXAMPLES, check_op, same_op
from tests.ops.helpers import infer, tt

OUT_TYPES = [ElementType.F32, ElementType.I8, ElementType.I64, ElementType.U8, ElementType.F16, ElementType.BF16]


@OP_EXAMPLES
@given(data=st.data())
def test_eye_matches_openvino(data):
    index_type = data.draw(st.sampled_from([np.int32, np.int64]))
    rows, cols = data.draw(st.integers(0, 5)), data.draw(st.integers(0, 5))
    diagonal = data.draw(st.integers(-7, 7))
    inputs = [np.array(rows, index_type), np.array(cols, index_type), np.array(diagonal, index_type)]
    if data.draw(st.booleans()):
        # min_size=1: openvino 2026.4.1's CPU plugin writes garbage for an empty batch_shape (see the named test)
        inputs.append(np.array(data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=2)), index_type))
    op = Eye(output_type=data.draw(st.sampled_from(OUT_TYPES)))
    check_op(op, inputs, same_op(op), constant=(0, 1, 3))


def test_spec_example():
    (got,) = Eye(output_type=ElementType.F32).evaluate([np.array(3), np.array(4), np.array(1), np.array([2])])
    assert got.shape == (2, 3, 4) and got[1].tolist() == [[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    assert infer(Eye(output_type=ElementType.F32), [tt("", "i64")] * 3, [5, None, 0]) == ["[5,?]"]


def test_empty_batch_shape_is_no_batch():
    (got,) = Eye(output_type=ElementType.F32).evaluate([np.array(1), np.array(1), np.array(0), np.array([], np.int64)])
    assert got.tolist() == [[1.0]]


def test_huge_sizes_are_refused_before_allocating():
    model = Model("eye")
    rows = model.const(np.array(2**20, np.int64), ElementType.I64)
    diagonal = model.const(np.array(0, np.int64), ElementType.I64)
    node = model.add_node(Eye(output_type=ElementType.F32), "eye", [rows, rows, diagonal])
    model.result(type(rows)(node.id, 0), name="out")
    with pytest.raises(IrError, match="output 0 has 1099511627776 elements, above the limit of"):
        Interpreter(model).run({})


def test_negative_rows_are_refused():
    with pytest.raises(OpError, match="'num_rows' must not be negative. Got: -1"):
        Eye(output_type=ElementType.F32).infer([tt("", "i64")] * 3, [np.array(-1), None, None])
    op = Eye(output_type=ElementType.F32)
    assert check_op(op, [np.array(-1), np.array(2), np.array(0)], same_op(op), constant=(0, 1)).refused
