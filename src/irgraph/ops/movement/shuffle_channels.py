"""ShuffleChannels-1: interleave channel groups."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, normalize_axis
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class ShuffleChannels(Op):
    """Split ``axis`` into (group, size / group), swap the two and join them. Spec: ShuffleChannels-1."""

    type_name = "ShuffleChannels"
    introduced = 1
    inputs = Inputs.of(InputSpec("data"))

    axis: int = attribute(1)
    group: int = attribute(1)

    def __post_init__(self) -> None:
        check(self.group >= 1, f"The 'group' parameter must be greater or equal to 1. Got: {self.group}")

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The input type, once the axis divides by ``group``."""
        (data,) = inputs
        if not data.shape.rank_is_dynamic:
            check(data.shape.rank >= 1, "The input tensor's shape is expected to be at least 1D.")
            dim = data.shape[normalize_axis(self.axis, data.shape.rank)]
            if dim.is_static:
                check(dim.value % self.group == 0,
                      f"The channel dimension size has to be a multiple of the groups parameter value. Got: "
                      f"{dim.value} and {self.group}")
        return [data]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Reshape to (outer, group, size / group, inner), swap axes 1 and 2, reshape back."""
        data = np.asarray(inputs[0])
        check(data.ndim >= 1, "The input tensor's shape is expected to be at least 1D.")
        axis = normalize_axis(self.axis, data.ndim)
        size = data.shape[axis]
        check(size % self.group == 0, f"The channel dimension size has to be a multiple of the groups parameter "
                                      f"value. Got: {size} and {self.group}")
        outer, inner = math.prod(data.shape[:axis]), math.prod(data.shape[axis + 1:])
        split = data.reshape(outer, self.group, size // self.group, inner)
        return [np.swapaxes(split, 1, 2).reshape(data.shape)]
