"""Assign-3 and Assign-6: write a variable at the end of the run (stateful models, the KV cache).

An Assign is a *sink*: no Result reads it, yet it runs (it is a root of the graph like a Result).
Its input becomes the value of its ``variable_id`` once the run ends, so every ReadValue of the
run reads the value of the previous run, as in OpenVINO. Its one output (OpenVINO writes the
port) passes the input through. Which ReadValue declares the variable, and whether the input fits
that declaration, are questions about the whole model: :func:`irgraph.analysis.variables.variable_problems`
answers them (Assign-3 needs a ReadValue-3 of its ``variable_id`` upstream; Assign-6 a ReadValue-6
anywhere in the model).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import TensorType
from irgraph.ops.infrastructure.read_value import VariableOp
from irgraph.ops.op import Inputs, InputSpec
from irgraph.ops.registry import register
from irgraph.ops.traits import OpTraits


@dataclass(frozen=True)
class AssignBase(VariableOp):
    """The shared part of Assign-3 and Assign-6."""

    type_name = "Assign"
    inputs = Inputs.of(InputSpec("new_value"))
    traits = OpTraits(is_sink=True)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The input's type (the output passes the value through)."""
        return [inputs[0]]


@register
@dataclass(frozen=True)
class Assign3(AssignBase):
    """Assign-3: the ReadValue-3 of ``variable_id`` must be upstream; the type must equal the variable's."""

    introduced = 3


@register
@dataclass(frozen=True)
class Assign6(AssignBase):
    """Assign-6: type and shape must be compatible with the variable of the model's ReadValue-6."""

    introduced = 6
