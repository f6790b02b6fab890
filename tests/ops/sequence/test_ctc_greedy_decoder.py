"""CTCGreedyDecoder-1 and CTCGreedyDecoderSeqLen-6 against OpenVINO (its CPU plugin: neither folds):
merged repeats, blanks, masks that stop early, lengths 0..T, an explicit blank index; partial shapes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.sequence.ctc_greedy_decoder import CTCGreedyDecoder
from irgraph.ops.sequence.ctc_greedy_decoder_seq_len import CTCGreedyDecoderSeqLen
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, same_op
from tests.ops.helpers import tt


@OP_EXAMPLES
@given(data=st.data())
def test_ctc_greedy_decoder_matches_openvino(data):
    draw = data.draw
    time, batch, classes = draw(st.integers(1, 8)), draw(st.integers(1, 3)), draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dtype = draw(st.sampled_from([np.float32, np.float16]))
    logits = rng.standard_normal((time, batch, classes)).astype(dtype)
    lengths = np.array(draw(st.lists(st.integers(0, time), min_size=batch, max_size=batch)))
    mask = (np.arange(time)[:, None] < lengths[None, :]).astype(dtype)
    op = CTCGreedyDecoder(ctc_merge_repeated=draw(st.booleans()))
    assert check_op(op, [logits, mask], same_op(op)).cpu


@OP_EXAMPLES
@given(data=st.data())
def test_ctc_greedy_decoder_seq_len_matches_openvino(data):
    draw = data.draw
    batch, time, classes = draw(st.integers(1, 3)), draw(st.integers(1, 8)), draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dtype = draw(st.sampled_from([np.float32, np.float16]))
    logits = rng.standard_normal((batch, time, classes)).astype(dtype)
    lengths = np.array(draw(st.lists(st.integers(0, time), min_size=batch, max_size=batch)), np.int32)
    op = CTCGreedyDecoderSeqLen(merge_repeated=draw(st.booleans()))
    inputs = [logits, lengths]
    if draw(st.booleans()):
        inputs.append(np.array(draw(st.integers(0, classes - 1)), np.int32).reshape(draw(st.sampled_from([(), (1,)]))))
    assert check_op(op, inputs, same_op(op)).cpu


def test_spec_example_merges_repeats_and_drops_blanks():
    best = [0, 0, 2, 1, 1, 2, 1]  # class 2 is the blank (the last)
    logits = np.eye(3, dtype=np.float32)[best][:, None, :]
    mask = np.ones((7, 1), np.float32)
    (out,) = CTCGreedyDecoder(ctc_merge_repeated=True).evaluate([logits, mask])
    assert out[0, :, 0, 0].tolist() == [0, 1, 1, -1, -1, -1, -1]
    (out,) = CTCGreedyDecoder(ctc_merge_repeated=False).evaluate([logits, mask])
    assert out[0, :, 0, 0].tolist() == [0, 0, 1, 1, 1, -1, -1]
    mask[4:] = 0
    mask[5] = 1  # decoding stops at the first zero: the later 1 does not resume it
    (out,) = CTCGreedyDecoder(ctc_merge_repeated=True).evaluate([logits, mask])
    assert out[0, :, 0, 0].tolist() == [0, 1, -1, -1, -1, -1, -1]


def test_seq_len_counts_blank_index_and_index_types():
    logits = np.eye(3, dtype=np.float32)[[0, 0, 2, 1, 1, 2, 1]][None]
    op = CTCGreedyDecoderSeqLen(classes_index_type=ElementType.I64, sequence_length_type=ElementType.I64)
    decoded, counts = op.evaluate([logits, np.array([6], np.int32)])
    assert decoded.dtype == np.int64 and counts.dtype == np.int64
    assert decoded.tolist() == [[0, 1, -1, -1, -1, -1, -1]] and counts.tolist() == [2]
    decoded, counts = op.evaluate([logits, np.array([7], np.int32), np.array([0], np.int32)])
    assert decoded.tolist() == [[2, 1, 2, 1, -1, -1, -1]] and counts.tolist() == [4]


@pytest.mark.parametrize(("logits", "mask"), [
    ("5,2,4", "5,2"), ("?,2,4", "5,?"), ("...", "5,2"), ("5,2,4", "..."), ("...", "..."), ("1..6,?,3", "3..9,2"),
    ("5,2,4", "4,2"), ("5,2,4", "5,3"), ("5,2", "5,2"), ("5,2,4", "5,2,1"),
])
def test_ctc_greedy_decoder_partial_shapes_as_openvino(logits, mask):
    op = CTCGreedyDecoder()
    check_types(op, [tt(logits), tt(mask)], same_op(op))


@pytest.mark.parametrize(("shapes", "types"), [
    (("2,5,4", "2"), ("f32", "i32")), (("?,5,4", "3"), ("f32", "i32")), (("...", "..."), ("f32", "i64")),
    (("2,5,4", "3"), ("f32", "i32")), (("2,5", "2"), ("f32", "i32")), (("2,5,4", "2,1"), ("f32", "i32")),
    (("2,5,4", "2", ""), ("f32", "i32", "i32")), (("2,5,4", "2", "1"), ("f32", "i32", "i64")),
    (("2,5,4", "2", "2"), ("f32", "i32", "i32")), (("2,5,4", "2", ""), ("f32", "i32", "f32")),
])
def test_ctc_greedy_decoder_seq_len_partial_shapes_as_openvino(shapes, types):
    op = CTCGreedyDecoderSeqLen(classes_index_type=ElementType.I64)
    check_types(op, [tt(s, t) for s, t in zip(shapes, types, strict=True)], same_op(op))


def test_refusals():
    with pytest.raises(OpError, match=r"Every sequence_length must lie in \[0, 2\]. Got: \[3\]"):
        CTCGreedyDecoderSeqLen().evaluate([np.zeros((1, 2, 3), np.float32), np.array([3], np.int32)])
    with pytest.raises(OpError, match="Attribute 'classes_index_type' must be i32 or i64. Got: f32"):
        CTCGreedyDecoderSeqLen(classes_index_type=ElementType.F32)
    with pytest.raises(OpError, match="the logits hold NaN"):
        CTCGreedyDecoder().evaluate([np.full((1, 1, 2), np.nan, np.float32), np.ones((1, 1), np.float32)])


def test_defaults_are_openvinos():
    """openvino 2026.4.1's defaults: ctc_merge_repeated=true; merge_repeated=true with i32 and i32."""
    assert CTCGreedyDecoder.from_attributes({}).to_attributes() == {"ctc_merge_repeated": "true"}
    assert CTCGreedyDecoderSeqLen.from_attributes({}).to_attributes() == {
        "merge_repeated": "true", "classes_index_type": "i32", "sequence_length_type": "i32"}


