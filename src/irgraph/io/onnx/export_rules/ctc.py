"""CTCGreedyDecoder-1 and CTCGreedyDecoderSeqLen-6: ArgMax (its first maximum, as ``std::max_element``) and
irgraph's vectorised greedy compaction in ONNX nodes, exact.

A step is kept while active (before the first zero of the mask, or below the sequence length), unless it is
the blank or (merging repeats) the class of the step before; kept classes are scattered left-aligned to their
running count (``CumSum - 1``) in a row of -1 one column wider than the steps, the dropped ones into that last
column, which is then cut off; the counts are the kept steps' sums.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import Node
from irgraph.io.onnx.common import require_onnx
from irgraph.io.onnx.export_rules.patterns import cast, onnx_type_code
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.sequence.ctc_greedy_decoder import CTCGreedyDecoder
from irgraph.ops.sequence.ctc_greedy_decoder_seq_len import CTCGreedyDecoderSeqLen


def _int64_tensor(value: int) -> Any:
    """A one-element int64 TensorProto (ConstantOfShape's value attribute)."""
    return require_onnx().numpy_helper.from_array(np.asarray([value], np.int64))


class _Decoder:
    """The shared nodes of both decoders."""

    def __init__(self, node: Node, ctx: ExportContext) -> None:
        self.node, self.ctx = node, ctx
        self.made: list = []

    def step(self, op_type: str, inputs: list[str], name: str, **attributes: object) -> str:
        out = self.ctx.temp(self.node, name)
        self.made.append(self.ctx.make(self.node, op_type, inputs, [out], step=name, **attributes))
        return out

    def int64(self, name: str, value: object) -> str:
        return self.ctx.initializer(self.node, name, np.asarray(value, np.int64))

    def dim(self, source: str, axis: int, name: str) -> str:
        """The [1] int64 size of ``source`` along ``axis``."""
        return self.step("Slice", [self.step("Shape", [source], f"{name}_shape"), self.int64(f"{name}_at", [axis]),
                                   self.int64(f"{name}_after", [axis + 1])], name)

    def decode(self, best: str, active: str, blank: str, merge_repeated: bool) -> tuple[str, str]:
        """(decoded [N, T] int64, counts [N] int64) from the best classes and the active steps."""
        keep = self.step("And", [active, self.step("Not", [self.step("Equal", [best, blank], "blank")], "not_blank")],
                         "keep_step")
        if merge_repeated:
            shifted = self.step("Pad", [best, self.int64("shift_pads", [0, 1, 0, 0]), self.int64("before_first", -1)],
                                "shifted", mode="constant")
            previous = self.step("Slice", [shifted, self.int64("prev_from", [0]), self.int64("prev_to", [-1]),
                                           self.int64("prev_axis", [1])], "previous")
            repeated = self.step("Equal", [best, previous], "repeated")
            keep = self.step("And", [keep, self.step("Not", [repeated], "new")], "keep")
        kept = self.step("Cast", [keep], "kept", to=onnx_type_code(ElementType.I64))
        position = self.step("Sub", [self.step("CumSum", [kept, self.int64("time_axis", 1)], "running"),
                                     self.int64("one", 1)], "position")
        steps = self.dim(best, 1, "steps")
        target = self.step("Where", [keep, position, steps], "target")
        wide = self.step("Pad", [best, self.int64("trash_pads", [0, 0, 0, 1])], "wide", mode="constant")
        start = self.step("ConstantOfShape", [self.step("Shape", [wide], "wide_shape")], "start",
                          value=_int64_tensor(-1))
        scattered = self.step("ScatterElements", [start, target, best], "scattered", axis=1)
        decoded = self.step("Slice", [scattered, self.int64("cut_from", [0]), self.int64("cut_to", [-1]),
                                      self.int64("cut_axis", [1])], "decoded")
        counts = self.step("ReduceSum", [kept, self.int64("count_axis", [1])], "counts", keepdims=0)
        return decoded, counts



@exports(CTCGreedyDecoder)
def ctc_greedy_decoder(node: Node, op: CTCGreedyDecoder, ctx: ExportContext) -> list:
    """Logits [T, N, C] and mask [T, N]: decoding stops at each sequence's first zero of the mask; the blank is the
    last class; the classes come out as the logits' type, [N, T, 1, 1]."""
    decoder = _Decoder(node, ctx)
    logits, mask = ctx.inputs(node)
    best = decoder.step("Transpose", [decoder.step("ArgMax", [logits], "argmax", axis=2, keepdims=0)], "best",
                        perm=[1, 0])
    zeros = decoder.step("Cast", [decoder.step("Equal", [mask, ctx.initializer(
        node, "mask_zero", np.zeros((), ctx.input_type(node, 1).element_type.numpy_dtype))], "mask_zeros")],
        "zero_steps", to=onnx_type_code(ElementType.I64))
    stopped = decoder.step("CumSum", [decoder.step("Transpose", [zeros], "zero_rows", perm=[1, 0]),
                                      decoder.int64("mask_axis", 1)], "stopped")
    active = decoder.step("Equal", [stopped, decoder.int64("none", 0)], "active")
    blank = decoder.step("Sub", [decoder.dim(logits, 2, "classes"), decoder.int64("last", [1])], "blank_index")
    decoded, _ = decoder.decode(best, active, blank, op.ctc_merge_repeated)
    typed = decoder.step("Cast", [decoded], "typed", to=onnx_type_code(ctx.input_type(node, 0).element_type))
    decoder.made.append(ctx.make(node, "Unsqueeze", [typed, decoder.int64("unit_axes", [2, 3])], ctx.outputs(node)))
    return decoder.made


@exports(CTCGreedyDecoderSeqLen)
def ctc_greedy_decoder_seq_len(node: Node, op: CTCGreedyDecoderSeqLen, ctx: ExportContext) -> list:
    """Logits [N, T, C] and lengths [N]: steps below each length decode; the blank is input 2 or the last class."""
    decoder = _Decoder(node, ctx)
    names = ctx.inputs(node)
    best = decoder.step("ArgMax", [names[0]], "best", axis=2, keepdims=0)
    lengths = names[1]
    if ctx.input_type(node, 1).element_type is not ElementType.I64:
        lengths = cast(ctx, node, lengths, ElementType.I64, "lengths", decoder.made)
    steps = decoder.step("Squeeze", [decoder.dim(names[0], 1, "time"), decoder.int64("time_axes", [0])], "time_scalar")
    times = decoder.step("Range", [decoder.int64("begin", 0), steps, decoder.int64("by", 1)], "times")
    active = decoder.step("Less", [decoder.step("Unsqueeze", [times, decoder.int64("row_axes", [0])], "time_row"),
                                   decoder.step("Unsqueeze", [lengths, decoder.int64("column_axes", [1])],
                                                "length_column")], "active")
    if len(names) > 2 and names[2]:
        blank = names[2]
        if ctx.input_type(node, 2).element_type is not ElementType.I64:
            blank = cast(ctx, node, blank, ElementType.I64, "blank_i64", decoder.made)
        blank = decoder.step("Reshape", [blank, decoder.int64("blank_shape", [1])], "blank_index")
    else:
        blank = decoder.step("Sub", [decoder.dim(names[0], 2, "classes"), decoder.int64("last", [1])], "blank_index")
    decoded, counts = decoder.decode(best, active, blank, op.merge_repeated)
    outputs = ctx.outputs(node)
    decoder.made += [ctx.make(node, "Cast", [decoded], [outputs[0]], to=onnx_type_code(op.classes_index_type)),
                     ctx.make(node, "Cast", [counts], [outputs[1]], step="counts_typed",
                              to=onnx_type_code(op.sequence_length_type))]
    return decoder.made
