"""GatherTree-1: the full beams of a beam search, traced back from the last step through the parent ids."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, check, checked
from irgraph.ops.registry import register


def as_index(values: np.ndarray) -> np.ndarray:
    """Values as OpenVINO's reference reads indices of any element type: truncated to integers."""
    return np.trunc(values).astype(np.int64) if values.dtype.kind == "f" else values.astype(np.int64)


@register
@dataclass(frozen=True)
class GatherTree(Op):
    """Beams ``[max_time, batch, beam]`` traced back through parent_idx, end_token past the end. Spec: GatherTree-1.

    As OpenVINO's reference (TensorFlow 1.5's algorithm): for each batch element and beam, the last
    step ``min(max_seq_len[b], max_time) - 1`` takes its own step id, each earlier step the id of the
    parent the later step names; after the first end_token in the traced beam, and past the length,
    every entry is end_token. A parent outside ``[0, beam)`` is refused (the reference reads out of bounds)."""

    type_name = "GatherTree"
    introduced = 1
    inputs = Inputs.of(InputSpec("step_ids"), InputSpec("parent_idx"), InputSpec("max_seq_len"), InputSpec("end_token"))

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """step_ids' shape merged with parent_idx's (rank 3), its batch dim with max_seq_len's length."""
        step_ids, parent_idx, max_seq_len, end_token = inputs
        kinds = [t.element_type for t in inputs]
        merged = kinds[0]
        for kind in kinds[1:]:
            merged = checked(merged.merge(kind), f"Inputs must have the same element type. Got: step_ids ({kinds[0]}), "
                             f"parent_idx_et ({kinds[1]}), max_seq_len ({kinds[2]}), end_token ({kinds[3]})")
        unlike = (f"step_ids and parent_idx inputs must have the same shape with rank 3. Got: {step_ids.shape} and "
                  f"{parent_idx.shape}, respectively")
        shape = checked(step_ids.shape.merge(parent_idx.shape), unlike)
        check(shape.rank_is_dynamic or shape.rank == 3, unlike)
        check(max_seq_len.shape.rank_is_dynamic or max_seq_len.shape.rank == 1,
              f"max_seq_len input must have rank 1. Got: {max_seq_len.shape}")
        if not shape.rank_is_dynamic and not max_seq_len.shape.rank_is_dynamic:
            batch = checked(shape[1].merge(max_seq_len.shape[0]), "Number of elements of max_seq_len input must "
                            "match BATCH_SIZE dimension of step_ids/parent_idx inputs. Got: "
                            f"{shape[1]} and {max_seq_len.shape[0]}, respectively")
            shape = shape.replace(1, batch)
        check(end_token.shape.rank_is_dynamic or end_token.shape.rank == 0,
              f"end_token input must be scalar. Got: {end_token.shape}")
        return [TensorType(merged, shape)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """A loop over the time steps backwards; batch and beams vectorised."""
        step_ids, parent_idx, max_seq_len, end_token = inputs
        check(step_ids.ndim == 3 and step_ids.shape == parent_idx.shape,
              f"step_ids and parent_idx inputs must have the same shape with rank 3. Got: {list(step_ids.shape)} and "
              f"{list(parent_idx.shape)}, respectively")
        max_time, batch, beams = step_ids.shape
        check(max_seq_len.shape == (batch,), f"max_seq_len must hold BATCH_SIZE ({batch}) values. "
                                             f"Got shape {list(max_seq_len.shape)}")
        check(np.ndim(end_token) == 0, f"end_token input must be scalar. Got shape {list(np.shape(end_token))}")
        lengths = as_index(np.asarray(max_seq_len))
        # The reference casts to size_t: a negative length wraps to a huge one, then min(max_time, .) = max_time.
        lengths = np.where(lengths < 0, max_time, np.minimum(lengths, max_time))
        last = np.broadcast_to(lengths[:, None] - 1, (batch, beams))
        output = np.full(step_ids.shape, end_token, step_ids.dtype)
        parents = as_index(parent_idx)
        batch_index = np.arange(batch)[:, None]
        parent = np.zeros((batch, beams), np.int64)
        for level in range(max_time - 1, -1, -1):
            starts = last == level
            output[level] = np.where(starts, step_ids[level], output[level])
            parent = np.where(starts, parents[level], parent)
            inside = last > level
            if not inside.any():
                continue
            named = parent[inside]
            outside = named[(named < 0) | (named >= beams)]
            check(outside.size == 0, f"GatherTree: a parent index at step {level + 1} lies outside [0, {beams}). "
                                     f"Got: {sorted(set(outside.tolist()))}")
            safe = np.where(inside, parent, 0)
            output[level] = np.where(inside, step_ids[level, batch_index, safe], output[level])
            parent = np.where(inside, parents[level, batch_index, safe], parent)
        ended = as_index(output) == as_index(np.asarray(end_token))
        # An entry is past the first end_token of its beam when an end_token comes strictly before it.
        after_end = np.cumsum(ended, axis=0) - ended > 0
        valid = np.arange(max_time)[:, None, None] <= last[None]
        output = np.where(after_end & valid, end_token, output).astype(step_ids.dtype)
        return [output]
