"""RNNSequence-5: an RNNCell over every time step, in one or both directions, masked by ``seq_lengths``."""

from __future__ import annotations

from dataclasses import dataclass

from irgraph.ops.families.recurrent import RecurrentSequence
from irgraph.ops.op import Inputs, InputSpec, attribute
from irgraph.ops.registry import register

SEQUENCE_ORDER = ("direction", "hidden_size", "activations", "activations_alpha", "activations_beta", "clip")
"""The attributes' XML order as openvino 2026.4.1 writes the sequences (direction first)."""


@register
@dataclass(frozen=True)
class RNNSequence(RecurrentSequence):
    """RNNCell over every step of X, in one or both directions. Spec: RNNSequence-5.

    Inputs X, H, seq_lengths, W ``[dirs, hidden, input]``, R ``[dirs, hidden, hidden]``, B ``[dirs, hidden]``."""

    type_name = "RNNSequence"
    introduced = 5
    inputs = Inputs.of(InputSpec("X"), InputSpec("initial_hidden_state"), InputSpec("sequence_lengths"),
                       InputSpec("W"), InputSpec("R"), InputSpec("B"))
    attribute_order = SEQUENCE_ORDER
    KIND = "rnn"
    ACTIVATION_COUNT = 1
    DEFAULT_ACTIVATIONS = ("tanh",)

    activations: tuple[str, ...] = attribute(DEFAULT_ACTIVATIONS)  # the spec's default (the field keeps its place)
