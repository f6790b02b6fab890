"""ScatterUpdate-3: overwrite slices of data along an axis, picked by indices."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import TensorType
from irgraph.ops.families.scatter import axis_value, indices_in_range, scatter_rows, shapes_compatible
from irgraph.ops.op import Inputs, InputSpec, Op, check, checked, integer_values, normalize_axis
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class ScatterUpdate(Op):
    """``data[..., indices[i...], ...] = updates[..., i..., ...]`` along ``axis``; the last update of a
    repeated index stays. Indices must lie in ``[0, dim)``: openvino 2026.4.1 refuses negative ones
    too. Spec: ScatterUpdate-3."""

    type_name = "ScatterUpdate"
    introduced = 3
    inputs = Inputs.of(InputSpec("data"), InputSpec("indices"), InputSpec("updates"), InputSpec("axis"))
    bound_inputs = (0, 2)  # data movement: a shape vector with some entries replaced keeps the bounds of each

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data type; updates must be ``data[:axis] + indices + data[axis+1:]`` when the axis is known."""
        data, indices, updates, axis = inputs
        check(indices.element_type.is_dynamic or indices.element_type.is_integral,
              f"Indices element type must be of an integral number type. Got: {indices.element_type}")
        check(axis.element_type.is_dynamic or axis.element_type.is_integral,
              f"Axis element type must be of an integral number type. Got: {axis.element_type}")
        merged = data.element_type.merge(updates.element_type)
        merged = checked(merged, f"Element types for input data and updates do not match. Got: "
              f"{data.element_type} and {updates.element_type}")
        known = not (data.shape.rank_is_dynamic or indices.shape.rank_is_dynamic)
        if known and not updates.shape.rank_is_dynamic:
            check(updates.shape.rank == data.shape.rank - 1 + indices.shape.rank,
                  f"Updates rank is expected to be rank(indices) + rank(data) - 1. Got: updates {updates.shape}, "
                  f"data {data.shape}, indices {indices.shape}")
        if known and values[3] is not None and data.shape.rank > 0:
            index = normalize_axis(integer_values(values[3], "axis")[0], data.shape.rank)
            data_dims, indices_dims = data.shape.dims or (), indices.shape.dims or ()  # `known`: both ranks are
            expected = (*data_dims[:index], *indices_dims, *data_dims[index + 1:])
            check(shapes_compatible(updates.shape, expected),
                  f"Updates shape must be data[:axis] + indices + data[axis+1:]. Got: updates {updates.shape}, "
                  f"data {data.shape}, indices {indices.shape}, axis {index}")
        return [TensorType(merged, data.shape)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Slices written along the axis moved to the front."""
        data, indices, updates, axis_input = inputs
        check(data.ndim > 0, "ScatterUpdate 'data' input must have rank >= 1. Got a scalar")
        axis = axis_value(axis_input, data.ndim)
        expected = data.shape[:axis] + indices.shape + data.shape[axis + 1:]
        check(updates.shape == expected, f"Updates shape must be data[:axis] + indices + data[axis+1:]. Got: updates "
              f"{list(updates.shape)}, expected {list(expected)}")
        positions = indices_in_range(indices, data.shape[axis], "ScatterUpdate", negative=False).reshape(-1)
        result = data.copy()
        target = np.moveaxis(result, axis, 0)
        rows = np.moveaxis(updates.reshape(data.shape[:axis] + (positions.size,) + data.shape[axis + 1:]), axis, 0)
        scatter_rows(target, positions, rows)
        return [result]
