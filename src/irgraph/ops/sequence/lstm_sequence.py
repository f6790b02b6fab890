"""LSTMSequence-5: an LSTMCell-4 over every time step, in one or both directions, masked by ``seq_lengths``."""

from __future__ import annotations

from dataclasses import dataclass

from irgraph.ops.families.recurrent import RecurrentSequence
from irgraph.ops.op import Inputs, InputSpec, attribute
from irgraph.ops.registry import register
from irgraph.ops.sequence.rnn_sequence import SEQUENCE_ORDER


@register
@dataclass(frozen=True)
class LSTMSequence(RecurrentSequence):
    """LSTMCell-4 over every step of X, in one or both directions. Spec: LSTMSequence-5.

    Inputs X, H, C, seq_lengths, W ``[dirs, 4*hidden, input]``, R ``[dirs, 4*hidden, hidden]``, B ``[dirs,
    4*hidden]`` (gates f, i, c, o); outputs Y, the last H and the last C."""

    type_name = "LSTMSequence"
    introduced = 5
    inputs = Inputs.of(InputSpec("X"), InputSpec("initial_hidden_state"), InputSpec("initial_cell_state"),
                       InputSpec("sequence_lengths"), InputSpec("W"), InputSpec("R"), InputSpec("B"))
    attribute_order = SEQUENCE_ORDER
    KIND = "lstm"
    ACTIVATION_COUNT = 3
    DEFAULT_ACTIVATIONS = ("sigmoid", "tanh", "tanh")

    activations: tuple[str, ...] = attribute(DEFAULT_ACTIVATIONS)  # the spec's default (the field keeps its place)
