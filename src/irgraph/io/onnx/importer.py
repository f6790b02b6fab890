"""ONNX -> IR: ``convert_onnx`` turns an ONNX model into a Model, node by node, through one rule per ONNX op type.

This module reads the model (a path, bytes or a ModelProto) and its external data, every file checked before it is
read; :mod:`irgraph.io.onnx.converter` walks the graph, and each ONNX op type has its rule in
:mod:`irgraph.io.onnx.import_rules`, which explains every decision.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Any

from irgraph.core.errors import ConversionError, IrIOError, Location, ResourceLimitError
from irgraph.core.limits import DEFAULT_ELEMENT_LIMIT
from irgraph.graph import Model
from irgraph.io.onnx.common import Explain, Explainer, first_line, require_onnx
from irgraph.io.onnx.converter import SUPPORTED_OPS, GraphConverter
from irgraph.io.regular_file import open_regular, read_range

if TYPE_CHECKING:
    import onnx as onnx_types

__all__ = ["MAX_ONNX_BYTES", "SUPPORTED_OPS", "convert_onnx", "external_data_files"]


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
    return GraphConverter(onnx, proto, origin, Explainer(explain)).convert()


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
