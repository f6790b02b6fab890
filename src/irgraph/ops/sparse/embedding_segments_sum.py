"""EmbeddingSegmentsSum-3: sums of embedding-table rows per segment id."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, TensorType
from irgraph.ops.families.embedding import EmbeddingBase, bag_sums, check_rows
from irgraph.ops.op import Inputs, InputSpec, check, integer_values
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class EmbeddingSegmentsSum(EmbeddingBase):
    """``out[segment_ids[i]] += emb_table[indices[i]] * weights[i]``; segments no index reaches take the
    ``default_index`` row or zeros. Segment ids must lie in ``[0, num_segments)`` and the default index
    in the table (OpenVINO's reference raises for both, a negative default included). Spec:
    EmbeddingSegmentsSum-3."""

    type_name = "EmbeddingSegmentsSum"
    introduced = 3
    inputs = Inputs.optional(
        4,
        InputSpec("emb_table"),
        InputSpec("indices"),
        InputSpec("segment_ids"),
        InputSpec("num_segments"),
        InputSpec("default_index"), InputSpec("per_sample_weights"),
    )

    @staticmethod
    def _segments(value: np.ndarray) -> int:
        check(np.size(value) == 1, "NUM_SEGMENTS must be a scalar")
        count = integer_values(value, "num_segments")[0]
        check(count >= 0, f"NUM_SEGMENTS must not be negative. Got: {count}")
        return count

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[num_segments] + emb_table[1:]``."""
        self._check_types(inputs, (1, 2, 3, 4), 5)
        indices, segment_ids = inputs[1], inputs[2]
        for name, tensor in (("INDICES", indices), ("SEGMENT_IDS", segment_ids)):
            check(tensor.shape.rank_is_dynamic or tensor.shape.rank == 1, f"{name} must be 1D. Got: {tensor.shape}")
        check(indices.shape.compatible(segment_ids.shape),
              f"SEGMENT_IDS shape must match INDICES shape. Got: {segment_ids.shape} and {indices.shape}")
        if len(inputs) > 5:
            check(inputs[5].shape.compatible(indices.shape),
                  f"PER_SAMPLE_WEIGHTS shape must match INDICES shape. Got: {inputs[5].shape} and {indices.shape}")
        first = Dim.static(self._segments(values[3])) if values[3] is not None else Dim.dynamic()
        return self._output(inputs[0], first)

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """``[num_segments] + emb_table[1:]``."""
        return [(self._segments(inputs[3]), *inputs[0].shape[1:])]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """:func:`bag_sums` with the segment ids as bags."""
        table, indices, segment_ids = inputs[:3]
        count = self._segments(inputs[3])
        check(indices.shape == segment_ids.shape, "SEGMENT_IDS shape must match INDICES shape")
        rows = check_rows(indices, table.shape[0], "Index")
        segments = segment_ids.astype(np.int64).reshape(-1)
        bad = (segments < 0) | (segments >= count)
        if np.any(bad):
            raise OpError(f"Segment index could not be more than segments number. Got segment id "
                          f"{int(segments[bad][0])} for {count} segments")
        default = self._default(inputs, 4, table.shape[0])
        if default is not None and default < 0:
            raise OpError(f"Invalid default index {default}")
        weights = inputs[5].reshape(-1) if len(inputs) > 5 else None
        return [bag_sums(table, rows, segments, count, weights, default, mean=False)]
