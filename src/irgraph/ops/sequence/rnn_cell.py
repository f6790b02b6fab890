"""RNNCell-1: one step of a plain recurrent cell, ``H' = f(X*W^T + H*R^T + B)``."""

from __future__ import annotations

from dataclasses import dataclass

from irgraph.ops.families.recurrent import RecurrentCell
from irgraph.ops.op import Inputs, InputSpec, attribute
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class RNNCell(RecurrentCell):
    """H' = f(X*W^T + H*R^T + B), one step. Spec: RNNCell-1.

    Inputs X, H, W ``[hidden, input]``, R ``[hidden, hidden]``, B ``[hidden]``; f defaults to tanh."""

    type_name = "RNNCell"
    introduced = 1
    inputs = Inputs.of(InputSpec("X"), InputSpec("initial_hidden_state"), InputSpec("W"), InputSpec("R"),
                       InputSpec("B"))
    KIND = "rnn"
    ACTIVATION_COUNT = 1
    DEFAULT_ACTIVATIONS = ("tanh",)

    activations: tuple[str, ...] = attribute(DEFAULT_ACTIVATIONS)  # the spec's default (the field keeps its place)
