"""RNNCell-1, GRUCell-3, LSTMCell-1/4, RNNSequence-5, GRUSequence-5, LSTMSequence-5 against OpenVINO.

openvino 2026.4.1 folds none of them, so its CPU plugin is the oracle for values (f32 hint): directions,
activations, clip, linear_before_reset, seq_lengths of varied lengths, f16 and f32. Partial shapes and
refusals against OpenVINO's shape inference; the named cases check the gate maths by hand.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.movement.reverse_sequence import reversal_order
from irgraph.ops.sequence.gru_cell import GRUCell
from irgraph.ops.sequence.gru_sequence import GRUSequence
from irgraph.ops.sequence.lstm_cell import LSTMCell1, LSTMCell4
from irgraph.ops.sequence.lstm_sequence import LSTMSequence
from irgraph.ops.sequence.rnn_cell import RNNCell
from irgraph.ops.sequence.rnn_sequence import RNNSequence
from tests.ops.differential import OP_EXAMPLES, check_op, check_types, ov_cpu, same_op
from tests.ops.helpers import infer, tt

NAMES = ("sigmoid", "tanh", "relu")
CELLS = [RNNCell, GRUCell, LSTMCell4, LSTMCell1]
SEQUENCES = [RNNSequence, GRUSequence, LSTMSequence]
GATES = {"rnn": 1, "gru": 3, "lstm": 4}


def attributes(op_class, draw, hidden: int, sequence: bool) -> dict:
    attrs = dict(hidden_size=hidden,
                 activations=tuple(draw(st.sampled_from(NAMES)) for _ in range(op_class.ACTIVATION_COUNT)),
                 clip=draw(st.sampled_from([0.0, 0.0, 0.5, 2.0, -1.0])))  # negative: no clip, as the CPU plugin
    if op_class in (GRUCell, GRUSequence):
        attrs["linear_before_reset"] = draw(st.booleans())
    if op_class is LSTMCell1:
        attrs["weights_format"] = draw(st.sampled_from(["fico", "ifco"]))
    if sequence:
        attrs["direction"] = draw(st.sampled_from(["forward", "reverse", "bidirectional"]))
    return attrs


def weights(op, rng, dirs: tuple[int, ...], hidden: int, input_size: int, dtype) -> list[np.ndarray]:
    gates = GATES[op.KIND]
    bias = gates + (1 if op.linear_before_reset_ else 0)
    shapes = [(*dirs, gates * hidden, input_size), (*dirs, gates * hidden, hidden), (*dirs, bias * hidden)]
    # Scaled by 1/sqrt(fan-in) as trained networks' weights are: unscaled, a relu GRU's z exceeds 1 and the
    # state grows (to 4e6 in 5 steps), amplifying the two implementations' rounding differences with it.
    scales = [1 / np.sqrt(input_size), 1 / np.sqrt(hidden), 1.0]
    return [(rng.uniform(-1, 1, s) * scale).astype(dtype) for s, scale in zip(shapes, scales, strict=True)]


@pytest.mark.parametrize("op_class", CELLS, ids=lambda c: c.title())
@OP_EXAMPLES
@given(data=st.data())
def test_cells_match_openvino(op_class, data):
    draw = data.draw
    batch, input_size, hidden = draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 4))
    op = op_class(**attributes(op_class, draw, hidden, sequence=False))
    dtype = draw(st.sampled_from([np.float32, np.float32, np.float16]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    states = [rng.uniform(-1, 1, (batch, hidden)).astype(dtype) for _ in range(op.states)]
    inputs = [rng.uniform(-1, 1, (batch, input_size)).astype(dtype), *states,
              *weights(op, rng, (), hidden, input_size, dtype)]
    if op_class is LSTMCell1:  # the CPU plugin ignores P and input_forget: zeros here, the spec's maths below
        inputs.append(np.zeros(3 * hidden, dtype))
    outcome = check_op(op, inputs, same_op(op))
    assert outcome.cpu and not outcome.refused


@pytest.mark.parametrize("op_class", SEQUENCES, ids=lambda c: c.title())
@OP_EXAMPLES
@given(data=st.data())
def test_sequences_match_openvino(op_class, data):
    draw = data.draw
    batch, steps = draw(st.integers(1, 3)), draw(st.integers(1, 6))
    input_size, hidden = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    op = op_class(**attributes(op_class, draw, hidden, sequence=True))
    dtype = draw(st.sampled_from([np.float32, np.float32, np.float16]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dirs = op.num_directions
    lengths = np.array(draw(st.lists(st.integers(0, steps), min_size=batch, max_size=batch)), np.int32)
    if draw(st.booleans()):
        lengths[:] = steps
    states = [rng.uniform(-1, 1, (batch, dirs, hidden)).astype(dtype) for _ in range(op.states)]
    inputs = [rng.uniform(-1, 1, (batch, steps, input_size)).astype(dtype), *states, lengths,
              *weights(op, rng, (dirs,), hidden, input_size, dtype)]
    constant = (1 + op.states,) if draw(st.booleans()) else ()
    outcome = check_op(op, inputs, same_op(op), constant=constant)
    assert outcome.cpu and not outcome.refused


@pytest.mark.parametrize("op_class", SEQUENCES, ids=lambda c: c.title())
def test_forward_lengths_beyond_the_sequence_as_openvino_does(op_class):
    """openvino 2026.4.1's CPU plugin (and reference) gives the full Y and zero last states for a length
    above seq_length, and zeros throughout for a length <= 0, in the forward direction."""
    rng = np.random.default_rng(5)
    op = op_class(hidden_size=2, direction="forward", activations=op_class.DEFAULT_ACTIVATIONS)
    lengths = np.array([5, -1, 2], np.int32)
    states = [rng.uniform(-1, 1, (3, 1, 2)).astype(np.float32) for _ in range(op.states)]
    inputs = [rng.uniform(-1, 1, (3, 4, 3)).astype(np.float32), *states, lengths,
              *weights(op, rng, (1,), 2, 3, np.float32)]
    assert check_op(op, inputs, same_op(op)).cpu
    outputs = op.evaluate(inputs)
    assert np.all(outputs[0][1] == 0) and np.all(outputs[0][0] != 0) and np.all(outputs[0][2, :, 2:] == 0)
    for state in outputs[1:]:
        assert np.all(state[:2] == 0) and np.all(state[2] != 0)


@pytest.mark.parametrize("direction", ["reverse", "bidirectional"])
def test_reverse_refuses_lengths_outside_the_sequence(direction):
    """openvino 2026.4.1's CPU plugin: "Incorrect input 'seq_lengths' values!" (its reference would read past X)."""
    op = GRUSequence(hidden_size=1, direction=direction, activations=("sigmoid", "tanh"))
    dirs = op.num_directions
    inputs = [np.ones((2, 3, 1), np.float32), np.zeros((2, dirs, 1), np.float32), np.array([4, 1], np.int32),
              np.ones((dirs, 3, 1), np.float32), np.ones((dirs, 3, 1), np.float32), np.zeros((dirs, 3), np.float32)]
    with pytest.raises(OpError, match=r"Incorrect input 'seq_lengths' values!: the reverse direction needs every "
                                      r"length in \[0, 3\]. Got: \[4, 1\]"):
        op.evaluate(inputs)


