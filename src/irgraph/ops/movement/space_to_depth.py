"""SpaceToDepth-1: move spatial blocks into channels."""

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
class SpaceToDepth(BlockRearrange):
    """``[N, C, D1 * bs, ..., Dk * bs]`` -> ``[N, C * bs^k, D1, ..., Dk]``. Spec: SpaceToDepth-1.

    ``blocks_first`` writes the channels as (bs, ..., bs, C), ``depth_first`` as (C, bs, ..., bs):
    the inverse of DepthToSpace.
    """

    type_name = "SpaceToDepth"
    introduced = 1

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """Channels times bs^k, spatial dims divided by bs."""
        (data,) = inputs
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, DYNAMIC_RANK)]
        check(data.shape.rank >= 3, f"The input tensor with rank lower than 3 is not supported (input rank: "
                                    f"{data.shape.rank})")
        bs = self.block_size
        spatial = []
        for dim in list(data.shape)[2:]:
            if dim.is_static:
                check(dim.value % bs == 0, f"Dimension value: [ {dim.value}, {dim.value}] must be a multiple of "
                                           f"divider: {bs}")
                spatial.append(Dim.static(dim.value // bs))
            else:
                spatial.append(dim.divided(bs))
        channels = data.shape[1] * bs ** (data.shape.rank - 2)
        return [TensorType(data.element_type, Shape((data.shape[0], channels, *spatial)))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Reshape, transpose, reshape."""
        data = np.asarray(inputs[0])
        (shape,) = checked(self.output_shapes(inputs), UNSETTLED)
        k, bs = data.ndim - 2, self.block_size
        n, c = data.shape[0], data.shape[1]
        small = shape[2:]
        split = data.reshape(n, c, *(x for d in small for x in (d, bs)))
        # axes: 0 n, 1 c, then (D_i at 2 + 2i, b_i at 3 + 2i)
        blocks = [3 + 2 * i for i in range(k)]
        spatial = [2 + 2 * i for i in range(k)]
        order = [0, *blocks, 1, *spatial] if self.mode == "blocks_first" else [0, 1, *blocks, *spatial]
        return [np.transpose(split, order).reshape(shape)]
