"""Ops that remember what they work out from input shapes and small input values (irgraph.ops.memo): a decoder
runs the same op on the same shapes at every step. The memo must key on every value the answer reads, and
never remember a refusal."""

from __future__ import annotations

import numpy as np
import pytest

from irgraph.core.errors import OpError
from irgraph.ops.matrix.mat_mul import MatMul
from irgraph.ops.memo import MEMO_LIMIT, remembered, value_key
from irgraph.ops.movement.broadcast import Broadcast, Broadcast3
from irgraph.ops.shape.reshape import Reshape


def test_reshape_answers_each_pattern_of_one_data_shape():
    op = Reshape(special_zero=True)
    data = np.arange(12, dtype=np.float32).reshape(2, 6)
    first = op.evaluate([data, np.array([0, 3, 2], np.int64)])[0]
    second = op.evaluate([data, np.array([0, 2, 3], np.int64)])[0]  # same shapes, other values
    third = op.evaluate([data, np.array([0, 2, 3], np.int32)])[0]  # same bytes' length, other dtype
    assert first.shape == (2, 3, 2) and second.shape == (2, 2, 3) and third.shape == (2, 2, 3)
    np.testing.assert_array_equal(second.reshape(-1), np.arange(12, dtype=np.float32))


def test_reshape_refuses_again_and_the_refusal_is_not_remembered():
    op = Reshape(special_zero=False)
    data = np.zeros((2, 3), np.float32)
    for _ in range(2):
        with pytest.raises(OpError, match=r"Requested output shape \[4,2\] is incompatible with input shape \[2,3\]"):
            op.evaluate([data, np.array([4, 2], np.int64)])
    assert op.evaluate([data, np.array([3, 2], np.int64)])[0].shape == (3, 2)
    with pytest.raises(OpError, match=r"'0' dimension is out of range"):
        Reshape(special_zero=True).evaluate([data, np.array([1, 1, 0], np.int64)])


def test_broadcast_plans_per_target_values_and_data_shape():
    op = Broadcast3(mode="bidirectional")
    data = np.array([[1.0], [2.0]], np.float32)
    np.testing.assert_array_equal(op.evaluate([data, np.array([2, 3], np.int64)])[0],
                                  np.array([[1, 1, 1], [2, 2, 2]], np.float32))
    np.testing.assert_array_equal(op.evaluate([data, np.array([1, 2], np.int64)])[0],
                                  np.array([[1, 1], [2, 2]], np.float32))
    assert op.output_shapes([np.zeros((1, 1), np.float32), np.array([2, 3], np.int64)]) == [(2, 3)]
    explicit = Broadcast(mode="explicit")
    np.testing.assert_array_equal(explicit.evaluate([np.array([1, 2], np.int32), np.array([2, 2], np.int64),
                                                     np.array([0], np.int64)])[0], [[1, 1], [2, 2]])
    np.testing.assert_array_equal(explicit.evaluate([np.array([1, 2], np.int32), np.array([2, 2], np.int64),
                                                     np.array([1], np.int64)])[0], [[1, 2], [1, 2]])


def test_broadcast_refuses_every_time():
    op = Broadcast(mode="numpy")
    for _ in range(2):
        with pytest.raises(OpError, match=r"must hold non-negative dims. Got: \[2,-1\]"):
            op.evaluate([np.zeros(1, np.float32), np.array([2, -1], np.int64)])
        with pytest.raises(OpError, match=r"Broadcast shape rank must be 1, but has \[1,2\]"):
            op.evaluate([np.zeros(1, np.float32), np.array([[2, 1]], np.int64)])


def test_mat_mul_shape_per_operand_shapes():
    op = MatMul(transpose_a=False, transpose_b=True)
    a = np.arange(6, dtype=np.float32).reshape(1, 2, 3)
    assert op.evaluate([a, np.ones((4, 3), np.float32)])[0].shape == (1, 2, 4)
    np.testing.assert_array_equal(op.evaluate([a[:, :1], np.ones((1, 3), np.float32)])[0], [[[3.0]]])
    for _ in range(2):
        with pytest.raises(OpError, match="Incompatible MatMul matrix dimension"):
            op.evaluate([a, np.ones((4, 2), np.float32)])


def test_the_memo_stops_growing_at_its_limit():
    class Holder:
        pass

    holder = Holder()
    for n in range(MEMO_LIMIT + 10):
        assert remembered(holder, (n,), lambda n=n: n * 2) == n * 2
    assert len(holder.__dict__["_remembered"]) == MEMO_LIMIT
    assert value_key([1, 2]) is None  # not an array: not remembered
    assert value_key(np.array([1], np.int64)) != value_key(np.array([1], np.int32))


def test_reduction_axes_per_rank_and_values():
    from irgraph.ops.reduction.reduce_sum import ReduceSum

    op = ReduceSum(keep_dims=False)
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(op.evaluate([data, np.array([0], np.int64)])[0], [3, 5, 7])
    np.testing.assert_array_equal(op.evaluate([data, np.array([1], np.int64)])[0], [3, 12])
    np.testing.assert_array_equal(op.evaluate([data, np.array([-1], np.int32)])[0], [3, 12])
    np.testing.assert_array_equal(op.evaluate([data[None], np.array([0], np.int64)])[0], data)  # another rank
    for _ in range(2):
        with pytest.raises(OpError, match=r"Axes input must be a scalar or 1D input. Got: \[1,1\]"):
            op.evaluate([data, np.array([[0]], np.int64)])
        with pytest.raises(OpError, match="Element type of axes input must be integer"):
            op.evaluate([data, np.array([0.0], np.float32)])


def test_unsqueeze_per_data_shape_and_axes():
    from irgraph.ops.shape.unsqueeze import Unsqueeze

    op = Unsqueeze()
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert op.evaluate([data, np.array([0], np.int64)])[0].shape == (1, 2, 3)
    assert op.evaluate([data, np.array([2], np.int64)])[0].shape == (2, 3, 1)
    assert op.evaluate([data.reshape(3, 2), np.array([2], np.int64)])[0].shape == (3, 2, 1)
    for _ in range(2):
        with pytest.raises(OpError, match=r"Axis 4 out of the tensor rank range"):
            op.evaluate([data, np.array([4], np.int64)])


def test_gather_in_range_and_out_of_range_indices():
    """In-range indices take np.take's path; any index out of range the general one (zeros there, as OpenVINO
    2026.4.1's reference writes them)."""
    from irgraph.ops.movement.gather import Gather8

    op = Gather8(batch_dims=0)
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(op.evaluate([data, np.array([[2, -3]], np.int32), np.array(0)])[0],
                                  [[[8, 9, 10, 11], [0, 1, 2, 3]]])
    np.testing.assert_array_equal(op.evaluate([data, np.array([1, 4]), np.array(1)])[0], [[1, 0], [5, 0], [9, 0]])
    assert op.evaluate([data, np.zeros((0, 2), np.int64), np.array(1)])[0].shape == (3, 0, 2)
