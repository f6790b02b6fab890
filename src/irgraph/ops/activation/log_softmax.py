"""LogSoftmax-5: x - max - log(sum(exp(x - max))) along an axis."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import TensorType
from irgraph.ops.families.elementwise import NUMERIC, widened
from irgraph.ops.numeric import convert
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, normalize_axis
from irgraph.ops.registry import register


def log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """(x - max) - log(sum(exp(x - max))) along ``axis``."""
    if x.size == 0:
        return x.copy()
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


@register
@dataclass(frozen=True)
class LogSoftmax(Op):
    """Log of softmax along ``axis`` in [-rank, rank). Spec: LogSoftmax-5."""

    type_name = "LogSoftmax"
    introduced = 5
    inputs = Inputs.of(InputSpec("data"))
    tolerance = Tolerance(ulp=4, eps=2)

    axis: int = attribute(1)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The input type, once the axis fits its rank."""
        (data,) = inputs
        NUMERIC.check(data.element_type)
        if not data.shape.rank_is_dynamic:
            normalize_axis(self.axis, data.shape.rank)
        return [data]

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The input shape."""
        return [inputs[0].shape]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Log-softmax along the axis."""
        (data,) = inputs
        NUMERIC.check(ElementType.from_numpy(data.dtype))
        axis = normalize_axis(self.axis, data.ndim)
        if data.dtype.kind in "iu":  # computed in f64 and truncated back, as OpenVINO's reference casts
            result = log_softmax(data.astype(np.float64), axis)
            return [convert(result, ElementType.F64, ElementType.from_numpy(data.dtype))]
        return [widened(lambda x: log_softmax(x, axis), (data,), data.dtype)]
