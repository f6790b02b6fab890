"""SearchSorted-15: where each value would be inserted into a sorted sequence (torch.searchsorted)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, checked
from irgraph.ops.registry import register

CHUNK_ELEMENTS = 1 << 22
"""Rows are compared this many (value, sequence element) pairs at a time, to bound the memory used."""


@register
@dataclass(frozen=True)
class SearchSorted(Op):
    """For each value, the number of elements of its sorted row that are smaller (``right_mode``: smaller or
    equal): ``std::lower_bound`` with ``<`` (``<=``), as OpenVINO's reference. A 1D sequence serves every
    value; otherwise the sequence and the values share every dim but the last, each value searching its
    own row. The rows must be sorted ascending (the result is unspecified otherwise, and irgraph's counting
    may then differ from a binary search); NaN is not ordered. Spec: SearchSorted-15.
    """

    type_name = "SearchSorted"
    introduced = 15
    inputs = Inputs.of(InputSpec("sorted_sequence"), InputSpec("values"))

    right_mode: bool = attribute(False)
    output_type: ElementType = attribute(ElementType.I64)

    def __post_init__(self) -> None:
        check(self.output_type in (ElementType.I32, ElementType.I64),
              f"The element type of the output must be i32 or i64. Got: {self.output_type}")

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The values' shape (OpenVINO's rule, rows' dims merged), of ``output_type``."""
        sequence, found = inputs
        if sequence.element_type.merge(found.element_type) is None:
            raise OpError(f"Sorted sequence and values must have the same element type. Got: {sequence.element_type} "
                          f"and {found.element_type}")
        if not sequence.shape.rank_is_dynamic:
            check(sequence.shape.rank > 0, "The sorted sequence input cannot be a scalar.")
        if found.shape.rank_is_dynamic and not sequence.shape.rank_is_dynamic:
            shape = sequence.shape.replace(sequence.shape.rank - 1, Dim.dynamic())
        else:
            shape = found.shape
        if not found.shape.rank_is_dynamic and found.shape.rank == 0:
            check(sequence.shape.rank_is_dynamic or sequence.shape.rank == 1,
                  "If values input is a scalar the sorted sequence must be a 1D tensor.")
        if not sequence.shape.rank_is_dynamic and not found.shape.rank_is_dynamic and sequence.shape.rank > 1:
            check(sequence.shape.rank == found.shape.rank, "The inputs' ranks have to be compatible.")
            dims = list(shape)
            for index in range(sequence.shape.rank - 1):
                dims[index] = checked(sequence.shape[index].merge(found.shape[index]),
                                      "All dimensions but the last one have to be compatible.")
            shape = Shape(tuple(dims))
        return [TensorType(self.output_type, shape)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Count, row by row (rows compared in bounded chunks), the elements below each value."""
        sequence, found = np.asarray(inputs[0]), np.asarray(inputs[1])
        if sequence.dtype != found.dtype:
            raise OpError(f"Sorted sequence and values must have the same element type. Got: {sequence.dtype} and "
                          f"{found.dtype}")
        if sequence.ndim == 0:
            raise OpError("The sorted sequence input cannot be a scalar.")
        dtype = self.output_type.numpy_dtype
        if sequence.ndim == 1:
            side: Literal["left", "right"] = "right" if self.right_mode else "left"
            return [np.searchsorted(sequence, found, side=side).astype(dtype).reshape(found.shape)]
        if sequence.ndim != found.ndim or sequence.shape[:-1] != found.shape[:-1]:
            raise OpError(f"All dimensions but the last one have to be compatible. Got: {list(sequence.shape)} and "
                          f"{list(found.shape)}")
        count = int(np.prod(sequence.shape[:-1]))
        rows = sequence.reshape(count, sequence.shape[-1])
        targets = found.reshape(count, found.shape[-1])
        counts = np.empty(targets.shape, np.int64)
        step = max(1, CHUNK_ELEMENTS // max(1, rows.shape[1] * targets.shape[1]))
        for start in range(0, rows.shape[0], step):
            window = slice(start, start + step)
            pairs = rows[window, None, :], targets[window, :, None]
            below = pairs[0] <= pairs[1] if self.right_mode else pairs[0] < pairs[1]
            counts[window] = below.sum(axis=2)
        return [counts.astype(dtype).reshape(found.shape)]
