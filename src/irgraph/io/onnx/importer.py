"""ONNX -> IR: ``convert_onnx`` turns an ONNX model into a Model, node by node, through one rule per ONNX op type.

Graph inputs become Parameters named after them, initializers and Constant nodes become Consts
(created where a tensor is consumed), every ONNX tensor name becomes the tensor name of the port
that produces it, and graph outputs become Results keyed by the ONNX output names. The Split and
Concat rules of each opset are in :mod:`irgraph.io.onnx.split`, the others (convolutions, pooling, Gemm,
normalization, element-wise and shape ops) in :mod:`irgraph.io.onnx.import_rules`; every decision is explained.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.analysis.shape_inference import walk
from irgraph.core.element_types import ElementType
from irgraph.core.errors import ConversionError, IrError, IrIOError, Location, OpError, ResourceLimitError
from irgraph.core.limits import DEFAULT_ELEMENT_LIMIT
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.graph import Body, Model, Node, OutputPort
from irgraph.io.onnx import (  # noqa: F401 - register the rules beyond Split/Concat
    import_rules,
    import_rules_control,
    import_rules_deform,
    import_rules_functions,
    import_rules_indexing,
    import_rules_math,
    import_rules_nn,
    import_rules_quantization,
    import_rules_recurrent,
    import_rules_signals,
    import_rules_tensor,
)
from irgraph.io.onnx.common import Explain, Explainer, element_type_from_onnx, first_line, port_type, require_onnx
from irgraph.io.onnx.split import NodeConverter, supported_ops
from irgraph.io.regular_file import open_regular, read_range
from irgraph.ops import Const, Op, Parameter, Result
from irgraph.ops.op import shape_text

if TYPE_CHECKING:
    import onnx as onnx_types

__all__ = ["MAX_ONNX_BYTES", "SUPPORTED_OPS", "convert_onnx", "external_data_files"]

SUPPORTED_OPS = tuple(supported_ops())
"""The ONNX (ai.onnx domain) ops ``convert_onnx`` converts."""


def convert_onnx(
    source: str | os.PathLike[str] | bytes | Any,
    *,
    explain: Explain = None,
    element_limit: int = DEFAULT_ELEMENT_LIMIT,
) -> Model:
    """Convert an ONNX model (a path, serialized bytes or an ``onnx.ModelProto``) to an IR Model.

    ``explain`` receives one line per conversion decision: pass a list to collect them or a
    callable such as ``print``. Split follows the ONNX spec of the model's opset exactly:

    * explicit lengths (attribute, input, or Split-1's optional second input) become
      VariadicSplit-1, or Split-1 when they are equal on a static dim; a ``split`` graph input
      (opsets 13 and 18) stays a Parameter feeding VariadicSplit's lengths;
    * no lengths before opset 18: equal parts, the dim must divide evenly (Split-1);
    * Split-18 ``num_outputs``: ceil-sized chunks with a smaller last one (VariadicSplit-1),
      refused when the last chunk would be empty or negative (5 into 4). On a dynamic dim it
      becomes Split-1, which needs the dim to divide evenly at run time: uneven chunks need a
      static dim (OpenVINO does the same).

    A file is untrusted: it must be a regular file of at most MAX_ONNX_BYTES (protobuf's limit),
    checked before it is read; external data must lie in regular files inside the model's folder,
    and each external tensor may hold at most ``element_limit`` elements, checked before it is read.

    Raises ConversionError naming the node, the rule and what was found; ResourceLimitError for a
    file or tensor over its bound; IrIOError when a file cannot be read (an OSError too).
    """
    onnx = require_onnx()
    proto, origin = _load(onnx, source, element_limit)
    return _Importer(onnx, proto, origin, Explainer(explain)).convert()


MAX_ONNX_BYTES = 2**31 - 1
"""Largest ``.onnx`` file read (protobuf cannot parse a larger message); weights beyond it belong in external data."""


def read_checked(path: str | os.PathLike[str], element_limit: int) -> onnx_types.ModelProto:
    """The ONNX model at ``path`` with its external data, every file checked as ``convert_onnx`` checks it
    (regular files, external data inside the model's folder and bounded by ``element_limit``)."""
    return _load(require_onnx(), os.fspath(path), element_limit)[0]


def _load(onnx: ModuleType, source: Any, element_limit: int) -> tuple[onnx_types.ModelProto, str | None]:
    if isinstance(source, onnx.ModelProto):
        return source, None
    if isinstance(source, bytes | bytearray | memoryview):
        return _parse(lambda: onnx.load_model_from_string(bytes(source)), "the given bytes", None), None
    path = os.fspath(source)
    proto = _read_file(onnx, path)
    _load_external_data(onnx, proto, os.path.dirname(os.path.abspath(path)), element_limit, Location(file=path))
    return proto, path


def _read_file(onnx: ModuleType, path: str) -> onnx_types.ModelProto:
    """The model in the file at ``path`` (external data not read): a regular file of at most MAX_ONNX_BYTES."""
    location = Location(file=path)
    try:
        descriptor, size = open_regular(path)
        with open(descriptor, "rb") as file:
            if size > MAX_ONNX_BYTES:
                raise ResourceLimitError(
                    f"the file is {size} bytes; an ONNX file holds at most {MAX_ONNX_BYTES} (protobuf's limit), "
                    "larger weights belong in external data files", location
                )
            data = file.read(size)  # never past the size fstat reported
    except OSError as err:
        raise IrIOError(f"cannot read the ONNX model: {err.strerror or err}", location) from None
    # The serialization follows the suffix as onnx.load's does (.onnx: protobuf; .textproto, .json: text).
    found = onnx.serialization.registry.get_format_from_file_extension(os.path.splitext(path)[1])
    return _parse(functools.partial(onnx.load_model_from_string, data, format=found or "protobuf"), "the file", path)


def external_data_files(source: str | os.PathLike[str]) -> list[str]:
    """The files beside the ONNX model at ``source`` that hold its external tensor data (sorted, no repeats).

    Read without loading any tensor data, so that a tool can refuse to overwrite them before converting.
    Raises like ``convert_onnx`` when the model cannot be read.
    """
    onnx = require_onnx()
    path = os.fspath(source)
    proto = _read_file(onnx, path)
    external = onnx.TensorProto.EXTERNAL
    locations = {entry.value for tensor in _all_tensors(proto) if tensor.data_location == external
                 for entry in tensor.external_data if entry.key == "location"}
    return sorted(os.path.join(os.path.dirname(path), location) for location in locations)


def _parse(load: Callable[[], onnx_types.ModelProto], what: str, path: str | None) -> onnx_types.ModelProto:
    location = Location(file=path)
    try:
        return load()
    except MemoryError:
        raise  # reported as such by the caller (the CLI: "does not fit in the memory available")
    except OSError as err:
        reason = err.strerror or str(err) or type(err).__name__
        named = f" ({os.fsdecode(err.filename)})" if err.filename is not None and err.filename != path else ""
        raise IrIOError(f"cannot read the ONNX model{named}: {reason}", location) from None
    except Exception as err:  # protobuf's DecodeError and onnx's ValueError carry the reason
        raise ConversionError(f"{what} is not a readable ONNX model: {first_line(err)}", location) from None


# ---------------------------------------------------------------------------------------- external data
_PACKED_BITS = {"INT4": 4, "UINT4": 4, "FLOAT4E2M1": 4, "INT2": 2, "UINT2": 2}


def _load_external_data(onnx: ModuleType, proto: onnx_types.ModelProto, folder: str, element_limit: int,
                        location: Location) -> None:
    """Read every external tensor's bytes into the model, each checked before it is read.

    The file must be a relative path without ``..`` that stays inside ``folder`` once symlinks are
    resolved, and a regular file; the tensor's element count is bounded by ``element_limit`` and
    its bytes (exactly what its type and shape need) must lie inside the file.
    """
    real_folder = os.path.realpath(folder)
    for tensor in _all_tensors(proto):
        if tensor.data_location != onnx.TensorProto.EXTERNAL:
            continue
        what = f"tensor {tensor.name!r}"
        info = {entry.key: entry.value for entry in tensor.external_data}
        name = info.get("location", "")
        if "\x00" in name:
            raise ConversionError(f"{what} keeps its data in {name!r}, which holds a NUL byte; no file has such a "
                                  "name", location)
        parts = name.replace("\\", "/").split("/")
        if not name or os.path.isabs(name) or name.startswith(("/", "\\")) or ".." in parts or ":" in parts[0]:
            raise ConversionError(
                f"{what} keeps its data in {name!r}; external data must be a relative path inside the model's "
                "folder (no '..', not absolute)", location
            )
        path = os.path.join(folder, name)
        if os.path.commonpath([real_folder, os.path.realpath(path)]) != real_folder:
            raise ConversionError(f"{what} keeps its data in {name!r}, which leads outside the model's folder "
                                  "(through a symlink)", location)
        if any(dim < 0 for dim in tensor.dims):
            raise ConversionError(f"{what} has the shape {list(tensor.dims)}; dims must be >= 0", location)
        count = math.prod(tensor.dims)
        if count > element_limit:
            raise ResourceLimitError(f"{what} has {count} elements, above the limit of {element_limit} "
                                     "(element_limit); nothing was read", location)
        needed = _external_size(onnx, tensor, count, what, location)
        offset = _external_int(info, "offset", 0, what, location)
        length = _external_int(info, "length", needed, what, location)
        if length != needed:
            raise ConversionError(f"{what}: its external data is {length} bytes but its type and shape need "
                                  f"{needed}", location)
        try:
            descriptor, size = open_regular(path)
            try:
                if offset + length > size:
                    raise ConversionError(f"{what}: its external data [{offset}, {offset + length}) lies outside "
                                          f"{name!r} of {size} bytes", location)
                data = read_range(descriptor, offset, length, path)
            finally:
                os.close(descriptor)
        except OSError as err:
            raise IrIOError(f"cannot read the external data of {what} from {name!r}: {err.strerror or err}",
                            location) from None
        tensor.raw_data = bytes(data)
        tensor.data_location = onnx.TensorProto.DEFAULT
        del tensor.external_data[:]


def _external_size(onnx: ModuleType, tensor: Any, count: int, what: str, location: Location) -> int:
    """The bytes ``raw_data`` of ``tensor``'s type and shape holds."""
    type_name = onnx.TensorProto.DataType.Name(tensor.data_type) if tensor.data_type in \
        onnx.TensorProto.DataType.values() else str(tensor.data_type)
    bits = _PACKED_BITS.get(type_name)
    if bits is not None:
        return (count * bits + 7) // 8
    try:
        dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor.data_type)
    except Exception:  # noqa: BLE001 - onnx raises KeyError or ValueError for unknown types
        dtype = None
    if dtype is None or dtype.hasobject or type_name in ("STRING", "UNDEFINED"):
        raise ConversionError(f"{what} of type {type_name} cannot keep its data externally", location)
    return int(count * dtype.itemsize)  # dtype comes from onnx.helper (untyped): an np.dtype


def _external_int(info: dict[str, str], key: str, default: int, what: str, location: Location) -> int:
    text = info.get(key)
    if text is None:
        return default
    if not (text.isascii() and text.isdigit()):
        raise ConversionError(f"{what}: external data {key} must be a non-negative integer. Got: {text!r}", location)
    return int(text)


def _all_tensors(proto: Any) -> Iterator[Any]:
    """Every TensorProto of a model: initializers and node attributes, in subgraphs and functions too."""
    graphs = [proto.graph]
    nodes = [node for function in proto.functions for node in function.node]
    while graphs or nodes:
        if graphs:
            graph = graphs.pop()
            yield from graph.initializer
            for sparse in graph.sparse_initializer:
                yield sparse.values
                yield sparse.indices
            nodes.extend(graph.node)
            continue
        for attribute in nodes.pop().attribute:
            if attribute.HasField("t"):
                yield attribute.t
            yield from attribute.tensors
            for sparse in (*([attribute.sparse_tensor] if attribute.HasField("sparse_tensor") else []),
                           *attribute.sparse_tensors):
                yield sparse.values
                yield sparse.indices
            if attribute.HasField("g"):
                graphs.append(attribute.g)
            graphs.extend(attribute.graphs)


class _Importer:
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
        converter = NodeConverter(self)
        for index, node in enumerate(self.graph.node):
            converter.convert(node, index)
        if not self.graph.output:
            raise self.error("the ONNX graph has no outputs: there is nothing to convert")
        for value in self.graph.output:
            self._output(value)
        for tensor in self.graph.initializer:
            if tensor.name not in self.ports:
                self.explain(f"initializer {tensor.name!r}: not consumed as a tensor, so no Const")
        return self.model

    def _check_supported(self) -> None:
        """One error naming every op type no rule converts (in sub-graphs too), with its node count, before any is
        converted."""
        missing: dict[str, int] = {}
        for node in _all_nodes(self.graph):
            if node.domain not in ("", "ai.onnx") or node.op_type not in SUPPORTED_OPS:
                label = node.op_type + (f" (domain {node.domain!r})" if node.domain not in ("", "ai.onnx") else "")
                missing[label] = missing.get(label, 0) + 1
        if missing:
            ordered = sorted(missing.items(), key=lambda item: (-item[1], item[0]))
            listing = ", ".join(f"{name}×{count}" for name, count in ordered)
            nodes = sum(missing.values())
            raise self.error(f"{nodes} node{'s' if nodes != 1 else ''} of {len(missing)} ONNX op "
                             f"type{'s' if len(missing) != 1 else ''} irgraph does not convert: {listing}; it converts "
                             f"(ai.onnx domain): {', '.join(SUPPORTED_OPS)}")

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

    def body(self, graph: onnx_types.GraphProto, name: str, label: str) -> _BodyImporter:
        """An importer for the sub-graph ``graph`` (a Loop/Scan body, an If branch) of a node of this graph."""
        return _BodyImporter(self, graph, name, label)

    def add_sub_graph(self, op: Op, name: str, inputs: Sequence[OutputPort], bodies: Sequence[Body],
                      num_outputs: int) -> Node:
        """Place a Loop, If or TensorIterator with its bodies and infer its outputs through them."""
        node = self.model.add_node(op, name, list(inputs), num_outputs=num_outputs)
        node.bodies = tuple(bodies)
        types = [port_type(self.model, port) for port in inputs]
        values = [self.model.constant_value(port) for port in inputs]
        try:
            node.output_types = list(op.infer_layer(node, types, values, lambda body, given: walk(body, None, given)))
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
            node.output_types = list(op.infer(types, values))
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
        node.tensor_names[0] = [name]
        self.ports[name] = OutputPort(node.id, 0)
        return self.ports[name]

    def constant(self, name: str) -> tuple[ElementType, np.ndarray] | None:
        """The value of ONNX tensor ``name`` when it is an initializer, a Constant output or a Const."""
        if name in self.constants:
            return self.constants[name]
        port = self.ports.get(name)
        value = self.model.constant_value(port)
        return None if value is None else (port_type(self.model, port).element_type, value)  # type: ignore[arg-type]

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


def _all_nodes(graph: Any) -> Iterator[Any]:
    """Every node of ``graph`` and of the sub-graphs in its nodes' attributes (no recursion)."""
    pending = [graph]
    while pending:
        for node in pending.pop().node:
            yield node
            for attribute in node.attribute:
                if attribute.HasField("g"):
                    pending.append(attribute.g)
                pending.extend(attribute.graphs)


class _BodyImporter(_Importer):
    """Converts one sub-graph into its own Model. A name of an outer scope becomes a Const of its value when it
    is constant there, else a body Parameter the layer feeds from outside (``captured``, in first-use order)."""

    def __init__(self, parent: _Importer, graph: onnx_types.GraphProto, name: str, label: str) -> None:
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
        converter = NodeConverter(self)
        for index, node in enumerate(self.graph.node):
            converter.convert(node, index)
        outputs = []
        for value in self.graph.output:
            if not self.knows(value.name):
                raise self.error(f"sub-graph output {value.name!r} is not an input, an initializer, an outer-scope "
                                 "name or the output of a node")
            outputs.append(self.tensor(value.name, f"sub-graph output {value.name!r}"))
        return outputs
