"""FakeQuantize-1: element-wise quantize-dequantize, the op of every NNCF/POT-quantized IR."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import TensorType
from irgraph.ops.families.elementwise import AUTO_BROADCAST_MODES, broadcast_shapes
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check
from irgraph.ops.registry import register

RANGES = ("input_low", "input_high", "output_low", "output_high")


@register
@dataclass(frozen=True)
class FakeQuantize(Op):
    """``levels`` evenly spaced values between ``output_low`` and ``output_high``:

    x <= min(input_low, input_high)  ->  output_low
    x >  max(input_low, input_high)  ->  output_high
    otherwise  round((x - input_low) / (input_high - input_low) * (levels - 1)) / (levels - 1)
               * (output_high - output_low) + output_low

    rounding half to even (``std::nearbyint``), in the data's element type as OpenVINO's reference
    computes it. The four ranges broadcast to the data (``auto_broadcast``) and the output has the
    data's shape and type. irgraph is stricter than OpenVINO 2026.4.1 in two places: a range that
    does not broadcast *into* the data's shape is refused (OpenVINO merges the shapes, keeps the
    data's, and its reference reads the range with zero strides), and ranges of another element
    type than the data are converted to it first (OpenVINO accepts them and its reference reads
    their bytes as the data's type). Spec: FakeQuantize-1.
    """

    type_name = "FakeQuantize"
    introduced = 1
    inputs = Inputs.of(InputSpec("X"), *(InputSpec(name) for name in RANGES))

    levels: int = attribute()
    auto_broadcast: str = attribute("numpy")

    def __post_init__(self) -> None:
        check(self.levels >= 1, f"Attribute 'levels' must be at least 1. Got: {self.levels}")
        check(
            self.auto_broadcast in AUTO_BROADCAST_MODES,
            f"Attribute 'auto_broadcast' must be one of {', '.join(AUTO_BROADCAST_MODES)}. Got: "
            f"{self.auto_broadcast!r}",
        )

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data's type; every range broadcasts into the data's shape."""
        data = inputs[0]
        for name, tensor_type in zip(RANGES, inputs[1:], strict=True):
            try:
                merged = broadcast_shapes(data.shape, tensor_type.shape, self.auto_broadcast)
            except OpError:
                raise OpError(f"Argument shapes are inconsistent: {name} of shape {tensor_type.shape} does not "
                              f"broadcast to the data shape {data.shape}") from None
            if merged.is_static and data.shape.is_static and merged != data.shape:
                raise OpError(f"{name} of shape {tensor_type.shape} broadcasts beyond the data shape {data.shape}: "
                              "the output keeps the data's shape, so irgraph refuses it (OpenVINO 2026.4.1 reads "
                              "the range with zero strides)")
        return [TensorType(data.element_type, data.shape)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Quantize ``X`` onto ``levels`` steps, element-wise over the broadcast ranges."""
        x = np.asarray(inputs[0])
        dtype = x.dtype
        ranges = []
        for name, value in zip(RANGES, inputs[1:], strict=True):
            value = np.asarray(value).astype(dtype, copy=False)
            try:
                shape = np.broadcast_shapes(x.shape, value.shape) if self.auto_broadcast != "none" else value.shape
            except ValueError:
                shape = None
            if shape != x.shape:
                raise OpError(f"{name} of shape {list(value.shape)} does not broadcast to the data shape "
                              f"{list(x.shape)}")
            ranges.append(value)
        in_low, in_high, out_low, out_high = ranges
        steps = dtype.type(self.levels - 1)
        with np.errstate(all="ignore"):
            if dtype.kind in "iu":
                quantized = _integer_quantize(x, in_low, in_high, out_low, out_high, steps)
            else:
                # std::nearbyint takes and returns float: the division by levels-1 and the rest of the
                # expression run in float32 for f16/bf16 data, and round to the data's type once.
                fraction = np.rint((x - in_low) / (in_high - in_low) * steps)
                wide = np.promote_types(dtype, np.float32)
                quantized = (fraction.astype(wide) / wide.type(steps) * (out_high - out_low).astype(wide)
                             + out_low.astype(wide)).astype(dtype)
            result = np.where(x <= np.minimum(in_low, in_high), out_low,
                              np.where(x > np.maximum(in_low, in_high), out_high, quantized))
        return [np.array(np.broadcast_to(result, x.shape), dtype=dtype)]  # a copy: ascontiguousarray makes 0-d 1-d


def _integer_quantize(x: np.ndarray, in_low: np.ndarray, in_high: np.ndarray, out_low: np.ndarray,
                      out_high: np.ndarray, steps: np.generic) -> np.ndarray:
    """The reference's expression in C++ integer arithmetic: divisions truncate toward zero."""

    def divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        safe = np.where(b == 0, 1, b)
        quotient = np.abs(a) // np.abs(safe)
        return np.where((a < 0) != (safe < 0), -quotient, quotient).astype(a.dtype, copy=False)

    fraction = divide(x - in_low, in_high - in_low) * steps
    return divide(fraction, np.asarray(steps)) * (out_high - out_low) + out_low
