"""IR -> ONNX: ``export_onnx`` writes a Model of Parameter, Const, Result, Split, VariadicSplit and Concat as ONNX.

Parameters become graph inputs named by their layer name (else a tensor name), Consts
become initializers where a tensor consumes them, Results become graph outputs named by their
output key (DESIGN.md section 6), and every other port keeps its first tensor name. The model is
stamped with the lowest ONNX IR version its opset and types need (never above 13, the newest
onnxruntime 1.31 loads) and checked with ``onnx.checker.check_model(full_check=True)``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.element_types import ElementType
from irgraph.errors import ConversionError, IrError, IrIOError, Location, OpError
from irgraph.graph import Model, Node, OutputPort
from irgraph.io.atomic import check_destination, replace_files
from irgraph.io.onnx.common import (
    MAX_IR_VERSION,
    MIN_IR_VERSION_FOR_TYPE,
    Explain,
    Explainer,
    first_line,
    onnx_type_name,
    port_type,
    require_onnx,
)
from irgraph.ops import Concat, Const, Parameter, Result, Split, VariadicSplit
from irgraph.ops.movement.variadic_split import resolve_lengths
from irgraph.ops.op import integer_values, normalize_axis, shape_text
from irgraph.shape_inference import infer_shapes
from irgraph.shapes import Shape, TensorType

if TYPE_CHECKING:
    import onnx as onnx_types

__all__ = ["DEFAULT_OPSET", "EXPORTABLE_OPS", "MIN_OPSET", "export_onnx"]

DEFAULT_OPSET = 18
MIN_OPSET = 11
"""Split takes its lengths as an attribute in opsets 11-12, as an input from 13, num_outputs from 18."""
EXPORTABLE_OPS = ("Concat", "Const", "Parameter", "Result", "Split", "VariadicSplit")


def export_onnx(
    model: Model, path: str | os.PathLike[str] | None = None, *, opset: int = DEFAULT_OPSET, explain: Explain = None
) -> onnx_types.ModelProto:
    """Export ``model`` as an ONNX model of the ai.onnx ``opset``; write it to ``path`` when given.

    Returns the ModelProto. ``explain`` receives one line per decision (a list or a callable).
    The file is written through a temporary file, an fsync and a rename, so a failure leaves
    ``path`` as it was; a directory, FIFO, socket or device node at ``path`` is refused up front.
    Raises ConversionError for what ONNX cannot express (naming the layer and the rule) and
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
    proto = _Exporter(onnx, model, opset, Explainer(explain)).build()
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


