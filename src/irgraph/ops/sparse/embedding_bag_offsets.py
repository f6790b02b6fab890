"""EmbeddingBagOffsets-15: EmbeddingBagOffsetsSum with a sum or mean reduction."""

from __future__ import annotations

from dataclasses import dataclass

from irgraph.ops.families.embedding import ChosenReduction
from irgraph.ops.registry import register
from irgraph.ops.sparse.embedding_bag_offsets_sum import OffsetsBags


@register
@dataclass(frozen=True)
class EmbeddingBagOffsets(ChosenReduction, OffsetsBags):
    """Per-bag sums, or means (``reduction="mean"``, no per-sample weights; an empty bag's default row
    counts as one). Spec: EmbeddingBagOffsets-15."""

    type_name = "EmbeddingBagOffsets"
    introduced = 15
