"""Gather-1, -7 and -8 against OpenVINO: batch_dims, negative and out-of-range indices."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ov1
import openvino.opset7 as ov7
import openvino.opset8 as ov8
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.movement.gather import Gather, Gather7, Gather8
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types
from tests.ops.helpers import tt


@st.composite
def gather_case(draw):
    data_shape = draw(S.shapes(min_rank=1, max_rank=4, max_side=4))
    batch = draw(st.integers(0, len(data_shape) - 1))
    axis = draw(st.integers(batch, len(data_shape) - 1))
    index_shape = data_shape[:batch] + draw(S.shapes(max_rank=2, max_side=3))
    size = data_shape[axis]
    indices = draw(st.lists(st.integers(-size - 2, size + 1), min_size=int(np.prod(index_shape)),
                            max_size=int(np.prod(index_shape))))
    if draw(st.booleans()):
        axis -= len(data_shape)
    if batch and draw(st.booleans()):
        batch -= len(index_shape)
    return data_shape, np.array(indices, np.int64).reshape(index_shape), axis, batch


@OP_EXAMPLES
@given(gather_case(), st.sampled_from([1, 7, 8]), st.sampled_from(S.ALL), st.sampled_from([np.int32, np.int64]))
def test_gather_matches_openvino(case, version, element_type, index_dtype):
    data_shape, indices, axis, batch = case
    data = S.values(element_type, data_shape, 5)
    indices = indices.astype(index_dtype)
    axis_value = np.array(axis, np.int64)
    if version == 1:
        if batch:
            return
        check_op(Gather(), [data, indices, axis_value], ov1.gather, constant={2})
        return
    op, module = (Gather7(batch_dims=batch), ov7) if version == 7 else (Gather8(batch_dims=batch), ov8)
    check_op(op, [data, indices, axis_value], lambda d, i, a: module.gather(d, i, a, batch), constant={2})


def test_gather_out_of_range_indices_give_zeros_as_openvino_reference():
    data = np.array([[1, 2], [3, 4], [5, 6]], np.int32)
    (out,) = Gather8().evaluate([data, np.array([2, -1, 3, -4]), np.array(0)])
    assert out.tolist() == [[5, 6], [5, 6], [0, 0], [0, 0]]


@pytest.mark.parametrize(
    ("data", "indices", "axis", "batch"),
    [("?,3..8,4", "2", 1, 0), ("2,3,4", "2,5", 2, 1), ("...", "2", 0, 0), ("2,?", "?,3", 1, -1)],
)
def test_gather_partial_shapes(data, indices, axis, batch):
    check_types(Gather8(batch_dims=batch), [tt(data), tt(indices, "i64"), tt("", "i64")],
                lambda d, i, a: ov8.gather(d, i, a, batch), [None, None, np.array(axis, np.int64)])


def test_gather_refuses_batch_dims_above_axis():
    with pytest.raises(OpError, match="batch_dims must be <= axis"):
        Gather8(batch_dims=2).evaluate([np.zeros((2, 2, 2)), np.zeros((2, 2), np.int64), np.array(1)])


def test_a_float_axis_is_refused_as_openvino_refuses_it():
    with pytest.raises(RuntimeError, match="Axis element type must be of an integral number type"):
        ov8.gather(ov8.parameter([3], np.float32), ov8.constant(np.array([0])), ov8.constant(np.float32(0)))
    with pytest.raises(OpError, match=r"^Axis element type must be of an integral number type\. Got: f32$"):
        Gather8(batch_dims=0).infer([tt("3"), tt("1", "i64"), tt("", "f32")], [None, None, None])
