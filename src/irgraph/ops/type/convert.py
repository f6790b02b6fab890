"""Convert-1: element-wise conversion to ``destination_type``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import PartialValue, TensorType
from irgraph.ops.numeric import convert
from irgraph.ops.op import Inputs, InputSpec, Op, attribute
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class Convert(Op):
    """Convert ``data`` to ``destination_type``, bit for bit as OpenVINO's reference. Spec: Convert-1.

    The rules (truncation, wrapping, bf16 rounding, f16 clamping of i32) are in
    :mod:`irgraph.ops.numeric`. Any input type is accepted by shape inference, as in OpenVINO.
    """

    type_name = "Convert"
    introduced = 1
    inputs = Inputs.of(InputSpec("data"))
    forwards_values = (0,)

    destination_type: ElementType = attribute()

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The input shape with ``destination_type``."""
        return [TensorType(self.destination_type, inputs[0].shape)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The converted values."""
        return [convert_values(inputs[0], self.destination_type)]

    def bounds(
        self, inputs: Sequence[TensorType], values: Sequence[PartialValue | None]
    ) -> list[PartialValue | None] | None:
        """Both bounds converted, between integer types; an unknown upper bound (the source type's
        maximum) stays unknown (the destination's maximum), as OpenVINO's Convert does."""
        (value,) = values
        target = self.destination_type
        if value is None or not target.is_integral or value.lower.dtype.kind not in "iu":
            return None
        unknown = np.iinfo(value.upper.dtype).max
        lower = convert_values(value.lower, target)
        upper = convert_values(value.upper, target)
        upper = np.where(value.upper == unknown, np.iinfo(upper.dtype).max, upper).astype(upper.dtype)
        return [PartialValue(lower, upper)]


def convert_values(data: np.ndarray, target: ElementType) -> np.ndarray:
    """``data`` (an array of some element type's in-memory dtype) converted to ``target``."""
    if target.is_dynamic:
        raise OpError("Convert to a dynamic element type cannot run: the destination type is unknown")
    source = ElementType.from_numpy(data.dtype)
    return convert(data, source, target)
