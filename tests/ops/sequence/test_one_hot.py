"""OneHot-1 and OneHot-16 against OpenVINO: axes, depths, out-of-range and negative indices."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.sequence.one_hot import OneHot1, OneHot16
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, same_op
from tests.ops.helpers import tt

VALUE_TYPES = (ElementType.F32, ElementType.I32, ElementType.I8, ElementType.F16, ElementType.I64, ElementType.U8)


@OP_EXAMPLES
@given(data=st.data())
def test_one_hot_matches_openvino(data):
    shape = data.draw(S.shapes(max_rank=3))
    depth = data.draw(st.integers(0, 5))
    indices = S.values(data.draw(st.sampled_from([ElementType.I32, ElementType.I64])), shape, data.draw(S.seeds),
                       specials=False, low=-depth - 2, high=depth + 2)
    value_type = data.draw(st.sampled_from(VALUE_TYPES))
    on, off = (S.values(value_type, (), data.draw(S.seeds)) for _ in range(2))
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    op = OneHot1(axis=axis) if data.draw(st.booleans()) else OneHot16(
        axis=axis, negative_indices_mode=data.draw(st.sampled_from(["ignore_negative", "normalize"])))
    check_op(op, [indices, np.array(depth, np.int64), on, off], same_op(op), constant=(1,))


def test_spec_example_negative_indices():
    indices = np.array([0, -1, 2, 3], np.int64)
    args = [indices, np.array(3), np.array(5.0, np.float32), np.array(0.0, np.float32)]
    (got,) = OneHot1(axis=-1).evaluate(args)
    assert got.tolist() == [[5, 0, 0], [0, 0, 0], [0, 0, 5], [0, 0, 0]]
    (got,) = OneHot16(axis=0, negative_indices_mode="normalize").evaluate(args)
    assert got.tolist() == [[5, 0, 0, 0], [0, 0, 0, 0], [0, 5, 5, 0]]


def test_refused_configurations():
    args = [tt("2", "i64"), tt("", "i64"), tt("", "f32"), tt("", "f32")]
    with pytest.raises(OpError, match=r"Axis 2 out of the tensor rank range \[-2, 1\]"):
        OneHot1(axis=2).infer(args, [None, np.array(3), None, None])
    with pytest.raises(OpError, match="can't be negative. Got depth: -1"):
        OneHot1(axis=0).infer(args, [None, np.array(-1), None, None])
    with pytest.raises(OpError, match="on_value element type must be compatible with off_value"):
        OneHot1(axis=0).infer([*args[:3], tt("", "i32")], [None, None, None, None])
    op = OneHot1(axis=0)
    assert check_op(op, [np.array([1]), np.array(-1), np.array(1.0, np.float32), np.array(0.0, np.float32)],
                    same_op(op), constant=(1,)).refused


def test_on_and_off_values_of_two_types_are_refused_at_run_time():
    args = [np.array([0, 1]), np.array(2), np.array(1, np.float32), np.array(0, np.float16)]
    with pytest.raises(OpError, match=r"^on_value element type must be compatible with off_value element type\. "
                                      r"Got: float32 and float16"):
        OneHot1(axis=-1).evaluate(args)
