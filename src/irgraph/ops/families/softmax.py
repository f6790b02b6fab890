"""What SoftMax and LogSoftmax share: one axis checked against the rank, the input type kept, integers
computed in f64 and truncated back (as OpenVINO's reference casts), floats widened and rounded once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import TensorType
from irgraph.ops.families.elementwise import NUMERIC, widened
from irgraph.ops.numeric import convert
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, normalize_axis


@dataclass(frozen=True)
class AlongAxis(Op):
    """A normalisation along ``axis``; members give the formula (:meth:`along`) and whether negative axes count
    from the end."""

    inputs = Inputs.of(InputSpec("data"))
    negative_axes: ClassVar[bool] = True

    axis: int = attribute(1)

    def along(self, x: np.ndarray, axis: int) -> np.ndarray:
        """The formula on a floating-point array (an empty one included)."""
        raise NotImplementedError

    def _axis(self, rank: int) -> int:
        if self.axis < 0 and not self.negative_axes:
            check(False, f"Reduction axis ({self.axis}) is out of bounds (argument shape rank: {rank}); "
                         f"{self.type_name}-{self.introduced} takes no negative axis")
        return normalize_axis(self.axis, rank)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The input type, once the axis fits its rank."""
        (data,) = inputs
        NUMERIC.check(data.element_type)
        if not data.shape.rank_is_dynamic:
            self._axis(data.shape.rank)
        return [data]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The formula along the axis."""
        (data,) = inputs
        NUMERIC.check(ElementType.from_numpy(data.dtype))
        axis = self._axis(data.ndim)
        if data.dtype.kind in "iu":  # computed in f64 and truncated back, as OpenVINO's reference casts
            result = self.along(data.astype(np.float64), axis)
            return [convert(result, ElementType.F64, ElementType.from_numpy(data.dtype))]
        return [widened(lambda x: self.along(x, axis), (data,), data.dtype)]
