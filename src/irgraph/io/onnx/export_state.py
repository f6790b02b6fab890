"""The stateless form of an IR -> ONNX export: each variable's ReadValue a graph input, its Assign a graph output
(``irgraph.io.onnx.stateless`` names them), and the layers a Result or an Assign needs, not looking past a ReadValue.
"""

from __future__ import annotations

from typing import Any

from irgraph.core.errors import ConversionError
from irgraph.core.text import counted
from irgraph.graph import Node, OutputPort
from irgraph.io.onnx.common import port_type
from irgraph.io.onnx.export_scope import ExportScope, Refusal
from irgraph.io.onnx.stateless import StateMapping
from irgraph.ops.infrastructure.read_value import ReadValueBase


class StatelessExport(ExportScope):
    """The variables of a stateful model as graph inputs and outputs (``export_onnx(..., stateless=True)``)."""

    state: dict[int, StateMapping] | None
    state_inputs: list[Any]
    state_outputs: list[Any]
    nodes: list[Any]

    def _needed_without_state(self) -> set[int]:
        """Ids of the layers some Result or Assign depends on, not looking past a ReadValue (its initial value is
        the caller's to feed in the stateless form)."""
        seen: set[int] = set()
        stack = [node.id for node in self.model.results] + [node.id for node in self.model if node.op.traits.is_sink]
        while stack:
            node_id = stack.pop()
            if node_id in seen:
                continue
            seen.add(node_id)
            node = self.model.node(node_id)
            if not isinstance(node.op, ReadValueBase):
                stack.extend(source.node_id for source in self.model.input_sources(node) if source)
        return seen

    def _in_state_order(self, value_infos: list[Any], side: str) -> list[Any]:
        """The variables' graph inputs or outputs in ``state_mapping`` order (the layers come in graph order)."""
        order = {getattr(mapping, side): position for position, mapping in enumerate(self.state_order)}
        return sorted(value_infos, key=lambda info: order[info.name])

    def _state_note(self) -> None:
        """The explanation of the stateless form: one line per variable."""
        if self.state is None:
            return
        if not self.state_order:
            self.explain("stateless: the model has no variables (ReadValue/Assign); its inputs and outputs stay")
            return
        mappings = self.state_order
        self.explain(f"stateless: {counted(len(mappings), 'variable')} of the stateful model "
                     "become graph inputs and outputs (feed each step's outputs back as the next step's inputs; "
                     "at the first step, each ReadValue's initial value)")
        for mapping in mappings:
            self.explain(f"stateless: {mapping.describe()}")

    def _state_layer(self, node: Node, mapping: StateMapping) -> None:
        """A ReadValue as the graph input of its variable, an Assign as its graph output (stateless form)."""
        if isinstance(node.op, ReadValueBase):
            name = mapping.input
            assert name is not None
            self.taken.add(name)
            self.names[(node.id, 0)] = name
            tensor_type = port_type(self.model, OutputPort(node.id, 0))
            self.element_types[name] = tensor_type.element_type
            try:
                self.state_inputs.append(self._value_info(name, tensor_type, f"ReadValue {node.name!r}"))
            except ConversionError as err:
                raise Refusal(err.message) from None
            if self.model.input_sources(node):
                self.explain(f"ReadValue {node.name!r}: its initial value (input 0) is not exported; feed it as "
                             f"{name!r} at the first step")
            self.explain(f"ReadValue {node.name!r} -> graph input {name!r} {tensor_type}")
            return
        name = mapping.output
        assert name is not None
        source = self.model.input_sources(node)[0]
        if source is None:
            raise Refusal("Assign has no input")
        written = self.tensor_name(source)
        self.names[(node.id, 0)] = written  # the Assign passes its input through to any reader
        if written != name:
            self.taken.add(name)
            self.nodes.append(self.make(node, "Identity", [written], [name]))
        try:
            self.state_outputs.append(self._value_info(name, port_type(self.model, source), f"Assign {node.name!r}"))
        except ConversionError as err:
            raise Refusal(err.message) from None
        self.explain(f"Assign {node.name!r} -> graph output {name!r}")
