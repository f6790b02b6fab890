"""``NodeImport``: one ONNX node being converted, the ``ImportContext`` its rule works through.

The rule sees the node and the converter's model only through these methods, so the converter's bookkeeping
(which port computes which ONNX tensor, which constants wait to become Consts) stays the converter's.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import ConversionError, OpError
from irgraph.core.shapes import TensorType
from irgraph.graph import Body, Model, Node, OutputPort
from irgraph.io.onnx.common import port_type
from irgraph.ops import Const, Op

if TYPE_CHECKING:
    import onnx as onnx_types

    from irgraph.io.onnx.converter import BodyConverter, GraphConverter


class NodeImport:
    """The ONNX node ``node`` of the graph ``converter`` converts (an ``import_rules.ImportContext``)."""

    def __init__(self, converter: GraphConverter, node: onnx_types.NodeProto, version: int, label: str,
                 name: str) -> None:
        self._converter = converter
        self.node = node
        self.version = version
        self.label = label
        self.name = name
        self.onnx: ModuleType = converter.onnx
        self.opset: int = converter.opset
        self.model: Model = converter.model
        self.graph: onnx_types.GraphProto = converter.graph

    def fail(self, message: str) -> ConversionError:
        """The error a rule raises for what it cannot convert, naming the node."""
        return ConversionError(f"{self.label}: {message}")

    def explain(self, line: str) -> None:
        """One line of ``--explain`` output."""
        self._converter.explain(line)

    # ---------------------------------------------------------------------------- reading the node
    def attributes(self, allowed: dict[str, str]) -> dict[str, Any]:
        """Attribute values by name; unknown attributes and wrong attribute types are errors."""
        found: dict[str, Any] = {}
        for attribute in self.node.attribute:
            name = attribute.name
            if name not in allowed:
                takes = ", ".join(sorted(allowed)) or "no attributes"
                raise self.fail(
                    f"has the attribute {name!r}, which this op version does not define (it takes: {takes})"
                )
            type_name = self.onnx.AttributeProto.AttributeType.Name(attribute.type)
            if type_name != allowed[name]:
                raise self.fail(f"attribute {name!r} must be {allowed[name]}; got {type_name}")
            found[name] = self.onnx.helper.get_attribute_value(attribute)
        return found

    def tensor(self, name: str) -> OutputPort:
        """The port computing ONNX tensor ``name`` (a Const layer made on first use of a constant)."""
        return self._converter.tensor(name, self.label)

    def constant(self, name: str) -> tuple[ElementType, np.ndarray] | None:
        """The value of ONNX tensor ``name`` when it is constant, else None."""
        return self._converter.constant(name)

    def type_of(self, port: OutputPort) -> TensorType:
        """The inferred type at ``port``."""
        return port_type(self.model, port)

    def read_tensor(self, tensor: onnx_types.TensorProto, what: str) -> tuple[ElementType, np.ndarray]:
        """The element type and value of an ONNX TensorProto."""
        return self._converter.read_tensor(tensor, what)

    # ---------------------------------------------------------------------------- placing layers
    def emit(self, op: Op, inputs: Sequence[OutputPort], num_outputs: int | None = None) -> None:
        """Place the IR node for the ONNX node and name its output ports after the ONNX outputs."""
        try:
            node = self._converter.add(op, self.name, inputs, num_outputs=num_outputs)
        except OpError as err:
            pairs = zip(self.node.input, inputs, strict=False)
            described = ", ".join(f"{name!r} {port_type(self.model, port)}" for name, port in pairs)
            raise self.fail(f"{err.message} Inputs: {described}") from None
        for index, name in enumerate(self.node.output):
            if not name:
                continue
            self._check_unproduced(name)
            node.outputs[index].tensor_names = [name]
            self._converter.ports[name] = OutputPort(node.id, index)

    def add(self, op: Op, name: str, inputs: Sequence[OutputPort], num_outputs: int | None = None) -> Node:
        """Place a layer named ``name``, its outputs inferred; no output named."""
        return self._converter.add(op, name, inputs, num_outputs)

    def const(self, value: Any, element_type: ElementType, what: str) -> OutputPort:
        """A Const the pattern needs (an axis, a scale), named ``name/what``, with no tensor name."""
        array = np.asarray(value, dtype=element_type.numpy_dtype)
        op = Const(element_type=element_type, shape=tuple(array.shape), value=array)
        return OutputPort(self._converter.add(op, f"{self.name}/{what}", []).id, 0)

    def add_sub_graph(self, op: Op, inputs: Sequence[OutputPort], bodies: Sequence[Body], num_outputs: int) -> Node:
        """Place a Loop, If or TensorIterator layer with its bodies, its outputs inferred through them."""
        return self._converter.add_sub_graph(op, self.name, inputs, bodies, num_outputs)

    def body(self, graph: onnx_types.GraphProto, name: str, label: str) -> BodyConverter:
        """A converter for the sub-graph ``graph`` of the node into a Model named ``name``."""
        return self._converter.body(graph, name, label)

    def convert(self, node: onnx_types.NodeProto, index: int) -> None:
        """Convert another node into the same graph (a node of an expanded ONNX function body)."""
        self._converter.convert_node(node, index)

    # ---------------------------------------------------------------------------- naming outputs
    def bind(self, port: OutputPort, name: str) -> None:
        """Make ``port`` the producer of the node's output ``name`` (its only tensor name)."""
        self._check_unproduced(name)
        self.model.node(port.node_id).outputs[port.index].tensor_names = [name]
        self._converter.ports[name] = port

    def alias(self, name: str, port: OutputPort) -> None:
        """Make the node's output ``name`` another tensor name of ``port`` (no layer)."""
        self._check_unproduced(name)
        self.model.node(port.node_id).outputs[port.index].tensor_names.append(name)
        self._converter.ports[name] = port

    def unbind(self, name: str) -> OutputPort:
        """Take ONNX tensor ``name`` off the port producing it; that port."""
        port = self._converter.ports.pop(name)
        self.model.node(port.node_id).outputs[port.index].tensor_names = []
        return port

    def define(self, name: str, element_type: ElementType, value: np.ndarray) -> None:
        """Make the node's output ``name`` a constant: a Const where it is consumed as a tensor."""
        self._check_unproduced(name)
        self._converter.constants[name] = (element_type, value)
        self._converter.origins[name] = f"{self.node.op_type} {name!r}"

    def _check_unproduced(self, name: str) -> None:
        """Refuse an output name some input, initializer or earlier node already gave a tensor."""
        if name in self._converter.ports or name in self._converter.constants:
            raise self.fail(f"output {name!r} is already produced elsewhere (ONNX tensor names are unique)")
