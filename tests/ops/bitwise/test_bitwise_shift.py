"""BitwiseLeftShift-15 and BitwiseRightShift-15 against OpenVINO: every integer type, broadcasting, and
shift counts at and beyond the bit width (x86: narrow types promoted to 32 bits, the count masked)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.bitwise.bitwise_left_shift import BitwiseLeftShift
from irgraph.ops.bitwise.bitwise_right_shift import BitwiseRightShift
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, same_op
from tests.ops.helpers import tt


@pytest.mark.parametrize("op_class", [BitwiseLeftShift, BitwiseRightShift], ids=lambda c: c.type_name)
@OP_EXAMPLES
@given(data=st.data())
def test_shift_matches_openvino(op_class, data):
    element_type = data.draw(st.sampled_from(S.INTEGERS))
    a_shape, b_shape = data.draw(S.broadcast_pair("numpy", max_rank=3))
    a = S.values(element_type, a_shape, data.draw(S.seeds))
    b = S.values(element_type, b_shape, data.draw(S.seeds), low=0, high=70)
    op = op_class()
    check_op(op, [a, b], same_op(op))


def test_i32_counts_at_and_beyond_the_width_wrap_as_openvino():
    """openvino 2026.4.1's reference (C++ << on x86) masks the count to 5 bits: -7 << 32 is -7, << 33 is -14,
    << -1 is << 31."""
    a = np.full(5, -7, np.int32)
    b = np.array([31, 32, 33, 64, -1], np.int32)
    assert check_op(BitwiseLeftShift(), [a, b], same_op(BitwiseLeftShift())).reference
    (got,) = BitwiseLeftShift().evaluate([a, b])
    assert got.tolist() == [-2**31, -7, -14, -7, -2**31]
    (got,) = BitwiseRightShift().evaluate([a, b])
    assert got.tolist() == [-1, -7, -4, -7, -1]


def test_narrow_types_are_promoted_before_shifting():
    (got,) = BitwiseLeftShift().evaluate([np.array([1, 1, 1], np.int8), np.array([7, 8, 33], np.int8)])
    assert got.tolist() == [-128, 0, 2]
    (got,) = BitwiseRightShift().evaluate([np.array([-128, 200], np.int16), np.array([20, 3], np.int16)])
    assert got.tolist() == [-1, 25]


def test_float_inputs_are_refused():
    with pytest.raises(OpError, match="must be integer. Got: f32"):
        BitwiseLeftShift().infer([tt("2"), tt("2")], [None, None])
    assert check_op(BitwiseRightShift(), [np.ones(2, np.float32)] * 2, same_op(BitwiseRightShift())).refused
