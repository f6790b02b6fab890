"""ReverseSequence-1: reverse the first ``seq_lengths[b]`` elements along ``seq_axis`` of each batch element b."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, checked, integer_values, normalize_axis
from irgraph.ops.registry import register


def reversal_order(lengths: np.ndarray, steps: int) -> np.ndarray:
    """``[batch, steps]`` indices along the sequence axis: each row's first ``length`` reversed (0 and 1
    leave a row as it is)."""
    t = np.arange(steps)[None, :]
    length = np.maximum(lengths, 1)[:, None]
    return np.where(t < length, length - 1 - t, t)


@register
@dataclass(frozen=True)
class ReverseSequence(Op):
    """Per batch element, its first ``seq_lengths[b]`` entries along seq_axis reversed. Spec: ReverseSequence-1.

    Lengths must lie in ``[0, dim]`` (0 leaves the row as it is, as OpenVINO's reference does); irgraph
    refuses the others, where OpenVINO 2026.4.1's reference stops ("One of the elements of sequence
    lengths is greater than sequence axis dimension")."""

    type_name = "ReverseSequence"
    introduced = 1
    inputs = Inputs.of(InputSpec("data"), InputSpec("seq_lengths"))
    bound_inputs = (0,)  # data movement: the data's bounds move as its values do

    batch_axis: int = attribute(0)
    seq_axis: int = attribute(1)

    def _axes(self, rank: int) -> tuple[int, int]:
        batch_axis, seq_axis = normalize_axis(self.batch_axis, rank), normalize_axis(self.seq_axis, rank)
        check(batch_axis != seq_axis,
              f"batch_axis and seq_axis must be different axes. Got: {self.batch_axis} and {self.seq_axis}")
        return batch_axis, seq_axis

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data type, its batch dim merged with the length of seq_lengths."""
        data, lengths = inputs
        check(lengths.shape.rank_is_dynamic or lengths.shape.rank == 1,
              f"Sequence lengths rank must be equal to 1. Got: {lengths.shape}")
        kind = lengths.element_type
        check(kind.is_dynamic or kind.is_integral or kind.is_real,
              f"Sequence lengths element type must be numeric type. Got: {kind}")
        if data.shape.rank_is_dynamic:
            return [data]
        rank = data.shape.rank
        check(rank >= 2, f"Data input rank should be equal or greater than 2. Got: {data.shape}")
        batch_axis, _ = self._axes(rank)
        if lengths.shape.rank_is_dynamic:
            return [data]
        merged = checked(data.shape[batch_axis].merge(lengths.shape[0]),
                         f"Sequence lengths input size ({lengths.shape[0]}) is not equal to batch axis dimension of "
                         f"data input ({data.shape[batch_axis]}) (argument shape: {data.shape}, sequence indices "
                         f"shape: {lengths.shape}).")
        return [TensorType(data.element_type, data.shape.replace(batch_axis, merged))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """One gather along seq_axis with a ``[batch, steps]`` index laid over the data's axes."""
        data, lengths = inputs
        check(data.ndim >= 2, f"Data input rank should be equal or greater than 2. Got: {list(data.shape)}")
        batch_axis, seq_axis = self._axes(data.ndim)
        values = np.asarray(integer_values(lengths, "seq_lengths"), np.int64)
        steps = data.shape[seq_axis]
        check(values.size == data.shape[batch_axis],
              f"Sequence lengths input size ({values.size}) is not equal to batch axis dimension of data input "
              f"({data.shape[batch_axis]})")
        check(bool(np.all((values >= 0) & (values <= steps))),
              f"Every sequence length must lie in [0, {steps}] (the dim of seq_axis {seq_axis}). "
              f"Got: {values.tolist()}")
        order = reversal_order(values, steps)
        if batch_axis > seq_axis:
            order = order.T
        index_shape = [1] * data.ndim
        index_shape[batch_axis], index_shape[seq_axis] = data.shape[batch_axis], steps
        index = np.broadcast_to(order.reshape(index_shape), data.shape)
        return [np.take_along_axis(data, index, axis=seq_axis)]
