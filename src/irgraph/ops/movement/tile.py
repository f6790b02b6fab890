"""Tile-1: repeat a tensor along each axis."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, PartialValue, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, check, integer_values, shape_text
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class Tile(Op):
    """Repeat ``data`` ``repeats[i]`` times along axis ``i`` (the shorter of the input shape and
    ``repeats`` is padded with leading 1s). Spec: Tile-1.

    A negative repeat counts as 0, as openvino 2026.4.1 does (its shape inference and reference
    give an empty output). The output size is checked before it is allocated.
    """

    type_name = "Tile"
    introduced = 1
    inputs = Inputs.of(InputSpec("data"), InputSpec("repeats", bounds=True))
    bound_inputs = (0,)

    def infer(
        self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | PartialValue | None]
    ) -> list[TensorType]:
        """Each dim times its repeat (intervals multiply)."""
        data, repeats = inputs
        check(repeats.element_type.is_integral or repeats.element_type.is_dynamic,
              f"Tile repeats must have any integer element type, but has {repeats.element_type}")
        check(repeats.shape.rank_is_dynamic or repeats.shape.rank == 1,
              f"Tile repeats must be of rank 1. Got: {repeats.shape}")
        value = values[1]
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, DYNAMIC_RANK)]
        if value is None:
            if repeats.shape.rank_is_dynamic or repeats.shape[0].is_dynamic:
                return [TensorType(data.element_type, DYNAMIC_RANK)]
            return [TensorType(data.element_type, Shape.dynamic(max(data.shape.rank, repeats.shape[0].value)))]
        if isinstance(value, PartialValue):
            try:
                times = value.shape_dims()
            except ValueError as err:
                raise OpError(str(err)) from None
        else:
            times = [Dim.static(max(v, 0)) for v in integer_values(value, "repeats")]
        rank = max(len(times), data.shape.rank)
        dims = [Dim.static(1)] * (rank - data.shape.rank) + list(data.shape)
        times = [Dim.static(1)] * (rank - len(times)) + times
        return [TensorType(data.element_type, Shape(tuple(d * t for d, t in zip(dims, times, strict=True))))]

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The tiled shape, computed without allocating."""
        data, repeats = inputs
        check(np.ndim(repeats) == 1, f"Tile repeats must be of rank 1. Got: {shape_text(np.shape(repeats))}")
        times = [max(v, 0) for v in integer_values(repeats, "repeats")]
        rank = max(len(times), np.ndim(data))
        shape = (1,) * (rank - np.ndim(data)) + tuple(np.shape(data))
        times = [1] * (rank - len(times)) + times
        return [tuple(s * t for s, t in zip(shape, times, strict=True))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """``np.tile``."""
        (shape,) = self.output_shapes(inputs)
        times = [max(v, 0) for v in integer_values(inputs[1], "repeats")]
        if math.prod(shape) == 0:
            return [np.empty(shape, np.asarray(inputs[0]).dtype)]
        return [np.tile(inputs[0], times).reshape(shape)]
