"""DepthToSpace-1, SpaceToDepth-1, ShuffleChannels-1, Reverse-1 and Roll-7 against OpenVINO."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ov1
import openvino.opset3 as ov3
import openvino.opset7 as ov7
import pytest
from hypothesis import given
from hypothesis import strategies as st
from openvino.utils.node_factory import NodeFactory

from irgraph.core.errors import OpError
from irgraph.ops.movement.depth_to_space import DepthToSpace
from irgraph.ops.movement.reverse import Reverse
from irgraph.ops.movement.roll import Roll
from irgraph.ops.movement.shuffle_channels import ShuffleChannels
from irgraph.ops.movement.space_to_depth import SpaceToDepth
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types
from tests.ops.helpers import tt

modes = st.sampled_from(["blocks_first", "depth_first"])


@OP_EXAMPLES
@given(st.integers(1, 3), st.integers(1, 3), st.lists(st.integers(1, 2), min_size=1, max_size=3), modes,
       st.sampled_from(S.ALL), st.integers(1, 2))
def test_depth_to_space_matches_openvino(bs, channels, spatial, mode, element_type, batch):
    shape = (batch, channels * bs ** len(spatial), *spatial)
    check_op(DepthToSpace(mode=mode, block_size=bs), [S.values(element_type, shape, 14)],
             lambda d: ov1.depth_to_space(d, mode, bs))


@OP_EXAMPLES
@given(st.integers(1, 3), st.integers(1, 3), st.lists(st.integers(1, 2), min_size=1, max_size=3), modes,
       st.sampled_from(S.ALL), st.integers(1, 2))
def test_space_to_depth_matches_openvino(bs, channels, spatial, mode, element_type, batch):
    shape = (batch, channels, *(s * bs for s in spatial))
    check_op(SpaceToDepth(mode=mode, block_size=bs), [S.values(element_type, shape, 15)],
             lambda d: ov1.space_to_depth(d, mode, bs))


@pytest.mark.parametrize("shape", ["?,8,2..4,3", "1,?,4,4", "..."])
def test_depth_and_space_partial_shapes(shape):
    check_types(DepthToSpace(mode="blocks_first", block_size=2), [tt(shape)],
                lambda d: ov1.depth_to_space(d, "blocks_first", 2))
    check_types(SpaceToDepth(mode="depth_first", block_size=2), [tt(shape)],
                lambda d: ov1.space_to_depth(d, "depth_first", 2))


@pytest.mark.parametrize("op_class", [DepthToSpace, SpaceToDepth], ids=lambda c: c.type_name)
def test_block_size_and_mode_rules(op_class):
    """A block size left out is the spec's default, 1 (openvino 2026.4.1's default-constructed node holds 0, which
    its shape inference refuses); 0 and an unknown mode are refused, as OpenVINO refuses them ("The block size must
    be greater than 0" / "The divisor must not be 0", and '"sideways" is not a member of enum')."""
    build = ov1.depth_to_space if op_class is DepthToSpace else ov1.space_to_depth
    assert op_class.from_attributes({"mode": "blocks_first"}).block_size == 1
    with pytest.raises(OpError, match=r"^The block size must be greater than 0\. Got: 0$"):
        op_class(mode="blocks_first", block_size=0)
    with pytest.raises(RuntimeError, match="The block size must be greater than 0|The divisor must not be 0"):
        build(ov1.parameter([1, 4, 2, 2], np.float32), "blocks_first", 0)
    with pytest.raises(OpError, match=r"^Mode must be one of blocks_first, depth_first\. Got: 'sideways'$"):
        op_class(mode="sideways", block_size=2)
    with pytest.raises(RuntimeError, match="is not a member of enum"):
        build(ov1.parameter([1, 4, 2, 2], np.float32), "sideways", 2)


def test_depth_to_space_refuses_channels_that_do_not_divide():
    with pytest.raises(OpError, match="must be a multiple of divider: 4"):
        DepthToSpace(mode="blocks_first", block_size=2).evaluate([np.zeros((1, 6, 2, 2))])


@OP_EXAMPLES
@given(S.shapes(min_rank=1, max_rank=4, max_side=4), st.data(), st.sampled_from(S.ALL))
def test_shuffle_channels_matches_openvino(shape, data, element_type):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    size = shape[axis]
    group = data.draw(st.sampled_from([g for g in range(1, 5) if size % g == 0] or [1]))
    check_op(ShuffleChannels(axis=axis, group=group), [S.values(element_type, shape, 16)],
             lambda d: ov3.shuffle_channels(d, axis, group))


def reverse(mode):
    return lambda d, a: NodeFactory("opset1").create("Reverse", [d.output(0), a.output(0)], {"mode": mode})


@OP_EXAMPLES
@given(S.shapes(min_rank=1, max_rank=4, max_side=3), st.data(), st.sampled_from(S.ALL))
def test_reverse_matches_openvino(shape, data, element_type):
    values = S.values(element_type, shape, 17)
    if data.draw(st.booleans()):
        mask = np.array(data.draw(st.lists(st.booleans(), min_size=len(shape), max_size=len(shape))))
        check_op(Reverse(mode="mask"), [values, mask], reverse("mask"), constant={1})
    else:
        axes = data.draw(st.lists(st.integers(-1, len(shape)), min_size=1, max_size=3))
        check_op(Reverse(mode="index"), [values, np.array(axes, np.int64)], reverse("index"), constant={1})


@OP_EXAMPLES
@given(S.shapes(min_rank=1, max_rank=3, max_side=4), st.data(), st.sampled_from(S.ALL))
def test_roll_matches_openvino(shape, data, element_type):
    axes = data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=3))
    if data.draw(st.booleans()):
        shift = np.array(data.draw(st.integers(-10, 10)), np.int64)
    else:
        shift = np.array(data.draw(st.lists(st.integers(-10, 10), min_size=len(axes), max_size=len(axes))), np.int64)
    # i32 shift and axes half the time: the CPU plugin (the only oracle: openvino 2026.4.1 neither folds nor
    # evaluates Roll) runs no i64 inputs
    index_type = data.draw(st.sampled_from([np.int32, np.int64]))
    check_op(Roll(), [S.values(element_type, shape, 18), shift.astype(index_type), np.array(axes, index_type)],
             ov7.roll, moved=(0,))


@pytest.mark.parametrize("shape", ["?,6,2..3", "...", "2,?"])
def test_shuffle_reverse_roll_partial_shapes(shape):
    check_types(ShuffleChannels(axis=1, group=3), [tt(shape)], lambda d: ov3.shuffle_channels(d, 1, 3))
    check_types(Roll(), [tt(shape), tt("1", "i64"), tt("1", "i64")], ov7.roll)
