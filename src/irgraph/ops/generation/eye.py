"""Eye-9: identity-like matrices (ones on one diagonal), optionally batched."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, integer_values
from irgraph.ops.registry import register

INT_TYPES = (ElementType.I32, ElementType.I64)


@register
@dataclass(frozen=True)
class Eye(Op):
    """``num_rows`` x ``num_columns`` zeros with ones at (i, i + diagonal_index), tiled over
    ``batch_shape``. Spec: Eye-9."""

    type_name = "Eye"
    introduced = 9
    inputs = Inputs.optional(
        3,
        InputSpec("num_rows"),
        InputSpec("num_columns"),
        InputSpec("diagonal_index"),
        InputSpec("batch_shape"),
    )

    output_type: ElementType = attribute(ir_name="output_type")

    def __post_init__(self) -> None:
        check(self.output_type.numpy_dtype is not None and not self.output_type.is_packed
              and self.output_type is not ElementType.STRING,
              f"Eye: output_type must be a numeric or boolean type. Got: {self.output_type}")

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``batch_shape + [num_rows, num_columns]``; dims whose inputs are not constant are dynamic."""
        names = ("num_rows", "num_columns", "diagonal_index", "batch_shape")
        for name, tensor in zip(names, inputs, strict=False):
            check(tensor.element_type.is_dynamic or tensor.element_type in INT_TYPES,
                  f"Type of the '{name}' should be int32 or int64. Got: {tensor.element_type}")
            if name != "batch_shape":
                check(tensor.shape.rank_is_dynamic or tensor.shape.rank == 0 or
                      (tensor.shape.rank == 1 and tensor.shape[0].contains(1)),
                      f"'{name}' value input should have 1 element. Got: {tensor.shape}")
            else:
                check(tensor.shape.rank_is_dynamic or tensor.shape.rank == 1,
                      f"'batch_shape' input must be a 1D tensor. Got: {tensor.shape}")
        dims = []
        for index, name in enumerate(names[:2]):
            value = values[index]
            if value is None:
                dims.append(Dim.dynamic())
            else:
                dims.append(Dim.static(self._size(value, name)))
        if len(inputs) > 3:
            batch = values[3]
            if batch is not None:
                sizes = [self._size(np.asarray(v), "batch_shape") for v in np.asarray(batch).reshape(-1)]
                return [TensorType(self.output_type, Shape((*map(Dim.static, sizes), *dims)))]
            batch_shape = inputs[3].shape
            if batch_shape.rank_is_dynamic or batch_shape[0].is_dynamic:
                return [TensorType(self.output_type, Shape(None))]
            return [TensorType(self.output_type, Shape((*[Dim.dynamic()] * batch_shape[0].value, *dims)))]
        return [TensorType(self.output_type, Shape(tuple(dims)))]

    @staticmethod
    def _size(value: np.ndarray, name: str) -> int:
        check(np.size(value) == 1 or name == "batch_shape", f"'{name}' value input should have 1 element. "
              f"Got: {np.size(value)} elements")
        size = integer_values(value, name)[0]
        check(size >= 0, f"'{name}' must not be negative. Got: {size}")
        return size

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """``batch_shape + [num_rows, num_columns]`` from the values: checked before anything is allocated."""
        rows, columns = self._size(inputs[0], "num_rows"), self._size(inputs[1], "num_columns")
        check(np.size(inputs[2]) == 1, f"'diagonal_index' value input should have 1 element. Got: "
              f"{np.size(inputs[2])} elements")
        batch: tuple[int, ...] = ()
        if len(inputs) > 3:
            check(inputs[3].ndim == 1, f"'batch_shape' input must be a 1D tensor. Got shape {list(inputs[3].shape)}")
            batch = tuple(self._size(np.asarray(v), "batch_shape") for v in inputs[3].reshape(-1))
        return [(*batch, rows, columns)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """np.eye broadcast over the batch (the size was checked by :meth:`output_shapes` first)."""
        (shape,) = self.output_shapes(inputs)
        diagonal = integer_values(inputs[2], "diagonal_index")[0]
        rows, columns = shape[-2:]
        diagonal = max(-rows, min(diagonal, columns))  # a diagonal beyond the matrix: all zeros
        matrix = np.eye(rows, columns, k=diagonal, dtype=self.output_type.numpy_dtype)
        return [np.broadcast_to(matrix, shape).copy()]
