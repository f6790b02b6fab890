"""StridedSlice-1 against OpenVINO: every mask, clamping, negative strides."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ov1
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from openvino.utils.node_factory import NodeFactory

from irgraph.core.errors import IrError, OpError
from irgraph.ops.movement.strided_slice import StridedSlice
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_constant, ov_reference
from tests.ops.helpers import infer, tt
from tests.ops.test_shape_propagation import Twin, shape_of

bound = st.one_of(st.integers(-6, 6), st.sampled_from([2**63 - 1, -(2**63)]))
bits = st.sampled_from([0, 0, 1])


@st.composite
def strided_case(draw):
    shape = draw(S.shapes(min_rank=1, max_rank=4, max_side=5))
    count = draw(st.integers(1, len(shape) + 1))
    begin = draw(st.lists(bound, min_size=count, max_size=count))
    end = draw(st.lists(bound, min_size=count, max_size=count))
    strides = draw(st.lists(st.sampled_from([1, 1, 2, -1, -2, 3]), min_size=count, max_size=count))
    size = draw(st.integers(0, count + 1))  # masks shorter or longer than the entries
    ellipsis = [0] * size
    if size and draw(st.booleans()):
        ellipsis[draw(st.integers(0, size - 1))] = 1
    masks = [draw(st.lists(bits, min_size=size, max_size=size)) for _ in range(4)]
    if draw(st.booleans()):
        masks[2] = masks[3] = []
    if draw(st.booleans()):
        ellipsis = []
    return shape, begin, end, strides, (*masks, ellipsis)


@OP_EXAMPLES
@given(strided_case(), st.sampled_from(S.ALL))
def test_strided_slice_matches_openvino(case, element_type):
    shape, begin, end, strides, masks = case
    begin_mask, end_mask, new_axis, shrink, ellipsis = masks
    # openvino 2026.4.1's reference slices a size-0 dim with a negative stride to size 1 (its shape
    # inference says 0, as irgraph does): test_strided_slice_empty_dim_negative_stride pins irgraph's answer.
    assume(not (0 in shape and any(s < 0 for s in strides)))
    # An ellipsis bit on an entry that is also a new axis or shrunk: openvino 2026.4.1's shape inference takes
    # the ellipsis, its reference the new axis (a [0] tensor sliced to shape [1]); irgraph follows the first.
    assume(not any(e and (n or s) for e, n, s in zip(ellipsis, new_axis + [0] * 9, shrink + [0] * 9, strict=False)))
    op = StridedSlice(begin_mask=tuple(begin_mask), end_mask=tuple(end_mask), new_axis_mask=tuple(new_axis),
                      shrink_axis_mask=tuple(shrink), ellipsis_mask=tuple(ellipsis))
    data = S.values(element_type, shape, 6)
    arrays = [data, np.array(begin, np.int64), np.array(end, np.int64), np.array(strides, np.int64)]

    def build(d, b, e, s):
        return ov1.strided_slice(d, b, e, s, begin_mask, end_mask, new_axis, shrink, ellipsis)

    try:
        check_op(op, arrays, build, constant={1, 2, 3})
    except IrError as refusal:  # a shrunk index out of range: OpenVINO's reference refuses to evaluate it too
        assert "of a shrunk axis is out of range" in str(refusal) or "axes of a tensor of rank" in str(refusal)
        with pytest.raises(RuntimeError, match="begin >= |num_real_axes="):
            ov_reference(build(*[ov_constant(x) for x in arrays]))


def test_strided_slice_spec_example():
    data = np.arange(2 * 3 * 4).reshape(2, 3, 4)
    op = StridedSlice(begin_mask=(0, 1, 1, 0), end_mask=(0, 1, 1, 0), new_axis_mask=(0, 0, 0, 1),
                      shrink_axis_mask=(1, 0, 0, 0))
    (out,) = op.evaluate([data, np.array([1, 0, 0, 0]), np.array([2, 0, 0, 0]), np.array([1, 1, 1, 1])])
    assert out.shape == (3, 4, 1) and out.tolist() == data[1, :, :, None].tolist() and np.shares_memory(out, data)


@pytest.mark.parametrize("shape", ["?,3..8,4", "2..5"])
def test_strided_slice_partial_shapes(shape):
    op = StridedSlice(begin_mask=(0,), end_mask=(1,))
    check_types(op, [tt(shape), tt("1", "i64"), tt("1", "i64"), tt("1", "i64")],
                lambda d, b, e, s: ov1.strided_slice(d, b, e, s, [0], [1]),
                [None, np.array([1], np.int64), np.array([0], np.int64), np.array([1], np.int64)])


@pytest.mark.parametrize(("masks", "ours", "theirs"), [
    (([0, 0], [0], [], [], []), "All masks of StridedSlice must have the same size", "must have the same size"),
    (([0], [0], [1, 0], [], []), "All masks of StridedSlice must have the same size", "must have the same size"),
    (([0], [0], [], [], [0, 1]), "All masks of StridedSlice must have the same size", "must have the same size"),
    (([0, 0], [0, 0], [], [], [1, 1]), "Only one non-zero bit is allowed in ellipsis_mask",
     "At most one ellipsis is allowed"),
    # both wrong: irgraph names the ellipsis, openvino 2026.4.1 the sizes (it checks them first)
    (([0, 0], [0], [], [], [1, 1]), "Only one non-zero bit is allowed in ellipsis_mask", "must have the same size"),
])
def test_masks_openvino_refuses_are_refused(masks, ours, theirs):
    """openvino 2026.4.1 refuses to build these nodes (a RuntimeError); irgraph refuses the attributes."""
    arrays = [np.zeros((2, 3), np.float32), np.array([0, 0]), np.array([1, 1]), np.array([1, 1])]
    with pytest.raises(RuntimeError, match=theirs):
        ov1.strided_slice(*[ov_constant(x) for x in arrays], *masks)
    begin_mask, end_mask, new_axis, shrink, ellipsis = masks
    with pytest.raises(OpError, match=ours):
        StridedSlice(begin_mask=tuple(begin_mask), end_mask=tuple(end_mask), new_axis_mask=tuple(new_axis),
                     shrink_axis_mask=tuple(shrink), ellipsis_mask=tuple(ellipsis))


def test_strided_slice_refuses_a_shrunk_index_out_of_range():
    """Index 3 of a [3] axis, shrunk: openvino 2026.4.1 infers shape [] but its reference refuses to evaluate."""
    op = StridedSlice(begin_mask=(0,), end_mask=(0,), shrink_axis_mask=(1,))
    arrays = [np.zeros(3, np.float32), np.array([3]), np.array([4]), np.array([1])]
    node = ov1.strided_slice(*[ov_constant(x) for x in arrays], [0], [0], [], [1])
    assert str(node.get_output_partial_shape(0)) == "[]"
    with pytest.raises(RuntimeError, match="begin >= "):
        ov_reference(node)
    with pytest.raises(OpError, match="of a shrunk axis is out of range"):
        op.evaluate(arrays)


def test_strided_slice_empty_dim_negative_stride():
    """A size-0 dim stays 0 under a negative stride (openvino 2026.4.1's shape inference; its reference
    returns a dim of 1)."""
    op = StridedSlice(begin_mask=(), end_mask=())
    (out,) = op.evaluate([np.zeros((0, 0), bool), np.array([0, 0]), np.array([-1, 0]), np.array([-1, 1])])
    assert out.shape == (0, 0)


def _op(begin_mask, end_mask, new_axis=(), shrink=(), ellipsis=()):
    return StridedSlice(begin_mask=tuple(begin_mask), end_mask=tuple(end_mask), new_axis_mask=tuple(new_axis),
                        shrink_axis_mask=tuple(shrink), ellipsis_mask=tuple(ellipsis))


ELLIPSIS_CASES = [
    # (shape, begin, end, strides, begin_mask, end_mask, new_axis, shrink, ellipsis, the NumPy key it means)
    ((2, 3, 4, 5), [0, 1], [0, 3], [1, 1], [0, 0], [0, 0], [], [], [1, 0], (Ellipsis, slice(1, 3))),
    ((2, 3, 4), [1, 0, 0, 0], [2, 0, 2, 0], [1, 1, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [1, 0, 0, 0],
     [0, 1, 0, 0], (1, Ellipsis, slice(0, 2), None)),
    ((2, 3), [1, 0, -1], [2, 0, 0], [1, 1, -1], [0, 0, 0], [0, 0, 1], [], [], [0, 1, 0],
     (slice(1, 2), Ellipsis, slice(None, None, -1))),  # the ellipsis covers no axis
    ((2, 3, 4), [0, 5], [0, -6], [1, -2], [0, 0], [0, 0], [], [], [1, 0], (Ellipsis, slice(5, -6, -2))),
    ((3, 4), [0, 0], [0, 2], [1, 1], [0, 1], [0, 0], [1, 0], [], [0, 0], (None, slice(0, 2))),
    # a slice after the ellipsis reads the axis the ellipsis leaves it (4 long: 1:10 is 3)
    ((2, 3, 4), [0, 0, 1], [1, 0, 10], [1, 1, 1], [0, 0, 0], [0, 0, 0], [], [], [0, 1, 0],
     (slice(0, 1), Ellipsis, slice(1, 10))),
]


@pytest.mark.parametrize("case", ELLIPSIS_CASES, ids=lambda case: str(case[-1]))
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_ellipsis_takes_the_axes_the_other_entries_leave(case, dtype):
    """openvino 2026.4.1's reference (constant folding) slices as NumPy's key with ``...`` does."""
    shape, begin, end, strides, begin_mask, end_mask, new_axis, shrink, ellipsis, key = case
    data = np.arange(np.prod(shape), dtype=dtype).reshape(shape)
    arrays = [data, np.array(begin, np.int64), np.array(end, np.int64), np.array(strides, np.int64)]
    outcome = check_op(_op(begin_mask, end_mask, new_axis, shrink, ellipsis), arrays,
                       lambda d, b, e, s: ov1.strided_slice(d, b, e, s, begin_mask, end_mask, new_axis, shrink,
                                                            ellipsis), constant={1, 2, 3})
    assert outcome.reference
    (out,) = _op(begin_mask, end_mask, new_axis, shrink, ellipsis).evaluate(arrays)
    np.testing.assert_array_equal(out, data[key])


@pytest.mark.parametrize(("begin_mask", "end_mask", "new_axis", "shrink", "ellipsis", "begin_shape"), [
    ([1, 1], [1, 1], [], [], [], "2"),  # both masks: the axes keep their lengths
    ([1, 0], [0, 1], [], [], [], "2"),  # one-sided: each sliced axis is ..its length
    ([0, 1], [1, 0], [], [], [], "2"),
    ([1, 0, 1], [1, 1, 0], [], [], [], "3"),
    ([0], [0], [], [], [], "1"),
    ([0, 0], [0, 0], [0, 1], [], [], "2"),  # a new axis of 1
    ([0, 0], [0, 0], [], [1, 0], [], "2"),  # a shrunk axis goes
    ([0, 0], [0, 0], [], [], [0, 1], "2"),  # an ellipsis covers the axes the other entries leave
    ([0, 0], [0, 0], [], [], [1, 0], "2"),  # and a slice after it takes the last axis
    ([0, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0], [], [], "4"),  # four entries for rank 3 and one new axis
    ([0, 0], [0, 0], [], [], [], "?"),  # an unknown count of entries: the rank is unknown
])
def test_unknown_begin_and_end_with_masks(begin_mask, end_mask, new_axis, shrink, ellipsis, begin_shape):
    """Begin, end and strides unknown: openvino 2026.4.1's shape inference bounds each sliced axis by its length,
    places new, shrunk and ellipsis entries by the masks, and gives up the rank only for an unknown count."""
    op = _op(begin_mask, end_mask, new_axis, shrink, ellipsis)
    check_types(op, [tt("4,5..8,6"), tt(begin_shape, "i64"), tt(begin_shape, "i64"), tt(begin_shape, "i64")],
                lambda d, b, e, s: ov1.strided_slice(d, b, e, s, begin_mask, end_mask, new_axis, shrink, ellipsis))


def test_unknown_begin_with_more_entries_than_axes_is_refused():
    """Four entries for a rank-3 input and no new axis: openvino 2026.4.1 refuses to build the node."""
    check_types(_op([0] * 4, [0] * 4), [tt("4,5,6"), tt("4", "i64"), tt("4", "i64"), tt("4", "i64")],
                lambda d, b, e, s: ov1.strided_slice(d, b, e, s, [0] * 4, [0] * 4))
    with pytest.raises(OpError, match="has to be at least the size of Lower and Upper bounds vector"):
        infer(_op([0] * 4, [0] * 4), [tt("4,5,6"), tt("4", "i64"), tt("4", "i64"), tt("4", "i64")],
              [None, None, None, None])


@pytest.mark.parametrize("shape", ["2..4", "1..3", "6..9"])
@pytest.mark.parametrize("role", ["begin", "end"])
def test_begin_and_end_known_by_their_bounds(shape, role):
    """A begin or end taken from a ShapeOf of an interval dim slices to an interval (OpenVINO 2026.4.1's
    bounds): the smallest and largest slices are those of the bounds."""
    twin = Twin()
    x = twin.parameter(shape)
    data = twin.parameter("8,3")
    bound = shape_of(twin, x)
    begin, end = (bound, twin.const([7])) if role == "begin" else (twin.const([1]), bound)
    twin.check(twin.op(_op([0], [0]), lambda d, b, e, s: ov1.strided_slice(d, b, e, s, [0], [0]),
                       data, begin, end, twin.const([1])))


@pytest.mark.parametrize("strides", [[1, 1], [-1, 1], [2, 1], [1, -3], None])
@pytest.mark.parametrize(("begin_mask", "end_mask"), [([1, 1], [1, 1]), ([1, 0], [1, 1]), ([0, 1], [0, 1])])
def test_unknown_begin_and_end_with_known_strides(begin_mask, end_mask, strides):
    """openvino 2026.4.1: both masks take the whole axis at the stride (4 by 2 is 2, 5..8 by -3 is 2..3); one
    mask or none bounds it by that (..2, ..3). ``None``: no strides input, which means ones."""
    shape = tt("4,5..8,6")
    if strides is None:
        check_types(_op(begin_mask, end_mask), [shape, tt("2", "i64"), tt("2", "i64")],
                    lambda d, b, e: ov1.strided_slice(d, b, e, ov_constant(np.ones(2, np.int64)), begin_mask,
                                                      end_mask))
        return
    check_types(_op(begin_mask, end_mask), [shape, tt("2", "i64"), tt("2", "i64"), tt("2", "i64")],
                lambda d, b, e, s: ov1.strided_slice(d, b, e, s, begin_mask, end_mask),
                [None, None, None, np.array(strides, np.int64)])


def test_no_strides_input_means_ones():
    """Three inputs: openvino 2026.4.1 (NodeFactory, opset1) folds data[1:2, -3:-1] of a [2,3,4] input."""
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    arrays = [data, np.array([1, -3]), np.array([2, -1])]
    masks = {"begin_mask": [0, 0], "end_mask": [0, 0], "new_axis_mask": [], "shrink_axis_mask": [],
             "ellipsis_mask": []}
    outcome = check_op(_op([0, 0], [0, 0]), arrays,
                       lambda d, b, e: NodeFactory("opset1").create("StridedSlice", [d, b, e], masks), constant={1, 2})
    assert outcome.reference
    np.testing.assert_array_equal(_op([0, 0], [0, 0]).evaluate(arrays)[0], data[1:2, -3:-1])


@pytest.mark.parametrize("known", [True, False])
def test_data_of_unknown_rank(known):
    """openvino 2026.4.1: data of dynamic rank sliced gives dynamic rank, whether begin and end are known."""
    values = [None, np.array([1]), np.array([2]), np.array([1])] if known else None
    check_types(_op([0], [0]), [tt("..."), tt("1", "i64"), tt("1", "i64"), tt("1", "i64")],
                lambda d, b, e, s: ov1.strided_slice(d, b, e, s, [0], [0]), values)


@pytest.mark.parametrize("index", [0, -3, 2, -1])
def test_shrunk_axis_at_its_first_and_last_index(index):
    """openvino 2026.4.1 folds a shrunk index anywhere in [-3, 3) of a 3-long axis, the ends included."""
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    arrays = [data, np.array([index, 1]), np.array([index + 1, 3]), np.array([1, 1])]
    outcome = check_op(_op([0, 0], [0, 0], shrink=[1, 0]), arrays,
                       lambda d, b, e, s: ov1.strided_slice(d, b, e, s, [0, 0], [0, 0], [], [1, 0]), constant={1, 2, 3})
    assert outcome.reference
    np.testing.assert_array_equal(_op([0, 0], [0, 0], shrink=[1, 0]).evaluate(arrays)[0], data[index, 1:3])


@pytest.mark.parametrize("shape", ["200", "150..300"])
def test_a_masked_reverse_slice_runs_over_a_long_axis_to_its_start(shape):
    """end_mask with stride -1 stops before index 0 however long the axis (-2**63, OpenVINO's end), values and
    partial shape against OpenVINO 2026.4.1."""
    op = _op([1], [1])
    arguments = [np.array([0]), np.array([0]), np.array([-1])]
    if shape == "200":
        check_op(op, [np.arange(200, dtype=np.int32), *arguments],
                 lambda d, b, e, s: ov1.strided_slice(d, b, e, s, [1], [1]), constant={1, 2, 3})
        (out,) = op.evaluate([np.arange(200, dtype=np.int32), *arguments])
        assert out.tolist() == list(range(199, -1, -1))
    else:
        check_types(op, [tt(shape), tt("1", "i64"), tt("1", "i64"), tt("1", "i64")],
                    lambda d, b, e, s: ov1.strided_slice(d, b, e, s, [1], [1]), [None, *arguments])
