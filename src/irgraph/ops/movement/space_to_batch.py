"""SpaceToBatch-2: pad the spatial dims, then move each block's positions into the batch."""

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
class SpaceToBatch(BatchSpace):
    """``[N, D1, ..., Dk]`` padded to ``[N, P1, ..., Pk]`` -> ``[N * B1 * ... * Bk, P1 / B1, ..., Pk / Bk]``:
    batch index ``((b1 * B2 + b2) ... ) * N + n`` holds position ``(b1, ..., bk)`` of every block.

    Pads must be non-negative: irgraph refuses negative pads, which OpenVINO 2026.4.1's shape rule takes
    (giving open intervals) although padding cannot remove data. Spec: SpaceToBatch-2.
    """

    type_name = "SpaceToBatch"
    introduced = 2
    edges = ("pads", "pads_begin", "pads_end")

    def check_values(self, blocks: list[int], befores: list[int], afters: list[int]) -> None:
        """Blocks above 0, pads not negative."""
        check(all(b > 0 for b in blocks), "block_shape values must be greater than 0")
        check(all(p >= 0 for p in befores + afters),
              f"pads_begin and pads_end must not be negative. Got: {befores} and {afters}")
        self.check_batch_dim(blocks, befores, afters)

    def output_dims(self, dims: list[Dim], blocks: list[int], befores: list[int], afters: list[int]) -> list[Dim]:
        """Batch times the blocks; each padded dim divided by its block."""
        out = [dims[0] * block_product(blocks)]
        for dim, block, before, after in zip(dims[1:], blocks[1:], befores[1:], afters[1:], strict=True):
            out.append(divided(dim + (before + after), block))
        return out

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Pad with zeros, split every dim into (size / block, block), move the blocks in front of the batch."""
        data, *vectors = inputs
        blocks, befores, afters = self.values(data, vectors)
        padded = np.pad(data, list(zip(befores, afters, strict=True)))
        for index, block in enumerate(blocks):
            check(padded.shape[index] % block == 0,
                  f"Dimension value: [ {padded.shape[index]}, {padded.shape[index]}] must be a multiple of divisor: "
                  f"{block}")
        split = padded.reshape([part for size, block in zip(padded.shape, blocks, strict=True)
                                for part in (size // block, block)])
        rank = data.ndim
        # axes of split: (D0/B0, B0, D1/B1, B1, ...); the batch becomes (B0, B1, ..., Bk, D0/B0)
        order = [2 * i + 1 for i in range(rank)] + [0] + [2 * i for i in range(1, rank)]
        moved = split.transpose(order)
        shape = [padded.shape[0] * block_product(blocks[1:])] + [size // block for size, block in
                                                                  zip(padded.shape[1:], blocks[1:], strict=True)]
        return [np.ascontiguousarray(moved).reshape(shape)]
