"""GatherTree-1 against OpenVINO (its CPU plugin: the op folds nowhere): beams traced back through
parents, lengths below, at and beyond max_time, end tokens inside the beams; partial shapes; refusals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.movement.gather_tree import GatherTree
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, same_op
from tests.ops.helpers import tt


@OP_EXAMPLES
@given(data=st.data())
def test_gather_tree_matches_openvino(data):
    draw = data.draw
    max_time, batch, beams = draw(st.integers(1, 5)), draw(st.integers(1, 3)), draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dtype = draw(st.sampled_from([np.int32, np.float32]))
    step_ids = rng.integers(0, 4, (max_time, batch, beams)).astype(dtype)
    parents = rng.integers(0, beams, (max_time, batch, beams)).astype(dtype)
    # Length 0: see test_length_zero_is_all_end_tokens (the CPU plugin leaves that beam unwritten).
    lengths = np.array(draw(st.lists(st.integers(1, max_time + 2), min_size=batch, max_size=batch)), dtype)
    end_token = np.array(draw(st.integers(0, 4)), dtype)
    op = GatherTree()
    assert check_op(op, [step_ids, parents, lengths, end_token], same_op(op)).cpu


def test_spec_example():
    step_ids = np.array([[[1, 2, 3]], [[4, 5, 6]], [[7, 8, 9]]], np.int32).reshape(3, 1, 3)
    parents = np.array([[[0, 0, 0]], [[0, 1, 1]], [[2, 1, 2]]], np.int32).reshape(3, 1, 3)
    (out,) = GatherTree().evaluate([step_ids, parents, np.array([3], np.int32), np.array(10, np.int32)])
    assert out[:, 0].tolist() == [[2, 2, 2], [6, 5, 6], [7, 8, 9]]
    (out,) = GatherTree().evaluate([step_ids, parents, np.array([3], np.int32), np.array(5, np.int32)])
    assert out[:, 0].tolist() == [[2, 2, 2], [6, 5, 6], [7, 5, 9]]  # beam 1 ends at its 5


@pytest.mark.parametrize(("shapes", "types"), [
    (("3,2,4", "3,2,4", "2", ""), "i32"), (("?,2,4", "3,?,4", "?", ""), "i32"), (("...", "...", "...", "..."), "f32"),
    (("3,2,4", "3,2,5", "2", ""), "i32"), (("3,2,4", "3,2,4", "3", ""), "i32"), (("3,2", "3,2", "2", ""), "i32"),
    (("3,2,4", "3,2,4", "2", "1"), "i32"), (("3,2,4", "3,2,4", "2,1", ""), "i32"),
    (("1..3,?,4", "?,1..9,?", "2..5", ""), "f32"),
])
def test_partial_shapes_and_refusals_as_openvino(shapes, types):
    check_types(GatherTree(), [tt(s, types) for s in shapes], same_op(GatherTree()))


def test_mixed_element_types_are_refused():
    check_types(GatherTree(), [tt("3,2,4", "i32"), tt("3,2,4", "f32"), tt("2", "i32"), tt("", "i32")],
                same_op(GatherTree()))


def test_a_parent_outside_the_beams_is_refused():
    """openvino 2026.4.1's reference reads out of bounds there; irgraph refuses."""
    step_ids = np.zeros((2, 1, 2), np.int32)
    parents = np.array([[[0, 0]], [[2, 0]]], np.int32)
    with pytest.raises(OpError, match=r"a parent index at step 1 lies outside \[0, 2\). Got: \[2\]"):
        GatherTree().evaluate([step_ids, parents, np.array([2], np.int32), np.array(0, np.int32)])


def test_length_zero_is_all_end_tokens():
    """As OpenVINO's reference (gather_tree.cpp) fills it; openvino 2026.4.1's CPU plugin leaves such a beam
    unwritten (whatever memory held: 2.7378833 seen for a [1,1,1] f32 case)."""
    step_ids = np.arange(6, dtype=np.float32).reshape(3, 1, 2)
    (out,) = GatherTree().evaluate([step_ids, np.zeros_like(step_ids), np.array([0], np.float32),
                                    np.array(9, np.float32)])
    assert out.tolist() == [[[9, 9]]] * 3


def test_run_time_shapes_are_checked():
    ids = np.zeros((2, 1, 2), np.int32)
    with pytest.raises(OpError, match=r"same shape with rank 3. Got: \[2, 1, 2\] and \[2, 1, 3\], respectively"):
        GatherTree().evaluate([ids, np.zeros((2, 1, 3), np.int32), np.array([2], np.int32), np.array(0, np.int32)])
    with pytest.raises(OpError, match=r"max_seq_len must hold BATCH_SIZE \(1\) values. Got shape \[2\]"):
        GatherTree().evaluate([ids, ids, np.array([2, 2], np.int32), np.array(0, np.int32)])
    with pytest.raises(OpError, match=r"end_token input must be scalar. Got shape \[1\]"):
        GatherTree().evaluate([ids, ids, np.array([2], np.int32), np.array([0], np.int32)])
