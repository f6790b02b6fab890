"""The recurrent family: LSTMSequence/GRUSequence/RNNSequence-5 as ONNX LSTM/GRU/RNN, the cells as the same
op over a sequence of one step.

IR's sequences are batch-major (X ``[batch, seq, input]``, Y ``[batch, dirs, seq, hidden]``, states
``[batch, dirs, hidden]``); ONNX's are time-major (layout 0, the layout onnxruntime runs), so Transposes go
around the ONNX op. LSTM gates are f, i, c, o in IR and i, o, f, c in ONNX (peepholes f, i, o and i, o, f);
GRU's z, r, h and RNN's one gate agree. IR's B is the sum of the input and recurrence biases, so ONNX's B is
``[B, 0]``, except GRU with ``linear_before_reset``, whose IR B ``[z, r, Wbh, Rbh]`` keeps the h gate's two
biases apart: ONNX's is ``[z, r, Wbh, 0, 0, Rbh]``. The weights are rearranged with Split and Concat nodes
(they are computed tensors in OpenVINO's fp16-compressed IR). ``seq_lengths`` is cast to int32; onnxruntime
takes lengths in ``[1, seq_length]`` only, where IR also defines zero and longer lengths. f16 and bf16 layers
compute in f32 between Casts, as irgraph and OpenVINO's CPU plugin do (rounded once).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import cast, onnx_type_code
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.families.recurrent import Recurrent
from irgraph.ops.sequence.gru_cell import GRUCell
from irgraph.ops.sequence.gru_sequence import GRUSequence
from irgraph.ops.sequence.lstm_cell import LSTMCell1, LSTMCell4
from irgraph.ops.sequence.lstm_sequence import LSTMSequence
from irgraph.ops.sequence.rnn_cell import RNNCell
from irgraph.ops.sequence.rnn_sequence import RNNSequence

ONNX_OPS = {"lstm": "LSTM", "gru": "GRU", "rnn": "RNN"}
GATE_ORDER = {"lstm": [1, 3, 0, 2], "gru": [0, 1, 2], "rnn": [0]}
"""ONNX's gate blocks as IR's block indices: LSTM's i, o, f, c from f, i, c, o."""
PEEPHOLE_ORDER = [1, 2, 0]
"""ONNX's peepholes i, o, f from IR's f, i, o."""
ACTIVATION_NAMES = {"sigmoid": "Sigmoid", "tanh": "Tanh", "relu": "Relu"}


