"""The ONNX -> IR walk: ``GraphConverter`` turns an ONNX graph into a Model, node by node through the rule of
each node's op type (``import_rules``), and ``BodyConverter`` does the same for a sub-graph (a Loop/Scan body,
an If branch) into a Model of its own.

Graph inputs become Parameters named after them, initializers and Constant nodes become Consts (created where a
tensor is consumed), every ONNX tensor name becomes the tensor name of the port that produces it, and graph
outputs become Results keyed by the ONNX output names.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.analysis.shape_inference import walk
from irgraph.core.element_types import ElementType
from irgraph.core.errors import ConversionError, IrError, Location, OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.core.text import counted
from irgraph.graph import Body, Model, Node, OutputPort
from irgraph.io.onnx.common import Explainer, element_type_from_onnx, port_type
from irgraph.io.onnx.import_rules import RULES, supported_ops
from irgraph.io.onnx.node_import import NodeImport
from irgraph.ops import Const, Op, Parameter, Result
from irgraph.ops.op import shape_text

if TYPE_CHECKING:
    import onnx as onnx_types

SUPPORTED_OPS = tuple(supported_ops())
"""The ONNX (ai.onnx domain) ops ``convert_onnx`` converts."""


class GraphConverter:
    """One conversion: ONNX tensor names -> ports, node by node in the graph's (topological) order."""

    def __init__(self, onnx: ModuleType, proto: onnx_types.ModelProto, origin: str | None, explain: Explainer):
        self.onnx = onnx
        self.graph = proto.graph
        self.explain = explain
        self.location = Location(file=origin)
        self.opset = self._opset(proto)
        name = self.graph.name or (Path(origin).stem if origin else "model")
        self.model = Model(name)
        self.model.source = origin
        self.ports: dict[str, OutputPort] = {}
        self.constants: dict[str, tuple[ElementType, np.ndarray]] = {}
        self.origins: dict[str, str] = {}
        self.output_names: set[str] = set()

    def error(self, message: str) -> ConversionError:
        """A ConversionError located at the ONNX file."""
        return ConversionError(message, self.location)

    # ---------------------------------------------------------------------------- the walk
    def convert(self) -> Model:
        """Initializers, inputs, nodes, outputs; each node's types are inferred as it is placed."""
        self.explain(f"opset: ai.onnx {self.opset}")
        for tensor in self.graph.initializer:
            self.constants[tensor.name] = self.read_tensor(tensor, f"initializer {tensor.name!r}")
            self.origins[tensor.name] = f"initializer {tensor.name!r}"
        if self.graph.sparse_initializer:
            raise self.error("sparse initializers are not supported; store them as dense initializers")
        for value in self.graph.input:
            self._input(value)
        self._check_supported()
        for index, node in enumerate(self.graph.node):
            self.convert_node(node, index)
        if not self.graph.output:
            raise self.error("the ONNX graph has no outputs: there is nothing to convert")
        for value in self.graph.output:
            self._output(value)
        for tensor in self.graph.initializer:
            if tensor.name not in self.ports:
                self.explain(f"initializer {tensor.name!r}: not consumed as a tensor, so no Const")
        return self.model

    def convert_node(self, node: onnx_types.NodeProto, index: int) -> None:
        """Convert one node through its rule; ConversionError for ops, domains and opsets irgraph does not convert."""
        outputs = [o for o in node.output if o]
        where = f"node {node.name!r}" if node.name else f"node #{index}"
        if not node.name and outputs:
            where += f" (output {outputs[0]!r})"
        found = RULES.get(node.op_type) if node.domain in ("", "ai.onnx") else None
        if found is None:
            domain = f" (domain {node.domain!r})" if node.domain else ""
            raise self.error(
                f"{node.op_type}{domain} {where}: this ONNX op is not supported; "
                f"supported ops (ai.onnx domain): {', '.join(supported_ops())}"
            )
        version = self.onnx.defs.get_schema(node.op_type, self.opset, "").since_version
        if found.versions is not None and version not in found.versions:
            raise self.error(
                f"{node.op_type}-{version} {where}: irgraph converts {node.op_type} versions "
                f"{', '.join(map(str, found.versions))}; this opset ({self.opset}) has a newer one"
            )
        name = node.name or f"{node.op_type}_{index}"
        context = NodeImport(self, node, version, f"{node.op_type}-{version} {where}", name)
        try:
            found.convert(context)
        except ConversionError as err:
            raise err.locate(self.location) from None

    def _check_supported(self) -> None:
        """One error naming every op type no rule converts (in sub-graphs too), with its node count, before any is
        converted."""
        missing: dict[str, int] = {}
        for node in all_nodes(self.graph):
            if node.domain not in ("", "ai.onnx") or node.op_type not in SUPPORTED_OPS:
                label = node.op_type + (f" (domain {node.domain!r})" if node.domain not in ("", "ai.onnx") else "")
                missing[label] = missing.get(label, 0) + 1
        if missing:
            ordered = sorted(missing.items(), key=lambda item: (-item[1], item[0]))
            listing = ", ".join(f"{name}×{count}" for name, count in ordered)
            nodes = sum(missing.values())
            raise self.error(f"{counted(nodes, 'node')} of {counted(len(missing), 'ONNX op type')} irgraph does not "
                             f"convert: {listing}; it converts (ai.onnx domain): {', '.join(SUPPORTED_OPS)}")

    def _opset(self, proto: onnx_types.ModelProto) -> int:
        versions = {entry.domain: entry.version for entry in proto.opset_import}
        version = versions.get("", versions.get("ai.onnx"))
        if version is None:
            if not proto.opset_import and proto.ir_version < 3:
                return 1  # IR versions 1 and 2 had no opset_import: the default opset is 1
            listed = ", ".join(f"{d or 'ai.onnx'} {v}" for d, v in versions.items()) or "nothing"
            raise self.error(f"the model imports no ai.onnx opset (opset_import lists {listed})")
        if version < 1:  # onnx has no schema for it: every node would fail to resolve
            raise self.error(f"the model imports ai.onnx opset {version}; opset versions start at 1")
        return int(version)

    def _input(self, value: onnx_types.ValueInfoProto) -> None:
        name = value.name
        if name in self.constants:
            self.explain(f"input {name!r}: also an initializer, so a Const (its initializer value), not a Parameter")
            return
        if name in self.ports:
            raise self.error(f"graph input {name!r} is listed twice")
        element_type, shape, notes = self.value_type(value, f"graph input {name!r}")
        self._source(Parameter(shape=shape, element_type=element_type), name)
        detail = f" ({'; '.join(notes)})" if notes else ""
        self.explain(f"input {name!r}: Parameter {element_type}{shape}{detail}")

    def _output(self, value: onnx_types.ValueInfoProto) -> None:
        name = value.name
        if not self.knows(name):
            raise self.error(f"graph output {name!r} is not a graph input, an initializer or the output of a node")
        port = self.tensor(name, f"graph output {name!r}")
        if name in self.output_names:
            raise self.error(f"graph output {name!r} is listed twice")
        self.output_names.add(name)
        result = self.add(Result(), f"{name}/sink_port_0", [port])
        if self.model.named_output_key(result) != name:
            result.result_names = [name]
        produced = port_type(self.model, port)
        note = ""
        if value.type.HasField("tensor_type") and value.type.tensor_type.elem_type:
            declared, shape, _ = self.value_type(value, f"graph output {name!r}")
            if produced.element_type is not declared:
                raise self.error(
                    f"graph output {name!r} is declared {declared} but its producer gives {produced.element_type}"
                )
            if not shape.compatible(produced.shape):
                note = f"; its declared shape {shape} does not fit, the computed one is kept"
        self.explain(f"output {name!r}: Result keyed {name!r}, {produced.element_type}{produced.shape}{note}")

    # ---------------------------------------------------------------------------- sub-graphs
    def knows(self, name: str) -> bool:
        """True when ONNX tensor ``name`` is visible here (a graph input, initializer or node output so far)."""
        return name in self.ports or name in self.constants

    def body(self, graph: onnx_types.GraphProto, name: str, label: str) -> BodyConverter:
        """An importer for the sub-graph ``graph`` (a Loop/Scan body, an If branch) of a node of this graph."""
        return BodyConverter(self, graph, name, label)

    def add_sub_graph(self, op: Op, name: str, inputs: Sequence[OutputPort], bodies: Sequence[Body],
                      num_outputs: int) -> Node:
        """Place a Loop, If or TensorIterator with its bodies and infer its outputs through them."""
        node = self.model.add_node(op, name, list(inputs), num_outputs=num_outputs)
        node.bodies = tuple(bodies)
        types = [port_type(self.model, port) for port in inputs]
        values = [self.model.constant_value(port) for port in inputs]
        try:
            node.set_output_types(op.infer_layer(node, types, values, lambda body, given: walk(body, None, given)))
        except (OpError, IrError):
            self.model.remove_node(node.id)
            raise
        return node

    # ---------------------------------------------------------------------------- helpers
    def add(self, op: Op, name: str, inputs: Sequence[OutputPort], num_outputs: int | None = None) -> Node:
        """Place ``op`` and infer its output types at once (errors surface at the ONNX node)."""
        node = self.model.add_node(op, name, list(inputs), num_outputs=num_outputs)
        types = [port_type(self.model, port) for port in inputs]
        values = [self.model.constant_value(port) for port in inputs]
        try:
            node.set_output_types(op.infer(types, values))
        except OpError:
            self.model.remove_node(node.id)
            raise
        return node

    def tensor(self, name: str, consumer: str) -> OutputPort:
        """The port holding ONNX tensor ``name``; a constant becomes a Const named after it here."""
        port = self.ports.get(name)
        if port is not None:
            return port
        if name not in self.constants:
            raise self.error(
                f"{consumer}: input {name!r} is not a graph input, an initializer or the output of an earlier node "
                "(ONNX nodes must be listed in topological order)"
            )
        element_type, array = self.constants[name]
        port = self._source(Const(element_type=element_type, shape=tuple(array.shape), value=array), name)
        self.explain(f"{self.origins[name]}: Const {element_type}{shape_text(array.shape)}")
        return port

    def _source(self, op: Op, name: str) -> OutputPort:
        """Place an input-less ``op`` (a Parameter or a Const) as the producer of ONNX tensor ``name``."""
        node = self.add(op, name, [])
        node.outputs[0].tensor_names = [name]
        self.ports[name] = OutputPort(node.id, 0)
        return self.ports[name]

    def constant(self, name: str) -> tuple[ElementType, np.ndarray] | None:
        """The value of ONNX tensor ``name`` when it is an initializer, a Constant output or a Const."""
        if name in self.constants:
            return self.constants[name]
        port = self.ports.get(name)
        if port is None:
            return None
        value = self.model.constant_value(port)
        return None if value is None else (port_type(self.model, port).element_type, value)

    def read_tensor(self, tensor: onnx_types.TensorProto, what: str) -> tuple[ElementType, np.ndarray]:
        """An ONNX TensorProto as (element type, array in the IR in-memory dtype)."""
        element_type = element_type_from_onnx(self.onnx, tensor.data_type, what)
        if tensor.data_location == self.onnx.TensorProto.EXTERNAL:
            raise self.error(f"{what} keeps its data in an external file that was not loaded; convert from the path")
        if any(dim < 0 for dim in tensor.dims):  # NumPy would read -2 as -1 and guess the dim
            raise self.error(f"{what} has the shape {list(tensor.dims)}; dims must be >= 0")
        try:
            array = self.onnx.numpy_helper.to_array(tensor)
        except Exception as err:  # a size that contradicts the dims, an unreadable encoding
            raise self.error(f"{what}: cannot read its data ({err})") from None
        return element_type, np.asarray(array).astype(element_type.numpy_dtype, copy=False)

    def value_type(self, value: onnx_types.ValueInfoProto, what: str) -> tuple[ElementType, Shape, list[str]]:
        """Element type and partial shape of a graph input/output; notes say how dims were read."""
        kind = value.type.WhichOneof("value")
        if kind != "tensor_type":
            raise self.error(f"{what} is a {kind or 'value without a type'}; only tensors convert")
        tensor_type = value.type.tensor_type
        element_type = element_type_from_onnx(self.onnx, tensor_type.elem_type, what)
        if not tensor_type.HasField("shape"):
            return element_type, DYNAMIC_RANK, ["no shape: dynamic rank"]
        dims: list[Dim] = []
        notes: list[str] = []
        for axis, dim in enumerate(tensor_type.shape.dim):
            which = dim.WhichOneof("value")
            if which == "dim_value":
                if dim.dim_value < 0:
                    raise self.error(f"{what}: dim {axis} is {dim.dim_value}; dims must be >= 0")
                dims.append(Dim.static(dim.dim_value))
            else:
                dims.append(Dim.dynamic())
                label = repr(dim.dim_param) if which == "dim_param" else "unknown"
                notes.append(f"dim {axis} {label} -> ?")
        return element_type, Shape(tuple(dims)), notes


