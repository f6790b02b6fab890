"""ScatterNDUpdate-3 and ScatterNDUpdate-15: write updates at N-dimensional index tuples."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import TensorType
from irgraph.ops.families.scatter import indices_in_range, scatter_rows, shapes_compatible
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, checked
from irgraph.ops.registry import register

ND_REDUCTIONS = ("none", "sum", "sub", "prod", "min", "max")
INDEX_TYPES = (ElementType.I32, ElementType.I64)


@dataclass(frozen=True)
class ScatterNDUpdateBase(Op):
    """``data[indices[i]] = updates[i]`` where each ``indices[i]`` (the last axis, length k) addresses
    a slice of the first k data dims; negative indices count from the end; any other index outside the
    data is an error (the reference checks only the flat offset and may write a wrong row; irgraph
    checks each coordinate). Repeated index tuples apply in order."""

    type_name = "ScatterNDUpdate"
    inputs = Inputs.of(InputSpec("data"), InputSpec("indices"), InputSpec("updates"))

    @property
    def _reduction(self) -> str:
        return "none"

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data type; updates must be ``indices[:-1] + data[k:]``."""
        data, indices, updates = inputs
        check(indices.element_type.is_dynamic or indices.element_type in INDEX_TYPES,
              f"The indices element type must be i32 or i64. Got: {indices.element_type}")
        merged = data.element_type.merge(updates.element_type)
        merged = checked(merged, f"Element types for input data and updates do not match. Got: "
              f"{data.element_type} and {updates.element_type}")
        check(indices.shape.rank_is_dynamic or indices.shape.rank >= 1,
              f"Indices rank is expected to be at least 1. Got: {indices.shape}")
        if not indices.shape.rank_is_dynamic and not data.shape.rank_is_dynamic and indices.shape[-1].is_static:
            k = indices.shape[-1].value
            check(k <= data.shape.rank, f"Last dimension of indices can be at most the rank of data. Got: "
                  f"indices {indices.shape}, data {data.shape}")
            expected = (*(indices.shape.dims or ())[:-1], *(data.shape.dims or ())[k:])  # both ranks are known
            check(shapes_compatible(updates.shape, expected),
                  f"updates_shape[indices_rank-1:] shape must be data_shape[indices_shape[-1]:]. Got: updates "
                  f"{updates.shape}, data {data.shape}, indices {indices.shape}")
        return [TensorType(merged, data.shape)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Flat row positions over the first k dims, then :func:`scatter_rows`."""
        data, indices, updates = inputs
        check(indices.ndim >= 1, "Indices rank is expected to be at least 1. Got a scalar")
        k = indices.shape[-1]
        check(k <= data.ndim, f"Last dimension of indices can be at most the rank of data. Got: indices "
              f"{list(indices.shape)}, data {list(data.shape)}")
        expected = indices.shape[:-1] + data.shape[k:]
        check(updates.shape == expected, f"updates_shape[indices_rank-1:] shape must be data_shape[indices_shape[-1]:]."
              f" Got: updates {list(updates.shape)}, expected {list(expected)}")
        tuples = indices.reshape(-1, k)
        coordinates = [indices_in_range(tuples[:, j], data.shape[j], "ScatterNDUpdate", negative=True)
                       for j in range(k)]
        head = data.shape[:k]
        positions = np.ravel_multi_index(coordinates, head) if k else np.zeros(tuples.shape[0], np.int64)
        result = data.copy()
        target = result.reshape((int(np.prod(head, dtype=np.int64)),) + data.shape[k:])
        rows = updates.reshape((tuples.shape[0],) + data.shape[k:])
        scatter_rows(target, np.asarray(positions, np.int64), rows, self._reduction)
        return [result]


@register
@dataclass(frozen=True)
class ScatterNDUpdate3(ScatterNDUpdateBase):
    """ScatterNDUpdate-3 (OpenVINO's v3, first in opset4): the last update of a repeated index tuple stays.
    Spec: ScatterNDUpdate-3."""

    introduced = 4


@register
@dataclass(frozen=True)
class ScatterNDUpdate15(ScatterNDUpdateBase):
    """ScatterNDUpdate-15: ``reduction`` none/sum/sub/prod/min/max combines the data with the updates,
    applied in order (booleans: sum/max OR, sub XOR, prod/min AND). Spec: ScatterNDUpdate-15."""

    introduced = 15

    reduction: str = attribute("none")

    def __post_init__(self) -> None:
        check(self.reduction in ND_REDUCTIONS,
              f"Attribute 'reduction' must be one of {', '.join(ND_REDUCTIONS)}. Got: {self.reduction!r}")

    @property
    def _reduction(self) -> str:
        return self.reduction
