"""Roll-7: shift elements cyclically along axes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, check, integer_values, normalize_axis, shape_text
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class Roll(Op):
    """``np.roll(data, shift, axes)``: a scalar shift applies to every axis; repeated axes add up.
    Spec: Roll-7."""

    type_name = "Roll"
    introduced = 7
    inputs = Inputs.of(InputSpec("data"), InputSpec("shift"), InputSpec("axes"))

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The input type."""
        data, shift, axes = inputs
        for tensor, name in ((shift, "shift"), (axes, "axes")):
            check(tensor.element_type.is_dynamic or tensor.element_type.is_integral,
                  f"{name} must be of int32 or int64 type. Got: {tensor.element_type}")
        check(shift.shape.rank_is_dynamic or shift.shape.rank <= 1,
              f"Shift must be a scalar or 1D tensor. Got: {shift.shape}")
        check(axes.shape.rank_is_dynamic or axes.shape.rank <= 1, f"Axes must be a scalar or 1D tensor. Got: "
                                                                   f"{axes.shape}")
        return [data]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """``np.roll``."""
        data, shift, axes = inputs
        rank = np.ndim(data)
        shifts = integer_values(shift, "shift")
        axis_list = [normalize_axis(a, rank) for a in integer_values(axes, "axes")]
        if np.ndim(shift) == 0:
            shifts = shifts * len(axis_list)
        check(len(shifts) == len(axis_list), f"If shift is a 1D vector, axes must be a 1D tensor of the same size. "
                                             f"Got: shift {shape_text(np.shape(shift))}, axes "
                                             f"{shape_text(np.shape(axes))}")
        if not axis_list or np.size(data) == 0:
            return [np.array(data, copy=True)]
        return [np.roll(data, shifts, axis=axis_list)]
