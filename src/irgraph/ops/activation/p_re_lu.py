"""PReLU-1 (IR type ``PReLU``): element-wise x >= 0 ? x : slope * x, slope per channel or broadcast."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import TensorType
from irgraph.ops.families.elementwise import NUMERIC, merge_element_types, widened
from irgraph.ops.op import Inputs, InputSpec, Op
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class PReLU(Op):
    """x < 0 ? slope * x : x. Spec: PRelu-1.

    A 1-D slope whose length is the data's channel dim (dim 1) applies per channel; otherwise the
    slope broadcasts to the data numpy-style. The output has the data's shape.
    """

    type_name = "PReLU"
    introduced = 1
    inputs = Inputs.of(InputSpec("data"), InputSpec("slope"))

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data type, once the slope's element type matches."""
        data, slope = inputs
        NUMERIC.check(merge_element_types([data.element_type, slope.element_type]))
        return [TensorType(merge_element_types([data.element_type, slope.element_type]), data.shape)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """slope * x where x is negative."""
        data, slope = inputs
        if data.dtype != slope.dtype:
            raise OpError(f"Argument element types are inconsistent. Got: {data.dtype} and {slope.dtype}")
        NUMERIC.check(ElementType.from_numpy(data.dtype))
        slope = channel_slope(data.shape, slope)

        def prelu(x: np.ndarray, s: np.ndarray) -> np.ndarray:
            return np.where(x < 0, x * s, x)

        return [widened(prelu, (data, slope), data.dtype)]


def channel_slope(shape: tuple[int, ...], slope: np.ndarray) -> np.ndarray:
    """The slope shaped to broadcast over data of ``shape`` (per channel when it matches dim 1)."""
    if slope.ndim == 1 and len(shape) >= 2 and slope.shape[0] == shape[1] and slope.shape[0] != 1:
        return slope.reshape((1, -1) + (1,) * (len(shape) - 2))
    try:
        result = np.broadcast_shapes(shape, slope.shape)
    except ValueError:
        result = None
    if result != tuple(shape):
        raise OpError(f"PReLU slope of shape {list(slope.shape)} does not broadcast to data of shape {list(shape)}")
    return slope
