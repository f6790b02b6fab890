"""CTCLoss-4: the connectionist temporal classification loss of each sequence's logits against its labels."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.numeric import round_float
from irgraph.ops.op import UNSETTLED, Inputs, InputSpec, Op, Tolerance, attribute, check, checked, integer_values
from irgraph.ops.registry import register

_NEGATIVE_INFINITY = -np.inf


def decoded_target(labels: Sequence[int], length: int, collapse: bool, unique: bool) -> list[int]:
    """The target the loss aligns: the first ``length`` labels, their first occurrences (``unique``) or with runs
    collapsed (``preprocess_collapse_repeated``). As OpenVINO's reference, collapsing an empty label keeps its
    first value."""
    target = list(labels[:length])
    if unique:
        return list(dict.fromkeys(target))
    if collapse:
        collapsed = [labels[0]]
        for value in target[1:]:
            if value != collapsed[-1]:
                collapsed.append(value)
        return collapsed
    return target


def log_add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``log(exp(a) + exp(b))`` elementwise, -inf where both are."""
    with np.errstate(invalid="ignore"):
        return np.where(a == _NEGATIVE_INFINITY, b, np.logaddexp(a, b))


def alignment_log_probability(log_probs: np.ndarray, target: Sequence[int], blank: int, merge_repeated: bool) -> float:
    """Log of the summed probability of every alignment of ``target`` with the frames of ``log_probs`` (T, C).

    States are the blank before each label, each label and the trailing blank. With ``merge_repeated`` a label
    lasts one frame or more and equal neighbours need a blank between them; without it every label lasts
    exactly one frame and no blank is needed. An empty target gives 0 (OpenVINO's reference counts no frame).
    """
    length = len(target)
    if length == 0:
        return 0.0
    frames = log_probs.shape[0]
    if frames == 0:
        return _NEGATIVE_INFINITY
    states = 2 * length + 1
    classes = np.full(states, blank, np.int64)
    classes[1::2] = target
    is_label = np.zeros(states, bool)
    is_label[1::2] = True
    # A label may follow the previous label directly unless both are equal and repeats merge.
    skip = np.zeros(states, bool)
    skip[3::2] = np.asarray(target[1:]) != np.asarray(target[:-1]) if merge_repeated else True
    stay = ~is_label | merge_repeated
    alpha = np.full(states, _NEGATIVE_INFINITY)
    alpha[0], alpha[1] = log_probs[0, blank], log_probs[0, target[0]]
    for t in range(1, frames):
        previous = np.full(states, _NEGATIVE_INFINITY)
        previous[1:] = alpha[:-1]
        total = log_add(np.where(stay, alpha, _NEGATIVE_INFINITY), previous)
        jump = np.full(states, _NEGATIVE_INFINITY)
        jump[2:] = alpha[:-2]
        total = log_add(total, np.where(skip, jump, _NEGATIVE_INFINITY))
        alpha = total + log_probs[t, classes]
    return float(log_add(alpha[-1], alpha[-2]))


