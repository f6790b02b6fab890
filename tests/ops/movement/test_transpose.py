"""Transpose-1 against OpenVINO."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ov1
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.movement.transpose import Transpose
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, check_types
from tests.ops.helpers import tt


@OP_EXAMPLES
@given(S.shapes(min_rank=1, max_rank=5), st.data(), st.sampled_from(S.ALL))
def test_transpose_matches_openvino(shape, data, element_type):
    order = data.draw(st.permutations(range(len(shape))))
    if data.draw(st.integers(0, 5)) == 0:
        order = data.draw(st.lists(st.integers(-1, len(shape)), min_size=len(shape), max_size=len(shape) + 1))
    check_op(Transpose(), [S.values(element_type, shape, 2), np.array(order, np.int64)], ov1.transpose,
             constant={1})


def test_transpose_empty_order_reverses_and_is_a_view():
    data = np.arange(6).reshape(1, 2, 3)
    (out,) = Transpose().evaluate([data, np.array([], np.int64)])
    assert out.shape == (3, 2, 1) and np.shares_memory(out, data)
    assert [str(t.shape) for t in Transpose().infer([tt("1,2..3,?"), tt("0", "i64")], [None, np.array([], np.int64)])] \
        == ["[?,2..3,1]"]


@pytest.mark.parametrize("data", ["?,2..3,4", "..."])
def test_transpose_partial_shapes(data):
    check_types(Transpose(), [tt(data), tt("3", "i64")], ov1.transpose, [None, np.array([2, 0, 1], np.int64)])


def test_transpose_refuses_a_repeated_axis():
    with pytest.raises(OpError, match=r"Permutation \[0,0\] is not valid for input shape \[2,3\]"):
        Transpose().evaluate([np.zeros((2, 3)), np.array([0, 0])])
