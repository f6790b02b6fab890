"""GroupNormalization-12: mean-variance normalization over groups of channels, then a per-channel scale and bias."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import TensorType
from irgraph.ops.families.elementwise import REAL
from irgraph.ops.normalization.mvn import MVN_TOLERANCE
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class GroupNormalization(Op):
    """``(x - mean) / sqrt(var + epsilon) * scale[c] + bias[c]``, mean and variance over each of
    ``num_groups`` groups of consecutive channels (and all spatial positions) of each batch item.

    Computed in f64 and rounded once (OpenVINO's reference sums in the element type with Kahan
    summation): MVN's tolerance. Spec: GroupNormalization-12.
    """

    type_name = "GroupNormalization"
    introduced = 12
    inputs = Inputs.of(InputSpec("data"), InputSpec("scale"), InputSpec("bias"))
    tolerance = MVN_TOLERANCE

    num_groups: int = attribute()
    epsilon: float = attribute()

    def __post_init__(self) -> None:
        check(self.num_groups > 0, "The number of groups needs to be a positive integer value")

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data's type, after OpenVINO's checks of the scale and bias against the channels."""
        data, scale, bias = inputs
        for name, vector in (("scale", scale), ("bias", bias)):
            check(vector.shape.rank_is_dynamic or vector.shape.rank == 1, f"The {name} input is required to be 1D")
        if not data.shape.rank_is_dynamic:
            check(data.shape.rank >= 2, "The input tensor is required to be at least 2D")
            channels = data.shape[1]
            for name, vector in (("scale", scale), ("bias", bias)):
                check(vector.shape.rank_is_dynamic or channels.merge(vector.shape[0]) is not None,
                      f"The {name} input shape needs to match the channel dimension in the data input")
            if channels.is_static:
                check(self.num_groups <= channels.value,
                      "The number of groups must not exceed the number of channels in the input tensor")
                check(channels.value % self.num_groups == 0,
                      "The number of channels is required to be evenly divisible by the number of groups")
        check(scale.shape.merge(bias.shape) is not None, "The shapes of both scale and bias inputs need to match")
        if data.element_type.merge(scale.element_type) is None or data.element_type.merge(bias.element_type) is None:
            raise OpError(f"The element types of the scale and bias inputs ({scale.element_type}, {bias.element_type}) "
                          f"must match the data's ({data.element_type})")
        REAL.check(data.element_type)
        return [data]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Normalize each group, then scale and shift each channel."""
        data, scale, bias = inputs
        if data.ndim < 2 or scale.shape != (data.shape[1],) or bias.shape != (data.shape[1],):
            raise OpError(f"scale {list(scale.shape)} and bias {list(bias.shape)} must be 1D of the channel count of "
                          f"the data {list(data.shape)}")
        if data.shape[1] % self.num_groups:
            raise OpError("The number of channels is required to be evenly divisible by the number of groups")
        REAL.check(ElementType.from_numpy(data.dtype))
        if not data.dtype == scale.dtype == bias.dtype:
            raise OpError(f"The element types of the scale and bias inputs ({scale.dtype}, {bias.dtype}) must match "
                          f"the data's ({data.dtype})")
        batch, channels = data.shape[:2]
        groups = data.astype(np.float64).reshape(batch, self.num_groups, -1)
        eps = float(np.asarray(self.epsilon, dtype=data.dtype))  # static_cast<T>(epsilon), as the reference
        with np.errstate(all="ignore"):
            centered = groups - groups.mean(axis=2, keepdims=True)
            variance = (centered * centered).mean(axis=2, keepdims=True)
            normalized = (centered / np.sqrt(variance + eps)).reshape(data.shape)
            wide_shape = (1, channels) + (1,) * (data.ndim - 2)
            result = normalized * scale.astype(np.float64).reshape(wide_shape) + bias.astype(np.float64).reshape(
                wide_shape)
        return [result.astype(data.dtype)]