def all_nodes(graph: Any) -> Iterator[Any]:
    """Every node of ``graph`` and of the sub-graphs in its nodes' attributes (no recursion)."""
    pending = [graph]
    while pending:
        for node in pending.pop().node:
            yield node
            for attribute in node.attribute:
                if attribute.HasField("g"):
                    pending.append(attribute.g)
                pending.extend(attribute.graphs)


class BodyConverter(GraphConverter):
    """Converts one sub-graph into its own Model. A name of an outer scope becomes a Const of its value when it
    is constant there, else a body Parameter the layer feeds from outside (``captured``, in first-use order)."""

    def __init__(self, parent: GraphConverter, graph: onnx_types.GraphProto, name: str, label: str) -> None:
        self.onnx = parent.onnx
        self.graph = graph
        self.parent = parent
        self.explain = Explainer(lambda line: parent.explain(f"{label}: {line}"))
        self.location = parent.location
        self.opset = parent.opset
        self.model = Model(name)
        self.model.source = parent.model.source
        self.ports = {}
        self.constants = {}
        self.origins = {}
        self.output_names = set()
        self.captured: dict[str, OutputPort] = {}
        """Outer tensor name -> its port in the parent's model, for each body Parameter made for one."""

    def knows(self, name: str) -> bool:
        return super().knows(name) or self.parent.knows(name)

    def constant(self, name: str) -> tuple[ElementType, np.ndarray] | None:
        if super().knows(name):
            return super().constant(name)
        return self.parent.constant(name) if self.parent.knows(name) else None

    def tensor(self, name: str, consumer: str) -> OutputPort:
        if super().knows(name) or not self.parent.knows(name):
            return super().tensor(name, consumer)
        found = self.parent.constant(name)
        if found is not None:
            self.constants[name] = found
            self.origins[name] = f"outer-scope constant {name!r}"
            return super().tensor(name, consumer)
        outer = self.parent.tensor(name, consumer)
        tensor_type = port_type(self.parent.model, outer)
        port = self._source(Parameter(shape=tensor_type.shape, element_type=tensor_type.element_type), name)
        self.captured[name] = outer
        self.explain(f"{name!r} of the outer scope -> a body Parameter {tensor_type} the layer feeds")
        return port

    def parameter(self, name: str, tensor_type: TensorType) -> OutputPort:
        """A body Parameter of ``tensor_type`` producing ONNX tensor ``name`` (a body input)."""
        if name in self.ports:
            raise self.error(f"sub-graph input {name!r} is listed twice")
        return self._source(Parameter(shape=tensor_type.shape, element_type=tensor_type.element_type), name)

    def declared(self, index: int) -> TensorType | None:
        """The type the sub-graph declares for its input ``index`` (None when it declares no tensor type)."""
        value = self.graph.input[index]
        if not value.type.HasField("tensor_type") or not value.type.tensor_type.elem_type:
            return None
        element_type, shape, _ = self.value_type(value, f"sub-graph input {value.name!r}")
        return TensorType(element_type, shape)

    def convert_body(self) -> list[OutputPort]:
        """Initializers and nodes (the inputs are made by the caller); the ports of the sub-graph's outputs."""
        for tensor in self.graph.initializer:
            self.constants[tensor.name] = self.read_tensor(tensor, f"initializer {tensor.name!r}")
            self.origins[tensor.name] = f"initializer {tensor.name!r}"
        if self.graph.sparse_initializer:
            raise self.error("sparse initializers are not supported; store them as dense initializers")
        for index, node in enumerate(self.graph.node):
            self.convert_node(node, index)
        outputs = []
        for value in self.graph.output:
            if not self.knows(value.name):
                raise self.error(f"sub-graph output {value.name!r} is not an input, an initializer, an outer-scope "
                                 "name or the output of a node")
            outputs.append(self.tensor(value.name, f"sub-graph output {value.name!r}"))
        return outputs
