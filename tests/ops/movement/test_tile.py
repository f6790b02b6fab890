"""Tile-1 against OpenVINO; negative repeats; budgets."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ov1
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from irgraph.core.errors import ResourceLimitError
from irgraph.graph import Model
from irgraph.ops.movement.tile import Tile
from irgraph.runtime.interpreter import Interpreter
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types
from tests.ops.helpers import tt


@OP_EXAMPLES
@given(S.shapes(max_rank=3), st.lists(st.integers(-1, 3), min_size=1, max_size=4), st.sampled_from(S.ALL))
def test_tile_matches_openvino(shape, repeats, element_type):
    # openvino 2026.4.1's reference segfaults tiling an empty tensor whose first dim is 0 ([0,4] by [2]):
    # test_tile_of_an_empty_tensor pins irgraph's answer.
    assume(0 not in shape)
    # openvino 2026.4.1's CPU plugin segfaults on a negative repeat of a size-1 dim (its reference gives 0).
    check_op(Tile(), [S.values(element_type, shape, 9), np.array(repeats, np.int64)], ov1.tile, constant={1},
             cpu=min(repeats) >= 0)


def test_tile_negative_repeat_gives_an_empty_axis_as_openvino():
    (out,) = Tile().evaluate([np.ones((2, 3)), np.array([2, -1])])
    assert out.shape == (4, 0)


@pytest.mark.parametrize(("data", "repeats"), [("2,3..5", [2, 2, 3]), ("?,2", [3, 1]), ("...", [2])])
def test_tile_partial_shapes(data, repeats):
    check_types(Tile(), [tt(data), tt(str(len(repeats)), "i64")], ov1.tile, [None, np.array(repeats, np.int64)])


def test_tile_to_a_huge_shape_is_refused_before_allocating():
    model = Model("huge")
    x = model.parameter("x", [2], "f32")
    node = model.add_node(Tile(), "t", [x, model.const(np.array([10**15 // 2], np.int64))])
    model.result(type(x)(node.id, 0), name="y")
    with pytest.raises(ResourceLimitError, match="1000000000000000 elements, above the limit"):
        Interpreter(model).run({"x": np.ones(2, np.float32)})


def test_tile_of_an_empty_tensor():
    (out,) = Tile().evaluate([np.zeros((0, 4), np.float32), np.array([2])])
    assert out.shape == (0, 8)
    (out,) = Tile().evaluate([np.zeros((4, 0), np.float32), np.array([2, 3])])
    assert out.shape == (8, 0)
