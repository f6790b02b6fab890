"""What the embedding-bag ops share: gathering table rows and summing them per bag in OpenVINO's order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Op, attribute, check, checked, integer_values

INDEX_TYPES = (ElementType.I32, ElementType.I64)
REDUCTIONS = ("sum", "mean")


def check_rows(indices: np.ndarray, rows: int, what: str) -> np.ndarray:
    """``indices`` as int64, each a row of the table: OpenVINO's references read past the table for
    any other value; irgraph refuses it."""
    wide = indices.astype(np.int64).reshape(-1)
    bad = (wide < 0) | (wide >= rows)
    if np.any(bad):
        raise OpError(f"{what} {int(wide[bad][0])} is out of the embedding table's {rows} rows")
    return wide


def bag_sums(table: np.ndarray, indices: np.ndarray, bags: np.ndarray, count: int, weights: np.ndarray | None,
             default_index: int | None, mean: bool) -> np.ndarray:
    """Rows ``table[indices[i]] * weights[i]`` added into ``out[bags[i]]`` in order, in the table's type
    (f16 and bf16 in f32, rounded once: openvino 2026.4.1 does not fold these ops and its CPU plugin sums so);
    bags nothing reaches get the ``default_index`` row (when given and >= 0) or zeros; ``mean`` divides
    each bag by how many rows it summed (the default row counts as one)."""
    result_type = table.dtype
    if table.dtype.kind in "fV" and table.dtype.itemsize < 4:  # f16/bf16 summed in f32, as the CPU plugin does
        table = table.astype(np.float32)
        weights = None if weights is None else weights.astype(np.float32)
    out = np.zeros((count,) + table.shape[1:], table.dtype)
    rows = table[indices]
    if weights is not None:
        rows = rows * weights.reshape((-1,) + (1,) * (table.ndim - 1))
    np.add.at(out, bags, rows)
    counts = np.bincount(bags, minlength=count)
    if default_index is not None and default_index >= 0:
        empty = counts == 0
        out[empty] = table[default_index]
        counts = np.where(empty, 1, counts)
    if mean:
        filled = counts > 0
        divisor = counts[filled].astype(table.dtype).reshape((-1,) + (1,) * (table.ndim - 1))
        out[filled] = out[filled] / divisor
    return out.astype(result_type, copy=False)


@dataclass(frozen=True)
class EmbeddingBase(Op):
    """Shared checks: an index type for the index-like inputs, the table's type for the weights."""

    @property
    def reduction_mode(self) -> str:
        return "sum"

    def _check_types(self, inputs: Sequence[TensorType], index_inputs: Sequence[int], weights: int | None) -> None:
        table = inputs[0]
        check(table.shape.rank_is_dynamic or table.shape.rank >= 1,
              f"EMB_TABLE must be at least 1D. Got: {table.shape}")
        merged = ElementType.DYNAMIC
        for index in index_inputs:
            if index < len(inputs):
                element_type = inputs[index].element_type
                check(element_type.is_dynamic or element_type in INDEX_TYPES,
                      f"The index inputs must be i32 or i64. Got: {element_type}")
                merged = checked(merged.merge(element_type), "The index inputs must have the same element type")
        if weights is not None and weights < len(inputs):
            check(inputs[0].element_type.merge(inputs[weights].element_type) is not None,
                  f"Per sample weight element type ({inputs[weights].element_type}) must match embedding table "
                  f"element type ({inputs[0].element_type})")
            check(self.reduction_mode == "sum", "Per sample weights can only be used in Reduction::SUM mode.")

    @staticmethod
    def _output(table: TensorType, first: Dim) -> list[TensorType]:
        if table.shape.dims is None:
            return [TensorType(table.element_type, Shape(None))]
        return [TensorType(table.element_type, Shape((first, *table.shape.dims[1:])))]

    @staticmethod
    def _default(inputs: Sequence[np.ndarray], position: int, rows: int) -> int | None:
        if len(inputs) <= position:
            return None
        check(np.size(inputs[position]) == 1, "DEFAULT_INDEX must be a scalar")
        value = integer_values(inputs[position], "default_index")[0]
        check(value < rows, f"default_index {value} is out of the embedding table's {rows} rows")
        return value


@dataclass(frozen=True)
class ChosenReduction(EmbeddingBase):
    """The ``reduction`` attribute of the -15 bags (EmbeddingBagOffsets, EmbeddingBagPacked): sum or mean,
    mixed in before the -3 op whose inputs they keep."""

    reduction: str = attribute("sum")

    def __post_init__(self) -> None:
        check(self.reduction in REDUCTIONS, f"Attribute 'reduction' must be sum or mean. Got: {self.reduction!r}")

    @property
    def reduction_mode(self) -> str:
        return self.reduction