class _Recurrent:
    """The ONNX form of one recurrent layer: its weights rearranged, its attributes mapped."""

    def __init__(self, node: Node, op: Recurrent, ctx: ExportContext) -> None:
        self.node, self.op, self.ctx = node, op, ctx
        self.made: list = []

    def step(self, op_type: str, inputs: list[str], step: str, outputs: int = 1, **attributes: Any) -> list[str]:
        names = [self.ctx.temp(self.node, f"{step}{i}" if outputs > 1 else step) for i in range(outputs)]
        self.made.append(self.ctx.make(self.node, op_type, inputs, names, step=step, **attributes))
        return names

    def int64(self, step: str, values: object) -> str:
        return self.ctx.initializer(self.node, step, np.asarray(values, np.int64))

    def blocks(self, name: str, count: int, step: str) -> list[str]:
        """``name`` split into ``count`` equal blocks along axis 1 (the gates axis of a [dirs, ...] tensor)."""
        if count == 1:
            return [name]
        attributes = {"num_outputs": count} if self.ctx.opset >= 18 else {}
        return self.step("Split", [name], f"{step}_gates", count, axis=1, **attributes)

    def reordered(self, name: str, order: list[int], step: str) -> str:
        """``name`` with its gate blocks along axis 1 in ``order`` (IR block indices)."""
        if order == sorted(order):
            return name
        parts = self.blocks(name, len(order), step)
        return self.step("Concat", [parts[i] for i in order], step, axis=1)[0]

    def bias(self, name: str, directions: int, hidden: int, element_type: ElementType) -> str:
        """ONNX's ``[Wb, Rb]`` from IR's B ``[dirs, gates*hidden]`` (module docstring)."""
        op = self.op
        kind = op.KIND
        dtype = element_type.numpy_dtype
        if op.linear_before_reset_:
            z, r, wh, rh = self.blocks(name, 4, "B")
            zeros = self.ctx.initializer(self.node, "Rb_zr", np.zeros((directions, 2 * hidden), dtype))
            return self.step("Concat", [z, r, wh, zeros, rh], "B", axis=1)[0]
        input_bias = self.reordered(name, GATE_ORDER[kind], "Wb")
        zeros = self.ctx.initializer(self.node, "Rb", np.zeros((directions, op.gates * hidden), dtype))
        return self.step("Concat", [input_bias, zeros], "B", axis=1)[0]

    def attributes(self, directions: int, hidden: int) -> dict[str, Any]:
        op = self.op
        names = list((op.activations or op.DEFAULT_ACTIVATIONS)[:op.ACTIVATION_COUNT])
        attributes: dict[str, Any] = {"hidden_size": hidden,
                                      "activations": [ACTIVATION_NAMES[n.lower()] for n in names] * directions}
        if 0 < op.clip < math.inf:  # IR clips nothing for 0, negative and infinite clips
            attributes["clip"] = float(op.clip)
        if op.KIND == "gru":
            attributes["linear_before_reset"] = int(op.linear_before_reset_)
        if getattr(op, "input_forget", False):
            raise self.ctx.refuse("input_forget couples the gates as i = 1 - f; onnxruntime 1.31.1's LSTM couples "
                                  "them the other way (f = 1 - i)")
        return attributes

    def widened(self, names: list[str], indices: range | list[int]) -> tuple[list[str], ElementType]:
        """The inputs at ``indices`` cast to f32 when they are f16 or bf16 (irgraph and OpenVINO's CPU plugin
        compute those in f32 and round once; onnxruntime's recurrent kernels take no f16); the computing type."""
        element_type = self.ctx.input_type(self.node, 0).element_type
        if element_type not in (ElementType.F16, ElementType.BF16):
            return names, element_type
        names = list(names)
        for index in indices:
            if index < len(names) and names[index]:
                names[index] = cast(self.ctx, self.node, names[index], ElementType.F32, f"in{index}_f32", self.made)
        return names, ElementType.F32

    def finished(self, op_type: str, inputs: list[str], output: str, step: str, wide: bool, **attributes: Any) -> list:
        """``op_type`` (the layout change) of ``inputs`` to ``output``, then a Cast back when computed wide."""
        if not wide:
            return [self.ctx.make(self.node, op_type, inputs, [output], step=step, **attributes)]
        moved = self.ctx.temp(self.node, f"{step}_f32")
        element_type = self.ctx.input_type(self.node, 0).element_type
        return [self.ctx.make(self.node, op_type, inputs, [moved], step=f"{step}_f32", **attributes),
                self.ctx.make(self.node, "Cast", [moved], [output], step=step, to=onnx_type_code(element_type))]

    def hidden_size(self, index: int, axis: int) -> int:
        """The static hidden size from R's last dim (IR ignores the attribute; ONNX needs it)."""
        shape = self.ctx.input_type(self.node, index).shape
        dim = None if shape.rank_is_dynamic else shape[axis]
        if dim is None or not dim.is_static:
            raise self.ctx.refuse(f"R (input {index}) has the shape {shape}: ONNX's hidden_size attribute needs a "
                                  "static hidden size")
        return dim.value


