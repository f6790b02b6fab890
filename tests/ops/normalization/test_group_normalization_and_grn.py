"""GroupNormalization-12 and GRN-1 against OpenVINO 2026.4.1 (reference evaluate and CPU plugin) on generated
configurations, OpenVINO's refusals with its messages, and an exact case."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.ops.normalization.grn import GRN
from irgraph.ops.normalization.group_normalization import GroupNormalization
from tests.ops import strategies as S
from tests.ops.differential import OP_EXAMPLES, check_op, same_op
from tests.ops.helpers import infer, tt


@OP_EXAMPLES
@given(st.data())
def test_group_normalization_matches_openvino(data):
    element_type = data.draw(st.sampled_from([ElementType.F32, ElementType.F16, ElementType.F64]))
    groups = data.draw(st.integers(1, 4))
    channels = groups * data.draw(st.integers(1, 3))
    if not data.draw(st.integers(0, 9)):
        channels += 1  # now and then channels the groups do not divide
    shape = (data.draw(st.integers(1, 2)), channels, *(data.draw(st.integers(1, 4))
                                                       for _ in range(data.draw(st.integers(0, 2)))))
    x = S.values(element_type, shape, data.draw(S.seeds), specials=False, low=-3, high=3)
    scale, bias = (S.values(element_type, (channels,), data.draw(S.seeds), specials=False, low=-2, high=2)
                   for _ in range(2))
    op = GroupNormalization(num_groups=groups, epsilon=data.draw(st.sampled_from([1e-5, 1e-3, 0.5])))
    check_op(op, [x, scale, bias], same_op(op))


def test_exact_case():
    x = np.array([1.0, 3.0, 10.0, 14.0], np.float64).reshape(1, 4, 1)
    (got,) = GroupNormalization(num_groups=2, epsilon=0.0).evaluate([x, np.array([1.0, 1.0, 2.0, 2.0]),
                                                                     np.array([0.0, 1.0, 0.0, 1.0])])
    assert got.ravel().tolist() == [-1.0, 2.0, -2.0, 3.0]  # groups (1,3): mean 2 sd 1; (10,14): mean 12 sd 2


@pytest.mark.parametrize(
    ("shapes", "groups", "message"),
    [(["2,6,3", "6", "6"], 4, "The number of channels is required to be evenly divisible by the number of groups"),
     (["2,2,3", "2", "2"], 3, "The number of groups must not exceed the number of channels in the input tensor"),
     (["6", "6", "6"], 1, "The input tensor is required to be at least 2D"),
     (["2,6", "5", "6"], 1, "The scale input shape needs to match the channel dimension in the data input"),
     (["2,6", "6,1", "6"], 1, "The scale input is required to be 1D")],
)
def test_refusals_carry_openvinos_message(shapes, groups, message):
    with pytest.raises(OpError) as refused:
        infer(GroupNormalization(num_groups=groups, epsilon=1e-5), [tt(s) for s in shapes], [None] * 3)
    assert str(refused.value) == message


def test_num_groups_must_be_positive():
    with pytest.raises(OpError, match="^The number of groups needs to be a positive integer value"):
        GroupNormalization(num_groups=0, epsilon=1e-5)


@OP_EXAMPLES
@given(st.data())
def test_grn_matches_openvino(data):
    element_type = data.draw(st.sampled_from([ElementType.F32, ElementType.F16]))
    shape = data.draw(S.shapes(min_rank=2, max_rank=4, zero=False))
    x = S.values(element_type, shape, data.draw(S.seeds), specials=False, low=-3, high=3)
    op = GRN(bias=data.draw(st.sampled_from([1e-6, 0.5, 1.0])))
    check_op(op, [x], same_op(op))


def test_grn_rank_is_checked():
    with pytest.raises(OpError, match=r"^Input tensor rank must be 2, 3 or 4 dimensional \(actual input shape: \[2\]"):
        infer(GRN(bias=1.0), [tt("2")], [None])


def test_scale_and_bias_of_different_lengths_are_refused_when_the_data_rank_is_unknown():
    """Without a channel dimension to compare with, the two vectors are compared with each other: openvino
    2026.4.1's opset12.group_normalization refuses [3] and [4] on dynamic-rank data with this message."""
    with pytest.raises(OpError) as refused:
        infer(GroupNormalization(num_groups=1, epsilon=1e-5), [tt("..."), tt("3"), tt("4")], [None] * 3)
    assert str(refused.value) == "The shapes of both scale and bias inputs need to match"


@pytest.mark.parametrize("element_type", ["boolean", "string"])
def test_grn_refuses_booleans_and_strings(element_type):
    """openvino 2026.4.1 validates a boolean GRN, has no reference for it, and its CPU plugin answers all False
    for all-True data: irgraph refuses it."""
    with pytest.raises(OpError, match=rf"^Arguments cannot have boolean element type \(argument element type: "
                                      rf"{element_type}\)\.$"):
        infer(GRN(bias=1.0), [tt("2,3", element_type)], [None])
