"""FakeConvert-13: scale, round to an 8-bit float format and back (FP8 quantize-dequantize)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import TensorType
from irgraph.ops.families.elementwise import broadcast_shapes
from irgraph.ops.numeric import convert, round_to_bf16
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, checked
from irgraph.ops.registry import register

DESTINATION_TYPES = ("f8e4m3", "f8e5m2")
DATA_TYPES = (ElementType.BF16, ElementType.F16, ElementType.F32)
_E4M3_SMALLEST = np.float32(2.0**-9)


def round_to_e5m2(half: np.ndarray) -> np.ndarray:
    """f16 values rounded to f8e5m2 on their bits, as OpenVINO's ``emulate_f8e5m2_on_fp16`` (with its clamp):
    round to nearest even at the 2-bit mantissa, infinity saturates to +-57344; NaN keeps its high bits (a NaN
    with only low mantissa bits set becomes +-57344 too)."""
    bits = half.view(np.uint16).astype(np.int32)
    finite = (bits & 0x7C00) != 0x7C00
    up = ((bits & 0x00FF) > 0x0080) | ((bits & 0x0180) == 0x0180)
    bits = (bits + np.where(finite & up, 1 << 8, 0)) & 0xFF00
    bits -= np.where((bits & 0x7F00) == 0x7C00, 1 << 8, 0)
    return (bits & 0xFFFF).astype(np.uint16).view(np.float16)


def round_to_e4m3(half: np.ndarray) -> np.ndarray:
    """f16 values rounded to f8e4m3 on their bits, as OpenVINO's ``emulate_f8e4m3_on_fp16`` (with its clamp):
    below 2**-9 flushes to +0, above 448 (and infinity and NaN) saturates to +-448, the 3-bit mantissa rounds to
    nearest even -- for subnormals still at the normal position before the shift, as the reference does."""
    bits = half.view(np.uint16).astype(np.int32)
    bits = np.where(np.abs(half.astype(np.float32)) < _E4M3_SMALLEST, 0, bits)
    exponent = ((bits & 0x7C00) >> 10) - 15
    sign = bits & 0x8000
    mantissa = bits & 0x03FF
    can_round = (bits & 0x7FFF) < 0x5F80
    special = (bits & 0x7C00) == 0x7C00
    large = exponent > 8
    special |= large
    mantissa = np.where(large, 0x300, mantissa)
    exponent = np.where(large, 8, exponent)
    tiny = exponent < -9
    mantissa = np.where(tiny, 0, mantissa)
    exponent = np.where(tiny, -15, exponent)
    mantissa = np.where((exponent == 8) & (mantissa >= 0x300), 0x300, mantissa)
    up = ((mantissa & 0x7F) > 0x40) | ((mantissa & 0xC0) == 0xC0)
    mantissa = mantissa + np.where(~special & can_round & up, 1 << 7, 0)
    shift = np.where(exponent < -6, -6 - exponent, 0)
    mantissa = ((mantissa >> shift) & 0xFF80) << shift
    mantissa = mantissa + ((exponent + 15) << 10)
    return ((mantissa | sign) & 0xFFFF).astype(np.uint16).view(np.float16)


ROUNDING = {"f8e4m3": round_to_e4m3, "f8e5m2": round_to_e5m2}


@register
@dataclass(frozen=True)
class FakeConvert(Op):
    """``(round_to_f8(x * scale - shift) + shift) / scale``: ``destination_type`` f8e4m3 or f8e5m2, the scale and
    the optional shift (0 when absent) broadcast into the data. Exact: bit for bit OpenVINO's reference.

    As that reference: the scale and shift arithmetic is in the data's type (bf16 and f16 round after each
    operation, bf16 by OpenVINO's own rounding); the value goes to f16 (f32 rounds to nearest even, overflowing
    to infinity) and is rounded to the 8-bit format on the f16 bits (``round_to_e4m3``, ``round_to_e5m2``: they
    saturate, and NaN becomes +-448 in f8e4m3), then comes back to the data's type. Spec: FakeConvert-13.
    """

    type_name = "FakeConvert"
    introduced = 13
    cpu_plugin_differs = ("openvino 2026.4.1's plugin gives other f8e4m3 values than its reference for 54 of the "
                          "63488 finite f16 values (as f32, scale 1.5, shift 0.25)")
    inputs = Inputs.optional(2, InputSpec("data"), InputSpec("scale"), InputSpec("shift"))

    destination_type: str = attribute()

    def __post_init__(self) -> None:
        check(self.destination_type in DESTINATION_TYPES,
              f"Bad format for f8 conversion type: {self.destination_type} (f8e4m3 or f8e5m2)")

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The inputs' one type; the data's shape merged with the scale's (which broadcasts into it, never beyond)."""
        data, scale = inputs[0], inputs[1]
        element_type = data.element_type
        for tensor_type in inputs[1:]:
            merged = element_type.merge(tensor_type.element_type)
            merged = checked(merged, f"Mixed input types are not supported. Got: "
                  f"{', '.join(str(t.element_type) for t in inputs)}")
            element_type = merged
        check(element_type.is_dynamic or element_type in DATA_TYPES,
              f"The element type of the input tensor must be a bf16, f16, f32 but got: {element_type}")
        if len(inputs) == 3:
            check(scale.shape.compatible(inputs[2].shape),
                  f"FakeConvert scale shape is not compatible with shift shape. Got: {scale.shape} and "
                  f"{inputs[2].shape}")
        try:
            shape = broadcast_shapes(data.shape, scale.shape, "numpy")
        except OpError:
            raise OpError(f"Argument shapes are inconsistent. Got: data {data.shape}, scale {scale.shape}") from None
        check(data.shape.compatible(shape), "FakeConvert support only unidirectional broadcasting, inputs cannot be "
              f"broadcast into data. Got: data {data.shape}, scale {scale.shape}")
        return [TensorType(element_type, shape)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Scale and shift in the data's type, the 8-bit rounding on f16, back and unscaled in the data's type."""
        data, scale = np.asarray(inputs[0]), np.asarray(inputs[1])
        shift = np.asarray(inputs[2]) if len(inputs) == 3 else np.zeros(scale.shape, data.dtype)
        element_type = ElementType.from_numpy(data.dtype)
        check(element_type in DATA_TYPES and scale.dtype == data.dtype == shift.dtype,
              f"FakeConvert runs bf16, f16 or f32 data with a scale and shift of its type. Got: {data.dtype}, "
              f"{scale.dtype}, {shift.dtype}")
        check(np.broadcast_shapes(data.shape, scale.shape, shift.shape) == data.shape,
              f"FakeConvert scale {list(scale.shape)} and shift {list(shift.shape)} must broadcast into the data "
              f"{list(data.shape)}")
        step = _arithmetic(element_type)
        with np.errstate(all="ignore"):
            scaled = step(step(data, scale, np.multiply), shift, np.subtract)
            half = scaled if element_type is ElementType.F16 else convert(scaled, element_type, ElementType.F16)
            rounded = ROUNDING[self.destination_type](np.array(half, order="C"))  # 0-d stays 0-d
            back = rounded if element_type is ElementType.F16 else convert(rounded, ElementType.F16, element_type)
            return [step(step(back, shift, np.add), scale, np.divide)]


def _arithmetic(element_type: ElementType) -> Callable[[np.ndarray, np.ndarray, np.ufunc], np.ndarray]:
    """One binary operation in ``element_type`` as OpenVINO computes it: f32 and f16 natively (NumPy's f16
    operations compute in f32 and round once, as ``ov::float16``'s), bf16 in f32 rounded by OpenVINO's rule."""
    if element_type is ElementType.BF16:
        return lambda a, b, operation: round_to_bf16(operation(a.astype(np.float32), b.astype(np.float32)))
    return lambda a, b, operation: operation(a, b)
