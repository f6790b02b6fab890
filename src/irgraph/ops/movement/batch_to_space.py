"""BatchToSpace-2: move batch blocks back into the spatial dims, then crop."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import Dim
from irgraph.ops.families.batch_space import BatchSpace, block_product, divided
from irgraph.ops.op import check
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class BatchToSpace(BatchSpace):
    """SpaceToBatch's inverse: ``[N * B1 * ... * Bk, D1, ..., Dk]`` -> ``[N, D1 * B1, ..., Dk * Bk]``, then
    ``crops_begin``/``crops_end`` removed from each dim. Spec: BatchToSpace-2."""

    type_name = "BatchToSpace"
    introduced = 2
    edges = ("crops", "crops_begin", "crops_end")

    def check_values(self, blocks: list[int], befores: list[int], afters: list[int]) -> None:
        """Blocks at least 1, crops not negative."""
        check(all(b >= 1 for b in blocks), "Elements of block_shape input must be greater or equal to one.")
        check(all(c >= 0 for c in befores + afters),
              "Elements of crops_begin and crops_end inputs must be greater or equal to zero.")
        self.check_batch_dim(blocks, befores, afters)

    def output_dims(self, dims: list[Dim], blocks: list[int], befores: list[int], afters: list[int]) -> list[Dim]:
        """Batch divided by the blocks; each dim times its block, less its crops."""
        out = [divided(dims[0], block_product(blocks))]
        for dim, block, before, after in zip(dims[1:], blocks[1:], befores[1:], afters[1:], strict=True):
            grown = dim * block
            check(not grown.is_static or before + after <= grown.value,
                  "crops_begin[i] + crops_end[i] must be less or equal to block_shape[i] * input_shape[i]")
            out.append(grown - (before + after))
        return out

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Split the batch into (B0, ..., Bk, N), interleave each block with its dim, crop."""
        data, *vectors = inputs
        blocks, befores, afters = self.values(data, vectors)
        dims = self.output_dims([Dim.static(s) for s in data.shape], blocks, befores, afters)  # checks the sizes
        rank = data.ndim
        batch = data.shape[0] // block_product(blocks)
        split = data.reshape([*blocks, batch, *data.shape[1:]])
        # axes of split: (B0, ..., Bk, N, D1, ..., Dk); wanted (N, B0, D1, B1, ..., Dk, Bk)
        order = [rank, 0] + [axis for i in range(1, rank) for axis in (rank + i, i)]
        whole = np.ascontiguousarray(split.transpose(order)).reshape(
            [batch * blocks[0]] + [size * block for size, block in zip(data.shape[1:], blocks[1:], strict=True)])
        crop = tuple(slice(before, before + dim.value) for before, dim in zip(befores, dims, strict=True))
        return [np.ascontiguousarray(whole[crop])]
