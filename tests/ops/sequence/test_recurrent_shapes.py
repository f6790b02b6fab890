"""Generated partial shapes for the recurrent cells and sequences against OpenVINO's shape inference:
valid static configurations loosened (dynamic rank, ``?``, intervals) and now and then one dim wrong."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgraph.core.errors import OpError
from irgraph.ops.sequence.gru_cell import GRUCell
from irgraph.ops.sequence.gru_sequence import GRUSequence
from irgraph.ops.sequence.lstm_cell import LSTMCell1, LSTMCell4
from irgraph.ops.sequence.lstm_sequence import LSTMSequence
from irgraph.ops.sequence.rnn_cell import RNNCell
from irgraph.ops.sequence.rnn_sequence import RNNSequence
from tests.ops.differential import OP_EXAMPLES, check_types, same_op
from tests.ops.helpers import infer, tt


@st.composite
def loosened(draw: st.DrawFn, dims: tuple[int, ...], rank_may_go: bool = True) -> str:
    """``dims`` as partial-shape text: each dim kept, ``?``, an interval around it, or (rarely) off by one;
    now and then the whole rank dynamic."""
    if rank_may_go and draw(st.integers(0, 7)) == 0:
        return "..."
    parts = []
    for dim in dims:
        kind = draw(st.sampled_from(["keep", "keep", "any", "interval", "wrong"] if draw(st.integers(0, 5)) == 0
                                    else ["keep", "keep", "any", "interval"]))
        if kind == "any":
            parts.append("?")
        elif kind == "interval":
            parts.append(f"{max(dim - draw(st.integers(0, 2)), 0)}..{dim + draw(st.integers(0, 2))}")
        elif kind == "wrong":
            parts.append(str(dim + 1))
        else:
            parts.append(str(dim))
    return ",".join(parts)


@pytest.mark.parametrize("op_class", [RNNCell, GRUCell, LSTMCell4, LSTMCell1], ids=lambda c: c.title())
@OP_EXAMPLES
@given(data=st.data())
def test_cell_partial_shapes_as_openvino(op_class, data):
    draw = data.draw
    batch, input_size, hidden = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 4))
    linear = op_class is GRUCell and draw(st.booleans())
    op = op_class(hidden_size=draw(st.sampled_from([hidden, hidden + 1])),
                  **({"linear_before_reset": True} if linear else {}))
    gates = {"rnn": 1, "gru": 3, "lstm": 4}[op.KIND]
    shapes = [(batch, input_size)] + [(batch, hidden)] * op.states + [
        (gates * hidden, input_size), (gates * hidden, hidden), ((gates + linear) * hidden,)]
    if op_class is LSTMCell1 and draw(st.booleans()):
        shapes.append((3 * hidden,))
    # A P of dynamic rank: openvino 2026.4.1 fails on it ("Accessing out-of-range dimension": it reads P's
    # first dim unchecked); irgraph accepts it.
    check_types(op, [tt(draw(loosened(s, rank_may_go=i < 6))) for i, s in enumerate(shapes)], same_op(op))


@pytest.mark.parametrize("op_class", [RNNSequence, GRUSequence, LSTMSequence], ids=lambda c: c.title())
@OP_EXAMPLES
@given(data=st.data())
def test_sequence_partial_shapes_as_openvino(op_class, data):
    draw = data.draw
    batch, steps, input_size, hidden = (draw(st.integers(1, 3)) for _ in range(4))
    linear = op_class is GRUSequence and draw(st.booleans())
    direction = draw(st.sampled_from(["forward", "reverse", "bidirectional"]))
    op = op_class(hidden_size=draw(st.sampled_from([hidden, hidden + 1])), direction=direction,
                  **({"linear_before_reset": True} if linear else {}))
    dirs = op.num_directions
    gates = {"rnn": 1, "gru": 3, "lstm": 4}[op.KIND]
    shapes = [(batch, steps, input_size)] + [(batch, dirs, hidden)] * op.states + [(batch,)] + [
        (dirs, gates * hidden, input_size), (dirs, gates * hidden, hidden), (dirs, (gates + linear) * hidden)]
    types = [tt(draw(loosened(s)), "i32" if i == 1 + op.states else "f32") for i, s in enumerate(shapes)]
    check_types(op, types, same_op(op))


@pytest.mark.parametrize("op_class", [LSTMCell4, LSTMCell1], ids=lambda c: c.title())
def test_lstm_cell_refuses_a_cell_state_of_another_hidden_size(op_class):
    """H [2, 4], C [2, 5], R [16, 4]: only C disagrees; openvino 2026.4.1 refuses it (check_types asserts it)."""
    op = op_class(hidden_size=4)
    types = [tt("2,3"), tt("2,4"), tt("2,5"), tt("16,3"), tt("16,4"), tt("16")]
    assert check_types(op, types, same_op(op)).refused
    with pytest.raises(OpError, match="Dimension `hidden_size` is not matched between inputs"):
        infer(op, types, [None] * len(types))
