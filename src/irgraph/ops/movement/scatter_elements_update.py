"""ScatterElementsUpdate-3 and ScatterElementsUpdate-12: write each update element along an axis."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import TensorType
from irgraph.ops.families.scatter import axis_value, indices_in_range, scatter_rows
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, checked
from irgraph.ops.registry import register

ELEMENT_REDUCTIONS = ("none", "sum", "prod", "min", "max", "mean")


@dataclass(frozen=True)
class ScatterElementsUpdateBase(Op):
    """``data[..., indices[i, j, ...], ...] = updates[i, j, ...]`` with the index along ``axis``;
    negative indices count from the end, others outside the axis are an error (as OpenVINO's
    reference raises). Updates apply in row-major order of the indices."""

    type_name = "ScatterElementsUpdate"
    inputs = Inputs.of(InputSpec("data"), InputSpec("indices"), InputSpec("updates"), InputSpec("axis"))

    @property
    def _reduction(self) -> tuple[str, bool]:
        return "none", True

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data type; indices of data's rank, updates of indices' shape."""
        data, indices, updates, axis = inputs
        check(indices.element_type.is_dynamic or indices.element_type.is_integral,
              f"Indices element type must be integral_number, but is: {indices.element_type}")
        check(axis.element_type.is_dynamic or axis.element_type.is_integral,
              f"Axis element type must be integral_number, but is: {axis.element_type}")
        merged = data.element_type.merge(updates.element_type)
        merged = checked(merged, f"Data type and updates type are required to be the same. Got: "
              f"{data.element_type} and {updates.element_type}")
        if self._reduction[0] == "mean":
            check(merged is not ElementType.BOOLEAN, "The 'mean' reduction type is not supported for boolean tensors")
        check(axis.shape.rank_is_dynamic or axis.shape.rank == 0 or
              (axis.shape.rank == 1 and axis.shape[0].contains(1)),
              f"Axis input shape are required to be scalar or 1D tensor. Got: {axis.shape}")
        if not data.shape.rank_is_dynamic and not indices.shape.rank_is_dynamic:
            check(indices.shape.rank == data.shape.rank, f"Indices rank and data rank are required to be equal. "
                  f"Got: {indices.shape} and {data.shape}")
        if not indices.shape.rank_is_dynamic and not updates.shape.rank_is_dynamic:
            check(indices.shape.compatible(updates.shape), f"Indices and updates input shapes are required to be "
                  f"equal. Got: {indices.shape} and {updates.shape}")
        return [TensorType(merged, data.shape)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Flat positions from the indices and the coordinates of each update, then :func:`scatter_rows`."""
        data, indices, updates, axis_input = inputs
        check(indices.ndim == data.ndim, f"Indices rank and data rank are required to be equal. Got: "
              f"{list(indices.shape)} and {list(data.shape)}")
        check(indices.shape == updates.shape, f"Indices and updates input shapes are required to be equal. Got: "
              f"{list(indices.shape)} and {list(updates.shape)}")
        result = data.copy()
        if data.ndim == 0:
            return [result]
        axis = axis_value(axis_input, data.ndim)
        along = indices_in_range(indices, data.shape[axis], "ScatterElementsUpdate", negative=True)
        coordinates: list[np.ndarray] = list(np.indices(indices.shape, sparse=True))
        coordinates[axis] = along
        for index, size in enumerate(data.shape):
            if index != axis:
                check(indices.shape[index] <= size, f"Indices shape {list(indices.shape)} exceeds the data shape "
                      f"{list(data.shape)} along axis {index}")
        positions = np.ravel_multi_index(np.broadcast_arrays(*coordinates), data.shape).reshape(-1)
        reduction, use_init_val = self._reduction
        scatter_rows(result.reshape(-1), positions.astype(np.int64), updates.reshape(-1), reduction, use_init_val)
        return [result]


@register
@dataclass(frozen=True)
class ScatterElementsUpdate3(ScatterElementsUpdateBase):
    """ScatterElementsUpdate-3: the last update of a repeated position stays. Spec: ScatterElementsUpdate-3."""

    introduced = 3


@register
@dataclass(frozen=True)
class ScatterElementsUpdate12(ScatterElementsUpdateBase):
    """ScatterElementsUpdate-12: ``reduction`` none/sum/prod/min/max/mean; ``use_init_val`` says whether
    the data value takes part (integer mean floors). Spec: ScatterElementsUpdate-12."""

    introduced = 12

    reduction: str = attribute("none")
    use_init_val: bool = attribute(True)

    def __post_init__(self) -> None:
        check(self.reduction in ELEMENT_REDUCTIONS,
              f"Attribute 'reduction' must be one of {', '.join(ELEMENT_REDUCTIONS)}. Got: {self.reduction!r}")

    @property
    def _reduction(self) -> tuple[str, bool]:
        return self.reduction, self.use_init_val
