"""ScatterUpdate-3 against OpenVINO: axes, index ranks, repeated indices (the last stays), bounds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.movement.scatter_update import ScatterUpdate
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, same_op
from tests.ops.helpers import tt


@OP_EXAMPLES
@given(data=st.data())
def test_scatter_update_matches_openvino(data):
    element_type = data.draw(st.sampled_from(S.ALL))
    shape = data.draw(S.shapes(min_rank=1, max_rank=3, zero=False))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    # min_rank=1: openvino 2026.4.1's reference fails on scalar indices (vector::_M_range_check); irgraph writes
    # the one slice (see test_scalar_index_writes_one_slice)
    indices_shape = data.draw(S.shapes(min_rank=1, max_rank=2, max_side=3))
    indices = S.values(data.draw(st.sampled_from(S.SIGNED[2:])), indices_shape, data.draw(S.seeds), specials=False,
                       low=0, high=shape[axis] - 1)
    x = S.values(element_type, shape, data.draw(S.seeds))
    updates_shape = shape[:axis % len(shape)] + indices_shape + shape[axis % len(shape) + 1:]
    # openvino 2026.4.1's reference misplaces updates when an updates dim after the axis is 1 (its
    # "num_unary_moves" shift): see test_size_one_dims_after_the_axis
    assume(1 not in updates_shape[axis % len(shape) + 1:])
    updates = S.values(element_type, updates_shape, data.draw(S.seeds))
    op = ScatterUpdate()
    check_op(op, [x, indices, updates, np.array(axis, np.int64)], same_op(op), constant=(3,), moved=(0, 2))


def test_spec_example_repeated_index_keeps_the_last():
    x = np.zeros((3, 2), np.float32)
    (got,) = ScatterUpdate().evaluate([x, np.array([1, 1]), np.array([[1, 2], [3, 4]], np.float32), np.array(0)])
    assert got.tolist() == [[0, 0], [3, 4], [0, 0]]


def test_size_one_dims_after_the_axis():
    """openvino 2026.4.1 folds data [3,2,1], indices [2,0], updates [[[1],[2]],[[3],[4]]] to data[0] = [2,3]
    (a mix of both slices); irgraph writes updates[1] = [3,4] there, as the spec says."""
    x = np.zeros((3, 2, 1), np.float32)
    updates = np.arange(1, 5, dtype=np.float32).reshape(2, 2, 1)
    (got,) = ScatterUpdate().evaluate([x, np.array([2, 0]), updates, np.array(0)])
    assert got.reshape(-1).tolist() == [3, 4, 0, 0, 1, 2]


def test_scalar_index_writes_one_slice():
    x = np.zeros((3, 2), np.float32)
    (got,) = ScatterUpdate().evaluate([x, np.array(2), np.array([1, 2], np.float32), np.array(0)])
    assert got.tolist() == [[0, 0], [0, 0], [1, 2]]


@pytest.mark.parametrize("index", [-1, 5])
def test_out_of_range_indices_are_refused_as_openvino_does(index):
    """openvino 2026.4.1: 'ScatterUpdate indices value -1 is out of bounds for axis 0 of size 5'."""
    args = [np.arange(5, dtype=np.float32), np.array([index]), np.array([9], np.float32), np.array(0)]
    assert check_op(ScatterUpdate(), args, same_op(ScatterUpdate()), constant=(3,)).refused
    with pytest.raises(OpError, match=f"index {index} is out of bounds for the axis of size 5"):
        ScatterUpdate().evaluate(args)


def test_updates_shape_is_checked():
    with pytest.raises(OpError, match="Updates shape must be data"):
        ScatterUpdate().infer([tt("3,2"), tt("2", "i64"), tt("2,3"), tt("", "i64")], [None, None, None, np.array(0)])
