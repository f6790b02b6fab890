"""GatherElements-6, GatherND-5 and GatherND-8 against OpenVINO."""

from __future__ import annotations

import numpy as np
import openvino.opset5 as ov5
import openvino.opset6 as ov6
import openvino.opset8 as ov8
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.movement.gather_elements import GatherElements
from irgraph.ops.movement.gather_nd import GatherND, GatherND8
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types
from tests.ops.helpers import tt


@st.composite
def elements_case(draw):
    shape = draw(S.shapes(min_rank=1, max_rank=3, max_side=4, zero=False))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    index_shape = list(shape)
    index_shape[axis] = draw(st.integers(1, 4))
    size = shape[axis]
    count = int(np.prod(index_shape))
    indices = draw(st.lists(st.integers(-size, size - 1), min_size=count, max_size=count))
    return shape, np.array(indices, np.int64).reshape(index_shape), axis


@OP_EXAMPLES
@given(elements_case(), st.sampled_from(S.ALL), st.sampled_from([np.int32, np.int64]))
def test_gather_elements_matches_openvino(case, element_type, index_dtype):
    shape, indices, axis = case
    check_op(GatherElements(axis=axis), [S.values(element_type, shape, 12), indices.astype(index_dtype)],
             lambda d, i: ov6.gather_elements(d, i, axis), moved=(0,))


def test_gather_elements_refuses_an_index_out_of_range():
    with pytest.raises(OpError, match=r"GatherElements index 3 is out of range \[-3, 2\] of axis 0"):
        GatherElements(axis=0).evaluate([np.zeros(3), np.array([3])])


@st.composite
def nd_case(draw):
    data_shape = draw(S.shapes(min_rank=1, max_rank=4, max_side=3, zero=False))
    batch = draw(st.integers(0, len(data_shape) - 1))
    depth = draw(st.integers(1, len(data_shape) - batch))
    middle = draw(S.shapes(max_rank=2, max_side=3, zero=False))
    index_shape = (*data_shape[:batch], *middle, depth)
    if batch and not middle and draw(st.booleans()):
        pass
    sizes = np.array(data_shape[batch:batch + depth])
    rng = np.random.default_rng(draw(S.seeds))
    indices = rng.integers(-sizes, sizes, size=index_shape) if index_shape else np.zeros(index_shape, np.int64)
    # i32 indices half the time: the CPU plugin (the only oracle: openvino 2026.4.1 neither folds nor evaluates
    # GatherND) runs no i64 inputs
    return data_shape, indices.astype(draw(st.sampled_from([np.int32, np.int64]))), batch


@OP_EXAMPLES
@given(nd_case(), st.sampled_from(S.ALL), st.booleans())
def test_gather_nd_matches_openvino(case, element_type, version_8):
    data_shape, indices, batch = case
    data = S.values(element_type, data_shape, 13)
    if version_8:
        check_op(GatherND8(batch_dims=batch), [data, indices], lambda d, i: ov8.gather_nd(d, i, batch), moved=(0,))
    else:
        check_op(GatherND(batch_dims=batch), [data, indices], lambda d, i: ov5.gather_nd(d, i, batch), moved=(0,))


@pytest.mark.parametrize(("data", "indices", "batch"), [("2,?,4", "2,3,1", 1), ("2..3,4,5", "?,1,2", 1),
                                                         ("...", "2,1", 0), ("3,4", "...", 0)])
def test_gather_nd_partial_shapes(data, indices, batch):
    check_types(GatherND8(batch_dims=batch), [tt(data), tt(indices, "i64")], lambda d, i: ov8.gather_nd(d, i, batch))
    check_types(GatherND(batch_dims=batch), [tt(data), tt(indices, "i64")], lambda d, i: ov5.gather_nd(d, i, batch))


def test_gather_nd_spec_example_and_out_of_range():
    data = np.array([[1, 2], [3, 4]], np.int32)
    (out,) = GatherND8().evaluate([data, np.array([[0, 0], [1, 0]])])
    assert out.tolist() == [1, 3]
    with pytest.raises(OpError, match="GatherND index out of range"):
        GatherND8().evaluate([data, np.array([[2, 0]])])


@pytest.mark.parametrize(("data", "indices", "axis"), [("?,3..8,4", "2,?,4", 1), ("...", "2,3", 0), ("2,3", "...", 1),
                                                        ("2..4,3", "?,5", 1), ("...", "...", 0)])
def test_gather_elements_partial_shapes(data, indices, axis):
    check_types(GatherElements(axis=axis), [tt(data), tt(indices, "i64")], lambda d, i: ov6.gather_elements(d, i, axis))


@pytest.mark.parametrize("op", [GatherND(), GatherND8()])
def test_an_empty_index_tuple_gathers_the_whole_slice(op):
    """Index tuples of length 0 (indices [..., 0]) pick all of data, as the spec's formula and NumPy's data[()] say.
    OpenVINO 2026.4.1 infers the same shape but its reference does not fold the case and its CPU plugin returns
    uninitialised memory, so the values are hand-worked (irgraph raised NumPy's ValueError before)."""
    data = np.arange(6, dtype=np.float32).reshape(3, 2)
    (got,) = op.evaluate([data, np.zeros((2, 0), np.int32)])
    np.testing.assert_array_equal(got, np.stack([data, data]))
    assert not check_types(op, [tt("3,2"), tt("2,0", "i32")], ov5.gather_nd if op.flattens_batch else ov8.gather_nd
                           ).refused
    (one,) = op.evaluate([np.array([True]), np.zeros((0,), np.int32)])
    assert one.tolist() == [True]
    (batched,) = GatherND(batch_dims=1).evaluate([data.reshape(2, 3), np.zeros((2, 4, 0), np.int64)])
    np.testing.assert_array_equal(batched, np.repeat(data.reshape(2, 1, 3), 4, axis=1))
