"""IR -> ONNX: ``export_onnx`` writes a Model as ONNX, one export rule per op type (``export_rules``).

Parameters become graph inputs named by their layer name (else a tensor name), Consts
become initializers where a tensor consumes them, Results become graph outputs named by their
output key (DESIGN.md section 6), every other layer becomes the ONNX nodes its rule makes (the
first named by the layer name, helper nodes ``layer/step``) and every port keeps its first tensor
name. With ``stateless`` each variable of a stateful model (ReadValue/Assign) becomes a graph input and
output (``irgraph.io.onnx.stateless``). What ONNX cannot express is refused with one ConversionError listing
every such layer. The
model is stamped with the lowest ONNX IR version its opset and types need (never above 13, the
newest onnxruntime 1.31 loads) and checked with ``onnx.checker.check_model(full_check=True)``.

The exporter's naming and node factories are in ``export_scope``, the stateless form in ``export_state``, the
refusal message in ``export_messages``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.analysis.shape_inference import infer_shapes
from irgraph.analysis.variables import variable_problems
from irgraph.core.element_types import ElementType
from irgraph.core.errors import ConversionError, IrError, IrIOError, Location
from irgraph.core.shapes import TensorType
from irgraph.core.text import counted
from irgraph.graph import Model, Node, OutputPort
from irgraph.graph.subgraph import Body
from irgraph.io.atomic import check_destination, replace_files
from irgraph.io.onnx.common import (
    MAX_IR_VERSION,
    MIN_IR_VERSION_FOR_TYPE,
    Explain,
    Explainer,
    first_line,
    port_type,
    require_onnx,
)
from irgraph.io.onnx.export_messages import collect_missing, names_read, refusal_message
from irgraph.io.onnx.export_rules import REFUSED, RULES, Rule
from irgraph.io.onnx.export_scope import Refusal
from irgraph.io.onnx.export_state import StatelessExport
from irgraph.io.onnx.stateless import StateMapping, state_mapping
from irgraph.ops import Const, Parameter, Result
from irgraph.ops.shape.shape_of import ShapeOf1, ShapeOf3

if TYPE_CHECKING:
    import onnx as onnx_types

__all__ = ["DEFAULT_OPSET", "MIN_OPSET", "export_onnx", "exportable_ops"]

DEFAULT_OPSET = 18
MIN_OPSET = 13
"""Opset 13 is where Split, Squeeze, Unsqueeze and ReduceSum take their axes as inputs; the rules
write those forms (and ReduceX's input axes from 18)."""
_LISTED_NAMES = 3
"""Layer names quoted per op type in a refusal (the count says how many more)."""
_FOLD_LIMIT = 1 << 16
"""Most elements an export-time fold reads or makes (sizes and shapes, not weights)."""


def exportable_ops() -> list[str]:
    """The IR op types (with versions) that export to ONNX (a rule that does not always refuse), sorted."""
    names = {op_class.title() for op_class in RULES if op_class not in REFUSED}
    return sorted(names | {"Const-1", "Parameter-1", "Result-1"})


def export_onnx(
    model: Model,
    path: str | os.PathLike[str] | None = None,
    *,
    opset: int = DEFAULT_OPSET,
    explain: Explain = None,
    fold_decompression: bool = False,
    stateless: bool = False,
) -> onnx_types.ModelProto:
    """Export ``model`` as an ONNX model of the ai.onnx ``opset``; write it to ``path`` when given.

    Returns the ModelProto. ``explain`` receives one line per decision (a list or a callable).
    ``fold_decompression`` folds Converts of constant weights (OpenVINO's fp16-compressed weights)
    into initializers of the converted type; without it the f16 initializer and a Cast are kept.
    ``stateless`` exports a stateful model with each variable as an extra graph input (what its ReadValue
    reads) and output (what its Assign writes), named as optimum names them (``past_key_values.N.key`` in,
    ``present.N.key`` out; ``irgraph.io.onnx.stateless.state_mapping``); without it ReadValue/Assign are refused.
    The file is written through a temporary file, an fsync and a rename, so a failure leaves
    ``path`` as it was; a directory, FIFO, socket or device node at ``path`` is refused up front.
    Raises ConversionError for what ONNX cannot express (one message naming every such layer) and
    IrIOError when the file cannot be written.
    """
    onnx = require_onnx()
    latest = onnx.defs.onnx_opset_version()
    if not isinstance(opset, int) or not MIN_OPSET <= opset <= latest:
        raise ConversionError(
            f"ONNX opset {opset} cannot be written: irgraph exports ai.onnx opsets {MIN_OPSET} to {latest} "
            f"(default {DEFAULT_OPSET}; onnxruntime 1.31 runs opsets up to 26)"
        )
    if path is not None:
        check_destination(path)
    infer_shapes(model)
    proto = _Exporter(onnx, model, opset, Explainer(explain), fold_decompression, stateless=stateless).build()
    if path is not None:
        _write(proto, os.fspath(path))
    return proto


def _write(proto: onnx_types.ModelProto, path: str) -> None:
    try:
        data = proto.SerializeToString()
    except ValueError as err:  # protobuf refuses messages over 2 GiB
        raise ConversionError(f"the ONNX model cannot be serialized: {err}", Location(file=path)) from None
    try:
        replace_files([(path, lambda file: file.write(data))])
    except IrError:
        raise
    except OSError as err:
        raise IrIOError(f"cannot write the ONNX file: {err.strerror or err}", Location(file=path)) from None


class _Exporter(StatelessExport):
    """One export: names every needed port, then emits inputs, initializers, nodes and outputs.

    It is the ``ExportContext`` the rules write through.
    """

    def __init__(self, onnx: ModuleType, model: Model, opset: int, explain: Explainer,
                 fold_decompression: bool, parent: _Exporter | None = None, *, stateless: bool = False) -> None:
        self.onnx = onnx
        self.helper = onnx.helper
        self.model = model
        self.opset = opset
        self.explain = explain
        self.fold_decompression = fold_decompression
        self.parent = parent
        """The exporter of the enclosing graph, for a sub-graph body (names are unique across all scopes)."""
        self.names: dict[tuple[int, int], str] = {}
        self.element_types: dict[str, ElementType] = {} if parent is None else parent.element_types
        """ONNX tensor name -> its IR element type, for the ports of the model (schema checks)."""
        self.taken: set[str] = set() if parent is None else parent.taken
        self.reserved: dict[str, tuple[int, int]] = {} if parent is None else parent.reserved_for_bodies
        self.reserved_for_bodies: dict[str, tuple[int, int]] = {} if parent is None else parent.reserved_for_bodies
        """Body ports may take no output key of the main graph: every key is reserved for a port of no body."""
        self.node_names: set[str] = set() if parent is None else parent.node_names
        self.inputs_: list[Any] = []
        self.outputs_: list[Any] = []
        self.initializers: list[Any] = []
        self.nodes: list[Any] = []
        self.types_used: set[str] = set() if parent is None else parent.types_used
        self._static_values: dict[tuple[int, int], np.ndarray | None] = {}
        """Port -> its value computed from Consts and static shapes (None: not computable), for ``static_value``."""
        self.output_keys: dict[int, str] = {}
        """Result id -> its output key (``Model.output_keys``: distinct), set by ``_reserve_output_keys``."""
        self.stateless: bool = stateless if parent is None else parent.stateless
        self.state: dict[int, StateMapping] | None = None
        """With ``stateless`` (the main graph only): ReadValue and Assign layer id -> its variable's mapping."""
        self.state_order: list[StateMapping] = []
        """The variables' mappings in the order their inputs and outputs take in the graph."""
        if stateless and parent is None:
            for problem in variable_problems(model):
                if problem.is_error:  # two ReadValues of one variable, an Assign no ReadValue declares, ...
                    raise ConversionError(f"the stateless form needs one ReadValue and at most one Assign per "
                                          f"variable: {problem.message}", problem.node.location)
            self.state = {}
            self.state_order = state_mapping(model)
            for mapping in self.state_order:
                self.state.update({node.id: mapping for node in (mapping.read, mapping.assign) if node is not None})
        self.state_inputs: list[Any] = []
        self.state_outputs: list[Any] = []
        """The graph inputs and outputs of the variables, in the order of ``state_mapping``."""

    def build(self) -> onnx_types.ModelProto:
        """The checked ModelProto."""
        needed = self.model.reachable_from_results() if self.state is None else self._needed_without_state()
        order = self.model.topological_order()
        self._refuse_unexportable(order, needed)
        self._reserve_output_keys()
        self.explain(f"opset: ai.onnx {self.opset}")
        self._state_note()
        refusals = self._emit_layers(order, needed)
        for result in self.model.results:
            try:
                self._result(result)
            except Refusal as err:
                refusals.append((result, err.message))
        if refusals:
            raise ConversionError(refusal_message(refusals))
        graph = self.helper.make_graph(
            self.nodes, self.model.name, self.inputs_ + self._in_state_order(self.state_inputs, "input"),
            self.outputs_ + self._in_state_order(self.state_outputs, "output"), initializer=self._read_initializers()
        )
        from irgraph import __version__

        proto: onnx_types.ModelProto = self.helper.make_model(
            graph, opset_imports=[self.helper.make_opsetid("", self.opset)],
            producer_name="irgraph", producer_version=__version__,
        )
        proto.ir_version = self._ir_version()
        try:
            self.onnx.checker.check_model(proto, full_check=True)
        except Exception as err:  # checker.ValidationError and shape inference errors
            raise ConversionError(f"the exported ONNX model fails onnx.checker: {first_line(err)}") from None
        return proto

    def _emit_layers(self, order: list[Node], needed: set[int]) -> list[tuple[Node, str]]:
        """Every needed layer through its rule (Parameters as graph inputs); the refusals collected."""
        refusals: list[tuple[Node, str]] = []
        for node in order:
            if isinstance(node.op, Parameter):
                if self.parent is None:
                    self._parameter(node)
            elif isinstance(node.op, (Const, Result)):
                continue
            elif self.state is not None and node.id in self.state:
                try:
                    self._state_layer(node, self.state[node.id])
                except Refusal as err:
                    refusals.append((node, err.message))
            elif node.id in needed:
                try:
                    self._layer(node, RULES[type(node.op)])
                except Refusal as err:
                    refusals.append((node, err.message))
            else:
                self.explain(f"layer {node.id} {node.name!r} ({node.type_name}): reaches no Result, not exported")
        return refusals

    def _read_initializers(self) -> list[Any]:
        """The initializers some node (or sub-graph node) reads or an output names.

        A rule may replace a Const input by a converted copy (int64 axes, reshaped filters): the
        Const's own initializer is then read by nothing, and onnxruntime warns about it.
        """
        read = names_read(self.nodes) | {o.name for o in self.outputs_}
        return [tensor for tensor in self.initializers if tensor.name in read]

    # ---------------------------------------------------------------------------- sub-graphs
    def body_graph(self, node: Node, body: Body, outer: dict[int, str], outputs: Sequence[int | str], *,
                   inputs: Sequence[tuple[str, ElementType, Sequence[int | None] | None]] = (),
                   prelude: Sequence[Any] = (), scalar_outputs: frozenset[int] = frozenset()) -> Any:
        """The ONNX graph of ``body``: its Parameters read the tensors ``outer`` names (body layer id ->
        name, from the enclosing scope or the graph's own inputs), its ``outputs`` become the graph's
        outputs in order, each through an Identity to a fresh name: a body Result (by layer id), or a
        tensor already in scope (by name, a pass-through).

        ``inputs`` (name, element type, shape or None) are the graph's inputs (an ONNX Loop body's
        iteration number, condition and carried values), ``prelude`` nodes run before the body's (a
        Loop's slicing) and the outputs at positions ``scalar_outputs`` are reshaped to scalars (a
        Loop body's condition).
        """
        child = _Exporter(self.onnx, body.model, self.opset, self.explain, self.fold_decompression, parent=self)
        graph_inputs = []
        for name, element_type, shape in inputs:
            self.element_types[name] = element_type
            code = self._onnx_type(element_type, f"<{body.tag}> input {name!r}")
            graph_inputs.append(self.helper.make_tensor_value_info(name, code, None if shape is None else list(shape)))
        for parameter in body.model.parameters:
            if parameter.id in outer:
                child.names[(parameter.id, 0)] = outer[parameter.id]
                parameter_type = port_type(body.model, OutputPort(parameter.id, 0))
                child.element_types.setdefault(outer[parameter.id], parameter_type.element_type)
        needed = body.model.reachable_from_results()
        unmapped = [p.name for p in body.model.parameters if p.id not in outer and p.id in needed]
        if unmapped:
            raise Refusal(f"<{body.tag}> Parameters {unmapped} have no port map input")
        child.nodes.extend(prelude)
        refusals = child._emit_layers(body.model.topological_order(), needed)
        if refusals:
            raise Refusal(f"in <{body.tag}>: " + refusal_message(refusals))
        graph_outputs = []
        for index, output in enumerate(outputs):
            step = f"{node.name}/{body.tag}/out{index}"
            if isinstance(output, str):
                name, element_type, shape = output, self.element_types[output], None
            else:
                result = body.model.node(output)
                source = body.model.input_sources(result)[0]
                assert source is not None
                name = child.tensor_name(source)
                tensor_type = port_type(body.model, source)
                element_type = tensor_type.element_type
                shape = None if tensor_type.shape.rank_is_dynamic else \
                    [d.value if d.is_static else None for d in tensor_type.shape]
            if index in scalar_outputs:
                scalar_shape = self._fresh(f"{step}/scalar_shape")
                child._add_initializer(scalar_shape, np.zeros(0, np.int64), scalar_shape)
                scalar = self._fresh(f"{step}/scalar")
                child.nodes.append(self.helper.make_node("Reshape", [name, scalar_shape], [scalar],
                                                         name=self._node_name(f"{step}/scalar")))
                name, shape = scalar, []
            exposed = self._fresh(step)
            child.nodes.append(self.helper.make_node("Identity", [name], [exposed], name=self._node_name(step)))
            code = self._onnx_type(element_type, f"<{body.tag}> output {index}")
            graph_outputs.append(self.helper.make_tensor_value_info(exposed, code, shape))
        return self.helper.make_graph(child.nodes, f"{node.name}/{body.tag}", graph_inputs, graph_outputs,
                                      initializer=child._read_initializers())

    def _refuse_unexportable(self, order: list[Node], needed: set[int]) -> None:
        """One error naming every layer no rule exports (bodies included), by type."""
        missing: dict[str, list[Node]] = {}
        collect_missing(order, needed, missing)
        if not missing:
            return
        count = sum(len(nodes) for nodes in missing.values())
        parts = []
        for what, nodes in sorted(missing.items()):
            names = ", ".join(repr(n.name) for n in nodes[:_LISTED_NAMES])
            more = f" and {len(nodes) - _LISTED_NAMES} more" if len(nodes) > _LISTED_NAMES else ""
            parts.append(f"{what} x{len(nodes)}: {names}{more}")
        raise ConversionError(
            f"{counted(count, 'layer')} cannot be exported to ONNX (no export rule): "
            + "; ".join(parts)
            + f" ({len(exportable_ops())} op types export: irgraph.io.onnx.exporter.exportable_ops())"
        )

    def _ir_version(self) -> int:
        lowest = self.helper.find_min_ir_version_for([self.helper.make_opsetid("", self.opset)])
        version: int = min(max([lowest, *(MIN_IR_VERSION_FOR_TYPE.get(t, 3) for t in self.types_used)]), MAX_IR_VERSION)
        self.explain(f"ONNX IR version {version}: the lowest that opset {self.opset} and the element types need "
                     f"(onnxruntime 1.31 loads up to {MAX_IR_VERSION}; onnx 1.23 would stamp 14)")
        return version

    # ---------------------------------------------------------------------------- the rules' context
    def inputs(self, node: Node) -> list[str]:
        """The ONNX names of the layer's inputs ('' for an unconnected one)."""
        return [self.tensor_name(source) if source is not None else "" for source in self.model.input_sources(node)]

    def outputs(self, node: Node) -> list[str]:
        """The ONNX names of the layer's outputs."""
        return [self.tensor_name(OutputPort(node.id, i)) for i in range(node.num_outputs)]

    def output_used(self, node: Node, index: int) -> bool:
        """True when some layer (or Result) of the graph reads output ``index``."""
        return bool(self.model.consumers(OutputPort(node.id, index)))

    def input_type(self, node: Node, index: int) -> TensorType:
        """The inferred type of input ``index``."""
        source = self.model.input_sources(node)[index]
        if source is None:
            raise Refusal(f"input {index} is not connected")
        return port_type(self.model, source)

    def output_type(self, node: Node, index: int) -> TensorType:
        """The inferred type of output ``index``."""
        return port_type(self.model, OutputPort(node.id, index))

    def constant(self, node: Node, index: int) -> np.ndarray | None:
        """The value of input ``index`` when a Const computes it."""
        sources = self.model.input_sources(node)
        return self.model.constant_value(sources[index]) if index < len(sources) else None

    def static_value(self, node: Node, index: int) -> np.ndarray | None:
        """The value of input ``index`` when Consts and static shapes alone compute it (ShapeOf of a static
        shape, then small runnable ops), else None: what export-time folding may rely on."""
        source = self.model.input_sources(node)[index] if index < len(self.model.input_sources(node)) else None
        return None if source is None else self._static_value(source)

    def _static_value(self, port: OutputPort) -> np.ndarray | None:
        """Iterative post-order over the producers of ``port`` (no recursion), memoised per export."""
        known = self._static_values
        stack = [port]
        while stack:
            current = stack[-1]
            key = (current.node_id, current.index)
            if key in known:
                stack.pop()
                continue
            producer = self.model.node(current.node_id)
            op = producer.op
            if isinstance(op, Const):
                known[key] = op.value
            elif isinstance(op, (ShapeOf1, ShapeOf3)):
                source = self.model.input_sources(producer)[0]
                shape = None if source is None else port_type(self.model, source).shape
                known[key] = None if shape is None or shape.rank_is_dynamic or not shape.is_static else \
                    np.asarray([d.value for d in shape], port_type(self.model, current).element_type.numpy_dtype)
            elif isinstance(op, (Parameter, Result)) or producer.bodies or not op.can_run or op.traits.keeps_run_state:
                known[key] = None
            else:
                sources = self.model.input_sources(producer)
                pending = [s for s in sources if s is not None and (s.node_id, s.index) not in known]
                if pending:
                    stack.extend(pending)
                    continue
                values = [None if s is None else known[(s.node_id, s.index)] for s in sources]
                present = [v for v in values if v is not None]
                outputs = None
                if len(present) == len(values) and sum(np.size(v) for v in present) <= _FOLD_LIMIT:
                    try:
                        outputs = op.evaluate(present)
                    except IrError:
                        outputs = None
                for output_index in range(producer.num_outputs):
                    value = None if outputs is None else np.asarray(outputs[output_index])
                    known[(producer.id, output_index)] = value if value is None or value.size <= _FOLD_LIMIT else None
            stack.pop()
        return known[(port.node_id, port.index)]

    # ---------------------------------------------------------------------------- layers
    def _layer(self, node: Node, rule: Rule) -> None:
        made = rule(node, node.op, self)
        self.nodes.extend(made)
        version = node.op.title()
        onnx_ops = ", ".join(n.op_type for n in made) or "an initializer (folded)"
        self.explain(f"layer {node.id} {node.name!r} {version} -> ONNX {onnx_ops}")

    def _parameter(self, node: Node) -> None:
        # The layer name first: input .npz files are keyed by it (DESIGN.md sections 5 and 6).
        name = self._claim([node.name, *node.outputs[0].tensor_names], (node.id, 0)) or self._fresh(node.name)
        self.names[(node.id, 0)] = name
        tensor_type = port_type(self.model, OutputPort(node.id, 0))
        self.element_types[name] = tensor_type.element_type
        self.inputs_.append(self._value_info(name, tensor_type, f"Parameter {node.name!r}"))
        self.explain(f"Parameter {node.name!r} -> graph input {name!r} {tensor_type}")

    def _result(self, result: Node) -> None:
        key = self.output_keys[result.id]
        source = self.model.input_sources(result)[0]
        if source is None:
            raise ConversionError("Result has no input", result.location)
        name = self.tensor_name(source)
        if name != key:
            self.taken.add(key)
            self.nodes.append(self.make(result, "Identity", [name], [key]))
            self.explain(f"Result {result.name!r}: output {key!r} is an Identity of {name!r} "
                         "(the tensor already has another name)")
        self.outputs_.append(self._value_info(key, port_type(self.model, source), f"Result {result.name!r}"))
        self.explain(f"Result {result.name!r} -> graph output {key!r}")
