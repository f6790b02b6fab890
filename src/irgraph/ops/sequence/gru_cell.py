"""GRUCell-3: one step of a gated recurrent unit (gates z, r, h; ``linear_before_reset`` as ONNX's)."""

from __future__ import annotations

from dataclasses import dataclass

from irgraph.ops.families.recurrent import RecurrentCell
from irgraph.ops.op import Inputs, InputSpec, attribute
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class GRUCell(RecurrentCell):
    """One GRU step: gates z, r, h in W, R and B; H' = (1-z)*h + z*H. Spec: GRUCell-3.

    ``z = f(.)``, ``r = f(.)``, ``h = g(X*Wh^T + (r*H)*Rh^T + Bh)`` (or ``g(X*Wh^T + r*(H*Rh^T + Rbh) + Wbh)``
    with ``linear_before_reset``, B then being ``[4*hidden]``: z, r, Wbh, Rbh)."""

    type_name = "GRUCell"
    introduced = 3
    inputs = Inputs.of(InputSpec("X"), InputSpec("initial_hidden_state"), InputSpec("W"), InputSpec("R"),
                       InputSpec("B"))
    attribute_order = ("linear_before_reset", "hidden_size", "activations", "activations_alpha", "activations_beta",
                       "clip")  # as openvino 2026.4.1 writes it
    KIND = "gru"
    ACTIVATION_COUNT = 2
    DEFAULT_ACTIVATIONS = ("sigmoid", "tanh")

    activations: tuple[str, ...] = attribute(DEFAULT_ACTIVATIONS)  # the spec's default (the field keeps its place)

    linear_before_reset: bool = attribute(False)
