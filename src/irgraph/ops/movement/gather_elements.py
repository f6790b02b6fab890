"""GatherElements-6: pick one element of ``data`` per index along an axis."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, checked, normalize_axis, shape_text
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class GatherElements(Op):
    """``out[..., i, ...] = data[..., indices[..., i, ...], ...]`` along ``axis``. Spec: GatherElements-6.

    ``indices`` has the rank of ``data`` and its dims off the axis; a negative index counts from
    the end of the axis; one outside ``[-size, size)`` is an error (the reference would read out
    of bounds). ``np.take_along_axis``.
    """

    type_name = "GatherElements"
    introduced = 6
    inputs = Inputs.of(InputSpec("data"), InputSpec("indices"))

    axis: int = attribute()

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The indices' shape, merged with the data's off the axis."""
        data, indices = inputs
        check(indices.element_type.is_integral or indices.element_type.is_dynamic,
              f"indices must be of int32 or int64 type. But instead got: {indices.element_type}")
        if data.shape.rank_is_dynamic and indices.shape.rank_is_dynamic:
            return [TensorType(data.element_type, DYNAMIC_RANK)]
        rank = data.shape.rank if not data.shape.rank_is_dynamic else indices.shape.rank
        check(rank > 0, "data rank must be greater than 0.")
        index = normalize_axis(self.axis, rank)
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, indices.shape)]
        if indices.shape.rank_is_dynamic:
            return [TensorType(data.element_type, data.shape.replace(index, Dim.dynamic()))]
        check(indices.shape.rank == rank,
              f"data and indices rank must be equal. But instead got: {data.shape.rank} and {indices.shape.rank}")
        dims = list(indices.shape)
        for i, (a, b) in enumerate(zip(data.shape, indices.shape, strict=True)):
            if i == index:
                continue
            dims[i] = checked(a.merge(b), f"Shapes {data.shape} and {indices.shape} are not consistent, data and "
                              "indices must have equal or intersecting dimensions, except for the dimension at axis "
                              "index.")
        return [TensorType(data.element_type, Shape(tuple(dims)))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """``np.take_along_axis`` with negative indices wrapped once."""
        data, indices = np.asarray(inputs[0]), np.asarray(inputs[1])
        check(data.ndim > 0, "data rank must be greater than 0.")
        index = normalize_axis(self.axis, data.ndim)
        check(indices.ndim == data.ndim,
              f"data and indices rank must be equal. But instead got: {data.ndim} and {indices.ndim}")
        if any(a != b for i, (a, b) in enumerate(zip(data.shape, indices.shape, strict=True)) if i != index):
            raise OpError(f"Shapes {shape_text(data.shape)} and {shape_text(indices.shape)} are not consistent, "
                          "data and indices must have equal or intersecting dimensions, except for the dimension "
                          "at axis index.")
        size = data.shape[index]
        wrapped = np.where(indices < 0, indices.astype(np.int64) + size, indices.astype(np.int64))
        if wrapped.size and (wrapped.min() < 0 or wrapped.max() >= size):
            bad = indices.reshape(-1)[((wrapped < 0) | (wrapped >= size)).reshape(-1)][0]
            raise OpError(f"GatherElements index {bad} is out of range [{-size}, {size - 1}] of axis {index}")
        if indices.size == 0:
            return [np.empty(indices.shape, data.dtype)]
        return [np.take_along_axis(data, wrapped, axis=index)]
