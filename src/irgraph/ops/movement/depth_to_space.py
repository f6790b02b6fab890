"""DepthToSpace-1: move channel blocks into spatial blocks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.ops.families.block_rearrange import BlockRearrange
from irgraph.ops.op import UNSETTLED, check, checked
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class DepthToSpace(BlockRearrange):
    """``[N, C * bs^k, D1, ..., Dk]`` -> ``[N, C, D1 * bs, ..., Dk * bs]``. Spec: DepthToSpace-1.

    ``blocks_first`` reads the channels as (bs, ..., bs, C), ``depth_first`` as (C, bs, ..., bs).
    One reshape, one transpose (a view) and one reshape (the copy).
    """

    type_name = "DepthToSpace"
    introduced = 1

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """Channels divided by bs^k, spatial dims times bs."""
        (data,) = inputs
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, DYNAMIC_RANK)]
        check(data.shape.rank >= 3, f"The input tensor with rank lower than 3 is not supported (input rank: "
                                    f"{data.shape.rank})")
        divider = self.block_size ** (data.shape.rank - 2)
        channels = data.shape[1]
        if channels.is_static:
            check(channels.value % divider == 0,
                  f"Dimension value: [ {channels.value}, {channels.value}] must be a multiple of divider: {divider}")
            channels = Dim.static(channels.value // divider)
        else:
            channels = channels.divided(divider)
        dims = (data.shape[0], channels, *(d * self.block_size for d in list(data.shape)[2:]))
        return [TensorType(data.element_type, Shape(tuple(dims)))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Reshape, transpose, reshape."""
        data = np.asarray(inputs[0])
        (shape,) = checked(self.output_shapes(inputs), UNSETTLED)
        k, bs = data.ndim - 2, self.block_size
        n, c = shape[0], shape[1]
        spatial = data.shape[2:]
        if self.mode == "blocks_first":
            split = data.reshape(n, *([bs] * k), c, *spatial)
            # axes: 0 n, 1..k blocks, k+1 c, k+2.. spatial -> n, c, (D1, b1), (D2, b2), ...
            order = [0, k + 1] + [axis for i in range(k) for axis in (k + 2 + i, 1 + i)]
        else:
            split = data.reshape(n, c, *([bs] * k), *spatial)
            order = [0, 1] + [axis for i in range(k) for axis in (k + 2 + i, 2 + i)]
        return [np.transpose(split, order).reshape(shape)]
