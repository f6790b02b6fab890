"""SoftMax-1 and SoftMax-8: exp(x - max) / sum(exp(x - max)) along an axis (SoftMax-8 takes negative axes)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import TensorType
from irgraph.ops.families.elementwise import NUMERIC, widened
from irgraph.ops.numeric import convert
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check, normalize_axis
from irgraph.ops.registry import register


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """exp(x - max) / sum(exp(x - max)) along ``axis`` (OpenVINO's reference order of operations)."""
    if x.size == 0:
        return x.copy()
    shifted = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return shifted / np.sum(shifted, axis=axis, keepdims=True)


@dataclass(frozen=True)
class _SoftMax(Op):
    """What the versions share; ``lowest_axis`` is the smallest axis the version takes."""

    type_name = "SoftMax"
    inputs = Inputs.of(InputSpec("data"))
    tolerance = Tolerance(ulp=8, eps=1)

    axis: int = attribute(1)

    def _axis(self, rank: int) -> int:
        if self.axis < 0 and self.introduced < 8:
            check(False, f"Reduction axis ({self.axis}) is out of bounds (argument shape rank: {rank}); SoftMax-1 "
                         "takes no negative axis")
        return normalize_axis(self.axis, rank)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The input type, once the axis fits its rank."""
        (data,) = inputs
        NUMERIC.check(data.element_type)
        if not data.shape.rank_is_dynamic:
            self._axis(data.shape.rank)
        return [data]

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The input shape."""
        return [inputs[0].shape]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Softmax along the axis."""
        (data,) = inputs
        NUMERIC.check(ElementType.from_numpy(data.dtype))
        axis = self._axis(data.ndim)
        if data.dtype.kind in "iu":  # computed in f64 and truncated back, as OpenVINO's reference casts
            result = softmax(data.astype(np.float64), axis)
            return [convert(result, ElementType.F64, ElementType.from_numpy(data.dtype))]
        return [widened(lambda x: softmax(x, axis), (data,), data.dtype)]


@register
@dataclass(frozen=True)
class SoftMax1(_SoftMax):
    """Softmax along ``axis`` in [0, rank) (opsets 1-7). Spec: SoftMax-1."""

    introduced = 1


@register
@dataclass(frozen=True)
class SoftMax8(_SoftMax):
    """Softmax along ``axis`` in [-rank, rank) (opsets 8-16). Spec: SoftMax-8."""

    introduced = 8
