"""SpaceToBatch-2 and BatchToSpace-2 against OpenVINO 2026.4.1 (reference evaluate and CPU plugin) on generated
configurations, their round trip, exact cases and irgraph's stricter refusals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.movement.batch_to_space import BatchToSpace
from irgraph.ops.movement.space_to_batch import SpaceToBatch
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, same_op
from tests.ops.helpers import infer, tt


def _vectors(blocks, befores, afters):
    return [np.array(v, np.int64) for v in (blocks, befores, afters)]


@OP_EXAMPLES
@given(st.data())
def test_space_to_batch_matches_openvino(data):
    rank = data.draw(st.integers(2, 4))
    element_type = data.draw(st.sampled_from(S.NUMERIC))
    blocks = [1] + [data.draw(st.integers(1, 3)) for _ in range(rank - 1)]
    befores = [0] + [data.draw(st.integers(0, 2)) for _ in range(rank - 1)]
    afters = [0] + [data.draw(st.integers(0, 2)) for _ in range(rank - 1)]
    shape = [data.draw(st.integers(1, 2))]
    for block, before, after in zip(blocks[1:], befores[1:], afters[1:], strict=True):
        size = block * data.draw(st.integers(1, 3)) - before - after
        if size < 0 or not data.draw(st.integers(0, 9)):
            size = max(size, 0) + data.draw(st.integers(0, 1))  # now and then a size the block does not divide
        shape.append(size)
    x = S.values(element_type, shape, data.draw(S.seeds))
    check_op(SpaceToBatch(), [x, *_vectors(blocks, befores, afters)], same_op(SpaceToBatch()),
             constant=(1, 2, 3), moved=(0,))


@OP_EXAMPLES
@given(st.data())
def test_batch_to_space_matches_openvino(data):
    rank = data.draw(st.integers(2, 4))
    element_type = data.draw(st.sampled_from(S.NUMERIC))
    blocks = [1] + [data.draw(st.integers(1, 3)) for _ in range(rank - 1)]
    shape = [int(np.prod(blocks)) * data.draw(st.integers(1, 2))] + [data.draw(st.integers(1, 3))
                                                                        for _ in range(rank - 1)]
    if not data.draw(st.integers(0, 9)):
        shape[0] += 1  # now and then a batch the blocks do not divide
    befores, afters = [0], [0]
    for size, block in zip(shape[1:], blocks[1:], strict=True):
        before = data.draw(st.integers(0, size * block))
        befores.append(before)
        afters.append(data.draw(st.integers(0, size * block - before + (not data.draw(st.integers(0, 9))))))
    x = S.values(element_type, shape, data.draw(S.seeds))
    check_op(BatchToSpace(), [x, *_vectors(blocks, befores, afters)], same_op(BatchToSpace()),
             constant=(1, 2, 3))


def test_exact_case_and_round_trip():
    x = np.arange(1 * 4 * 4, dtype=np.int32).reshape(1, 4, 4)
    vectors = _vectors([1, 2, 2], [0, 0, 0], [0, 0, 0])
    (batched,) = SpaceToBatch().evaluate([x, *vectors])
    assert batched.shape == (4, 2, 2)
    assert batched[1].tolist() == [[1, 3], [9, 11]]  # block position (0, 1) of every 2x2 block
    (back,) = BatchToSpace().evaluate([batched, *vectors])
    np.testing.assert_array_equal(back, x)
    padded = _vectors([1, 2, 2], [0, 1, 0], [0, 1, 2])
    (batched,) = SpaceToBatch().evaluate([x, *padded])
    (back,) = BatchToSpace().evaluate([batched, *padded])
    np.testing.assert_array_equal(back, x)


@pytest.mark.parametrize("op", [SpaceToBatch(), BatchToSpace()], ids=lambda op: op.type_name)
def test_the_batch_dim_keeps_block_1_and_no_pads(op):
    """OpenVINO 2026.4.1 takes block_shape[0] = 2 (BatchToSpace [4,3,5] -> [2,3,5] drops half the data,
    SpaceToBatch -> [8,3,5] repeats it); irgraph refuses, as the spec's rule says."""
    with pytest.raises(OpError, match=r"^block_shape\[0\] must be 1 and "):
        infer(op, [tt("4,3,5"), tt("3", "i64"), tt("3", "i64"), tt("3", "i64")],
              [None, *_vectors([2, 1, 1], [0, 0, 0], [0, 0, 0])])