@exports(LSTMSequence, GRUSequence, RNNSequence)
def sequence(node: Node, op: Any, ctx: ExportContext) -> list:
    """ONNX LSTM/GRU/RNN between Transposes (module docstring)."""
    rule = _Recurrent(node, op, ctx)
    names = ctx.inputs(node)
    states = op.states
    directions = op.num_directions
    hidden = rule.hidden_size(3 + states, 2)
    names, element_type = rule.widened(names, [0, *range(1, 1 + states), *range(2 + states, 5 + states)])
    wide = element_type is not ctx.input_type(node, 0).element_type
    x = rule.step("Transpose", [names[0]], "X", perm=[1, 0, 2])[0]
    initial = [rule.step("Transpose", [names[1 + k]], f"initial{k}", perm=[1, 0, 2])[0] for k in range(states)]
    lengths = names[1 + states]
    if ctx.input_type(node, 1 + states).element_type is not ElementType.I32:
        lengths = cast(ctx, node, lengths, ElementType.I32, "lengths", rule.made)
    order = GATE_ORDER[op.KIND]
    w = rule.reordered(names[2 + states], order, "W")
    r = rule.reordered(names[3 + states], order, "R")
    b = rule.bias(names[4 + states], directions, hidden, element_type)
    outputs = ctx.outputs(node)
    ctx.explain(f"layer {node.id} {node.name!r} {op.title()}: ONNX {ONNX_OPS[op.KIND]} between Transposes (time-major)"
                f"{', gates f,i,c,o -> i,o,f,c' if op.KIND == 'lstm' else ''}, B followed by a zero recurrence bias")
    onnx_outputs = [ctx.temp(node, what) for what in ("Y", "Y_h", "Y_c")[:1 + states]]
    recurrent = ctx.make(node, ONNX_OPS[op.KIND], [x, w, r, b, lengths, *initial], onnx_outputs,
                         direction=op.direction.lower(), **rule.attributes(directions, hidden))
    after = rule.finished("Transpose", [onnx_outputs[0]], outputs[0], "Y", wide, perm=[2, 1, 0, 3])
    for k in range(states):
        after += rule.finished("Transpose", [onnx_outputs[1 + k]], outputs[1 + k], f"state{k}", wide, perm=[1, 0, 2])
    return [*rule.made, recurrent, *after]


@exports(LSTMCell1, LSTMCell4, GRUCell, RNNCell)
def cell(node: Node, op: Any, ctx: ExportContext) -> list:
    """ONNX LSTM/GRU/RNN over one step: X, the states and the weights get a leading axis of 1 (ONNX's
    seq_length for X, num_directions for the rest), the new states lose it."""
    rule = _Recurrent(node, op, ctx)
    names = ctx.inputs(node)
    states = op.states
    hidden = rule.hidden_size(2 + states, 1)
    names, element_type = rule.widened(names, range(len(names)))
    wide = element_type is not ctx.input_type(node, 0).element_type
    axes = rule.int64("axes", [0])

    def unsqueezed(index: int, step: str) -> str:
        return rule.step("Unsqueeze", [names[index], axes], step)[0]

    x = unsqueezed(0, "X")
    initial = [unsqueezed(1 + k, f"initial{k}") for k in range(states)]
    order = GATE_ORDER[op.KIND]
    w = rule.reordered(unsqueezed(1 + states, "W1"), order, "W")
    r = rule.reordered(unsqueezed(2 + states, "R1"), order, "R")
    b = rule.bias(unsqueezed(3 + states, "B1"), 1, hidden, element_type)
    inputs = [x, w, r, b, "", *initial]
    if len(names) > 4 + states and names[4 + states]:  # LSTMCell-1's peepholes
        inputs.append(rule.reordered(unsqueezed(4 + states, "P1"), PEEPHOLE_ORDER, "P"))
    outputs = ctx.outputs(node)
    onnx_outputs = ["", *(ctx.temp(node, what) for what in ("Y_h", "Y_c")[:states])]
    recurrent = ctx.make(node, ONNX_OPS[op.KIND], inputs, onnx_outputs, direction="forward",
                         **rule.attributes(1, hidden))
    after = [node_proto for k in range(states)
             for node_proto in rule.finished("Squeeze", [onnx_outputs[1 + k], axes], outputs[k], f"state{k}", wide)]
    return [*rule.made, recurrent, *after]
