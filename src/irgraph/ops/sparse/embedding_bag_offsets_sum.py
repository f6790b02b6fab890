"""EmbeddingBagOffsetsSum-3: sums of embedding-table rows over bags given by offsets into the indices."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, TensorType
from irgraph.ops.families.embedding import EmbeddingBase, bag_sums, check_rows
from irgraph.ops.op import Inputs, InputSpec, check, integer_values
from irgraph.ops.registry import register


@dataclass(frozen=True)
class OffsetsBags(EmbeddingBase):
    """Bag b holds ``indices[offsets[b]:offsets[b+1]]`` (the last runs to the end). Offsets must rise and
    lie below the indices count, as OpenVINO's reference requires (it raises for an offset at or past
    the count, even an empty last bag's, and reads out of bounds for falling offsets: irgraph refuses).
    An empty bag takes the ``default_index`` row, or zeros when it is absent or negative."""

    inputs = Inputs.optional(3, InputSpec("emb_table"), InputSpec("indices"), InputSpec("offsets"),
                             InputSpec("default_index"), InputSpec("per_sample_weights"))

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[len(offsets)] + emb_table[1:]``."""
        self._check_types(inputs, (1, 2, 3), 4)
        indices, offsets = inputs[1], inputs[2]
        for name, tensor in (("INDICES", indices), ("OFFSETS", offsets)):
            check(tensor.shape.rank_is_dynamic or tensor.shape.rank == 1, f"{name} must be 1D. Got: {tensor.shape}")
        if len(inputs) > 3:
            check(inputs[3].shape.rank_is_dynamic or inputs[3].shape.rank == 0,
                  f"DEFAULT_INDEX must be a scalar. Got: {inputs[3].shape}")
        if len(inputs) > 4:
            check(inputs[4].shape.compatible(indices.shape),
                  f"PER_SAMPLE_WEIGHTS shape must match INDICES shape. Got: {inputs[4].shape} and {indices.shape}")
        return self._output(inputs[0], Dim.dynamic() if offsets.shape.rank_is_dynamic else offsets.shape[0])

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Each index's bag by a search in the offsets, then :func:`bag_sums`."""
        table, indices, offsets = inputs[:3]
        check(indices.ndim == 1 and offsets.ndim == 1, "INDICES and OFFSETS must be 1D")
        rows = check_rows(indices, table.shape[0], "Index")
        starts = np.asarray(integer_values(offsets, "offsets"), np.int64) if offsets.size else np.zeros(0, np.int64)
        if starts.size:
            bad = (starts < 0) | (starts >= indices.size)
            if np.any(bad):
                raise OpError(f"Offset value exceeds indices size in the model. offset: {int(starts[bad][0])}; "
                               f"indices size: {indices.size}")
            check(bool(np.all(np.diff(starts) >= 0)), f"Offsets must not decrease. Got: {starts.tolist()}")
        bags = np.searchsorted(starts, np.arange(indices.size), side="right") - 1
        taken = bags >= 0  # indices before the first offset belong to no bag
        weights = inputs[4] if len(inputs) > 4 else None
        default = self._default(inputs, 3, table.shape[0])
        result = bag_sums(table, rows[taken], bags[taken], starts.size,
                          None if weights is None else weights.reshape(-1)[taken], default,
                          self.reduction_mode == "mean")
        return [result]


@register
@dataclass(frozen=True)
class EmbeddingBagOffsetsSum(OffsetsBags):
    """Weighted sums per bag. Spec: EmbeddingBagOffsetsSum-3."""

    type_name = "EmbeddingBagOffsetsSum"
    introduced = 3