def test_negative_pads_are_refused():
    """OpenVINO 2026.4.1's rule turns pads_begin -1 into the open interval [4, 3.., 5]; irgraph refuses it."""
    with pytest.raises(OpError, match=r"^pads_begin and pads_end must not be negative"):
        infer(SpaceToBatch(), [tt("4,3,5"), tt("3", "i64"), tt("3", "i64"), tt("3", "i64")],
              [None, *_vectors([1, 1, 1], [0, -1, 0], [0, 0, 0])])


def test_unknown_vectors_give_dynamic_dims():
    assert infer(BatchToSpace(), [tt("4,3,5"), tt("3", "i64"), tt("3", "i64"), tt("3", "i64")], [None] * 4) == [
        "[?,?,?]"]


def test_interval_dims_and_rank_checks():
    """OpenVINO 2026.4.1 gives [1..4,?,5] for BatchToSpace of [2..8,?,5] by blocks [1,2,1], crops [0,1,0]/[0,0,0]."""
    assert infer(BatchToSpace(), [tt("2..8,?,5"), tt("3", "i64"), tt("3", "i64"), tt("3", "i64")],
                 [None, *_vectors([1, 2, 1], [0, 1, 0], [0, 0, 0])]) == ["[1..4,?,5]"]
    with pytest.raises(OpError, match="^data input must have rank greater or equal than 2. Got: 1"):
        infer(SpaceToBatch(), [tt("4"), tt("1", "i64"), tt("1", "i64"), tt("1", "i64")], [None, [1], [0], [0]])
    with pytest.raises(OpError, match="^block_shape values must be greater than 0"):
        SpaceToBatch().evaluate([np.zeros((1, 4), np.float32), *_vectors([1, 0], [0, 0], [0, 0])])


@pytest.mark.parametrize("op", [SpaceToBatch(), BatchToSpace()], ids=lambda op: op.type_name)
def test_vectors_of_unknown_rank_give_dynamic_dims(op):
    """openvino 2026.4.1 gives [?,?,?,?] (irgraph raised an internal error building its rank-1 message)."""
    types = [tt("4,3,5,6"), tt("...", "i64"), tt("...", "i64"), tt("...", "i64")]
    check_types(op, types, same_op(op))
    assert infer(op, types, [None] * 4) == ["[?,?,?,?]"]


def test_vectors_of_the_wrong_length_are_refused():
    """Three elements for rank 4: irgraph refuses at once (openvino 2026.4.1 gives [?,?,?,?] while the vectors are
    not constant; constant ones it reads past their end, refusing with a message of whatever values lie there)."""
    with pytest.raises(OpError, match=r"^block_shape and pads inputs must have same number of elements as data "
                                      r"input rank\. Got: 3 and 4$"):
        infer(SpaceToBatch(), [tt("4,3,5,6"), tt("3", "i64"), tt("3", "i64"), tt("3", "i64")], [None] * 4)


@pytest.mark.parametrize(
    ("data", "vectors", "message"),
    [
        (np.zeros(4, np.float32), _vectors([1], [0], [0]),
         r"^data input must have rank greater or equal than 2\. Got: 1$"),
        (np.zeros((1, 4), np.float32), _vectors([1, 2, 1], [0, 0, 0], [0, 0, 0]),
         r"^block_shape, pads_begin and pads_end must be 1D with one element per data dim \(2\); got shapes "
         r"\[\[3\], \[3\], \[3\]\]$"),
        (np.zeros((1, 4), np.float32), [np.array([[1, 2]]), np.array([0, 0]), np.array([0, 0])],
         r"^block_shape, pads_begin and pads_end must be 1D"),
        (np.zeros((1, 4), np.float32), _vectors([1, 2], [1, 0], [0, 2]),
         r"^block_shape\[0\] must be 1 and pads_begin\[0\], pads_end\[0\] must be 0\. Got: 1, 1 and 0$"),
        (np.zeros((1, 4), np.float32), _vectors([1, 2], [0, 2], [3, 0]),
         r"^block_shape\[0\] must be 1 and pads_begin\[0\], pads_end\[0\] must be 0\. Got: 1, 0 and 3$"),
    ],
)
def test_bad_values_are_refused_at_run_time(data, vectors, message):
    with pytest.raises(OpError, match=message):
        SpaceToBatch().evaluate([data, *vectors])
