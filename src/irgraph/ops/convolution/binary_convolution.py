"""BinaryConvolution-1: the xnor-popcount convolution of 0/1 data with 1-bit (u1) filters."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, TensorType
from irgraph.ops.convolution.convolution import Convolution
from irgraph.ops.families.convolution_kernels import convolve_taps, convolve_windows
from irgraph.ops.op import EXACT, UNSETTLED, attribute, check, checked
from irgraph.ops.registry import register

MODES = ("xnor-popcount",)
_COUNTED = (ElementType.F32, ElementType.F16, ElementType.BF16, ElementType.F64, ElementType.I8, ElementType.I16,
            ElementType.I32, ElementType.I64)


@register
@dataclass(frozen=True)
class BinaryConvolution(Convolution):
    """Each output is ``2 * P - B``: ``P`` the data values of the window equal to their filter bit, ``B`` the taps.

    data (N, C, H, W) of any numeric type, filters (O, C, KH, KW) of u1 -> (N, O, OH, OW) in the data type.
    A value matches its bit when it equals it exactly (0 or 1: any other value matches neither), padding reads
    ``pad_value``. Counts are exact in every type (OpenVINO's reference compares and counts alike). Spec:
    BinaryConvolution-1.
    """

    type_name = "BinaryConvolution"
    introduced = 1
    tolerance = EXACT
    cpu_plugin_differs = (
        "openvino 2026.4.1's CPU plugin gives f32 data with u1 filters values that change from run to run (a 1x1 "
        "filter of bit 1 on data [0, 1, -1, 0.5] gave [-1, 1, 1, 1], [-1, -1, 1, 1], [-1, 1, -1, 1] and, as the "
        "spec and the reference, [-1, 1, -1, -1]); its values are not compared")
    attribute_order = ("strides", "pads_begin", "pads_end", "dilations", "mode", "pad_value", "auto_pad")

    mode: str = attribute("xnor-popcount")
    pad_value: float = attribute(0.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        check(self.mode in MODES, f'mode "{self.mode}" is not a member of enum op::v1::BinaryConvolution::'
              "BinaryConvolutionMode")

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """A 4D numeric data batch and 4D filters of any type; the output in the data's type."""
        data_type = inputs[0].element_type
        check(data_type.is_dynamic or data_type.is_real or data_type.is_integral,
              f"Data batch element type must be numeric. Got: {data_type}")
        data, filters = inputs[0].shape, inputs[1].shape
        if not data.rank_is_dynamic:
            check(data.rank == 4, f"Expected 4D for the input. Got: {data}")
        if not filters.rank_is_dynamic:
            check(filters.rank == 4, f"Expected 4D for the filters. Got: {filters}")
        if data.rank_is_dynamic and filters.rank_is_dynamic and not any(
                (self.strides, self.dilations, self.pads_begin, self.pads_end)):
            return [TensorType(data_type, DYNAMIC_RANK)]
        as_data = TensorType(data_type, data)
        as_filters = TensorType(data_type, filters)  # the convolution rule, without its element type check
        return [TensorType(data_type, super().infer([as_data, as_filters], values)[0].shape)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Two convolutions of match indicators: ``[x == 1]`` with the 1 bits, ``[x == 0]`` with the 0 bits."""
        data, filters = np.asarray(inputs[0]), np.asarray(inputs[1])
        (shape,) = checked(self.output_shapes(inputs), UNSETTLED)
        data_type, filter_type = ElementType.from_numpy(data.dtype), ElementType.from_numpy(filters.dtype)
        if filter_type is not ElementType.U1:
            raise OpError(f"BinaryConvolution runs u1 filters (OpenVINO's reference kernel reads their bits). "
                          f"Got: {filter_type}")
        if data_type not in _COUNTED:
            raise OpError(f"BinaryConvolution counts in floating-point and signed integer data types. Got: {data_type}")
        strides, dilations, _, _ = self.resolved(2)
        begin, end = self.forward_pads(data.shape[2:], filters.shape[2:])
        if 0 in shape:
            return [np.zeros(shape, data.dtype)]
        # The padding holds pad_value as the data type holds it (OpenVINO casts it so before comparing).
        pad = np.asarray(self.pad_value).astype(data.dtype) if data_type.is_real else np.asarray(
            math.trunc(self.pad_value) if math.isfinite(self.pad_value) else 0, np.int64)
        padded = np.pad(data, ((0, 0), (0, 0), *((b, max(e, 0)) for b, e in zip(begin, end, strict=True))),
                        constant_values=pad)
        ones = filters.astype(np.float64)[np.newaxis]  # (1 group, O, C, KH, KW)
        matches = np.zeros(shape, np.float64)
        for value, bits in ((1, ones), (0, 1.0 - ones)):
            indicator = (padded == value).astype(np.float64)
            counted = convolve_windows(indicator, bits, strides, dilations, (0, 0), shape[2:])
            if counted is None:
                counted = convolve_taps(indicator, bits, strides, dilations, (0, 0), shape[2:])
            matches += counted
        taps = math.prod(filters.shape[1:])
        return [(2 * matches - taps).astype(data.dtype)]
