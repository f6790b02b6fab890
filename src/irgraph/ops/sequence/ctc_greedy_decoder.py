"""CTCGreedyDecoder-1: the best class per time step, repeats merged and blanks dropped, left-aligned."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, checked
from irgraph.ops.registry import register


def greedy_decode(best: np.ndarray, active: np.ndarray, blank: np.ndarray, merge_repeated: bool,
                  fill: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """Decoded classes ``[batch, steps]`` (left-aligned, ``fill`` after) and their counts, from the best
    class per step ``best [batch, steps]``: steps where ``active`` holds, neither ``blank`` (per batch
    element) nor, with ``merge_repeated``, equal to the step before (blanks count as the step before)."""
    batch, steps = best.shape
    previous = np.concatenate([np.full((batch, 1), -1, best.dtype), best[:, :-1]], axis=1)
    keep = active & (best != blank[:, None])
    if merge_repeated:
        keep &= best != previous
    position = np.cumsum(keep, axis=1) - 1
    decoded = np.full((batch, steps), fill, np.int64)
    rows = np.broadcast_to(np.arange(batch)[:, None], best.shape)
    decoded[rows[keep], position[keep]] = best[keep]
    return decoded, keep.sum(axis=1)


@register
@dataclass(frozen=True)
class CTCGreedyDecoder(Op):
    """Greedy CTC decoding of logits ``[T, N, C]`` up to each sequence's first zero mask. Spec: CTCGreedyDecoder-1.

    The blank is the last class; the output ``[N, T, 1, 1]`` holds the classes as the logits' float type,
    -1 after the decoded ones. The best class is the first maximum (as ``std::max_element``); NaN logits
    have no order there and are refused."""

    type_name = "CTCGreedyDecoder"
    introduced = 1
    inputs = Inputs.of(InputSpec("data"), InputSpec("sequence_mask"))

    ctc_merge_repeated: bool = attribute(True)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[N, T, 1, 1]`` with T and N merged between the logits and the mask."""
        logits, mask = inputs
        time, batch = Dim.dynamic(), Dim.dynamic()
        if not logits.shape.rank_is_dynamic:
            check(logits.shape.rank == 3, f"The rank of logits tensor must be equal to 3. Got: {logits.shape}")
            time, batch = logits.shape[0], logits.shape[1]
        if not mask.shape.rank_is_dynamic:
            check(mask.shape.rank == 2, f"The rank of sequence mask tensor must be equal to 2. Got: {mask.shape}")
            merged_time, merged_batch = time.merge(mask.shape[0]), batch.merge(mask.shape[1])
            time = checked(merged_time, "The first dimensions of input tensors must match.")
            batch = checked(merged_batch, "The second dimensions of input tensors must match.")
        return [TensorType(logits.element_type, Shape((batch, time, Dim.static(1), Dim.static(1))))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Argmax per step, then the shared greedy compaction (vectorised over batch and time)."""
        logits, mask = inputs
        check(logits.ndim == 3 and mask.shape == logits.shape[:2],
              f"CTCGreedyDecoder: logits [T, N, C] and sequence_mask [T, N] expected. Got: {list(logits.shape)} and "
              f"{list(mask.shape)}")
        time, batch, classes = logits.shape
        if classes == 0 or time == 0:
            return [np.full((batch, time, 1, 1), -1, logits.dtype)]
        check(not np.isnan(logits.astype(np.float64)).any(), "CTCGreedyDecoder: the logits hold NaN (no best class)")
        best = np.argmax(logits, axis=2).T  # [N, T]
        active = np.cumprod(mask.T != 0, axis=1).astype(bool)  # decoding stops at the first zero of the mask
        decoded, _ = greedy_decode(best, active, np.full(batch, classes - 1), self.ctc_merge_repeated)
        return [decoded.astype(logits.dtype).reshape(batch, time, 1, 1)]
