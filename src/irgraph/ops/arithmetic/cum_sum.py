"""CumSum-3: cumulative sum along an axis (inclusive or exclusive, forwards or reversed)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, integer_values, normalize_axis
from irgraph.ops.registry import register

AXIS_TYPES = (ElementType.I32, ElementType.I64)


@register
@dataclass(frozen=True)
class CumSum(Op):
    """Running sums along ``axis`` (input 1, 0 when absent), summed in the input type one element after
    another as OpenVINO's reference does (integers wrap; f16 rounds at each step). Spec: CumSum-3."""

    type_name = "CumSum"
    introduced = 3
    inputs = Inputs.optional(1, InputSpec("arg"), InputSpec("axis"))

    exclusive: bool = attribute(False)
    reverse: bool = attribute(False)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The input type."""
        data = inputs[0]
        check(data.element_type is not ElementType.BOOLEAN and data.element_type is not ElementType.STRING,
              f"CumSum: the 'arg' input must be numeric. Got: {data.element_type}")
        if len(inputs) > 1:
            axis = inputs[1]
            check(axis.element_type.is_dynamic or axis.element_type in AXIS_TYPES,
                  f"axis element type must be either int64_t or int32_t but got ({axis.element_type}).")
            check(axis.shape.rank_is_dynamic or axis.shape.rank == 0
                  or (axis.shape.rank == 1 and axis.shape[0].contains(1)),  # openvino 2026.4.1 takes [1] too
                  f"Axis must be a scalar (rank of 0). Got: {axis.shape}")
            if values[1] is not None and not data.shape.rank_is_dynamic:
                normalize_axis(integer_values(values[1], "axis")[0], max(data.shape.rank, 1))
        return [data]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """np.cumsum in the input dtype; exclusive shifts it by one, reverse runs it backwards."""
        data = inputs[0]
        if data.ndim == 0:
            return [np.zeros_like(data) if self.exclusive else data.copy()]
        axis = normalize_axis(integer_values(inputs[1], "axis")[0], data.ndim) if len(inputs) > 1 else 0
        work = np.flip(data, axis) if self.reverse else data
        sums = np.cumsum(work, axis=axis, dtype=data.dtype)
        if sums.dtype.kind in "fV":
            sums += sums.dtype.type(0)  # sums start from +0.0, so one -0.0 sums to +0.0 as OpenVINO gives
        if self.exclusive:
            shifted = np.zeros_like(sums)
            head = (slice(None),) * axis
            shifted[(*head, slice(1, None))] = sums[(*head, slice(None, -1))]
            sums = shifted
        return [np.flip(sums, axis).copy() if self.reverse else sums]
