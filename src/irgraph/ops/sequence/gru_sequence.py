"""GRUSequence-5: a GRUCell over every time step, in one or both directions, masked by ``seq_lengths``."""

from __future__ import annotations

from dataclasses import dataclass

from irgraph.ops.families.recurrent import RecurrentSequence
from irgraph.ops.op import Inputs, InputSpec, attribute
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class GRUSequence(RecurrentSequence):
    """GRUCell over every step of X, in one or both directions. Spec: GRUSequence-5.

    Inputs X, H, seq_lengths, W ``[dirs, 3*hidden, input]``, R ``[dirs, 3*hidden, hidden]``, B ``[dirs,
    3*hidden]`` (``[dirs, 4*hidden]`` with ``linear_before_reset``)."""

    type_name = "GRUSequence"
    introduced = 5
    inputs = Inputs.of(InputSpec("X"), InputSpec("initial_hidden_state"), InputSpec("sequence_lengths"),
                       InputSpec("W"), InputSpec("R"), InputSpec("B"))
    attribute_order = ("direction", "linear_before_reset", "hidden_size", "activations", "activations_alpha",
                       "activations_beta", "clip")  # as openvino 2026.4.1 writes it
    KIND = "gru"
    ACTIVATION_COUNT = 2
    DEFAULT_ACTIVATIONS = ("sigmoid", "tanh")

    activations: tuple[str, ...] = attribute(DEFAULT_ACTIVATIONS)  # the spec's default (the field keeps its place)

    linear_before_reset: bool = attribute(False)
