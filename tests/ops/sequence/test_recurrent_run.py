"""The recurrent ops at run time: concrete shapes checked before the maths, the shapes announced before
allocating equal to those produced, f64 computed in f64."""

from __future__ import annotations

import numpy as np
import pytest

from irgraph.core.errors import OpError
from irgraph.ops.sequence.gru_cell import GRUCell
from irgraph.ops.sequence.gru_sequence import GRUSequence
from irgraph.ops.sequence.lstm_cell import LSTMCell1, LSTMCell4
from irgraph.ops.sequence.lstm_sequence import LSTMSequence
from irgraph.ops.sequence.rnn_cell import RNNCell
from irgraph.ops.sequence.rnn_sequence import RNNSequence

RNG = np.random.default_rng(2)


def cell_inputs(op, batch=3, input_size=4, hidden=2, dtype=np.float32, peepholes=False):
    gates = op.gates
    shapes = [(batch, input_size)] + [(batch, hidden)] * op.states + [
        (gates * hidden, input_size), (gates * hidden, hidden), (op.bias_gates * hidden,)]
    if peepholes:
        shapes.append((3 * hidden,))
    return [RNG.uniform(-1, 1, s).astype(dtype) for s in shapes]


def sequence_inputs(op, batch=2, steps=3, input_size=4, hidden=3, dtype=np.float32):
    dirs, gates = op.num_directions, op.gates
    arrays = [RNG.uniform(-1, 1, (batch, steps, input_size)).astype(dtype)]
    arrays += [RNG.uniform(-1, 1, (batch, dirs, hidden)).astype(dtype) for _ in range(op.states)]
    arrays.append(np.array([steps, 1][:batch], np.int64))
    arrays += [RNG.uniform(-1, 1, s).astype(dtype) for s in [(dirs, gates * hidden, input_size),
                                                              (dirs, gates * hidden, hidden),
                                                              (dirs, op.bias_gates * hidden)]]
    return arrays


CELLS = [RNNCell(hidden_size=2), GRUCell(hidden_size=2), GRUCell(hidden_size=2, linear_before_reset=True),
         LSTMCell4(hidden_size=2), LSTMCell1(hidden_size=2)]
SEQUENCES = [RNNSequence(hidden_size=2, direction="bidirectional"), GRUSequence(hidden_size=2),
             GRUSequence(hidden_size=2, direction="reverse", linear_before_reset=True),
             LSTMSequence(hidden_size=2, direction="bidirectional")]


@pytest.mark.parametrize("op", CELLS + SEQUENCES, ids=repr)
def test_announced_shapes_are_the_produced_ones_and_f64_stays_f64(op):
    inputs = cell_inputs(op, dtype=np.float64) if op in CELLS else sequence_inputs(op, dtype=np.float64)
    produced = op.evaluate(inputs)
    assert op.output_shapes(inputs) == [p.shape for p in produced]
    assert all(p.dtype == np.float64 for p in produced)
    narrow = op.evaluate([x.astype(np.float32) if x.dtype == np.float64 else x for x in inputs])
    for wide, single in zip(produced, narrow, strict=True):
        np.testing.assert_allclose(wide, single, atol=1e-6)
        assert single.dtype == np.float32


@pytest.mark.parametrize(("index", "shape", "message"), [  # inputs X [3,4], H, C [3,2], W [8,4], R [8,2], B [8]
    (3, (7, 4), r"W, R and B must be \[8,4\], \[8,2\] and \[8\] for hidden_size 2. Got: \[7, 4\], \[8, 2\], \[8\]"),
    (4, (8, 3), r"Got: \[8, 4\], \[8, 3\], \[8\]"),
    (5, (6,), r"Got: \[8, 4\], \[8, 2\], \[6\]"),
    (0, (2, 4), r"X and the states must share batch_size and hidden_size. Got: \[2, 4\], \[\[3, 2\], \[3, 2\]\]"),
    (2, (3, 3), r"X and the states must share batch_size and hidden_size. Got: \[3, 4\], \[\[3, 2\], \[3, 3\]\]"),
])
def test_run_time_shapes_are_checked(index, shape, message):
    op = LSTMCell4(hidden_size=2)
    inputs = cell_inputs(op)
    inputs[index] = np.zeros(shape, np.float32)
    with pytest.raises(OpError, match=message):
        op.evaluate(inputs)


def test_peepholes_and_directions_are_checked_at_run_time():
    op = LSTMCell1(hidden_size=2)
    with pytest.raises(OpError, match=r"P must be \[6\]. Got: \[4\]"):  # hidden 2
        op.evaluate([*cell_inputs(op), np.zeros(4, np.float32)])
    sequence = GRUSequence(hidden_size=2, direction="bidirectional")
    inputs = sequence_inputs(GRUSequence(hidden_size=2))
    with pytest.raises(OpError, match=r"W, R, B and the initial states must have num_directions = 2 \(bidirectional\)"):
        sequence.evaluate(inputs)
    with pytest.raises(OpError, match=r"seq_lengths must hold one length per batch element \(2\). Got: 1"):
        GRUSequence(hidden_size=2).evaluate([*inputs[:2], np.array([3]), *inputs[3:]])


def test_clip_must_be_a_number():
    with pytest.raises(OpError, match="Attribute 'clip' must be a number. Got: nan"):
        GRUCell(hidden_size=1, clip=float("nan"))
    assert GRUCell(hidden_size=1, clip=float("inf")).clip == float("inf")  # clips nothing


def test_list_attributes_read_and_write_as_openvino_writes_them():
    """openvino 2026.4.1 writes ``activations="sigmoid, tanh"`` and ``activations_alpha="0.5, 1.25"``."""
    written = {"direction": "forward", "linear_before_reset": "true", "hidden_size": "4",
               "activations": "sigmoid, tanh", "activations_alpha": "0.5, 1.25", "activations_beta": "", "clip": "1.5"}
    op = GRUSequence.from_attributes(written)
    assert op.activations == ("sigmoid", "tanh") and op.activations_alpha == (0.5, 1.25) and op.clip == 1.5
    assert op.to_attributes() == written
    assert GRUSequence.from_attributes({"hidden_size": "4"}).activations == ("sigmoid", "tanh")
    with pytest.raises(OpError, match="attribute 'activations_alpha' must be a number. Got: '0.5, x'"):
        GRUSequence.from_attributes({"hidden_size": "4", "activations_alpha": "0.5, x"})
