"""The recurrent export rules: LSTM/GRU/RNN sequences and cells as ONNX LSTM/GRU/RNN. On generated
configurations (every activation, clip, direction, GRU's linear_before_reset, seq_lengths within [1, seq_length],
weights as Consts or computed, f32 and f16) onnxruntime 1.31.1 computes irgraph's values within the recurrent row
of docs/tolerances.md. Bounded examples (``OP_EXAMPLES``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.ops.sequence.gru_cell import GRUCell
from irgraph.ops.sequence.gru_sequence import GRUSequence
from irgraph.ops.sequence.lstm_cell import LSTMCell1, LSTMCell4
from irgraph.ops.sequence.lstm_sequence import LSTMSequence
from irgraph.ops.sequence.rnn_cell import RNNCell
from irgraph.ops.sequence.rnn_sequence import RNNSequence
from tests.io.test_onnx_export_rules import Case, check_case
from tests.ops.differential import OP_EXAMPLES
from tests.ops.sequence.test_recurrent import NAMES, weights

pytestmark = pytest.mark.oracle

CELLS = [RNNCell, GRUCell, LSTMCell4, LSTMCell1]
SEQUENCES = [RNNSequence, GRUSequence, LSTMSequence]


def attributes(op_class, draw, hidden: int, sequence: bool) -> dict:
    attrs = dict(hidden_size=hidden,
                 activations=tuple(draw(st.sampled_from(NAMES)) for _ in range(op_class.ACTIVATION_COUNT)),
                 clip=draw(st.sampled_from([0.0, 0.5, 2.0, -1.0, float("inf")])))
    if op_class in (GRUCell, GRUSequence):
        attrs["linear_before_reset"] = draw(st.booleans())
    if sequence:
        attrs["direction"] = draw(st.sampled_from(["forward", "reverse", "bidirectional"]))
    return attrs


def constants(draw, first: int, count: int) -> tuple[int, ...]:
    """The weights as Consts (as real models hold them) or as computed inputs (fp16 behind a Convert)."""
    return tuple(range(first, first + count)) if draw(st.booleans()) else ()


@pytest.mark.parametrize("op_class", SEQUENCES, ids=lambda c: c.title())
@OP_EXAMPLES
@given(data=st.data())
def test_sequences_run_in_onnxruntime_as_in_irgraph(op_class, data):
    draw = data.draw
    batch, steps = draw(st.integers(1, 3)), draw(st.integers(1, 5))
    input_size, hidden = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    op = op_class(**attributes(op_class, draw, hidden, sequence=True))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dirs = op.num_directions
    lengths = np.array(draw(st.lists(st.integers(1, steps), min_size=batch, max_size=batch)),
                       draw(st.sampled_from([np.int32, np.int64])))
    dtype = draw(st.sampled_from([np.float32, np.float32, np.float16]))
    states = [rng.uniform(-1, 1, (batch, dirs, hidden)).astype(dtype) for _ in range(op.states)]
    inputs = [rng.uniform(-1, 1, (batch, steps, input_size)).astype(dtype), *states, lengths,
              *weights(op, rng, (dirs,), hidden, input_size, dtype)]
    check_case(Case(op, inputs, constant=constants(draw, 2 + op.states, 3), opsets=(draw(st.sampled_from([13, 18])),)))


@pytest.mark.parametrize("op_class", CELLS, ids=lambda c: c.title())
@OP_EXAMPLES
@given(data=st.data())
def test_cells_run_in_onnxruntime_as_in_irgraph(op_class, data):
    draw = data.draw
    batch, input_size, hidden = draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 4))
    op = op_class(**attributes(op_class, draw, hidden, sequence=False))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dtype = draw(st.sampled_from([np.float32, np.float32, np.float16]))
    states = [rng.uniform(-1, 1, (batch, hidden)).astype(dtype) for _ in range(op.states)]
    inputs = [rng.uniform(-1, 1, (batch, input_size)).astype(dtype), *states,
              *weights(op, rng, (), hidden, input_size, dtype)]
    if op_class is LSTMCell1 and draw(st.booleans()):
        inputs.append(rng.uniform(-1, 1, 3 * hidden).astype(dtype))
    check_case(Case(op, inputs, constant=constants(draw, 1 + op.states, 3)))


def test_lstm_gates_are_reordered_and_the_bias_split():
    """A forward LSTMSequence: ONNX's W and R are IR's gate blocks f, i, c, o concatenated as i, o, f, c, and
    ONNX's B is IR's B so reordered followed by a zero recurrence bias."""
    import irgraph as ir
    from tests.io.test_onnx_export_rules import one_op_model

    gates = np.arange(4, dtype=np.float32)  # f, i, c, o
    case = Case(LSTMSequence(hidden_size=1), [np.ones((1, 2, 1), np.float32), np.zeros((1, 1, 1), np.float32),
                                              np.zeros((1, 1, 1), np.float32), np.array([2], np.int32),
                                              gates.reshape(1, 4, 1) / 4, gates.reshape(1, 4, 1) / 4,
                                              gates.reshape(1, 4)], constant=(4, 5, 6))
    model, _ = one_op_model(case)
    explained: list[str] = []
    proto = ir.export_onnx(model, explain=explained)
    assert "layer 7 'op' LSTMSequence-5: ONNX LSTM between Transposes (time-major), gates f,i,c,o -> i,o,f,c, B " \
           "followed by a zero recurrence bias" in explained
    nodes = {output: node for node in proto.graph.node for output in node.output}
    (lstm,) = [node for node in proto.graph.node if node.op_type == "LSTM"]
    assert lstm.name == "op"
    for weight in lstm.input[1:3]:
        concat = nodes[weight]
        split = nodes[concat.input[0]]
        assert concat.op_type == "Concat" and split.op_type == "Split"
        assert [list(split.output).index(name) for name in concat.input] == [1, 3, 0, 2]
    bias = nodes[lstm.input[3]]
    zeros = {init.name: init for init in proto.graph.initializer}[bias.input[1]]
    assert bias.op_type == "Concat" and list(zeros.dims) == [1, 4]
    check_case(case)


def test_input_forget_is_refused():
    """LSTMCell-1's input_forget computes i = 1 - f; onnxruntime 1.31.1's LSTM with input_forget=1 gave 0.2872 where
    irgraph gives 0.2827 on a one-unit cell: it couples the gates the other way."""
    import irgraph as ir
    from irgraph.core.errors import ConversionError
    from tests.io.test_onnx_export_rules import one_op_model

    rng = np.random.default_rng(1)
    op = LSTMCell1(hidden_size=1, input_forget=True)
    inputs = [rng.uniform(-1, 1, (1, 1)).astype(np.float32) for _ in range(3)]
    inputs += weights(op, rng, (), 1, 1, np.float32)
    model, _ = one_op_model(Case(op, inputs))
    with pytest.raises(ConversionError, match=r"layer \d+ 'op': input_forget couples the gates as i = 1 - f"):
        ir.export_onnx(model)
