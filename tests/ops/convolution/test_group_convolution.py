"""GroupConvolution-1: named cases, OpenVINO's CPU plugin through the harness, partial shapes, refusals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.convolution.group_convolution import GroupConvolution
from tests.ops.convolution.conv_cases import CONV_TYPES, cpu_drops_taps, spatial_attributes, tensor
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_ops
from tests.ops.helpers import infer, tt


def ov_group_convolution(a: dict):
    return lambda x, w: ov_ops.group_convolution(x, w, a["strides"], a["pads_begin"], a["pads_end"], a["dilations"],
                                                 a["auto_pad"])


def make(attributes: dict) -> GroupConvolution:
    return GroupConvolution(**{k: tuple(v) if isinstance(v, list) else v for k, v in attributes.items()})


def test_each_group_sees_only_its_channels():
    data = np.array([1, 2, 3, 4], np.float32).reshape(1, 4, 1)  # groups {1, 2} and {3, 4}
    filters = np.array([[[10, 1]], [[100, 1000]]], np.float32).reshape(2, 1, 2, 1)
    op = GroupConvolution(strides=(1,), dilations=(1,), pads_begin=(0,), pads_end=(0,))
    (result,) = op.evaluate([data, filters])
    np.testing.assert_array_equal(result, np.array([12, 4300], np.float32).reshape(1, 2, 1))


def test_depthwise_3x3_matches_per_channel_sums():
    data = np.arange(2 * 9, dtype=np.float32).reshape(1, 2, 3, 3)
    op = GroupConvolution(strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0))
    (result,) = op.evaluate([data, np.ones((2, 1, 1, 3, 3), np.float32)])
    np.testing.assert_array_equal(result.ravel(), [36, 117])


@OP_EXAMPLES
@given(st.data())
def test_group_convolution_matches_openvino(data):
    count = data.draw(st.integers(1, 3))
    element_type = data.draw(st.sampled_from(CONV_TYPES))
    attributes = data.draw(spatial_attributes(count))
    batch, groups, per_group, out_per_group = (data.draw(st.integers(1, 3)) for _ in range(4))
    spatial = [data.draw(st.integers(1, 6 if count < 3 else 4)) for _ in range(count)]
    kernel = [data.draw(st.integers(1, 3)) for _ in range(count)]
    x = tensor(data, element_type, (batch, groups * per_group, *spatial))
    w = tensor(data, element_type, (groups, out_per_group, per_group, *kernel))
    check_op(make(attributes), [x, w], ov_group_convolution(attributes), cpu=not cpu_drops_taps(spatial, attributes))


@OP_EXAMPLES
@given(st.data())
def test_group_convolution_partial_shapes_match_openvino(data):
    count = data.draw(st.integers(1, 2))
    attributes = data.draw(spatial_attributes(count))
    dims = st.sampled_from(["?", "1", "2", "3", "4", "6", "2..6", "0..4", "4..", "1..9"])
    data_shape = "..." if data.draw(st.integers(0, 6)) == 0 else ",".join(data.draw(dims) for _ in range(count + 2))
    filter_shape = "..." if data.draw(st.integers(0, 6)) == 0 else ",".join(data.draw(dims) for _ in range(count + 3))
    check_types(make(attributes), [tt(data_shape), tt(filter_shape)], ov_group_convolution(attributes))


PLAIN = {"strides": (1, 1), "dilations": (1, 1), "pads_begin": (0, 0), "pads_end": (0, 0)}


@pytest.mark.parametrize(
    ("data", "filters"),
    [("1,5,5,5", "2,3,2,3,3"), ("1,4,5,5", "0,3,2,3,3"), ("1,5,5,5", "?,3,2,3,3"), ("1,0,5,5", "2,3,0,3,3"),
     ("1,7..11,5,5", "?,3,6,3,3")],
)
def test_channels_that_do_not_split_into_the_groups_are_refused(data, filters):
    with pytest.raises(OpError, match="Input channels dimension of data batch is incompatible with filter groups"):
        infer(GroupConvolution(**PLAIN), [tt(data), tt(filters)], [None, None])


def test_groups_follow_from_channels_when_the_filters_leave_them_open():
    assert infer(GroupConvolution(**PLAIN), [tt("1,4..8,5,5"), tt("?,3,2,3,3")], [None, None]) == ["[1,6..12,3,3]"]
