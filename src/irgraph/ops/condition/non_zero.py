"""NonZero-3: the coordinates of the non-zero elements, one row per input dimension."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check
from irgraph.ops.registry import register

INDEX_TYPES = (ElementType.I32, ElementType.I64)


@register
@dataclass(frozen=True)
class NonZero(Op):
    """Indices of the non-zero elements (NaN counts as non-zero, -0.0 as zero), row-major order; a
    ``[rank, count]`` tensor whose count depends on the data (``[0, N]`` when inferred). Spec: NonZero-3."""

    type_name = "NonZero"
    introduced = 3
    inputs = Inputs.of(InputSpec("data"))

    output_type: ElementType = attribute(ElementType.I64)

    def __post_init__(self) -> None:
        check(self.output_type in INDEX_TYPES,
              f"Output type must be i32 or i64. Got: {self.output_type}")

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[rank, 0..N]``: N is the largest element count the input shape allows (unbounded if unknown); a
        scalar gives ``[?,?]`` as OpenVINO infers it; a constant input its exact shape."""
        data = inputs[0]
        if values[0] is not None:  # a constant input: OpenVINO infers the exact count
            return [TensorType(self.output_type, Shape.static(self.evaluate([values[0]])[0].shape))]
        if data.shape.rank_is_dynamic or data.shape.rank == 0:
            return [TensorType(self.output_type, Shape((Dim.dynamic(), Dim.dynamic())))]
        bound = data.shape.element_count_bound()
        count = Dim(0, bound)
        return [TensorType(self.output_type, Shape((Dim.static(data.shape.rank), count)))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """np.nonzero of ``data != 0``, stacked (at most rank x N elements: the input's own size)."""
        data = inputs[0]
        mask = data != 0 if data.dtype != np.bool_ else data
        if data.ndim == 0:  # OpenVINO 2026.4.1's reference: [[0]] for a non-zero scalar, else a [0,0] tensor
            found = int(bool(mask))
            return [np.zeros((found, found), self.output_type.numpy_dtype)]
        coordinates = np.nonzero(mask)
        return [np.array(coordinates, dtype=self.output_type.numpy_dtype).reshape(data.ndim, -1)]
