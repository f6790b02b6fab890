"""Split-1: cut a tensor into ``num_splits`` equal parts along an axis."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import Shape, TensorType
from irgraph.ops.op import (
    Inputs,
    InputSpec,
    Op,
    attribute,
    check,
    integer_values,
    normalize_axis,
    scalar_integer,
    shape_text,
)
from irgraph.ops.registry import register
from irgraph.ops.traits import OpTraits


@register
@dataclass(frozen=True)
class Split(Op):
    """Split ``data`` into ``num_splits`` equal parts along ``axis``. Spec: Split-1.

    ``axis`` is an input, not an attribute, so static shape inference needs its value; without
    it every output dim is dynamic (OpenVINO does the same). Outputs are views of the input.
    """

    type_name = "Split"
    introduced = 1
    traits = OpTraits(slices_data=True)
    inputs = Inputs.of(InputSpec("data"), InputSpec("axis"))
    bound_inputs = (0,)  # data movement: a shape vector's bounds split as its values do (OpenVINO: evaluate_lower)

    num_splits: int = attribute(0)

    def __post_init__(self) -> None:
        check(self.num_splits > 0, f"Attribute 'num_splits' must be greater than zero. Got: {self.num_splits}")

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """``num_splits`` outputs."""
        return self.num_splits

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """Equal parts; interval dims are floored on both bounds, as OpenVINO does."""
        data, axis = inputs
        check(
            axis.element_type.is_integral or axis.element_type.is_dynamic,
            f"Element type of 'axis' input must be integer. Got: {axis.element_type}",
        )
        check(
            axis.shape.rank_is_dynamic or axis.shape.rank == 0,
            f"'axis' input must be a scalar. Got: {axis.shape}",
        )
        parts = self.num_splits
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, data.shape)] * parts
        check(data.shape.rank > 0, "Split 'data' input must have rank >= 1. Got a scalar")
        axis_value = values[1] if len(values) > 1 else None
        if axis_value is None:
            return [TensorType(data.element_type, Shape.dynamic(data.shape.rank))] * parts
        index = normalize_axis(integer_values(axis_value, "axis")[0], data.shape.rank)
        dim = data.shape[index]
        if dim.is_static:
            check(
                dim.value % parts == 0,
                f"Dimension of data input shape along 'axis': {dim.value} must be evenly divisible by "
                f"'num_splits' attribute value: {parts}",
            )
        else:
            check(
                dim.max is None or dim.max >= parts,
                "The interval maximum of the dimension for data input shape along 'axis' must be greater or "
                f"equal to 'num_splits' attribute. Got: {dim} and {parts}",
            )
        part = TensorType(data.element_type, data.shape.replace(index, dim.floor_div(parts)))
        return [part] * parts

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Basic slices along the axis: views of the input (what ``np.split`` gives, without its overhead).

        ``data`` needs only ``ndim``, ``shape`` and slicing, so the interpreter's deferred Concat
        outputs split without being written.
        """
        data, axis = inputs
        check(data.ndim > 0, "Split 'data' input must have rank >= 1. Got a scalar")
        if np.ndim(axis) != 0:
            raise OpError(f"'axis' input must be a scalar. Got: {shape_text(np.shape(axis))}")
        index = normalize_axis(scalar_integer(axis, "axis"), data.ndim)
        step, remainder = divmod(data.shape[index], self.num_splits)
        if remainder:
            raise OpError(
                f"Dimension of data input shape along 'axis': {data.shape[index]} must be evenly divisible by "
                f"'num_splits' attribute value: {self.num_splits}"
            )
        head = (slice(None),) * index
        return [data[(*head, slice(i * step, (i + 1) * step))] for i in range(self.num_splits)]

