"""Convolution family edges the generated cases reach rarely: inputs of dynamic rank, and auto_pad="valid" on a
backprop layer given pads and an output shape (the pads are ignored)."""

from __future__ import annotations

import numpy as np
import pytest

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