class _Exporter:
    """One export: names every needed port, then emits inputs, initializers, nodes and outputs."""

    def __init__(self, onnx: ModuleType, model: Model, opset: int, explain: Explainer) -> None:
        self.onnx = onnx
        self.helper = onnx.helper
        self.model = model
        self.opset = opset
        self.explain = explain
        self.names: dict[tuple[int, int], str] = {}
        self.taken: set[str] = set()
        self.reserved: dict[str, tuple[int, int]] = {}
        self.node_names: set[str] = set()
        self.inputs: list[Any] = []
        self.outputs: list[Any] = []
        self.initializers: list[Any] = []
        self.nodes: list[Any] = []
        self.types_used: set[str] = set()
        self.handlers: dict[type, Callable[[Node], None]] = {
            Parameter: self._parameter, Const: lambda node: None, Result: lambda node: None,
            Split: self._split, VariadicSplit: self._variadic_split, Concat: self._concat,
        }

    def build(self) -> onnx_types.ModelProto:
        """The checked ModelProto."""
        needed = self.model.reachable_from_results()
        order = self.model.topological_order()
        for node in order:
            if node.bodies:  # refused even when unreachable: nothing of a body is ever dropped silently
                tags = ", ".join(f"<{body.tag}>" for body in node.bodies)
                raise ConversionError(
                    f"{node.type_name} has sub-graph bodies ({tags}); irgraph cannot export bodies to ONNX yet",
                    node.location,
                )
            if node.id in needed and type(node.op) not in self.handlers:
                raise ConversionError(
                    f"{node.type_name} cannot be exported to ONNX; exportable ops: {', '.join(EXPORTABLE_OPS)}",
                    node.location,
                )
        self._reserve_output_keys()
        self.explain(f"opset: ai.onnx {self.opset}")
        for node in order:
            if node.id in needed or isinstance(node.op, Parameter):
                self.handlers[type(node.op)](node)
            elif not isinstance(node.op, Const):
                self.explain(f"layer {node.id} {node.name!r} ({node.type_name}): reaches no Result, not exported")
        for result in self.model.results:
            self._result(result)
        graph = self.helper.make_graph(
            self.nodes, self.model.name, self.inputs, self.outputs, initializer=self.initializers
        )
        from irgraph import __version__

        proto = self.helper.make_model(
            graph, opset_imports=[self.helper.make_opsetid("", self.opset)],
            producer_name="irgraph", producer_version=__version__,
        )
        proto.ir_version = self._ir_version()
        try:
            self.onnx.checker.check_model(proto, full_check=True)
        except Exception as err:  # checker.ValidationError and shape inference errors
            raise ConversionError(f"the exported ONNX model fails onnx.checker: {first_line(err)}") from None
        return proto

    def _ir_version(self) -> int:
        lowest = self.helper.find_min_ir_version_for([self.helper.make_opsetid("", self.opset)])
        version = min(max([lowest, *(MIN_IR_VERSION_FOR_TYPE.get(t, 3) for t in self.types_used)]), MAX_IR_VERSION)
        self.explain(f"ONNX IR version {version}: the lowest that opset {self.opset} and the element types need "
                     f"(onnxruntime 1.31 loads up to {MAX_IR_VERSION}; onnx 1.23 would stamp 14)")
        return version

    # ---------------------------------------------------------------------------- names
    def _reserve_output_keys(self) -> None:
        for result in self.model.results:
            key = self.model.output_key(result)
            source = self.model.input_sources(result)[0]
            if key in self.reserved:
                raise ConversionError(f"two Results have the output name {key!r}; ONNX output names must be unique",
                                      result.location)
            self.reserved[key] = (source.node_id, source.index) if source else (-1, -1)

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
        name = self._claim([*node.tensor_names[port.index], *keys], key) or self._fresh(fallback)
        self.names[key] = name
        if isinstance(node.op, Const):
            self._initializer(node, name)
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

    def _node_name(self, node: Node) -> str:
        name, suffix = node.name, 1
        while name in self.node_names:
            name, suffix = f"{node.name}_{suffix}", suffix + 1
        self.node_names.add(name)
        return name

    def _check_type(self, node: Node, onnx_op: str, element_type: ElementType) -> None:
        schema = self.onnx.defs.get_schema(onnx_op, self.opset, "")
        wanted = f"tensor({onnx_type_name(element_type, f'{node.type_name} {node.name!r}').lower()})"
        allowed = schema.type_constraints[0].allowed_type_strs
        if wanted not in allowed:
            takes = ", ".join(sorted(t[7:-1] for t in allowed))
            raise ConversionError(
                f"ONNX {onnx_op}-{schema.since_version} (opset {self.opset}) does not take {element_type} tensors; "
                f"it takes {takes}", node.location,
            )

    # ---------------------------------------------------------------------------- layers
    def _parameter(self, node: Node) -> None:
        # The layer name first: input .npz files are keyed by it (DESIGN.md sections 5 and 6).
        name = self._claim([node.name, *node.tensor_names[0]], (node.id, 0)) or self._fresh(node.name)
        self.names[(node.id, 0)] = name
        tensor_type = port_type(self.model, OutputPort(node.id, 0))
        self.inputs.append(self._value_info(name, tensor_type, f"Parameter {node.name!r}"))
        self.explain(f"Parameter {node.name!r} -> graph input {name!r} {tensor_type}")

    def _initializer(self, node: Node, name: str) -> None:
        op: Const = node.op  # type: ignore[assignment]
        if op.value is None:
            raise ConversionError("Const has no value (its weights were not loaded)", node.location)
        self._onnx_type(op.element_type, f"Const {node.name!r}")
        value = op.value
        if op.element_type is ElementType.STRING:
            value = np.asarray([str(v).encode("utf-8") for v in value.reshape(-1)], dtype=object).reshape(value.shape)
        self.initializers.append(self.onnx.numpy_helper.from_array(value, name))
        self.explain(f"Const {node.name!r} -> initializer {name!r} {op.element_type}{shape_text(op.shape)}")

    def _axis(self, node: Node, port: OutputPort | None, shape: Shape) -> int:
        value = self.model.constant_value(port)
        if value is None or np.size(value) != 1:
            raise ConversionError(
                f"{node.type_name}'s axis must come straight from a one-element Const to export it (ONNX takes "
                "the axis as an attribute)", node.location,
            )
        axis = integer_values(value, "axis")[0]
        if not shape.rank_is_dynamic:
            try:
                normalize_axis(axis, shape.rank)
            except OpError as err:
                raise ConversionError(err.message, node.location) from None
        return axis

    def _emit(self, node: Node, op_type: str, inputs: list[str], produced: int = 0, **attributes: Any) -> None:
        """One ONNX node; ``produced`` > the layer's ports adds outputs nothing reads (ONNX needs them all)."""
        outputs = [self.tensor_name(OutputPort(node.id, i)) for i in range(node.num_outputs)]
        outputs += [self._fresh(f"{node.name}:{i}") for i in range(node.num_outputs, produced)]
        self.nodes.append(self.helper.make_node(op_type, inputs, outputs, name=self._node_name(node), **attributes))

    def _split_data(self, node: Node) -> tuple[OutputPort, Shape, int]:
        """Split or VariadicSplit: the data port, its shape and the axis, checked for ONNX Split."""
        data, axis_port = self.model.input_sources(node)[:2]
        data_type = port_type(self.model, data)  # type: ignore[arg-type]
        axis = self._axis(node, axis_port, data_type.shape)
        self._check_type(node, "Split", data_type.element_type)
        return data, data_type.shape, axis  # type: ignore[return-value]

    def _split(self, node: Node) -> None:
        data, _, axis = self._split_data(node)
        parts = node.op.num_splits  # type: ignore[attr-defined]
        attributes = {"num_outputs": parts} if self.opset >= 18 else {}
        self._emit(node, "Split", [self.tensor_name(data)], axis=axis, **attributes)
        how = f"num_outputs={parts}" if self.opset >= 18 else f"no split (equal parts over {parts} outputs)"
        self.explain(f"layer {node.id} {node.name!r} Split-1 num_splits={parts} -> ONNX Split axis={axis} {how}")

    def _variadic_split(self, node: Node) -> None:
        data, shape, axis = self._split_data(node)
        lengths_port = self.model.input_sources(node)[2]
        value = self.model.constant_value(lengths_port)
        inputs = [self.tensor_name(data)]
        if value is None:
            inputs.append(self._lengths_input(node, lengths_port))  # type: ignore[arg-type]
            self._emit(node, "Split", inputs, axis=axis)
            return
        lengths = integer_values(value, "split_lengths")
        if -1 in lengths:
            dim = None if shape.rank_is_dynamic else shape[axis]
            if dim is None or not dim.is_static:
                raise ConversionError(
                    f"split_lengths {lengths} hold -1 on a dynamic axis dim ({dim or 'dynamic rank'}); ONNX Split "
                    "lengths must be >= 0, so the -1 can only be resolved on a static dim", node.location,
                )
            try:
                resolved = [int(v) for v in resolve_lengths(lengths, dim)]  # type: ignore[arg-type]
            except OpError as err:
                raise ConversionError(err.message, node.location) from None
            self.explain(f"layer {node.id} {node.name!r}: split_lengths {lengths} resolved to {resolved} "
                         f"on the static dim {dim}")
            lengths = resolved
        if len(lengths) > node.num_outputs:
            self.explain(f"layer {node.id} {node.name!r}: {len(lengths)} split_lengths but {node.num_outputs} output "
                         f"ports; the other {len(lengths) - node.num_outputs} ONNX outputs are left unread")
        if self.opset < 13:
            self._emit(node, "Split", inputs, len(lengths), axis=axis, split=lengths)
            how = f"split attribute {lengths}"
        else:
            inputs.append(self._lengths_initializer(node, lengths_port, lengths))  # type: ignore[arg-type]
            self._emit(node, "Split", inputs, len(lengths), axis=axis)
            how = f"split input {inputs[1]!r} = {lengths}"
        self.explain(f"layer {node.id} {node.name!r} VariadicSplit-1 -> ONNX Split axis={axis} {how}")

    def _lengths_input(self, node: Node, port: OutputPort) -> str:
        tensor_type = port_type(self.model, port)
        if self.opset < 13:
            raise ConversionError(f"non-constant split_lengths need opset >= 13 (ONNX Split-{self.opset} takes "
                                  "the lengths as an attribute)", node.location)
        if tensor_type.element_type is not ElementType.I64:
            raise ConversionError(f"non-constant split_lengths must be i64 for ONNX Split; got "
                                  f"{tensor_type.element_type}", node.location)
        name = self.tensor_name(port)
        self.explain(f"layer {node.id} {node.name!r} VariadicSplit-1 -> ONNX Split with the non-constant split "
                     f"input {name!r} (ONNX requires every length >= 0: a -1 fails in onnxruntime)")
        return name

    def _lengths_initializer(self, node: Node, port: OutputPort, lengths: list[int]) -> str:
        """The Const's own initializer when it already holds these int64 lengths, else a new one."""
        op = self.model.node(port.node_id).op
        same = isinstance(op, Const) and op.element_type is ElementType.I64 and op.value.ndim == 1
        if same and op.value.tolist() == lengths:  # type: ignore[union-attr]
            return self.tensor_name(port)
        name = self._fresh(f"{node.name}/split")
        self.initializers.append(self.onnx.numpy_helper.from_array(np.asarray(lengths, dtype=np.int64), name))
        self.types_used.add("INT64")
        return name

    def _concat(self, node: Node) -> None:
        sources = self.model.input_sources(node)
        first = port_type(self.model, sources[0])  # type: ignore[arg-type]
        self._check_type(node, "Concat", first.element_type)
        axis = node.op.axis  # type: ignore[attr-defined]
        self._emit(node, "Concat", [self.tensor_name(s) for s in sources], axis=axis)  # type: ignore[arg-type]
        self.explain(f"layer {node.id} {node.name!r} Concat-1 axis={axis} -> ONNX Concat axis={axis}")

    def _result(self, result: Node) -> None:
        key = self.model.output_key(result)
        source = self.model.input_sources(result)[0]
        if source is None:
            raise ConversionError("Result has no input", result.location)
        name = self.tensor_name(source)
        if name != key:
            self._check_type(result, "Identity", port_type(self.model, source).element_type)
            self.taken.add(key)
            self.nodes.append(self.helper.make_node("Identity", [name], [key], name=self._node_name(result)))
            self.explain(f"Result {result.name!r}: output {key!r} is an Identity of {name!r} "
                         "(the tensor already has another name)")
        self.outputs.append(self._value_info(key, port_type(self.model, source), f"Result {result.name!r}"))
        self.explain(f"Result {result.name!r} -> graph output {key!r}")