# ------------------------------------------------------------------------------------ partial shapes
CELL_SHAPES = [
    ("2,3", "2,4", "?,?", "12,3", "12,4", "12"),
    ("2,3", "2,?", "?,?", "12,3", "?,?", "?"),
    ("2,3", "2,?", "?,?", "13,3", "?,?", "?"),  # 13 / 3: OpenVINO's interval division is empty
    ("?,3", "...", "...", "...", "...", "..."),
    ("1..4,3", "2..6,4", "?,4", "12,3", "12,4", "12"),
    ("2,3", "3,4", "2,4", "12,3", "12,4", "12"),  # batch mismatch
    ("2,3", "2,4", "3,4", "12,3", "12,4", "12"),  # C's batch (LSTM)
    ("2,3", "2,4", "2,5", "12,3", "12,4", "12"),  # C's hidden_size (LSTM)
    ("2,3", "2,4", "2,4", "11,3", "12,4", "12"),  # W
    ("2,3", "2,4", "2,4", "12,3", "12,5", "12"),  # R's hidden_size
    ("2,3", "2,4", "2,4", "12,3", "12,4", "1,12"),  # B rank
    ("2,3,1", "2,4", "2,4", "12,3", "12,4", "12"),  # X rank
    ("2,3", "2,4", "2,4", "12,7", "12,4", "12"),  # input_size: not checked by shape inference
]


