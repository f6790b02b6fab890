"""The stateless form of a stateful model for ONNX export (``export_onnx(..., stateless=True)``,
``ir-convert --stateless``): each variable (a ReadValue/Assign pair) becomes an extra graph input the ReadValue
reads and an extra graph output the Assign writes, as optimum's ONNX exports of the same LLMs have them: the
caller feeds each step's outputs back as the next step's inputs.

Names follow optimum where the variable id allows: OpenVINO's ``make_stateful`` (what optimum-intel runs) names a
variable by its input's name followed by its output's, so ``past_key_values.0.keypresent.0.key`` (or
``past.0.keypresent.0.key``) becomes input ``past_key_values.0.key`` and output ``present.0.key``. Otherwise a
variable id that starts with its ReadValue's tensor name splits there (input: that name; output: the rest), and
any other id ``v`` gives ``past.v`` and ``present.v``. A name some Parameter, Result or other variable already uses
gets a ``_1``, ``_2``... suffix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from irgraph.graph import Model, Node
from irgraph.ops import Parameter
from irgraph.ops.infrastructure.assign import AssignBase
from irgraph.ops.infrastructure.read_value import ReadValueBase

__all__ = ["StateMapping", "state_mapping"]

_OPTIMUM_ID = re.compile(r"^.*?(\d+)\.(key|value)present\.\1\.\2$")
"""``<past name>.N.key`` + ``present.N.key``: the make_stateful id of a KV-cache variable of layer N."""


@dataclass(frozen=True)
class StateMapping:
    """One variable of the stateless form: the graph input its ReadValue reads (None: no ReadValue) and the graph
    output its Assign writes (None: no Assign)."""

    variable_id: str
    input: str | None
    output: str | None
    read: Node | None
    assign: Node | None

    def describe(self) -> str:
        """``variable 'v' -> input 'past.v', output 'present.v'`` (one line of the export's note)."""
        parts = [f"input {self.input!r}" if self.input else "no input (no ReadValue reads it)",
                 f"output {self.output!r}" if self.output else "no output (no Assign writes it: the input is "
                                                                 "fed unchanged at every step)"]
        return f"variable {self.variable_id!r} -> {', '.join(parts)}"


def state_mapping(model: Model) -> list[StateMapping]:
    """The variables of ``model``'s main graph as inputs and outputs, inputs in natural order of their names
    (``past_key_values.2.key`` before ``past_key_values.10.key``); empty for a model without variables."""
    reads: dict[str, Node] = {}
    assigns: dict[str, Node] = {}
    for node in model:
        if isinstance(node.op, ReadValueBase):
            reads.setdefault(node.op.variable_id, node)
        elif isinstance(node.op, AssignBase):
            assigns.setdefault(node.op.variable_id, node)
    used = set(model.output_keys().values())
    for node in model:
        if isinstance(node.op, Parameter):
            used.update(model.input_names(node))
    proposed = {variable_id: _names(variable_id, reads.get(variable_id))
                for variable_id in [*reads, *(v for v in assigns if v not in reads)]}
    mappings = []
    for variable_id in sorted(proposed, key=lambda v: _natural(proposed[v][0])):
        wanted_input, wanted_output = proposed[variable_id]
        read, assign = reads.get(variable_id), assigns.get(variable_id)
        input_name = _unique(wanted_input, used) if read is not None else None
        output_name = _unique(wanted_output, used) if assign is not None else None
        mappings.append(StateMapping(variable_id, input_name, output_name, read, assign))
    return mappings


def _names(variable_id: str, read: Node | None) -> tuple[str, str]:
    """The (input, output) names a variable asks for, before collisions are resolved."""
    found = _OPTIMUM_ID.match(variable_id)
    if found:
        layer, kind = found.groups()
        return f"past_key_values.{layer}.{kind}", f"present.{layer}.{kind}"
    for name in read.outputs[0].tensor_names if read is not None else []:
        if name and variable_id.startswith(name) and len(variable_id) > len(name):
            return name, variable_id[len(name):]
    return f"past.{variable_id}", f"present.{variable_id}"


def _unique(name: str, used: set[str]) -> str:
    candidate, suffix = name, 1
    while candidate in used:
        candidate, suffix = f"{name}_{suffix}", suffix + 1
    used.add(candidate)
    return candidate


def _natural(name: str) -> list[object]:
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", name)]

