"""Convolution-1: named cases, OpenVINO's CPU plugin through the harness, partial shapes, refusals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.convolution.convolution import Convolution
from tests.ops.convolution.conv_cases import CONV_TYPES, cpu_drops_taps, spatial_attributes, tensor
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_ops
from tests.ops.helpers import infer, tt


def run(op: Convolution, data: np.ndarray, filters: np.ndarray) -> np.ndarray:
    (result,) = op.evaluate([data, filters])
    return result


def ov_convolution(attributes: dict):
    a = attributes
    return lambda x, w: ov_ops.convolution(x, w, a["strides"], a["pads_begin"], a["pads_end"], a["dilations"],
                                           a["auto_pad"])


def make(attributes: dict) -> Convolution:
    return Convolution(**{k: tuple(v) if isinstance(v, list) else v for k, v in attributes.items()})


# ------------------------------------------------------------------------------------ named cases
def test_3x3_ones_kernel_sums_each_window():
    data = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    op = Convolution(strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0))
    expected = np.array([[45, 54], [81, 90]], np.float32).reshape(1, 1, 2, 2)
    np.testing.assert_array_equal(run(op, data, np.ones((1, 1, 3, 3), np.float32)), expected)


def test_padding_strides_and_dilation_pick_the_taps():
    data = np.arange(1, 6, dtype=np.float32).reshape(1, 1, 5)  # 1..5
    op = Convolution(strides=(2,), dilations=(2,), pads_begin=(2,), pads_end=(1,))
    filters = np.array([1, 10], np.float32).reshape(1, 1, 2)  # taps at x[i*2-2] and x[i*2]
    # padded: 0 0 1 2 3 4 5 0 -> windows start at 0, 2, 4: (0 + 10*1), (1 + 10*3), (3 + 10*5)
    np.testing.assert_array_equal(run(op, data, filters), np.array([[[10, 31, 53]]], np.float32))


def test_same_upper_puts_the_odd_pad_at_the_end():
    data = np.arange(1, 5, dtype=np.float32).reshape(1, 1, 4)
    filters = np.array([1, 100], np.float32).reshape(1, 1, 2)
    upper = Convolution(strides=(1,), dilations=(1,), pads_begin=(0,), pads_end=(0,), auto_pad="same_upper")
    lower = Convolution(strides=(1,), dilations=(1,), pads_begin=(0,), pads_end=(0,), auto_pad="same_lower")
    np.testing.assert_array_equal(run(upper, data, filters), [[[201, 302, 403, 4]]])
    np.testing.assert_array_equal(run(lower, data, filters), [[[100, 201, 302, 403]]])


def test_integer_convolution_wraps_like_cpp():
    data = np.full((1, 1, 2), 100, np.int8)
    op = Convolution(strides=(1,), dilations=(1,), pads_begin=(0,), pads_end=(0,))
    assert run(op, data, np.full((1, 1, 2), 2, np.int8)).tolist() == [[[np.int8(400 - 512)]]]


def test_f16_computes_in_f32_and_rounds_once():
    data = np.array([2048, 1, 1], np.float16).reshape(1, 1, 3)  # 2048 + 1 + 1 in f16 steps stays 2048
    op = Convolution(strides=(1,), dilations=(1,), pads_begin=(0,), pads_end=(0,))
    assert run(op, data, np.ones((1, 1, 3), np.float16)).item() == 2050


def test_zero_sized_kernel_gives_zeros_as_openvino_shapes_it():
    # OpenVINO 2026.4.1 accepts a kernel dim of 0 and shapes it like a kernel of 1; no tap, so zeros.
    op = Convolution(strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0), pads_end=(0, 0))
    result = run(op, np.ones((1, 2, 5, 5), np.float32), np.ones((3, 2, 0, 3), np.float32))
    np.testing.assert_array_equal(result, np.zeros((1, 3, 5, 3), np.float32))


# ------------------------------------------------------------------------------------ differential
@OP_EXAMPLES
@given(st.data())
def test_convolution_matches_openvino(data):
    count = data.draw(st.integers(1, 3))
    element_type = data.draw(st.sampled_from(CONV_TYPES))
    attributes = data.draw(spatial_attributes(count))
    batch, channels, out_channels = (data.draw(st.integers(1, 2)) for _ in range(3))
    spatial = [data.draw(st.integers(1, 6 if count < 3 else 4)) for _ in range(count)]
    kernel = [data.draw(st.integers(1, 3)) for _ in range(count)]
    x = tensor(data, element_type, (batch, channels, *spatial))
    w = tensor(data, element_type, (out_channels, channels, *kernel))
    check_op(make(attributes), [x, w], ov_convolution(attributes), cpu=not cpu_drops_taps(spatial, attributes))


@OP_EXAMPLES
@given(st.data())
def test_convolution_partial_shapes_match_openvino(data):
    count = data.draw(st.integers(1, 3))
    attributes = data.draw(spatial_attributes(count))
    dims = st.sampled_from(["?", "1", "2", "3", "5", "8", "2..6", "0..4", "4..", "1..9"])
    data_shape = "..." if data.draw(st.integers(0, 6)) == 0 else ",".join(data.draw(dims) for _ in range(count + 2))
    filter_shape = "..." if data.draw(st.integers(0, 6)) == 0 else ",".join(data.draw(dims) for _ in range(count + 2))
    check_types(make(attributes), [tt(data_shape), tt(filter_shape)], ov_convolution(attributes))


# ------------------------------------------------------------------------------------ refusals
PLAIN = {"strides": (1, 1), "dilations": (1, 1), "pads_begin": (0, 0), "pads_end": (0, 0)}


@pytest.mark.parametrize(
    ("attributes", "data", "filters", "message"),
    [
        ({**PLAIN, "strides": (0, 1)}, "1,2,5,5", "3,2,3,3", "Strides has zero dimension(s). Strides (0, 1)"),
        ({**PLAIN, "dilations": (1, 0)}, "1,2,5,5", "3,2,3,3", "Filter dilations has zero dimension(s)"),
        ({**PLAIN, "pads_begin": (-1, 0)}, "1,2,5,5", "3,2,3,3", "Pads must not be negative"),
        (PLAIN, "1,2,5,5", "3,4,3,3", "Data batch channel count (2) does not match filter input channel count (4)."),
        (PLAIN, "1,2,5,5", "3,2,6,3", "Kernel after dilation has size (dim: 6) larger than the data shape after "
                                      "padding (dim: 5) at axis 0."),
        (PLAIN, "1,2", "3,2", "Expected a 3D, 4D or 5D tensor for the input. Got: [1,2]"),
        (PLAIN, "1,2,5,5", "3,2,3", "Data batch and filters rank do not match"),
        ({**PLAIN, "strides": (1,)}, "1,2,5,5", "3,2,3,3", "Strides should be defined for all and only spatial"),
        (PLAIN, "1,2,5,5", "3,2,3,3:i8", "Element types for data batch and filters do not match"),
        (PLAIN, "1,2,5,5:boolean", "3,2,3,3:boolean", "Element types must be numeric. Got: boolean"),
    ],
)
def test_refused_configurations_name_the_rule(attributes, data, filters, message):
    def typed(text: str):
        shape, _, element_type = text.partition(":")
        return tt(shape, element_type or "f32")

    with pytest.raises(OpError) as refused:
        infer(Convolution(**attributes), [typed(data), typed(filters)], [None, None])
    assert message in str(refused.value)


def test_unknown_auto_pad_is_refused():
    with pytest.raises(OpError, match="Invalid 'auto_pad' value 'middle'"):
        Convolution(**PLAIN, auto_pad="middle")


def test_notset_is_explicit():
    op = Convolution(strides=(1,), dilations=(1,), pads_begin=(1,), pads_end=(1,), auto_pad="NOTSET")
    assert infer(op, [tt("1,1,5"), tt("1,1,3")], [None, None]) == ["[1,1,5]"]