def test_one_step_and_empty_inputs():
    logits = np.array([[[0.0, 1.0, 0.0]], [[0.0, 0.0, 1.0]]], np.float32)  # [N=2, T=1, C=3]; class 2 is blank
    decoded, counts = CTCGreedyDecoderSeqLen().evaluate([logits, np.array([1, 1], np.int32)])
    assert decoded.tolist() == [[1], [-1]] and counts.tolist() == [1, 0]
    decoded, counts = CTCGreedyDecoderSeqLen().evaluate([np.zeros((2, 0, 3), np.float32), np.zeros(2, np.int32)])
    assert decoded.shape == (2, 0) and counts.tolist() == [0, 0]
    (out,) = CTCGreedyDecoder().evaluate([logits.transpose(1, 0, 2), np.ones((1, 2), np.float32)])
    assert out.reshape(2).tolist() == [1, -1]


def test_no_classes_decode_nothing():
    """With zero classes nothing is decoded: every position holds the padding -1 and every length is 0 (a
    hand-worked case: openvino 2026.4.1's reference evaluates no such configuration)."""
    decoded, lengths = CTCGreedyDecoderSeqLen().evaluate([np.zeros((1, 3, 0), np.float32), np.array([2], np.int32)])
    assert decoded.tolist() == [[-1, -1, -1]] and lengths.tolist() == [0]