@register
@dataclass(frozen=True)
class CTCLoss(Op):
    """The negative log probability ``[N]`` of each sequence's labels under its logits ``[N, T, C]``.

    Per batch the first ``logit_length`` frames (log-softmax over classes) align with the first
    ``label_length`` labels, optionally collapsed or made unique; ``blank_index`` defaults to ``C - 1``. The
    alignments are summed by the forward algorithm in f64 on log-softmax values computed in the logits'
    precision (f32 for f16 and bf16, which round once); OpenVINO's reference enumerates every alignment and
    adds their probabilities one by one in the logits' type. Spec: CTCLoss-4.
    """

    type_name = "CTCLoss"
    introduced = 4
    inputs = Inputs.optional(4, InputSpec("logits"), InputSpec("logit_length"), InputSpec("labels"),
                             InputSpec("label_length"), InputSpec("blank_index"))
    cpu_plugin_differs = (
        "openvino 2026.4.1's CPU plugin gives other losses where a label equals the blank index (the reference "
        "aligns it as a label) and crashes (segmentation fault) on a logit or label length of 0")
    tolerance = Tolerance(ulp=4, sum_eps=4)
    """OpenVINO's reference sums each alignment's log probabilities frame by frame in the logits' type: a few
    eps of the summed magnitudes (``term_magnitudes``) from the exact sum."""

    preprocess_collapse_repeated: bool = attribute(False)
    ctc_merge_repeated: bool = attribute(True)
    unique: bool = attribute(False)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[N]`` in the logits' type, N merged between every input that has it."""
        logits = inputs[0]
        check(logits.element_type.is_dynamic or logits.element_type.is_real,
              f"The data type for logits is expected to be a floating point type. Got: {logits.element_type}")
        names = ("logit length", "labels", "label length", "blank index")
        for tensor, name in zip(inputs[1:], names, strict=False):
            kind = tensor.element_type
            check(kind.is_dynamic or kind in (ElementType.I32, ElementType.I64),
                  f"The {name} type is expected to be an integer type. Got: {kind}")
        ranks = (3, 1, 2, 1, 0)
        messages = ("Expected a 3D tensor for logits", "Expected a 1D tensor for logit length",
                    "Expected a 2D tensor for labels", "Expected a 1D tensor for label length",
                    "Expected a scalar for blank index")
        for tensor, rank, message in zip(inputs, ranks, messages, strict=False):
            if not tensor.shape.rank_is_dynamic:
                check(tensor.shape.rank == rank, f"{message}. Got: {tensor.shape}")
        batch = Dim.dynamic()
        time = Dim.dynamic()
        if not logits.shape.rank_is_dynamic:
            batch, time = logits.shape[0], logits.shape[1]
        for index, what in ((1, "logit length"), (2, "labels"), (3, "label length")):
            shape = inputs[index].shape
            if shape.rank_is_dynamic:
                continue
            merged = batch.merge(shape[0])
            merged = checked(merged, f"The first dimension of {what} must be equal to the first dimension of the "
                  f"logits. Got: {shape[0]} and: {batch}")
            batch = merged
            if index == 2:
                check(time.compatible(shape[1]), f"The second dimension of labels must be equal to the second "
                      f"dimension of logits. Got: {shape[1]} and: {time}")
        element_type = logits.element_type
        return [TensorType(element_type, Shape((batch,)))]

    def _log_softmax(self, logits: np.ndarray) -> np.ndarray:
        """``x - log(sum(exp(x)))`` per frame as the reference computes it (no max subtracted: f32 overflows
        past 88), in f32 for f16, bf16 and f32 logits and in f64 for f64."""
        compute = np.float64 if logits.dtype == np.float64 else np.float32
        wide = logits.astype(compute)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            return (wide - np.log(np.exp(wide).sum(axis=-1, keepdims=True, dtype=compute))).astype(np.float64)

    def _targets(self, inputs: Sequence[np.ndarray]) -> tuple[np.ndarray, list[int], list[list[int]], int]:
        """Log-softmax, logit lengths, decoded targets and the blank; checks the lengths and labels."""
        (shape,) = checked(self.output_shapes(inputs), UNSETTLED)
        logits = np.asarray(inputs[0])
        check(ElementType.from_numpy(logits.dtype) in (ElementType.F32, ElementType.F16, ElementType.BF16,
                                                        ElementType.F64),
              f"CTCLoss runs f32, f16, bf16 and f64 logits. Got: {logits.dtype}")
        batch, frames, classes = logits.shape
        logit_lengths = integer_values(inputs[1], "logit_length")
        labels = np.asarray(inputs[2]).astype(np.int64).tolist()
        label_lengths = integer_values(inputs[3], "label_length")
        blank = integer_values(inputs[4], "blank_index")[0] if len(inputs) > 4 else classes - 1
        check(0 <= blank < classes, f"blank_index must be in [0, {classes}) (OpenVINO's reference reads past the "
              f"logits otherwise). Got: {blank}")
        targets = []
        for b in range(batch):
            logit_length, label_length = logit_lengths[b], label_lengths[b]
            check(0 <= logit_length <= frames and 0 <= label_length <= frames and label_length <= logit_length,
                  f"Logit or label length cannot greater than max sequence length. Also a label length cannot be "
                  f"greater than a logit length. MaxSeqLen: {frames}; Logit len: {logit_length}; Label len: "
                  f"{label_length}")
            target = decoded_target(labels[b], label_length, self.preprocess_collapse_repeated, self.unique)
            check(all(0 <= value < classes for value in target),
                  f"labels must be in [0, {classes}) (OpenVINO's reference reads past the logits otherwise). Got: "
                  f"{labels[b][:label_length]}")
            targets.append(target)
        return self._log_softmax(logits), logit_lengths, targets, blank

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The forward algorithm per batch item."""
        log_probs, logit_lengths, targets, blank = self._targets(inputs)
        losses = np.array([-alignment_log_probability(log_probs[b, :logit_lengths[b]], targets[b], blank,
                                                      self.ctc_merge_repeated) for b in range(len(targets))])
        dtype = np.asarray(inputs[0]).dtype
        return [round_float(losses.astype(np.float64), dtype)]

    def term_magnitudes(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Per batch item, the sum over its frames of the largest ``|log p|`` an alignment reads (the terms one
        alignment's log probability sums), plus the loss itself."""
        log_probs, logit_lengths, targets, blank = self._targets(inputs)
        magnitudes = []
        for b, target in enumerate(targets):
            read = log_probs[b, :logit_lengths[b]][:, sorted({blank, *target})]
            with np.errstate(invalid="ignore"):
                largest = np.abs(read).max(axis=1, initial=0.0) if read.size else np.zeros(0)
            magnitudes.append(float(np.sum(largest[np.isfinite(largest)])))
        losses = self.evaluate(inputs)[0].astype(np.float64)
        return [np.asarray(magnitudes) + np.where(np.isfinite(losses), np.abs(losses), 0.0)]
