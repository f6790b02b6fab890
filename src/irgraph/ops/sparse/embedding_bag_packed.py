"""EmbeddingBagPacked-15: EmbeddingBagPackedSum with a sum or mean reduction."""

from __future__ import annotations

from dataclasses import dataclass

from irgraph.ops.families.embedding import REDUCTIONS
from irgraph.ops.op import attribute, check
from irgraph.ops.registry import register
from irgraph.ops.sparse.embedding_bag_packed_sum import PackedBags


@register
@dataclass(frozen=True)
class EmbeddingBagPacked(PackedBags):
    """Per-bag sums, or means (``reduction="mean"``, no per-sample weights). Spec: EmbeddingBagPacked-15."""

    type_name = "EmbeddingBagPacked"
    introduced = 15

    reduction: str = attribute("sum")

    def __post_init__(self) -> None:
        check(self.reduction in REDUCTIONS, f"Attribute 'reduction' must be sum or mean. Got: {self.reduction!r}")

    @property
    def reduction_mode(self) -> str:
        return self.reduction
