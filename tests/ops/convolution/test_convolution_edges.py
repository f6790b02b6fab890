"""Convolution family edges the generated cases reach rarely: inputs of dynamic rank, and auto_pad="valid" on a
backprop layer given pads and an output shape (the pads are ignored)."""

from __future__ import annotations

import numpy as np
import openvino as ov
import pytest

from irgraph.core.errors import OpError
from irgraph.ops.convolution.convolution import Convolution
from irgraph.ops.convolution.convolution_backprop_data import ConvolutionBackpropData
from irgraph.ops.convolution.group_convolution import GroupConvolution
from irgraph.ops.convolution.group_convolution_backprop_data import GroupConvolutionBackpropData
from tests.ops.differential import check_op, check_types, ov_ops
from tests.ops.helpers import tt

ONE = {"strides": (1,), "dilations": (1,), "pads_begin": (0,), "pads_end": (0,)}


@pytest.mark.parametrize(("data", "filters"), [("...", "..."), ("...", "2,2,3"), ("1,2,5", "...")])
def test_forward_convolutions_of_dynamic_rank_match_openvino(data: str, filters: str) -> None:
    check_types(Convolution(**ONE), [tt(data), tt(filters)],
                lambda x, w: ov_ops.convolution(x, w, [1], [0], [0], [1]))
    grouped_filters = filters if filters == "..." else "1," + filters
    check_types(GroupConvolution(**ONE), [tt(data), tt(grouped_filters)],
                lambda x, w: ov_ops.group_convolution(x, w, [1], [0], [0], [1]))


@pytest.mark.parametrize(("data", "filters"), [("...", "..."), ("...", "2,3,3"), ("1,2,5", "...")])
def test_backprop_convolutions_of_dynamic_rank_match_openvino(data: str, filters: str) -> None:
    check_types(ConvolutionBackpropData(**ONE), [tt(data), tt(filters)],
                lambda x, w: ov_ops.convolution_backprop_data(x, w, [1], None, [0], [0], [1]))
    grouped_filters = filters if filters == "..." else "1," + filters
    check_types(GroupConvolutionBackpropData(**ONE), [tt(data), tt(grouped_filters)],
                lambda x, w: ov_ops.group_convolution_backprop_data(x, w, [1], None, [0], [0], [1]))


def test_backprop_valid_padding_ignores_the_given_pads_with_an_output_shape() -> None:
    data = np.arange(1, 7, dtype=np.float32).reshape(1, 1, 6)
    filters = np.array([1, 10, 100], np.float32).reshape(1, 1, 3)
    op = ConvolutionBackpropData(strides=(2,), dilations=(1,), pads_begin=(2,), pads_end=(1,), auto_pad="valid")
    check_op(op, [data, filters, np.array([9], np.int64)],
             lambda x, w, s: ov_ops.convolution_backprop_data(x, w, [2], s, [2], [1], [1], "valid"), constant={2})
    (result,) = op.evaluate([data, filters, np.array([9], np.int64)])
    # valid: no pads, x_i lands at 2i: 1 10 (100+2) 20 (200+3) 30 (300+4) 40 (400+5)
    assert result.ravel().tolist() == [1, 10, 102, 20, 203, 30, 304, 40, 405]


def test_backprop_with_an_output_shape_of_unknown_rank_has_dynamic_spatial_dims() -> None:
    """irgraph keeps the data's spatial rank ([1,3,?]); OpenVINO 2026.4.1 infers [1,3], a rank-2 output no
    ConvolutionBackpropData can produce (its output_shape is rank 1 when known)."""
    types = [tt("1,2,5"), tt("2,3,3"), tt("...", "i64")]
    assert [str(t) for t in ConvolutionBackpropData(**ONE).infer(types, [None, None, None])] == ["f32[1,3,?]"]
    assert [str(t) for t in GroupConvolutionBackpropData(**ONE).infer([types[0], tt("1,2,3,3"), types[2]],
                                                                      [None, None, None])] == ["f32[1,3,?]"]
    node = ov_ops.convolution_backprop_data(ov_ops.parameter([1, 2, 5], np.float32),
                                            ov_ops.parameter([2, 3, 3], np.float32),
                                            [1], ov_ops.parameter(ov.PartialShape.dynamic(), np.int64), [0], [0], [1])
    assert str(node.get_output_partial_shape(0)) == "[1,3]"


@pytest.mark.parametrize(("data", "filters", "message"), [
    ("2,5", "2,3,3", "Expected a 3D, 4D or 5D tensor for the input. Got: [2,5]"),
    ("1,2,5", "2,3", "Data batch and filters rank do not match (data batch shape: [1,2,5], filters shape: [2,3])."),
])
def test_backprop_refuses_ranks_as_openvino_does(data: str, filters: str, message: str) -> None:
    with pytest.raises(OpError) as refused:
        ConvolutionBackpropData(**ONE).infer([tt(data), tt(filters)], [None, None])
    assert refused.value.message == message
    check_types(ConvolutionBackpropData(**ONE), [tt(data), tt(filters)],
                lambda x, w: ov_ops.convolution_backprop_data(x, w, [1], None, [0], [0], [1]))


def test_backprop_names_both_element_types_when_they_differ() -> None:
    with pytest.raises(OpError) as refused:
        ConvolutionBackpropData(**ONE).infer([tt("1,2,5"), tt("2,3,3", "f16")], [None, None])
    assert refused.value.message == ("Element types for data batch and filters do not match (data batch element "
                                     "type: f32, filters element type: f16).")
