"""EmbeddingBagPacked-15: EmbeddingBagPackedSum with a sum or mean reduction."""

from __future__ import annotations

from dataclasses import dataclass

from irgraph.ops.families.embedding import ChosenReduction
from irgraph.ops.registry import register
from irgraph.ops.sparse.embedding_bag_packed_sum import PackedBags


@register
@dataclass(frozen=True)
class EmbeddingBagPacked(ChosenReduction, PackedBags):
    """Per-bag sums, or means (``reduction="mean"``, no per-sample weights). Spec: EmbeddingBagPacked-15."""

    type_name = "EmbeddingBagPacked"
    introduced = 15
