"""SparseFillEmptyRows-16: a 2D sparse tensor with a default value added at column 0 of each empty row."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, check, integer_values
from irgraph.ops.registry import register

_INDEX_TYPES = (ElementType.I32, ElementType.I64)


@register
@dataclass(frozen=True)
class SparseFillEmptyRows(Op):
    """Outputs the indices ``[M, 2]``, values ``[M]`` and ``empty_row_indicator`` ``[rows]`` (boolean).

    The entries (values at ``indices`` of a ``dense_shape`` ``[rows, columns]`` tensor) plus ``default_value``
    at ``(row, 0)`` of every row no index names, sorted by row then column; entries at the same position keep
    their order (OpenVINO's reference sorts without a stable order there). Values of any type, strings
    included. Spec: SparseFillEmptyRows-16.
    """

    type_name = "SparseFillEmptyRows"
    introduced = 16
    cpu_plugin_differs = ("openvino 2026.4.1's CPU plugin writes garbage (1.05e12 for a default of 7) as the values "
                          "of a sparse tensor with no entries")
    inputs = Inputs.of(InputSpec("values"), InputSpec("dense_shape"),
                       InputSpec("indices"), InputSpec("default_value"))

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """Indices, values and the empty row indicator."""
        return 3

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """OpenVINO's rule: ``[indices + empty rows, 2]``, ``[values + empty rows]``, ``[rows]`` where known."""
        values_type, dense_type, indices_type = (t.element_type for t in inputs[:3])
        check(dense_type.is_dynamic or indices_type.is_dynamic or dense_type is indices_type,
              f"The element types of the dense_shape and indices inputs must match. Got: {dense_type} and "
              f"{indices_type}")
        for kind, name in ((dense_type, "dense_shape"), (indices_type, "indices")):
            check(kind.is_dynamic or kind in _INDEX_TYPES,
                  f"The element type of the {name} input must be i32 or i64. Got: {kind}")
        index_type = dense_type if not dense_type.is_dynamic else indices_type
        value_shape, dense, indices, default = (t.shape for t in inputs)
        check(value_shape.rank_is_dynamic or value_shape.rank == 1, "The values input must be a 1D tensor.")
        check(dense.rank_is_dynamic or (dense.rank == 1 and dense[0].compatible(Dim.static(2))),
              "The dense_shape input must be 1D and have exactly 2 elements, meaning only 2D sparse tensors are "
              "supported.")
        if not indices.rank_is_dynamic:
            values_dim = value_shape[0] if not value_shape.rank_is_dynamic else Dim.dynamic()
            check(indices.rank == 2 and indices[1].compatible(Dim.static(2))
                  and (dense.rank_is_dynamic or indices[0].compatible(values_dim)),
                  "The indices input must be a 2D tensor with the first dimension matching the size of values and "
                  "the second dimension having 2 elements.")
        check(default.rank_is_dynamic or default.rank == 0, "The default_value input must be a scalar.")
        entries, rows = Dim.dynamic(), Dim.dynamic()
        values_count = Dim.dynamic()
        if values[1] is not None:
            shape = integer_values(values[1], "dense_shape")
            rows = Dim.static(shape[0])
            if values[2] is not None:
                empty = shape[0] - len(self._existing_rows(values[2], shape))
                index_rows = indices[0] if not indices.rank_is_dynamic else Dim.dynamic()
                entries = index_rows + empty
                values_count = (value_shape[0] if not value_shape.rank_is_dynamic else Dim.dynamic()) + empty
        return [TensorType(index_type, Shape((entries, Dim.static(2)))),
                TensorType(values_type, Shape((values_count,))), TensorType(ElementType.BOOLEAN, Shape((rows,)))]

    @staticmethod
    def _existing_rows(indices: np.ndarray, dense_shape: Sequence[int]) -> set[int]:
        """The rows the indices name; OpenVINO's message for an index outside the dense shape."""
        pairs = np.asarray(indices).reshape(-1)
        rows, columns = int(dense_shape[0]), int(dense_shape[1])
        found = set()
        for row, column in zip(pairs[0::2].tolist(), pairs[1::2].tolist(), strict=False):
            check(0 <= row < rows, f"Sparse tensor index out of bounds: row {row} is outside the valid range [0, "
                  f"{rows - 1}]")
            check(0 <= column < columns, f"Sparse tensor index out of bounds: column {column} is outside the valid "
                  f"range [0, {columns - 1}]")
            found.add(row)
        return found

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The three shapes from the dense shape and the indices."""
        types = [TensorType(element_type_of(np.asarray(x)), Shape.static(np.shape(x))) for x in inputs]
        return [t.shape.to_tuple() for t in self.infer(types, [None, inputs[1], inputs[2], None])]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The entries and the empty rows' defaults, sorted by (row, column) (stable)."""
        self.output_shapes(inputs)
        values, dense_shape, indices, default = (np.asarray(x) for x in inputs)
        rows = integer_values(dense_shape, "dense_shape")[0]
        pairs = indices.reshape(-1, 2)
        check(pairs.shape[0] == values.shape[0], f"The indices input must name one position per value. Got "
              f"{pairs.shape[0]} positions for {values.shape[0]} values")
        empty = np.ones(max(rows, 0), bool)
        empty[pairs[:, 0].astype(np.int64)] = False
        empty_rows = np.flatnonzero(empty).astype(indices.dtype)
        added = np.stack([empty_rows, np.zeros_like(empty_rows)], axis=1)
        all_pairs = np.concatenate([pairs, added]).astype(indices.dtype, copy=False)
        order = np.lexsort((all_pairs[:, 1], all_pairs[:, 0]))  # stable: row, then column, then source order
        filled = np.concatenate([values, np.full(len(empty_rows), default.reshape(()).item()
                                                 if values.dtype == object else default, values.dtype)])
        return [np.ascontiguousarray(all_pairs[order]), filled[order], empty]


def element_type_of(array: np.ndarray) -> ElementType:
    """The element type of a run-time array: strings are held as object arrays."""
    return ElementType.STRING if array.dtype == object else ElementType.from_numpy(array.dtype)
