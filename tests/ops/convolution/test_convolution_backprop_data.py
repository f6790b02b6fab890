"""ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1: named cases, OpenVINO's CPU plugin
through the harness (with and without the output_shape input), partial shapes, refusals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.convolution.convolution_backprop_data import ConvolutionBackpropData
from irgraph.ops.convolution.group_convolution_backprop_data import GroupConvolutionBackpropData
from tests.ops.convolution.conv_cases import CONV_TYPES, spatial_attributes, tensor
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_ops
from tests.ops.helpers import infer, tt


def make(op_class, attributes: dict):
    return op_class(**{k: tuple(v) if isinstance(v, list) else v for k, v in attributes.items()})


def ov_builder(grouped: bool, a: dict, with_shape: bool):
    build = ov_ops.group_convolution_backprop_data if grouped else ov_ops.convolution_backprop_data
    if with_shape:
        return lambda x, w, s: build(x, w, a["strides"], s, a["pads_begin"], a["pads_end"], a["dilations"],
                                     a["auto_pad"], a["output_padding"])
    return lambda x, w: build(x, w, a["strides"], None, a["pads_begin"], a["pads_end"], a["dilations"], a["auto_pad"],
                              a["output_padding"])


def test_stride_2_scatters_each_input_into_a_dilated_grid():
    data = np.array([1, 2], np.float32).reshape(1, 1, 2)
    filters = np.array([1, 10, 100], np.float32).reshape(1, 1, 3)
    op = ConvolutionBackpropData(strides=(2,), dilations=(1,), pads_begin=(0,), pads_end=(0,))
    (result,) = op.evaluate([data, filters])
    # x0 -> [0..2], x1 -> [2..4]: 1 10 (100+2) 20 200
    np.testing.assert_array_equal(result.ravel(), [1, 10, 102, 20, 200])


def test_output_shape_input_crops_from_pads_begin():
    data = np.array([1, 2], np.float32).reshape(1, 1, 2)
    filters = np.array([1, 10, 100], np.float32).reshape(1, 1, 3)
    op = ConvolutionBackpropData(strides=(2,), dilations=(1,), pads_begin=(1,), pads_end=(0,))
    (result,) = op.evaluate([data, filters, np.array([3])])
    np.testing.assert_array_equal(result.ravel(), [10, 102, 20])


def test_explicit_pads_with_output_shape_as_the_cpu_plugin_gives_them():
    # openvino 2026.4.1 CPU: x (1, 2, 3), w (1, 10, 100), pads_begin 2, output_shape 4 -> (123, 230, 300, 0)
    op = ConvolutionBackpropData(strides=(1,), dilations=(1,), pads_begin=(2,), pads_end=(2,))
    data = np.array([1, 2, 3], np.float32).reshape(1, 1, 3)
    (result,) = op.evaluate([data, np.array([1, 10, 100], np.float32).reshape(1, 1, 3), np.array([4])])
    np.testing.assert_array_equal(result.ravel(), [123, 230, 300, 0])


@OP_EXAMPLES
@given(st.data())
def test_backprop_data_matches_openvino(data):
    grouped = data.draw(st.booleans())
    count = data.draw(st.integers(1, 3))
    element_type = data.draw(st.sampled_from(CONV_TYPES))
    attributes = data.draw(spatial_attributes(count))
    attributes["output_padding"] = [data.draw(st.integers(0, s - 1)) for s in attributes["strides"]]
    batch, groups, per_group, out_per_group = (data.draw(st.integers(1, 2)) for _ in range(4))
    if not grouped:
        groups = 1
    spatial = [data.draw(st.integers(1, 5 if count < 3 else 3)) for _ in range(count)]
    kernel = [data.draw(st.integers(1, 3)) for _ in range(count)]
    x = tensor(data, element_type, (batch, groups * per_group, *spatial))
    filters = (groups, per_group, out_per_group, *kernel) if grouped else (per_group, out_per_group, *kernel)
    w = tensor(data, element_type, filters)
    op = make(GroupConvolutionBackpropData if grouped else ConvolutionBackpropData, attributes)
    natural = [(n - 1) * s + (k - 1) * d + 1 for n, s, k, d in
               zip(spatial, attributes["strides"], kernel, attributes["dilations"], strict=True)]
    if data.draw(st.booleans()):
        shape = np.array([max(1, n + data.draw(st.integers(-2, 2))) for n in natural], np.int32)
        # Given an output_shape, openvino 2026.4.1's CPU plugin applies explicit pads_begin inconsistently: x (1, 2, 3),
        # w (1,), pads_begin 2 crops from 2 for output_shape 2 or 4 ((3, 0), (3, 0, 0, 0)) as the spec's formula
        # does, but not for 3 ((1, 2, 3)), nor along a size-1 dim of a 3-D case. Those cases are not compared.
        assume(attributes["auto_pad"] != "explicit" or not any(attributes["pads_begin"]))
        check_op(op, [x, w, shape], ov_builder(grouped, attributes, True), constant=(2,))
    else:
        # A size below 1 is a dynamic dim for openvino 2026.4.1, which then refuses to run it (irgraph refuses too:
        # test_a_negative_output_size_is_dynamic_and_refused_at_run_time).
        pads = [0] * count if attributes["auto_pad"] != "explicit" else [
            b + e for b, e in zip(attributes["pads_begin"], attributes["pads_end"], strict=True)]
        assume(all(n + p - t >= 1 for n, p, t in zip(natural, attributes["output_padding"], pads, strict=True)))
        check_op(op, [x, w], ov_builder(grouped, attributes, False))


@OP_EXAMPLES
@given(st.data())
def test_backprop_data_partial_shapes_match_openvino(data):
    grouped = data.draw(st.booleans())
    count = data.draw(st.integers(1, 2))
    attributes = data.draw(spatial_attributes(count))
    attributes["output_padding"] = [data.draw(st.integers(0, 1)) for _ in range(count)]
    dims = st.sampled_from(["?", "1", "2", "3", "4", "6", "2..6", "0..4", "4..", "1..9"])
    data_shape = "..." if data.draw(st.integers(0, 6)) == 0 else ",".join(data.draw(dims) for _ in range(count + 2))
    rank = count + (3 if grouped else 2)
    filter_shape = "..." if data.draw(st.integers(0, 6)) == 0 else ",".join(data.draw(dims) for _ in range(rank))
    op = make(GroupConvolutionBackpropData if grouped else ConvolutionBackpropData, attributes)
    check_types(op, [tt(data_shape), tt(filter_shape)], ov_builder(grouped, attributes, False))


PLAIN = {"strides": (1,), "dilations": (1,), "pads_begin": (0,), "pads_end": (0,)}


@pytest.mark.parametrize(
    ("changes", "shapes", "values", "message"),
    [({}, ["1,2,5", "3,3,3"], [None, None],
      "Data batch channel count (2) does not match filter input channel count (3)."),
     ({"output_padding": (0, 0)}, ["1,2,5", "2,3,3"], [None, None],
      "Output padding should be defined for all and only spatial dimensions."),
     ({}, ["1,2,5", "2,3,3", "2"], [None, None, np.array([7, 7])],
      "Output shape should be defined for all and only spatial dimensions."),
     ({}, ["1,2,5", "2,3,3", "1,1"], [None, None, np.array([[7]])], "Input delivering output shape must have rank 1."),
     ({"strides": (0,)}, ["1,2,5", "2,3,3"], [None, None], "Strides has zero dimension(s)")],
)
def test_refused_configurations_name_the_rule(changes, shapes, values, message):
    types = [tt(s) if i < 2 else tt(s, "i64") for i, s in enumerate(shapes)]
    with pytest.raises(OpError) as refused:
        infer(ConvolutionBackpropData(**{**PLAIN, **changes}), types, values)
    assert message in str(refused.value)


def test_a_negative_output_size_is_dynamic_and_refused_at_run_time():
    op = ConvolutionBackpropData(strides=(1,), dilations=(1,), pads_begin=(1,), pads_end=(1,))
    assert infer(op, [tt("1,2,1"), tt("2,3,1")], [None, None]) == ["[1,3,?]"]  # as openvino 2026.4.1 infers it
    with pytest.raises(OpError, match="The output size is negative"):
        op.evaluate([np.ones((1, 2, 1), np.float32), np.ones((2, 3, 1), np.float32)])


def test_group_channels_must_split():
    op = GroupConvolutionBackpropData(**PLAIN)
    with pytest.raises(OpError, match="Input channels dimension of data batch is incompatible with filter groups"):
        infer(op, [tt("1,5,5"), tt("2,2,3,3")], [None, None])
