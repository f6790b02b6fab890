"""The naming half of an IR -> ONNX export: unique tensor and node names across a model and its sub-graph bodies,
ONNX value infos and initializers, the nodes a rule makes (their input types checked against the op's schema at the
export's opset) and the refusal a rule raises. ``exporter._Exporter`` builds on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import ConversionError
from irgraph.core.shapes import TensorType
from irgraph.graph import Model, Node, OutputPort
from irgraph.io.onnx.common import Explainer, onnx_type_name
from irgraph.io.onnx.stateless import StateMapping
from irgraph.ops import Const
from irgraph.ops.op import shape_text

if TYPE_CHECKING:
    import onnx as onnx_types


class Refusal(ConversionError):
    """A rule's refusal: collected with every other one into the export's single error."""


class ExportScope:
    """Names, types and the node and initializer factories of one export (the attributes are set by
    ``exporter._Exporter``; a sub-graph body's exporter shares its parent's name sets)."""

    onnx: ModuleType
    helper: Any
    model: Model
    opset: int
    explain: Explainer
    names: dict[tuple[int, int], str]
    element_types: dict[str, ElementType]
    taken: set[str]
    reserved: dict[str, tuple[int, int]]
    reserved_for_bodies: dict[str, tuple[int, int]]
    node_names: set[str]
    initializers: list[Any]
    types_used: set[str]
    output_keys: dict[int, str]
    state_order: list[StateMapping]

    def _reserve_output_keys(self) -> None:
        for mapping in self.state_order:
            # A mapping has an input name exactly when it has a ReadValue, an output name when it has an Assign.
            if mapping.input is not None and mapping.read is not None:
                self.reserved[mapping.input] = (mapping.read.id, 0)
            if mapping.output is not None and mapping.assign is not None:
                source = self.model.input_sources(mapping.assign)[0]
                self.reserved[mapping.output] = (source.node_id, source.index) if source else (-1, -1)
            for name in (mapping.input, mapping.output):
                if name is not None:
                    self.reserved_for_bodies[name] = (-2, -2)
        self.output_keys = self.model.output_keys()
        for result_id, key in self.output_keys.items():
            result = self.model.node(result_id)
            source = self.model.input_sources(result)[0]
            if key in self.reserved:
                raise ConversionError(f"two Results have the output name {key!r}; ONNX output names must be unique",
                                      result.location)
            self.reserved[key] = (source.node_id, source.index) if source else (-1, -1)
            self.reserved_for_bodies[key] = (-2, -2)

    def _claim(self, candidates: list[str], port: tuple[int, int]) -> str | None:
        for name in candidates:
            if name and name not in self.taken and self.reserved.get(name, port) == port:
                self.taken.add(name)
                return name
        return None

    def _fresh(self, base: str) -> str:
        name, suffix = base or "tensor", 1
        while name in self.taken or name in self.reserved:
            name, suffix = f"{base}_{suffix}", suffix + 1
        self.taken.add(name)
        return name

    def tensor_name(self, port: OutputPort) -> str:
        """The ONNX name of ``port``; a Const becomes an initializer the first time it is asked for."""
        key = (port.node_id, port.index)
        if key in self.names:
            return self.names[key]
        node = self.model.node(port.node_id)
        keys = [k for k, p in self.reserved.items() if p == key]
        fallback = node.name if node.num_outputs == 1 else f"{node.name}:{port.index}"
        name = self._claim([*node.outputs[port.index].tensor_names, *keys], key) or self._fresh(fallback)
        self.names[key] = name
        tensor_type = self.model.output_type(port)
        if tensor_type is not None:
            self.element_types[name] = tensor_type.element_type
        if isinstance(node.op, Const):
            self._initializer(node, node.op, name)
        return name

    def _onnx_type(self, element_type: ElementType, what: str) -> int:
        name = onnx_type_name(element_type, what)
        self.types_used.add(name)
        return int(self.onnx.TensorProto.DataType.Value(name))

    def _value_info(self, name: str, tensor_type: TensorType, what: str) -> Any:
        if tensor_type.element_type.is_dynamic:
            raise ConversionError(f"{what} has a dynamic element type; ONNX needs a concrete one")
        code = self._onnx_type(tensor_type.element_type, what)
        shape = tensor_type.shape
        if shape.rank_is_dynamic:
            raise ConversionError(f"{what} has a dynamic rank; ONNX graph inputs and outputs need a known rank "
                                  "(onnx.checker requires their shape)")
        bounded = [str(d) for d in shape if d.is_dynamic and str(d) != "?"]
        if bounded:
            self.explain(f"{what}: interval dims {', '.join(bounded)} become unknown dims (ONNX has no bounds)")
        return self.helper.make_tensor_value_info(name, code, [d.value if d.is_static else None for d in shape])

    def _node_name(self, base: str) -> str:
        name, suffix = base, 1
        while name in self.node_names:
            name, suffix = f"{base}_{suffix}", suffix + 1
        self.node_names.add(name)
        return name

    def _check_types(self, op_type: str, inputs: Sequence[str]) -> None:
        """Refuse an ONNX node whose schema (at this opset) excludes the IR element type of an input."""
        try:
            schema = self.onnx.defs.get_schema(op_type, self.opset, "")
        except Exception:  # SchemaError: the op is newer than the opset
            raise Refusal(f"ONNX {op_type} does not exist in opset {self.opset}") from None
        constraints = {c.type_param_str: c.allowed_type_strs for c in schema.type_constraints}
        formals = schema.inputs
        for index, name in enumerate(inputs):
            element_type = self.element_types.get(name)
            if element_type is None or not formals:
                continue
            formal = formals[min(index, len(formals) - 1)]
            allowed = constraints.get(formal.type_str, [formal.type_str])
            wanted = f"tensor({onnx_type_name(element_type, f'ONNX {op_type} input {name!r}').lower()})"
            if wanted not in allowed:
                takes = ", ".join(sorted(t[7:-1] for t in allowed if t.startswith("tensor(")))
                later = self._opset_taking(op_type, index, wanted)
                hint = f" ({op_type}-{later} takes them: export with opset {later})" if later else ""
                raise Refusal(f"ONNX {op_type}-{schema.since_version} (opset {self.opset}) does not take "
                               f"{element_type} tensors; it takes {takes}{hint}")

    def _opset_taking(self, op_type: str, index: int, wanted: str) -> int | None:
        """The first opset after this one whose ``op_type`` takes ``wanted`` at input ``index`` (None: none does)."""
        for opset in range(self.opset + 1, self.onnx.defs.onnx_opset_version() + 1):
            try:
                schema = self.onnx.defs.get_schema(op_type, opset, "")
            except Exception:  # SchemaError: an op ONNX removed later
                return None
            if schema.since_version <= self.opset:
                continue
            constraints = {c.type_param_str: c.allowed_type_strs for c in schema.type_constraints}
            formal = schema.inputs[min(index, len(schema.inputs) - 1)]
            if wanted in constraints.get(formal.type_str, [formal.type_str]):
                return int(schema.since_version)
        return None


    def make(self, node: Node, op_type: str, inputs: Sequence[str], outputs: Sequence[str], *,
             step: str | None = None, **attributes: Any) -> onnx_types.NodeProto:
        """An ONNX node named after the layer (``layer/step`` for a helper of a pattern), its input types checked."""
        self._check_types(op_type, inputs)
        base = node.name if step is None else f"{node.name}/{step}"
        made: onnx_types.NodeProto = self.helper.make_node(op_type, list(inputs), list(outputs),
                                                           name=self._node_name(base), **attributes)
        return made

    def temp(self, node: Node, step: str) -> str:
        """A fresh intermediate tensor name."""
        return self._fresh(f"{node.name}/{step}")

    def initializer(self, node: Node, step: str, value: np.ndarray) -> str:
        """A new initializer holding ``value``."""
        name = self._fresh(f"{node.name}/{step}")
        self._add_initializer(name, np.asarray(value), f"{node.name}/{step}")
        return name

    def define(self, name: str, value: np.ndarray) -> None:
        """The output tensor ``name`` becomes an initializer holding ``value``."""
        self._add_initializer(name, value, name)

    def refuse(self, message: str) -> ConversionError:
        """The error a rule raises for what ONNX cannot express."""
        return Refusal(message)

    def _initializer(self, node: Node, op: Const, name: str) -> None:
        if op.value is None:
            raise ConversionError("Const has no value (its weights were not loaded)", node.location)
        self._add_initializer(name, op.value, f"Const {node.name!r}", op.element_type)
        self.explain(f"Const {node.name!r} -> initializer {name!r} {op.element_type}{shape_text(op.shape)}")

    def _add_initializer(self, name: str, value: np.ndarray, what: str,
                         element_type: ElementType | None = None) -> None:
        element_type = element_type or ElementType.from_numpy(value.dtype)
        self._onnx_type(element_type, what)
        self.element_types[name] = element_type
        if element_type is ElementType.STRING:
            value = np.asarray([str(v).encode("utf-8") for v in value.reshape(-1)], dtype=object).reshape(value.shape)
        self.initializers.append(self.onnx.numpy_helper.from_array(value, name))
