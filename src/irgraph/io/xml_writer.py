"""write_model: Model -> IR v10/v11 ``.xml`` + ``.bin``, formatted byte for byte as OpenVINO 2026 writes them.

Layout rules (research/ir-format.md section 7.1): Parameters in model-input order, then the other
nodes in topological order, then Results in output order; ids renumbered 0.. in that order; port
ids inputs first, outputs after; edges generated per consumer input and ordered by libstdc++'s
``std::sort`` on from-layer (not stable: see :func:`cxx_sort`); pugixml's escaping and tabs.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from typing import BinaryIO

import numpy as np

from irgraph._gc import paused_collector
from irgraph.element_types import ElementType
from irgraph.errors import IrIOError, Location, ShapeInferenceError, WeightsError
from irgraph.graph import Model, Node
from irgraph.io.names import join_names
from irgraph.io.rt_info import write_rt_info
from irgraph.io.weights import WeightsWriter, encode_tensor
from irgraph.io.xml_text import cxx_sort, escape_attribute
from irgraph.ops import Const, Parameter, Result
from irgraph.shape_inference import ensure_shapes
from irgraph.shapes import TensorType

__all__ = ["serialize", "write_model"]

SUPPORTED_VERSIONS = (10, 11)


def version_to_write(model: Model, version: int | None = None) -> int:
    """``version`` if given, else the IR version the model was read with, else 11 (OpenVINO's default)."""
    return version if version is not None else (model.ir_version or 11)


_SMALL_BLOB = 1 << 16  # Consts up to this many bytes are copied (cheap to compare); larger ones stay views


def write_model(
    model: Model,
    path: str | os.PathLike[str],
    version: int | None = None,
    weights: str | os.PathLike[str] | None = None,
) -> None:
    """Write ``model`` to ``path`` (must end in ``.xml``) and its weights beside it (or to ``weights``).

    ``version`` is 10 or 11 (default: the version the model was read with, else 11); writing a v11
    model as v10 drops layer/port rt_info and Result output_names. Both files are written to
    temporary files in their directories and renamed into place only when both are complete, so
    a failure leaves existing files untouched. Shapes are inferred first unless the model is unchanged
    since its last clean inference (see ``ensure_shapes``): ShapeInferenceError, GraphError on invalid
    models; IrIOError when a file cannot be written.
    """
    xml_path = os.fspath(path)
    if not xml_path.endswith(".xml") or len(os.path.basename(xml_path)) <= len(".xml"):
        raise IrIOError("the model path must name a file ending in .xml (as OpenVINO requires)", Location(xml_path))
    bin_path = os.fspath(weights) if weights is not None else xml_path[: -len(".xml")] + ".bin"
    with paused_collector():
        text, blobs = serialize(model, version)
    _write_files([(bin_path, blobs.write_to), (xml_path, lambda file: file.write(text))])


def serialize(model: Model, version: int | None = None) -> tuple[bytes, WeightsWriter]:
    """The ``.xml`` bytes and the ``.bin`` blobs of ``model`` (shapes are inferred first, unless fresh)."""
    version = version_to_write(model, version)
    if version not in SUPPORTED_VERSIONS:
        raise ValueError(f"IR version must be 10 or 11, got {version!r}")
    ensure_shapes(model)
    return _Serializer(model, version).run()


class _Serializer:
    def __init__(self, model: Model, version: int) -> None:
        self.model = model
        self.v11 = version >= 11
        self.version = version
        self.blobs = WeightsWriter()
        self.out: list[str] = []
        self.nodes = {node.id: node for node in model}
        self.sources = {node_id: model.input_sources(node) for node_id, node in self.nodes.items()}
        # Per-serialization caches keyed by id(): every keyed object stays referenced by the model meanwhile.
        self._bodies: dict[int, tuple[TensorType, str, str]] = {}
        self._data_lines: dict[int, tuple[object, str]] = {}
        self._kinds: dict[int, tuple[object, str, bool]] = {}
        self._plain_ports: dict[tuple[int, int], str] = {}  # ids of tensors held in self._bodies

    def run(self) -> tuple[bytes, WeightsWriter]:
        model, out = self.model, self.out
        order = self._emission_order()
        ids = {node.id: index for index, node in enumerate(order)}
        out.append('<?xml version="1.0"?>\n')
        out.append(f'<net name="{escape_attribute(model.name)}" version="{self.version}">\n')
        if order:
            out.append("\t<layers>\n")
            for index, node in enumerate(order):
                self._layer(index, node)
            out.append("\t</layers>\n")
        else:
            out.append("\t<layers />\n")
        edges = self._edges(order, ids)
        if edges:
            out.append("\t<edges>\n")
            out.extend(
                f'\t\t<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}" />\n' for a, b, c, d in edges
            )
            out.append("\t</edges>\n")
        else:
            out.append("\t<edges />\n")
        write_rt_info(out, model.rt_info, 1, always=True)
        out.append("</net>\n")
        return "".join(out).encode("utf-8"), self.blobs

    def _emission_order(self) -> list[Node]:
        """Parameters (input order), the rest topologically (ties by insertion order), Results (output order).

        When the insertion order is already topological (always, for a file OpenVINO wrote) the
        topological sort with insertion-order ties returns it unchanged, so it is used directly.
        """
        nodes = list(self.nodes.values())
        position = {node.id: index for index, node in enumerate(nodes)}
        topological = all(
            position[source.node_id] < position[node.id]
            for node in nodes for source in self.sources[node.id] if source is not None
        )
        ordered = nodes if topological else self.model.topological_order()
        middle = [n for n in ordered if not isinstance(n.op, Parameter | Result)]
        return [*self.model.parameters, *middle, *self.model.results]

    def _edges(self, order: list[Node], ids: dict[int, int]) -> list[tuple[int, int, int, int]]:
        """One edge per connected input, consumers in emission order, then std::sort on from-layer."""
        inputs_of = {node.id: node.num_inputs for node in order}
        edges = []
        for node in order:
            to_layer = ids[node.id]
            for index, source in enumerate(self.sources[node.id]):
                if source is not None:
                    edges.append((ids[source.node_id], inputs_of[source.node_id] + source.index, to_layer, index))
        return cxx_sort(edges, key=_from_layer)

    def _layer(self, index: int, node: Node) -> None:
        out, op = self.out, node.op
        cached = self._kinds.get(id(op))
        if cached is None:
            kind = f'" type="{escape_attribute(node.type_name)}" version="{escape_attribute(op.version)}"'
            cached = self._kinds[id(op)] = (op, kind, isinstance(op, Result))
        _, kind, is_result = cached
        head = f'\t\t<layer id="{index}" name="{escape_attribute(node.name)}{kind}'
        if is_result and self.v11 and node.result_names:
            head += f' output_names="{escape_attribute(join_names(node.result_names))}"'
        data = self._data(node)
        rt_info = node.rt_info if self.v11 else ()
        has_outputs = node.num_outputs > 0 and not is_result
        if not (data or rt_info or node.num_inputs or has_outputs):
            out.append(head + " />\n")
            return
        out.append(head + ">\n")
        if data:
            out.append(data)
        if rt_info:
            write_rt_info(out, rt_info, 3)
        port = self._port
        if node.num_inputs:
            out.append("\t\t\t<input>\n")
            port_rt = node.input_rt_info if self.v11 else {}
            nodes = self.nodes
            for index_in, source in enumerate(self.sources[node.id]):
                if source is not None:
                    producer = nodes[source.node_id]
                    tensor = producer.output_types[source.index] or self._output_type(producer, source.index)
                else:
                    tensor = _require(node.declared_input_types[index_in], node, f"input {index_in} (not connected)")
                port(index_in, tensor, None, port_rt.get(index_in) if port_rt else None)
            out.append("\t\t\t</input>\n")
        if has_outputs:
            out.append("\t\t\t<output>\n")
            first = node.num_inputs
            port_rt = node.output_rt_info if self.v11 else {}
            names = node.tensor_names
            types = node.output_types
            for index_out in range(node.num_outputs):
                tensor = types[index_out] or self._output_type(node, index_out)
                port(first + index_out, tensor, names[index_out], port_rt.get(index_out) if port_rt else None)
            out.append("\t\t\t</output>\n")
        out.append("\t\t</layer>\n")

    def _data(self, node: Node) -> str:
        """The ``<data .../>`` line ('' when the op has no attributes); shared ops format it once."""
        op = node.op
        plain = not node.extra_attributes and not isinstance(op, Const)
        if plain:
            cached = self._data_lines.get(id(op))
            if cached is not None:
                return cached[1]
        attributes = op.to_attributes()
        if isinstance(op, Const):
            offset, size = self.blobs.add(_blob(op))
            attributes["offset"] = str(offset)
            attributes["size"] = str(size)
        if node.extra_attributes:
            attributes.update((k, v) for k, v in node.extra_attributes.items() if k not in attributes)
        line = (
            "\t\t\t<data" + "".join(f' {k}="{escape_attribute(v)}"' for k, v in attributes.items()) + " />\n"
            if attributes else ""
        )
        if plain:
            self._data_lines[id(op)] = (op, line)
        return line

    def _port(self, port_id: int, tensor: TensorType, names: list[str] | None, rt_info: tuple | None) -> None:
        plain = not names and not rt_info
        if plain:
            text = self._plain_ports.get((port_id, id(tensor)))
            if text is not None:
                self.out.append(text)
                return
        cached = self._bodies.get(id(tensor))
        if cached is None:
            dims = tensor.shape.dims
            body = "".join(f"\t\t\t\t\t<dim>{d.to_port_dim()}</dim>\n" for d in dims or ())
            cached = self._bodies[id(tensor)] = (tensor, f'" precision="{tensor.element_type.precision}"', body)
        _, precision, body = cached
        head = f'\t\t\t\t<port id="{port_id}{precision}'
        if names:
            head += f' names="{escape_attribute(join_names(names))}"'
        if not rt_info:
            text = f"{head}>\n{body}\t\t\t\t</port>\n" if body else head + " />\n"
            if plain:
                self._plain_ports[(port_id, id(tensor))] = text
            self.out.append(text)
        else:
            self.out.append(f"{head}>\n{body}")
            write_rt_info(self.out, rt_info, 5)
            self.out.append("\t\t\t\t</port>\n")

    def _output_type(self, node: Node, index: int) -> TensorType:
        """The declared type of an output inference left unknown (callers try ``output_types`` first)."""
        return _require(node.declared_output_types[index], node, f"output {index}")


def _from_layer(edge: tuple[int, int, int, int]) -> int:
    return edge[0]


def _require(tensor: TensorType | None, node: Node, what: str) -> TensorType:
    if tensor is None:
        raise ShapeInferenceError(f"the type of {what} is unknown; it cannot be written", node.location)
    return tensor


def _blob(op: Const) -> bytes | memoryview:
    """The Const's .bin bytes; byte-aligned numeric data is handed over without a copy."""
    value, element_type = op.value, op.element_type
    if value is None:
        raise WeightsError("Const has no value (its weights were never loaded); it cannot be written")
    if element_type is ElementType.STRING or element_type.is_packed or value.dtype != element_type.numpy_dtype:
        return encode_tensor(value, element_type)
    flat = np.ascontiguousarray(value).reshape(-1).view(np.uint8)
    return flat.tobytes() if flat.size <= _SMALL_BLOB else memoryview(flat)


# ------------------------------------------------------------------------------------ files
def _write_files(files: list[tuple[str, Callable[[BinaryIO], object]]]) -> None:
    """Write every file to a temporary file in its directory, then rename them all into place.

    Nothing is renamed until every file is complete; on failure the temporary files are removed
    and existing files are untouched.
    """
    temporaries: list[tuple[str, str]] = []
    current = files[0][0]  # the destination being written: errors name it, never a temporary file
    try:
        for path, write in files:
            current = path
            if os.path.isdir(path):
                raise IsADirectoryError(21, "Is a directory", path)
            directory = os.path.dirname(os.path.abspath(path))
            os.makedirs(directory, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
            temporaries.append((temporary, path))
            with os.fdopen(handle, "wb") as file:
                write(file)
                file.flush()
                os.fsync(file.fileno())
            os.chmod(temporary, _mode_for(path))
        for temporary, path in temporaries:
            current = path
            os.replace(temporary, path)
    except OSError as exc:
        _remove(temporaries)
        raise IrIOError(f"cannot write the model: {exc.strerror or exc}", Location(file=str(current))) from exc
    except BaseException:
        _remove(temporaries)
        raise


def _remove(temporaries: list[tuple[str, str]]) -> None:
    for temporary, _ in temporaries:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def _mode_for(path: str) -> int:
    """An existing file's permissions, else what a plain ``open`` would create (0o666 minus the umask)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
