"""Col2Im-15 against OpenVINO: kernels, strides, dilations, padding, batched and unbatched; bad block counts
refused."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.movement.col2im import Col2Im
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, ov_ops
from tests.ops.helpers import infer, tt


def build(op):
    def node(data, size, kernel):
        return ov_ops.col2im(data, size, kernel, list(op.strides), list(op.dilations), list(op.pads_begin),
                             list(op.pads_end))
    return node


@OP_EXAMPLES
@given(data=st.data())
def test_col2im_matches_openvino(data):
    pair = st.tuples(st.integers(1, 3), st.integers(1, 3))
    op = Col2Im(strides=data.draw(pair), dilations=data.draw(pair),
                pads_begin=data.draw(st.tuples(st.integers(0, 2), st.integers(0, 2))),
                pads_end=data.draw(st.tuples(st.integers(0, 2), st.integers(0, 2))))
    size, kernel = data.draw(st.tuples(st.integers(1, 6), st.integers(1, 6))), data.draw(pair)
    blocks = op._blocks(size, kernel)
    assume(blocks[0] > 0 and blocks[1] > 0)
    channels = data.draw(st.integers(1, 3))
    batch = data.draw(st.sampled_from([(), (1,), (2,)]))
    element_type = data.draw(st.sampled_from([ElementType.F32, ElementType.F16, ElementType.I32, ElementType.I64]))
    x = S.values(element_type, (*batch, channels * kernel[0] * kernel[1], blocks[0] * blocks[1]), data.draw(S.seeds),
                 specials=False, low=-8, high=8)
    x = np.round(x.astype(np.float64)).astype(x.dtype)  # small integers: every summation order is exact
    index_type = data.draw(st.sampled_from([np.int32, np.int64]))
    check_op(op, [x, np.array(size, index_type), np.array(kernel, index_type)], build(op), constant=(1, 2))


def test_spec_example_overlapping_blocks_add_up():
    x = np.ones((1, 4, 4), np.float32)  # 2x2 kernel over a 3x3 image: four blocks
    (got,) = Col2Im().evaluate([x, np.array([3, 3]), np.array([2, 2])])
    assert got.tolist() == [[[[1, 2, 1], [2, 4, 2], [1, 2, 1]]]]
    assert infer(Col2Im(), [tt("3,12,4"), tt("2", "i64"), tt("2", "i64")], [None, [3, 3], [2, 2]]) == ["[3,3,3,3]"]


def test_wrong_block_count_is_refused():
    with pytest.raises(OpError, match="the total number of data blocks must be equal to 4. Got: 5"):
        Col2Im().infer([tt("1,4,5"), tt("2", "i64"), tt("2", "i64")], [None, np.array([3, 3]), np.array([2, 2])])
    op = Col2Im()
    assert check_op(op, [np.ones((1, 4, 5), np.float32), np.array([3, 3]), np.array([2, 2])], build(op),
                    constant=(1, 2)).refused


def test_an_unknown_block_count_is_not_checked():
    """data [1,4,?]: the channel dim is known, the block count is not; the output is [1,1,3,3] (OpenVINO 2026.4.1
    infers the same from a Parameter of that shape)."""
    assert infer(Col2Im(), [tt("1,4,?"), tt("2", "i64"), tt("2", "i64")],
                 [None, np.array([3, 3]), np.array([2, 2])]) == ["[1,1,3,3]"]
    from tests.ops.differential import check_types

    op = Col2Im()
    check_types(op, [tt("1,4,?"), tt("2", "i64"), tt("2", "i64")], build(op), [None, np.array([3, 3]),
                                                                             np.array([2, 2])])
