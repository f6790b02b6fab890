"""ONNX -> IR rules for LSTM, GRU and RNN: the IR sequence ops with ONNX's layout, gate order and bias turned
into OpenVINO's (constant weights are rearranged at conversion time).

ONNX keeps X time-major ``[seq, batch, input]`` (layout 0), Y ``[seq, dirs, batch, hidden]`` and the states
``[dirs, batch, hidden]``; IR's sequences are batch-major (``[batch, seq, input]``, ``[batch, dirs, seq,
hidden]``, ``[batch, dirs, hidden]``), so Transposes go around the sequence op. LSTM's gates are i, o, f, c in
ONNX and f, i, c, o in IR; GRU's z, r, h in both. ONNX gives the input and recurrence biases apart (``[dirs,
2*gates*hidden]``); IR adds them, except GRU's h gate with ``linear_before_reset`` (``[dirs, 4*hidden]``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import OutputPort
from irgraph.io.onnx.import_rules.helpers import helper_layer, node_inputs, text
from irgraph.io.onnx.import_rules.registry import imports
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.movement.broadcast import Broadcast3
from irgraph.ops.movement.concat import Concat
from irgraph.ops.movement.gather import Gather8
from irgraph.ops.movement.split import Split
from irgraph.ops.movement.transpose import Transpose
from irgraph.ops.movement.variadic_split import VariadicSplit
from irgraph.ops.sequence.gru_sequence import GRUSequence
from irgraph.ops.sequence.lstm_sequence import LSTMSequence
from irgraph.ops.sequence.rnn_sequence import RNNSequence
from irgraph.ops.shape.reshape import Reshape
from irgraph.ops.shape.shape_of import ShapeOf3
from irgraph.ops.type.convert import Convert

if TYPE_CHECKING:
    from irgraph.io.onnx.import_rules.registry import ImportContext

DIRECTIONS = {"forward": "forward", "reverse": "reverse", "bidirectional": "bidirectional"}
GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
LSTM_ORDER = [2, 0, 3, 1]
"""IR's f, i, c, o taken from ONNX's i, o, f, c."""


@imports("LSTM", "GRU", "RNN")
def recurrent(context: ImportContext) -> None:
    """LSTM/GRU/RNN -> LSTMSequence-5/GRUSequence-5/RNNSequence-5 between Transposes (module docstring)."""
    kind = context.node.op_type
    allowed = {"activation_alpha": "FLOATS", "activation_beta": "FLOATS", "activations": "STRINGS", "clip": "FLOAT",
               "direction": "STRING", "hidden_size": "INT", "layout": "INT"}
    if kind == "LSTM":
        allowed["input_forget"] = "INT"
    if kind == "GRU":
        allowed["linear_before_reset"] = "INT"
    attributes = context.attributes(allowed)
    if attributes.get("input_forget", 0):
        raise context.fail("input_forget=1 couples the input and forget gates; LSTMSequence-5 has no such mode")
    names = node_inputs(context, 3, 8)
    gates = GATES[kind]
    direction = text(attributes.get("direction", "forward"))
    if direction not in DIRECTIONS:
        raise context.fail(f"direction must be forward, reverse or bidirectional; got {direction!r}")
    directions = 2 if direction == "bidirectional" else 1
    weights, recurrence = (context.constant(name) for name in names[1:3])
    bias = context.constant(names[3]) if len(names) > 3 and names[3] else None
    computed = weights is None or recurrence is None or (len(names) > 3 and bool(names[3]) and bias is None)
    if "hidden_size" in attributes:
        hidden = attributes["hidden_size"]
    elif recurrence is not None:
        hidden = np.asarray(recurrence[1]).shape[-1]
    else:
        r_shape = context.type_of(context.tensor(names[2])).shape
        if r_shape.rank_is_dynamic or not r_shape[-1].is_static:
            raise context.fail("needs hidden_size or a static R to know the hidden size")
        hidden = r_shape[-1].value
    if len(names) > 7 and names[7]:
        raise context.fail("peepholes (P) have no place in LSTMSequence-5")
    linear = bool(attributes.get("linear_before_reset", 0))
    if weights is not None and recurrence is not None and not computed:  # (computed when either is None)
        w, r = np.asarray(weights[1]), np.asarray(recurrence[1])
        b = np.asarray(bias[1]) if bias is not None else np.zeros((directions, 2 * gates * hidden), w.dtype)
        w, r, b = _rearranged(kind, w, r, b, gates, hidden, linear)
    activations = [text(a).lower() for a in attributes.get("activations", [])]
    if directions == 2 and activations and activations[:len(activations) // 2] != activations[len(activations) // 2:]:
        raise context.fail(f"its two directions use different activations {activations}; IR has one set for both")
    activations = activations[:len(activations) // directions] if activations else []
    common = {"hidden_size": hidden, "direction": direction, "clip": float(attributes.get("clip", 0.0)),
              "activations": tuple(activations) or type_of(kind).DEFAULT_ACTIVATIONS,
              "activations_alpha": tuple(attributes.get("activation_alpha", ())),
              "activations_beta": tuple(attributes.get("activation_beta", ()))}
    if kind == "GRU":
        common["linear_before_reset"] = linear
    batch_first = bool(attributes.get("layout", 0))

    x = context.tensor(names[0])
    element_type = context.type_of(x).element_type
    if not batch_first:
        x = helper_layer(context, Transpose(), [x, context.const([1, 0, 2], ElementType.I64, "x_order")],
                         "x_batch_major")
    shape = helper_layer(context, ShapeOf3(output_type=ElementType.I64), [x], "x_shape")
    axis = context.const(0, ElementType.I64, "axis")
    batch = helper_layer(context, Gather8(batch_dims=0),
                         [shape, context.const([0], ElementType.I64, "b"), axis], "batch")
    if len(names) > 4 and names[4]:
        lengths = helper_layer(context, Convert(destination_type=ElementType.I64),
                               [context.tensor(names[4])], "lengths")
    else:
        steps = helper_layer(context, Gather8(batch_dims=0),
                             [shape, context.const(1, ElementType.I64, "s"), axis], "steps")
        lengths = helper_layer(context, Broadcast3(mode="numpy"), [steps, batch], "lengths")
    states = []
    for index, what in ((5, "h"), (6, "c"))[: 2 if kind == "LSTM" else 1]:
        if len(names) > index and names[index]:
            state = context.tensor(names[index])
            states.append(state if batch_first else helper_layer(
                context, Transpose(), [state, context.const([1, 0, 2], ElementType.I64, f"{what}_order")],
                f"initial_{what}"))
        else:
            size = helper_layer(context, Concat(axis=0), [batch, context.const([directions, hidden],
                                                                                ElementType.I64, f"{what}_dims")],
                                f"{what}_shape")
            zero = context.const(0, element_type, f"{what}_zero")
            states.append(helper_layer(context, Broadcast3(mode="numpy"), [zero, size], f"initial_{what}"))
    if computed:
        constants = _rearranged_ports(context, kind, names, gates, hidden, directions, linear, element_type)
    else:
        constants = [context.const(array.astype(element_type.numpy_dtype), element_type, what)
                     for array, what in ((w, "W"), (r, "R"), (b, "B"))]
    op = type_of(kind)(**common)
    inputs = [x, states[0], *(states[1:]), lengths, *constants]
    sequence = context.add(op, f"{context.name}/sequence", inputs)
    orders = ([2, 1, 0, 3], [1, 0, 2], [1, 0, 2]) if not batch_first else ([0, 2, 1, 3], None, None)
    for index, name in enumerate(context.node.output):
        if not name:
            continue
        port = OutputPort(sequence.id, index)
        order = orders[index]
        if order is None:  # batch-first states are IR's already
            context.bind(port, name)
            continue
        layer = context.add(Transpose(), f"{context.name}/{('Y', 'Y_h', 'Y_c')[index]}",
                            [port, context.const(order, ElementType.I64, f"out{index}_order")])
        context.bind(OutputPort(layer.id, 0), name)
    context.explain(f"{context.label}: -> {op.title()} between Transposes (ONNX is time-major), weights rearranged "
                    f"({'gates i,o,f,c -> f,i,c,o, ' if kind == 'LSTM' else ''}input and recurrence biases added)")


def type_of(kind: str) -> Any:
    """The IR sequence op of an ONNX recurrent op."""
    return {"LSTM": LSTMSequence, "GRU": GRUSequence, "RNN": RNNSequence}[kind]


def _rearranged(kind: str, w: np.ndarray, r: np.ndarray, b: np.ndarray, gates: int, hidden: int,
                linear: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """W, R and B in IR's gate order, the biases combined as IR's sequence op takes them."""
    directions = w.shape[0]
    input_bias, recurrence_bias = b[:, :gates * hidden], b[:, gates * hidden:]
    if kind == "LSTM":
        def order(array: np.ndarray) -> np.ndarray:
            blocks = array.reshape(directions, 4, hidden, *array.shape[2:])
            return blocks[:, LSTM_ORDER].reshape(array.shape)

        return order(w), order(r), order(input_bias + recurrence_bias)
    if kind == "GRU" and linear:
        return w, r, np.concatenate([input_bias[:, :2 * hidden] + recurrence_bias[:, :2 * hidden],
                                     input_bias[:, 2 * hidden:], recurrence_bias[:, 2 * hidden:]], axis=1)
    return w, r, input_bias + recurrence_bias


def _rearranged_ports(context: ImportContext, kind: str, names: list[str], gates: int, hidden: int,
                      directions: int, linear: bool, element_type: ElementType) -> list[OutputPort]:
    """W, R and B rearranged by layers when some are computed (fed at run time): LSTM's gate blocks reordered by a
    Gather-8 on [dirs, 4, hidden, ...], the two biases of a Split-1 added (GRU with linear_before_reset keeps the
    h gate's apart: VariadicSplit-1 and Concat-1)."""

    def order(port: OutputPort, what: str) -> OutputPort:
        if kind != "LSTM":
            return port
        blocks = helper_layer(context, Reshape(special_zero=True), [port, context.const(
            [0, 4, hidden, -1], ElementType.I64, f"{what}_blocks_shape")], f"{what}_blocks")
        ordered = helper_layer(context, Gather8(batch_dims=0), [blocks, context.const(
            LSTM_ORDER, ElementType.I64, f"{what}_order"), context.const(1, ElementType.I64,
                                                                                f"{what}_axis")], f"{what}_ordered")
        return helper_layer(context, Reshape(special_zero=True), [ordered, context.const(
            [0, 4 * hidden, -1], ElementType.I64, f"{what}_shape")], f"{what}_rearranged")

    w, r = (order(context.tensor(name), what) for name, what in zip(names[1:3], ("W", "R"), strict=True))
    if len(names) > 3 and names[3]:
        bias = context.tensor(names[3])
        if kind == "GRU" and linear:
            parts = context.add(VariadicSplit(), f"{context.name}/B_parts", [bias, context.const(
                1, ElementType.I64, "B_axis"), context.const(
                [2 * hidden, hidden, 2 * hidden, hidden], ElementType.I64, "B_lengths")])
            w_zr, w_h, r_zr, r_h = (OutputPort(parts.id, index) for index in range(4))
            summed = helper_layer(context, Add(), [w_zr, r_zr], "B_zr")
            b = helper_layer(context, Concat(axis=1), [summed, w_h, r_h], "B")
        else:
            halves = context.add(Split(num_splits=2), f"{context.name}/B_halves", [bias, context.const(
                1, ElementType.I64, "B_axis")])
            summed = helper_layer(context, Add(), [OutputPort(halves.id, 0), OutputPort(halves.id, 1)], "B_sum")
            if kind == "LSTM":
                blocks = helper_layer(context, Reshape(special_zero=True), [summed, context.const(
                    [0, 4, hidden], ElementType.I64, "B_blocks_shape")], "B_blocks")
                ordered = helper_layer(context, Gather8(batch_dims=0), [blocks, context.const(
                    LSTM_ORDER, ElementType.I64, "B_order"), context.const(1, ElementType.I64,
                                                                                    "B_order_axis")], "B_ordered")
                summed = helper_layer(context, Reshape(special_zero=True), [ordered, context.const(
                    [0, 4 * hidden], ElementType.I64, "B_shape")], "B_rearranged")
            b = summed
    else:
        width = (gates + 1) * hidden if kind == "GRU" and linear else gates * hidden
        b = context.const(np.zeros((directions, width)), element_type, "B")
    context.explain(f"{context.label}: W, R or B computed -> rearranged by layers at run time")
    return [w, r, b]
