"""CTCGreedyDecoderSeqLen-6: greedy CTC decoding of each sequence's first ``sequence_length`` steps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, checked, integer_values
from irgraph.ops.registry import register
from irgraph.ops.sequence.ctc_greedy_decoder import greedy_decode

INDEX_TYPES = (ElementType.I32, ElementType.I64)


@register
@dataclass(frozen=True)
class CTCGreedyDecoderSeqLen(Op):
    """Decoded classes ``[N, T]`` (-1 after) and their counts ``[N]``. Spec: CTCGreedyDecoderSeqLen-6.

    Logits ``[N, T, C]``, sequence_length ``[N]`` (each in ``[0, T]``: OpenVINO's reference reads past
    the logits beyond), an optional blank_index (scalar or ``[1]``, default ``C - 1``)."""

    type_name = "CTCGreedyDecoderSeqLen"
    introduced = 6
    inputs = Inputs.optional(2, InputSpec("data"), InputSpec("sequence_length"), InputSpec("blank_index"))

    merge_repeated: bool = attribute(True)
    classes_index_type: ElementType = attribute(ElementType.I32)
    sequence_length_type: ElementType = attribute(ElementType.I32)

    def __post_init__(self) -> None:
        for name in ("classes_index_type", "sequence_length_type"):
            check(getattr(self, name) in INDEX_TYPES,
                  f"Attribute '{name}' must be i32 or i64. Got: {getattr(self, name)}")

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """The decoded classes and their counts."""
        return 2

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[N, T]`` and ``[N]``, N merged between the logits and sequence_length."""
        logits, lengths = inputs[0], inputs[1]
        kind = logits.element_type
        check(kind.is_dynamic or kind.is_real, f"The data type is expected to be a floating point type. Got: {kind}")
        check(lengths.element_type.is_dynamic or lengths.element_type.is_integral,
              f"The sequence length type is expected to be an integer type. Got: {lengths.element_type}")
        if len(inputs) > 2:
            blank = inputs[2]
            check(blank.element_type.is_dynamic or blank.element_type.is_integral,
                  f"The blank index type is expected to be an integer type. Got: {blank.element_type}")
            shape = blank.shape
            if shape.is_static:
                check(shape.rank == 0 or (shape.rank == 1 and shape[0].value == 1),
                      f"Expected 0D or 1D tensor for the 'blank_index' input. Got: {shape}")
        batch, time = Dim.dynamic(), Dim.dynamic()
        if not logits.shape.rank_is_dynamic:
            check(logits.shape.rank == 3, f"The rank of logits tensor must be equal to 3. Got: {logits.shape}")
            batch, time = logits.shape[0], logits.shape[1]
        if not lengths.shape.rank_is_dynamic:
            check(lengths.shape.rank == 1, f"The rank of sequence len tensor must be equal to 1. Got: {lengths.shape}")
            batch = checked(batch.merge(lengths.shape[0]), "The first dimensions of input tensors must match.")
        return [TensorType(self.classes_index_type, Shape((batch, time))),
                TensorType(self.sequence_length_type, Shape((batch,)))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Argmax per step, then the greedy compaction shared with CTCGreedyDecoder-1."""
        logits, lengths = inputs[0], inputs[1]
        check(logits.ndim == 3, f"The rank of logits tensor must be equal to 3. Got: {list(logits.shape)}")
        batch, time, classes = logits.shape
        steps = np.asarray(integer_values(lengths, "sequence_length"), np.int64)
        check(steps.shape == (batch,), f"sequence_length must hold one length per batch element ({batch}). "
                                       f"Got: {steps.size}")
        check(bool(np.all((steps >= 0) & (steps <= time))),
              f"Every sequence_length must lie in [0, {time}]. Got: {steps.tolist()}")
        blank = classes - 1
        if len(inputs) > 2:
            check(np.size(inputs[2]) == 1, f"Expected 0D or 1D tensor for the 'blank_index' input. Got: "
                                           f"{list(np.shape(inputs[2]))}")
            blank = integer_values(inputs[2], "blank_index")[0]
        index_dtype = self.classes_index_type.numpy_dtype
        if classes == 0 or time == 0:
            return [np.full((batch, time), -1, index_dtype), np.zeros(batch, self.sequence_length_type.numpy_dtype)]
        check(not np.isnan(logits.astype(np.float64)).any(),
              "CTCGreedyDecoderSeqLen: the logits hold NaN (no best class)")
        best = np.argmax(logits, axis=2)
        active = np.arange(time)[None, :] < steps[:, None]
        decoded, counts = greedy_decode(best, active, np.full(batch, blank), self.merge_repeated)
        return [decoded.astype(index_dtype), counts.astype(self.sequence_length_type.numpy_dtype)]
