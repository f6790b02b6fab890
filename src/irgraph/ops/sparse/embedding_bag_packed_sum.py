"""EmbeddingBagPackedSum-3: sums of embedding-table rows over equal-length bags (rows of the indices)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import Dim, TensorType
from irgraph.ops.families.embedding import EmbeddingBase, bag_sums, check_rows
from irgraph.ops.op import Inputs, InputSpec, check
from irgraph.ops.registry import register


@dataclass(frozen=True)
class PackedBags(EmbeddingBase):
    """Bag b holds the row ``indices[b]``; every index must be a table row (the reference reads out of
    bounds otherwise: irgraph refuses)."""

    inputs = Inputs.optional(2, InputSpec("emb_table"), InputSpec("indices"), InputSpec("per_sample_weights"))

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[indices[0]] + emb_table[1:]``."""
        self._check_types(inputs, (1,), 2)
        indices = inputs[1]
        check(indices.shape.rank_is_dynamic or indices.shape.rank == 2, f"INDICES must be 2D. Got: {indices.shape}")
        if len(inputs) > 2:
            check(inputs[2].shape.compatible(indices.shape),
                  f"PER_SAMPLE_WEIGHTS shape must match INDICES shape. Got: {inputs[2].shape} and {indices.shape}")
        return self._output(inputs[0], Dim.dynamic() if indices.shape.rank_is_dynamic else indices.shape[0])

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """:func:`bag_sums` with bag ids repeated along each row."""
        table, indices = inputs[:2]
        check(indices.ndim == 2, f"INDICES must be 2D. Got shape {list(indices.shape)}")
        rows = check_rows(indices, table.shape[0], "Index")
        bags = np.repeat(np.arange(indices.shape[0]), indices.shape[1])
        weights = inputs[2].reshape(-1) if len(inputs) > 2 else None
        return [bag_sums(table, rows, bags, indices.shape[0], weights, None, self.reduction_mode == "mean")]


@register
@dataclass(frozen=True)
class EmbeddingBagPackedSum(PackedBags):
    """Weighted sums per bag. Spec: EmbeddingBagPackedSum-3."""

    type_name = "EmbeddingBagPackedSum"
    introduced = 3
