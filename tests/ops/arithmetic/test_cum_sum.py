"""CumSum-3 against OpenVINO: axes, exclusive, reverse, every numeric type (wrapping, f16 rounding)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.arithmetic.cum_sum import CumSum
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, same_op
from tests.ops.helpers import tt


@OP_EXAMPLES
@given(data=st.data())
def test_cum_sum_matches_openvino(data):
    element_type = data.draw(st.sampled_from(S.NUMERIC))
    shape = data.draw(S.shapes(min_rank=1, max_rank=3))
    x = S.values(element_type, shape, data.draw(S.seeds), specials=data.draw(st.booleans()))
    op = CumSum(exclusive=data.draw(st.booleans()), reverse=data.draw(st.booleans()))
    axis_type = data.draw(st.sampled_from([np.int32, np.int64]))
    axis = np.array(data.draw(st.integers(-len(shape), len(shape) - 1)), axis_type)
    check_op(op, [x, axis], same_op(op))


@pytest.mark.parametrize(
    ("op", "expected"),
    [(CumSum(), [1, 3, 6, 10, 15]), (CumSum(exclusive=True), [0, 1, 3, 6, 10]),
     (CumSum(reverse=True), [15, 14, 12, 9, 5]), (CumSum(exclusive=True, reverse=True), [14, 12, 9, 5, 0])],
    ids=["default", "exclusive", "reverse", "exclusive-reverse"],
)
def test_spec_examples(op, expected):
    (got,) = op.evaluate([np.array([1, 2, 3, 4, 5], np.float32), np.array(0)])
    assert got.tolist() == expected


def test_negative_zero_sums_to_positive_zero():
    (got,) = CumSum(exclusive=True, reverse=True).evaluate([np.array([2.0, -0.0, 1.0], np.float16), np.array(0)])
    assert np.signbit(got).tolist() == [False, False, False] and got.tolist() == [-0.0 + 1.0, 1.0, 0.0]
    (got,) = CumSum().evaluate([np.array([-0.0], np.float32), np.array(0)])
    assert not np.signbit(got[0])


def test_axis_input_is_optional():
    (got,) = CumSum().evaluate([np.array([[1, 2], [3, 4]], np.int8)])
    assert got.tolist() == [[1, 2], [4, 6]]


def test_refused_configurations():
    with pytest.raises(OpError, match=r"axis element type must be either int64_t or int32_t but got \(f32\)"):
        CumSum().infer([tt("2"), tt("", "f32")], [None, None])
    with pytest.raises(OpError, match=r"Axis 2 out of the tensor rank range \[-2, 1\]"):
        CumSum().evaluate([np.ones((2, 2), np.float32), np.array(2)])
    with pytest.raises(OpError, match=r"Axis must be a scalar \(rank of 0\). Got: \[2\]"):
        CumSum().infer([tt("2"), tt("2", "i64")], [None, None])  # openvino 2026.4.1 takes it and reads axis[0]
