"""LSTMCell-1 (peepholes, ``input_forget``) and LSTMCell-4: one step of a long short-term memory cell."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import Dim, TensorType
from irgraph.ops.families.recurrent import RecurrentCell, dim_of
from irgraph.ops.op import Inputs, InputSpec, attribute, check
from irgraph.ops.registry import register

WEIGHTS_FORMATS = ("fico", "icof", "ifco", "ifoc", "iofc")

LSTM_INPUTS = (InputSpec("X"), InputSpec("initial_hidden_state"), InputSpec("initial_cell_state"), InputSpec("W"),
               InputSpec("R"), InputSpec("B"))


@dataclass(frozen=True)
class LSTMCellBase(RecurrentCell):
    """Gates f, i, c, o in W, R and B (OpenVINO's order, not ONNX's i, o, f, c):
    ``C' = f(F)*C + f(I)*g(G)``, ``H' = f(O)*h(C')``; outputs H' and C'. The clip applies to the gates,
    not to C' before h."""

    type_name = "LSTMCell"
    KIND = "lstm"
    ACTIVATION_COUNT = 3
    DEFAULT_ACTIVATIONS = ("sigmoid", "tanh", "tanh")

    activations: tuple[str, ...] = attribute(DEFAULT_ACTIVATIONS)  # the spec's default (the field keeps its place)


@register
@dataclass(frozen=True)
class LSTMCell1(LSTMCellBase):
    """One LSTM step with optional peepholes P and input_forget. Spec: LSTMCell-1.

    An optional seventh input P ``[3*hidden]`` of peepholes (f, i, o, as OpenVINO's
    ``lstm_cell_v1`` reads it): ``F += Pf*C``, ``I += Pi*C``, ``O += Po*C'``; ``input_forget`` couples
    the gates (``i = 1 - f``). ``weights_format`` is kept and written back; the weights are read in
    OpenVINO's f, i, c, o whatever it says, as the CPU plugin of openvino 2026.4.1 does (its reference
    refuses any other). That plugin ignores P and ``input_forget``; irgraph follows the spec and the
    reference kernel."""

    introduced = 1
    inputs = Inputs.optional(6, *LSTM_INPUTS, InputSpec("P"))

    input_forget: bool = attribute(False)
    weights_format: str = attribute("ifco")

    def __post_init__(self) -> None:
        super().__post_init__()
        check(self.weights_format.lower() in WEIGHTS_FORMATS,
              f"Attribute 'weights_format' must be one of {', '.join(WEIGHTS_FORMATS)}. Got: {self.weights_format!r}")

    def _check_extra(self, hidden: Dim, inputs: Sequence[TensorType]) -> Dim:
        """P: rank 1, ``3 * hidden_size`` long. Without P, OpenVINO builds zeros of ``3 * hidden_size`` (the
        attribute), which must then fit the hidden size of the inputs."""
        if len(inputs) < 7:
            length = Dim.static(3 * self.hidden_size)
        else:
            p_shape = inputs[6].shape
            length = dim_of(p_shape, 0)
            check(p_shape.rank_is_dynamic or p_shape.rank == 1,
                  f"LSTMCell input tensor P shall have dimension 1D. Got: {p_shape}")
        if length.is_static and hidden.is_static:
            check(length.value == 3 * hidden.value,
                  f"Parameter hidden_size mismatched in P input. Current value is: {length.value}, expected: "
                  f"{3 * hidden.value}.")
        return hidden

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """As LSTMCell-4, with the peepholes (zeros when P is absent)."""
        if len(inputs) < 7:
            inputs = [*inputs, np.zeros(3 * inputs[1].shape[-1], inputs[0].dtype)]
        return super().evaluate(inputs)


@register
@dataclass(frozen=True)
class LSTMCell4(LSTMCellBase):
    """One LSTM step: C' = f(F)*C + f(I)*g(G), H' = f(O)*h(C'). Spec: LSTMCell-4."""

    introduced = 4
    inputs = Inputs.of(*LSTM_INPUTS)
