"""EmbeddingBagOffsets-15: EmbeddingBagOffsetsSum with a sum or mean reduction."""

from __future__ import annotations

from dataclasses import dataclass

from irgraph.ops.families.embedding import REDUCTIONS
from irgraph.ops.op import attribute, check
from irgraph.ops.registry import register
from irgraph.ops.sparse.embedding_bag_offsets_sum import OffsetsBags


@register
@dataclass(frozen=True)
class EmbeddingBagOffsets(OffsetsBags):
    """Per-bag sums, or means (``reduction="mean"``, no per-sample weights; an empty bag's default row
    counts as one). Spec: EmbeddingBagOffsets-15."""

    type_name = "EmbeddingBagOffsets"
    introduced = 15

    reduction: str = attribute("sum")

    def __post_init__(self) -> None:
        check(self.reduction in REDUCTIONS, f"Attribute 'reduction' must be sum or mean. Got: {self.reduction!r}")

    @property
    def reduction_mode(self) -> str:
        return self.reduction
