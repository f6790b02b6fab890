"""Unique-10: the distinct elements (or slices along an axis) of a tensor, with indices and counts."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, integer_values, normalize_axis
from irgraph.ops.registry import register

INDEX_TYPES = (ElementType.I32, ElementType.I64)


def unique_rows(rows: np.ndarray, keep_sorted: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct rows of a 2-D ``rows``: (first index of each, the group of every row, each group's count).

    Groups are in ascending (lexicographic) order when ``keep_sorted``, else in order of first
    occurrence. Rows are equal when every element compares equal (-0.0 equals 0.0; NaN equals nothing).
    """
    count = rows.shape[0]
    if count == 0:
        empty = np.zeros(0, np.int64)
        return empty, empty, empty
    if rows.shape[1] == 0:
        order = np.arange(count)
    else:
        order = np.lexsort(rows.T[::-1])  # stable; the first column is the primary key
    ordered = rows[order]
    starts = np.ones(count, bool)
    starts[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    group_of_sorted = np.cumsum(starts) - 1
    first = order[starts]  # stable sort: the lowest index of each group
    counts = np.diff(np.append(np.flatnonzero(starts), count))
    groups = np.empty(count, np.int64)
    groups[order] = group_of_sorted
    if not keep_sorted:
        by_occurrence = np.argsort(first, kind="stable")
        renumber = np.empty_like(by_occurrence)
        renumber[by_occurrence] = np.arange(by_occurrence.size)
        first, counts, groups = first[by_occurrence], counts[by_occurrence], renumber[groups]
    return first, groups, counts


@register
@dataclass(frozen=True)
class Unique(Op):
    """Outputs: the unique elements (or slices along ``axis``), the index of each one's first
    occurrence, the index into the uniques of every input element (slice), and the counts; sorted
    ascending or in order of first occurrence. Without ``axis`` the input is flattened. Spec: Unique-10.
    """

    type_name = "Unique"
    introduced = 10
    inputs = Inputs.optional(1, InputSpec("data"), InputSpec("axis"))

    sorted: bool = attribute(True)
    index_element_type: ElementType = attribute(ElementType.I64)
    count_element_type: ElementType = attribute(ElementType.I64)

    def __post_init__(self) -> None:
        for name in ("index_element_type", "count_element_type"):
            value = getattr(self, name)
            check(value in INDEX_TYPES, f"The '{name}' attribute must be i32 or i64. Got: {value}")

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """Uniques, first indices, reverse indices, counts."""
        return 4

    def _types(self, shapes: Sequence[Shape], data_type: ElementType) -> list[TensorType]:
        unique, first, reverse, counts = shapes
        return [TensorType(data_type, unique), TensorType(self.index_element_type, first),
                TensorType(self.index_element_type, reverse), TensorType(self.count_element_type, counts)]

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """As OpenVINO infers: exact for constant data; ``[1..N]`` for static non-empty data, ``[?]`` for
        the rest; with an axis the uniques keep the other dims and the reverse indices have the axis dim."""
        data = inputs[0]
        if len(inputs) > 1:
            axis = inputs[1]
            check(axis.element_type.is_dynamic or axis.element_type.is_integral,
                  f"The axis input must be an integer. Got: {axis.element_type}")
            check(axis.shape.rank_is_dynamic or axis.shape.rank == 0 or
                  (axis.shape.rank == 1 and axis.shape[0].contains(1)),
                  f"The 'axis' input tensor must contain exactly one value. Got: {axis.shape}")
        known = [value for value in values if value is not None]
        if len(known) == len(values):  # the data and the axis (when given) are constants
            return self._types([Shape.static(x.shape) for x in self.evaluate(known)], data.element_type)
        unknown = Shape((Dim.dynamic(),))
        if data.shape.rank_is_dynamic:
            return self._types([Shape(None) if len(inputs) > 1 else unknown, unknown, unknown, unknown],
                               data.element_type)
        static = data.shape.is_static
        total = data.shape.element_count_bound() if static else None
        some = Shape((Dim(1, total),)) if total else unknown
        if len(inputs) == 1:
            if data.shape.rank == 0:
                one = Shape((Dim.static(1),))
                return self._types([one] * 4, data.element_type)
            return self._types([some, some, Shape((Dim.static(total),)) if total else unknown, some],
                               data.element_type)
        if values[1] is None:
            return self._types([Shape.dynamic(data.shape.rank), unknown, unknown, unknown], data.element_type)
        index = normalize_axis(integer_values(values[1], "axis")[0], data.shape.rank)
        dim = data.shape[index]
        unique = data.shape.replace(index, Dim(min(1, dim.min), dim.max))
        per_slice = Shape((Dim.static(0),)) if dim.max == 0 else some
        return self._types([unique, per_slice, Shape((dim,)), per_slice], data.element_type)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """:func:`unique_rows` of the flattened data, or of the slices along the axis."""
        data = inputs[0]
        if len(inputs) > 1:
            check(np.size(inputs[1]) == 1, f"The 'axis' input tensor must contain exactly one value. Got: "
                  f"{np.size(inputs[1])} values")
            axis = normalize_axis(integer_values(inputs[1], "axis")[0], data.ndim)
            slices = np.moveaxis(data, axis, 0)
            rows = slices.reshape(slices.shape[0], math.prod(slices.shape[1:]))  # not -1: there may be no slice
        else:
            axis = None
            slices = data.reshape(-1)
            rows = slices.reshape(-1, 1)
        first, groups, counts = unique_rows(rows, self.sorted)
        unique = slices[first]
        if axis is not None:
            unique = np.moveaxis(unique, 0, axis)
        index_type, count_type = self.index_element_type.numpy_dtype, self.count_element_type.numpy_dtype
        return [np.ascontiguousarray(unique), first.astype(index_type), groups.astype(index_type),
                counts.astype(count_type)]
