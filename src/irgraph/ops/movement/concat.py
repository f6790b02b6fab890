"""Concat-1: join tensors along one axis."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.ops.op import Inputs, Op, attribute, check, checked, normalize_axis
from irgraph.ops.registry import register
from irgraph.ops.traits import OpTraits

INCONSISTENT_SHAPES = (
    "Argument shapes are inconsistent; they must have the same rank, and must have equal dimension everywhere "
    "except on the concatenation axis (axis {axis})."
)


@register
@dataclass(frozen=True)
class Concat(Op):
    """Concatenate inputs along ``axis`` (negative counts from the end). Spec: Concat-1.

    Non-axis dims must agree (intervals intersect); zero-size inputs are allowed.
    """

    type_name = "Concat"
    introduced = 1
    traits = OpTraits(joins_inputs=True)
    bound_inputs = None  # every input's bounds flow through (shape vectors joined from ShapeOf parts)
    inputs = Inputs.repeated("data", minimum=1)

    axis: int = attribute(0)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """Merge element types and non-axis dims; the axis dim is the interval sum."""
        check(len(inputs) >= 1, "Concat needs at least one input. Got: 0")
        element_type = inputs[0].element_type
        for tensor in inputs[1:]:
            element_type = checked(element_type.merge(tensor.element_type), "Argument element types are inconsistent.")
        merged_dims: list[Dim] | None = None
        axis_sum = Dim.static(0)
        index = 0
        for position, tensor in enumerate(inputs):
            if tensor.shape.rank_is_dynamic:
                axis_sum = axis_sum + Dim.dynamic()
                continue
            check(tensor.shape.rank > 0, f"Concat inputs must have rank >= 1. Got a scalar at input {position}")
            index = normalize_axis(self.axis, tensor.shape.rank)
            dims = list(tensor.shape)
            axis_sum = axis_sum + dims[index]
            if merged_dims is None:
                merged_dims = dims
                continue
            if len(dims) != len(merged_dims):
                raise OpError(INCONSISTENT_SHAPES.format(axis=index))
            for i, dim in enumerate(dims):
                if i == index:
                    continue
                both = merged_dims[i].merge(dim)
                if both is None:
                    raise OpError(INCONSISTENT_SHAPES.format(axis=index))
                merged_dims[i] = both
        if merged_dims is None:
            return [TensorType(element_type, DYNAMIC_RANK)]
        merged_dims[index] = axis_sum
        return [TensorType(element_type, Shape(tuple(merged_dims)))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """``np.concatenate`` (the interpreter defers it: see ``OpTraits.joins_inputs``)."""
        index = self.check_inputs(inputs)
        if len(inputs) == 1:
            return [inputs[0].copy()]
        return [np.concatenate(inputs, axis=index)]

    def check_inputs(self, inputs: Sequence[np.ndarray]) -> int:
        """The checks ``evaluate`` makes; returns the axis counted from 0.

        Inputs need only ``ndim``, ``shape`` and ``dtype``, so the interpreter can check a Concat
        whose output it has not written yet.
        """
        check(len(inputs) >= 1, "Concat needs at least one input. Got: 0")
        first = inputs[0]
        check(first.ndim > 0, "Concat inputs must have rank >= 1. Got a scalar at input 0")
        index = normalize_axis(self.axis, first.ndim)
        shape, dtype = tuple(first.shape), first.dtype
        before, after = shape[:index], shape[index + 1 :]
        for array in inputs[1:]:
            other = tuple(array.shape)
            if len(other) != len(shape) or other[:index] != before or other[index + 1 :] != after:
                raise OpError(INCONSISTENT_SHAPES.format(axis=index))
            if array.dtype != dtype:
                raise OpError("Argument element types are inconsistent.")
        return index