@pytest.mark.parametrize("op_class", CELLS, ids=lambda c: c.title())
@pytest.mark.parametrize("shapes", CELL_SHAPES, ids=str)
@pytest.mark.parametrize("linear_before_reset", [False, True])
def test_cell_partial_shapes_infer_as_openvino(op_class, shapes, linear_before_reset):
    if linear_before_reset and op_class is not GRUCell:
        return
    gates = GATES[op_class.KIND]
    scaled = [",".join(str(int(d) * gates // 3) if d.isdigit() and i >= 3 else d for d in s.split(","))
              if s != "..." else s for i, s in enumerate(shapes)]
    if linear_before_reset and scaled[5] == "12":
        scaled[5] = "16"
    types = [tt(scaled[0]), tt(scaled[1])] + ([tt(scaled[2])] if op_class.KIND == "lstm" else []) + \
        [tt(s) for s in scaled[3:]]
    attrs = {"linear_before_reset": True} if linear_before_reset else {}
    op = op_class(hidden_size=4, activations=op_class.DEFAULT_ACTIVATIONS, **attrs)
    check_types(op, types, same_op(op))


SEQUENCE_SHAPES = [
    ("2,5,3", "2,1,4", "2", "1,12,3", "1,12,4", "1,12"),
    ("2,5,3", "2,1,?", "2", "1,12,3", "1,12,4", "1,12"),
    ("2,5,3", "2,1,?", "2", "1,13,3", "1,13,?", "1,?"),
    ("...", "...", "...", "...", "...", "..."),
    ("2,5,3", "...", "?", "...", "1..3,?,?", "?,?"),
    ("?,?,3", "2..4,?,4", "3..9", "?,12,3", "1,12,4", "1,12"),
    ("2,5,3", "2,1,4", "2", "1,11,3", "1,12,4", "1,12"),  # W
    ("2,5,3", "2,1,4", "2", "1,12,3", "1,12,5", "1,12"),  # R's hidden_size
    ("2,5,3", "2,1,4", "2", "1,12,3", "1,12,4", "1,13"),  # B
    ("2,5", "2,1,4", "2", "1,12,3", "1,12,4", "1,12"),  # X rank
    ("2,5,3", "2,1,4", "2,1", "1,12,3", "1,12,4", "1,12"),  # seq_lengths rank
    ("2,5,3", "3,1,4", "2", "1,12,3", "1,12,4", "1,12"),  # batch
    ("2,5,3", "2,1,4", "3", "1,12,3", "1,12,4", "1,12"),  # seq_lengths batch
    ("2,5,3", "2,2,4", "2", "2,12,3", "2,12,4", "2,12"),  # two directions: bidirectional only
    ("2,5,3", "2,1,4", "2", "1,12,7", "1,12,4", "1,12"),  # input_size: not checked by shape inference
]


@pytest.mark.parametrize("op_class", SEQUENCES, ids=lambda c: c.title())
@pytest.mark.parametrize("shapes", SEQUENCE_SHAPES, ids=str)
@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
def test_sequence_partial_shapes_infer_as_openvino(op_class, shapes, direction):
    gates = GATES[op_class.KIND]
    scaled = [",".join(str(int(d) * gates // 3) if d.isdigit() and i >= 3 and j == 1 else d
                       for j, d in enumerate(s.split(","))) if s != "..." else s for i, s in enumerate(shapes)]
    scaled[5] = ",".join(str(int(d) * gates // 3) if d.isdigit() and j == 1 else d
                         for j, d in enumerate(shapes[5].split(","))) if shapes[5] != "..." else "..."
    types = [tt(scaled[0]), tt(scaled[1])] + ([tt(scaled[1])] if op_class.KIND == "lstm" else []) + \
        [tt(scaled[2], "i32")] + [tt(s) for s in scaled[3:]]
    op = op_class(hidden_size=4, direction=direction, activations=op_class.DEFAULT_ACTIVATIONS)
    check_types(op, types, same_op(op))


@pytest.mark.parametrize("index", [0, 1, 2, 4, 5, 6])
def test_sequence_element_types_must_match(index):
    types = [tt("2,5,3"), tt("2,1,4"), tt("2,1,4"), tt("2", "i32"), tt("1,16,3"), tt("1,16,4"), tt("1,16")]
    types[index] = tt(str(types[index].shape)[1:-1], "f16")
    op = LSTMSequence(hidden_size=4)
    with pytest.raises(OpError, match="Element types for X, initial_hidden_state, initial_cell_state, W, R and B"):
        op.infer(types, [None] * 7)
    check_types(op, types, same_op(op))


def test_element_types_must_match():
    op = GRUCell(hidden_size=1, activations=("sigmoid", "tanh"))
    with pytest.raises(OpError, match="Element types for X, initial_hidden_state, W, R and B inputs do not match"):
        op.infer([tt("1,1"), tt("1,1", "f16"), tt("3,1"), tt("3,1"), tt("3")], [None] * 5)
    check_types(op, [tt("1,1"), tt("1,1", "f16"), tt("3,1"), tt("3,1"), tt("3")], same_op(op))


# ------------------------------------------------------------------------------------ named cases
def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def test_rnn_cell_by_hand():
    x, h = np.array([[1.0, 2.0]]), np.array([[0.5]])
    w, r, b = np.array([[0.25, -0.5]]), np.array([[2.0]]), np.array([0.125])
    (out,) = RNNCell(hidden_size=1, activations=("relu",)).evaluate([x, h, w, r, b])
    assert out.tolist() == [[0.375]]  # 0.25 - 1 + 1 + 0.125
    (clipped,) = RNNCell(hidden_size=1, activations=("relu",), clip=0.25).evaluate([x, h, w, r, b])
    assert clipped.tolist() == [[0.25]]


@pytest.mark.parametrize("linear_before_reset", [False, True])
def test_gru_cell_by_hand(linear_before_reset):
    x, h = np.array([[1.0]]), np.array([[0.5]])
    w, r = np.array([[0.1], [0.2], [0.3]]), np.array([[0.4], [0.5], [0.6]])
    b = np.array([0.01, 0.02, 0.03, 0.04]) if linear_before_reset else np.array([0.01, 0.02, 0.03])
    z = sigmoid(0.1 + 0.5 * 0.4 + 0.01)
    reset = sigmoid(0.2 + 0.5 * 0.5 + 0.02)
    if linear_before_reset:
        candidate = np.tanh(0.3 + reset * (0.5 * 0.6 + 0.04) + 0.03)
    else:
        candidate = np.tanh(0.3 + (reset * 0.5) * 0.6 + 0.03)
    op = GRUCell(hidden_size=1, activations=("sigmoid", "tanh"), linear_before_reset=linear_before_reset)
    (out,) = op.evaluate([x, h, w, r, b])
    np.testing.assert_allclose(out, [[(1 - z) * candidate + z * 0.5]], rtol=1e-15)


@pytest.mark.parametrize("input_forget", [False, True])
def test_lstm_cell_1_peepholes_by_hand(input_forget):
    """Gates f, i, c, o; P is [Pf, Pi, Po] (OpenVINO's lstm_cell_v1); o sees the new C."""
    x, h, c = np.array([[1.0]]), np.array([[0.5]]), np.array([[-0.25]])
    w, r = np.array([[0.1], [0.2], [0.3], [0.4]]), np.array([[0.5], [0.6], [0.7], [0.8]])
    b, p = np.array([0.01, 0.02, 0.03, 0.04]), np.array([1.5, -2.0, 3.0])
    forget = sigmoid(0.1 + 0.25 + 0.01 + 1.5 * -0.25)
    entry = 1 - forget if input_forget else sigmoid(0.2 + 0.3 + 0.02 + -2.0 * -0.25)
    new_c = forget * -0.25 + entry * np.tanh(0.3 + 0.35 + 0.03)
    out = sigmoid(0.4 + 0.4 + 0.04 + 3.0 * new_c)
    op = LSTMCell1(hidden_size=1, input_forget=input_forget)
    new_h, got_c = op.evaluate([x, h, c, w, r, b, p])
    np.testing.assert_allclose(got_c, [[new_c]], rtol=1e-15)
    np.testing.assert_allclose(new_h, [[out * np.tanh(new_c)]], rtol=1e-15)
    no_peepholes = LSTMCell4(hidden_size=1).evaluate([x, h, c, w, r, b])
    without_p = LSTMCell1(hidden_size=1).evaluate([x, h, c, w, r, b])
    assert [a.tolist() for a in no_peepholes] == [a.tolist() for a in without_p]


def test_sequence_masks_and_reverses_as_the_reference():
    """Y is zero at and past each length; the last state is step length-1's; reverse walks each batch
    element's first ``length`` steps backwards (ReverseSequence) and writes Y in the original order."""
    x = np.arange(1, 9, dtype=np.float64).reshape(2, 4, 1) / 10
    lengths = np.array([3, 1])
    identity = (np.zeros((2, 1, 1)), lengths, np.ones((1, 1, 1)), np.ones((1, 1, 1)), np.zeros((1, 1)))
    forward = RNNSequence(hidden_size=1, direction="forward", activations=("relu",))
    y, last = forward.evaluate([x, *identity])  # relu(x + h): running sums
    np.testing.assert_allclose(y[:, 0, :, 0], [[0.1, 0.3, 0.6, 0], [0.5, 0, 0, 0]])
    np.testing.assert_allclose(last[:, 0, 0], [0.6, 0.5])
    backward = RNNSequence(hidden_size=1, direction="reverse", activations=("relu",))
    y, last = backward.evaluate([x, *identity])
    np.testing.assert_allclose(y[:, 0, :, 0], [[0.6, 0.5, 0.3, 0], [0.5, 0, 0, 0]])
    np.testing.assert_allclose(last[:, 0, 0], [0.6, 0.5])
    assert reversal_order(np.array([3, 0]), 4).tolist() == [[2, 1, 0, 3], [0, 1, 2, 3]]


def test_bidirectional_stacks_forward_then_reverse():
    x = np.arange(1, 4, dtype=np.float64).reshape(1, 3, 1)
    op = RNNSequence(hidden_size=1, direction="bidirectional", activations=("relu",))
    y, last = op.evaluate([x, np.zeros((1, 2, 1)), np.array([3]), np.ones((2, 1, 1)), np.ones((2, 1, 1)),
                           np.zeros((2, 1))])
    assert y[0, :, :, 0].tolist() == [[1, 3, 6], [6, 5, 3]] and last[0, :, 0].tolist() == [6, 6]


def test_attribute_errors():
    with pytest.raises(OpError, match="Activation function 'foo' is not supported: use sigmoid, tanh or relu"):
        GRUCell(hidden_size=1, activations=("foo", "tanh"))
    with pytest.raises(OpError, match=r"GRUCell-3 needs 2 activation functions. Got: \['sigmoid'\]"):
        GRUCell(hidden_size=1, activations=("sigmoid",))
    with pytest.raises(OpError, match="Attribute direction must be FORWARD or REVERSE or BIDIRECTIONAL. Got: 'up'"):
        LSTMSequence(hidden_size=1, direction="up")
    with pytest.raises(OpError, match="Attribute 'weights_format' must be one of fico, icof, ifco, ifoc, iofc"):
        LSTMCell1(hidden_size=1, weights_format="abcd")
    assert GRUCell(hidden_size=1, activations=("Sigmoid", "TANH", "relu")).functions()[0] is not None


def test_run_time_shape_errors():
    op = RNNCell(hidden_size=1)
    with pytest.raises(OpError, match=r"The input_size of X \(2\) differs from W's second dim \(3\)"):
        op.evaluate([np.ones((1, 2), np.float32), np.ones((1, 1), np.float32), np.ones((1, 3), np.float32),
                     np.ones((1, 1), np.float32), np.ones(1, np.float32)])


def test_lstm_cell_1_peepholes_shape():
    op = LSTMCell1(hidden_size=4)
    shapes = [tt("2,3"), tt("2,4"), tt("2,4"), tt("16,3"), tt("16,4"), tt("16")]
    assert infer(op, shapes, [None] * 6) == ["[2,4]", "[2,4]"]
    with pytest.raises(OpError, match="hidden_size mismatched in P input. Current value is: 11, expected: 12"):
        infer(op, [*shapes, tt("11")], [None] * 7)
    check_types(op, [*shapes, tt("11")], same_op(op))


def test_the_cpu_plugin_ignores_peepholes_and_input_forget():
    """openvino 2026.4.1's CPU plugin runs LSTMCell-1 as LSTMCell-4: P and input_forget change nothing
    there. irgraph follows the spec and the reference kernel (lstm_cell_v1): the two differ by design."""
    rng = np.random.default_rng(3)
    inputs = [rng.uniform(-1, 1, s).astype(np.float32) for s in [(2, 3), (2, 2), (2, 2), (8, 3), (8, 2), (8,), (6,)]]
    op = LSTMCell1(hidden_size=2, input_forget=True)
    on_cpu = ov_cpu(same_op(op), inputs, ())
    plain = LSTMCell4(hidden_size=2).evaluate(inputs[:6])
    ours = op.evaluate(inputs)
    for cpu_value, plain_value, our_value in zip(on_cpu, plain, ours, strict=True):
        np.testing.assert_allclose(cpu_value, plain_value, atol=1e-6)
        assert np.abs(our_value - cpu_value).max() > 0.01
