"""write_model: Model -> IR v10/v11 ``.xml`` + ``.bin``, formatted byte for byte as OpenVINO 2026 writes them.

Layout rules (research/ir-format.md section 7.1): Parameters in model-input order, then the other
nodes in topological order, then Results in output order; ids renumbered 0.. in that order; port
ids inputs first, outputs after; edges generated per consumer input and ordered by libstdc++'s
``std::sort`` on from-layer (not stable: see :func:`cxx_sort`); pugixml's escaping and tabs.
"""

from __future__ import annotations

import operator
import os

import numpy as np

from irgraph.analysis.shape_inference import ensure_shapes
from irgraph.core.collector import paused_collector
from irgraph.core.element_types import ElementType
from irgraph.core.errors import (
    GraphError,
    IrError,
    IrIOError,
    Location,
    ResourceLimitError,
    ShapeInferenceError,
    WeightsError,
)
from irgraph.core.shapes import Shape, TensorType
from irgraph.graph import Body, Model, Node, OutputPort, PortMapEntry, RtEntry
from irgraph.io.atomic import Writer, check_destination, replace_files, same_file
from irgraph.io.weights import WeightsWriter, encode_tensor
from irgraph.io.xml.names import join_key_first
from irgraph.io.xml.reader import SUPPORTED_VERSIONS
from irgraph.io.xml.rt_info import check_rt_info_size, write_legacy_sections, write_rt_info
from irgraph.io.xml.security import check_bytes, check_parse_size
from irgraph.io.xml.text import cxx_sort, escape_attribute
from irgraph.ops import Const, Op, Parameter, Result

__all__ = ["serialize", "write_model"]

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
    temporary files in their directories, fsynced, and renamed into place (the ``.bin`` first) only
    when both are complete, so a failure leaves existing files untouched; a directory, FIFO, socket
    or device node in the way is refused, never replaced (see ``irgraph.io.atomic``). Shapes are
    inferred first unless the model is unchanged since its last clean inference (see ``ensure_shapes``):
    ShapeInferenceError, GraphError on invalid models; IrIOError when a file cannot be written.
    """
    xml_path = os.fspath(path)
    if not xml_path.endswith(".xml") or len(os.path.basename(xml_path)) <= len(".xml"):
        raise IrIOError("the model path must name a file ending in .xml (as OpenVINO requires)", Location(xml_path))
    bin_path = os.fspath(weights) if weights is not None else xml_path[: -len(".xml")] + ".bin"
    if same_file(bin_path, xml_path):
        raise IrIOError("the weights file is the model file itself; give the weights another name", Location(bin_path))
    for destination in (bin_path, xml_path):  # before the model is serialized: nothing is computed for nothing
        check_destination(destination)
    with paused_collector():
        text, blobs = serialize(model, version)
    check_readable(text, Location(xml_path))
    check_rt_info_size(model, Location(xml_path), layers=version_to_write(model, version) >= 11)
    _write_files([(bin_path, blobs.write_to), (xml_path, lambda file: file.write(text))])


def check_readable(text: bytes, where: Location) -> None:
    """ResourceLimitError when irgraph's reader would refuse ``text`` for its size: nothing irgraph writes is
    unreadable by irgraph. Files with sub-graph bodies are read through an lxml tree, so its limit applies too."""
    try:
        check_bytes(text, where)
        if b"<body" in text:
            check_parse_size(text, where)
    except IrError as err:
        raise ResourceLimitError(
            f"not written: irgraph would not read it back ({err.message}; the limits are MAX_LAYERS, "
            "MAX_XML_ELEMENTS and MAX_PARSE_BYTES in irgraph.io.xml.security, which a caller may raise)", where
        ) from None


def serialize(model: Model, version: int | None = None) -> tuple[bytes, WeightsWriter]:
    """The ``.xml`` bytes and the ``.bin`` blobs of ``model`` (shapes are inferred first, unless fresh)."""
    version = version_to_write(model, version)
    if version not in SUPPORTED_VERSIONS:
        raise ValueError(f"IR version must be 10 or 11, got {version!r}")
    ensure_shapes(model)
    return _Serializer(model, version).run()


class _Serializer:
    """Builds the ``.xml`` text in one pass over the layers in emission order, collecting the edges on the way.

    Text that depends only on an op or a tensor type (a layer's ``type``/``version``, its
    ``<data>`` line, a port's precision and dims) is formatted once per object: readers and shape
    inference share those objects between equal layers, so a large model has few of them.
    """

    def __init__(self, model: Model, version: int, blobs: WeightsWriter | None = None) -> None:
        self.in_body = blobs is not None
        self.model = model
        self.v11 = version >= 11
        self.version = version
        self.blobs = WeightsWriter() if blobs is None else blobs  # bodies share the model's one .bin
        self.out: list[str] = []
        # Caches keyed by id(): each value holds its object, so no id is reused while the cache lives.
        self._kinds: dict[int, tuple[Op, str, bool]] = {}
        self._data_lines: dict[int, tuple[Op, str]] = {}
        self._tensors: dict[int, _TensorText] = {}
        self._port_heads: list[str] = []  # '<port id="N' by N
        self._nodes = {node.id: node for node in model}

    def run(self) -> tuple[bytes, WeightsWriter]:
        model, out = self.model, self.out
        out.append('<?xml version="1.0"?>\n')
        out.append(f'<net name="{escape_attribute(model.name)}" version="{self.version}">\n')
        self._graph()
        out.append("</net>\n")
        return "".join(out).encode("utf-8"), self.blobs

    def _graph(self) -> dict[int, int]:
        """Append ``<layers>``, ``<edges>`` and ``<rt_info>`` (of a net or a body); return node id -> written id."""
        model, out = self.model, self.out
        order = self._emission_order()
        ids: dict[int, int] = {}
        edges: list[tuple[int, int, int, int]] = []
        if order:
            ids = {node.id: index for index, node in enumerate(order)}
            names = _escape_all([node.name for node in order])
            out.append("\t<layers>\n")
            layer = self._layer
            for index, node in enumerate(order):
                layer(index, node, names[index], model.input_sources(node), ids, edges)
            out.append("\t</layers>\n")
        else:
            out.append("\t<layers />\n")
        if edges:
            out.append("\t<edges>\n")
            out.extend(
                f'\t\t<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}" />\n'
                for a, b, c, d in cxx_sort(edges, key=_from_layer)
            )
            out.append("\t</edges>\n")
        else:
            out.append("\t<edges />\n")
        write_legacy_sections(out, model.legacy_sections)
        # No <rt_info /> after legacy sections the file had without one: OpenVINO reads them only then.
        write_rt_info(out, model.rt_info, 1, always=not model.legacy_sections)
        return ids

    def _emission_order(self) -> list[Node]:
        """Parameters (input order), the rest topologically (ties by insertion order), Results (output order)."""
        model = self.model
        middle = [node for node in model.topological_order() if not isinstance(node.op, Parameter | Result)]
        return [*model.parameters, *middle, *model.results]

    def _layer(
        self,
        index: int,
        node: Node,
        name: str,
        sources: list[OutputPort | None],
        ids: dict[int, int],
        edges: list[tuple[int, int, int, int]],
    ) -> None:
        """Append one ``<layer>`` and, for each connected input, its edge (from layer and port, to layer and port)."""
        out, op, v11 = self.out, node.op, self.v11
        kind = self._kinds.get(id(op))
        if kind is None:
            kind = self._kinds[id(op)] = (
                op,
                f'" type="{escape_attribute(node.type_name)}" version="{escape_attribute(op.version)}"',
                isinstance(op, Result),
            )
        _, type_and_version, is_result = kind
        head = f'\t\t<layer id="{index}" name="{name}{type_and_version}'
        if is_result and v11 and node.result_names:
            head += f' output_names="{escape_attribute(join_key_first(node.result_names))}"'
        bodies = self._bodies(node) if node.bodies else ()
        data = self._data(node)
        rt_info = node.rt_info if v11 else ()
        num_inputs = node.num_inputs
        num_outputs = 0 if is_result else node.num_outputs
        if not (data or rt_info or num_inputs or num_outputs or bodies):
            out.append(head + " />\n")
            return
        out.append(head + ">\n")
        if bodies:
            self._port_maps(node, bodies)
        out.append(data)
        if rt_info:
            write_rt_info(out, rt_info, 3)
        heads = self._port_heads
        if num_inputs + num_outputs > len(heads):
            heads.extend(_port_head(port_id) for port_id in range(len(heads), num_inputs + num_outputs))
        tensors = self._tensors
        if num_inputs:
            out.append("\t\t\t<input>\n")
            nodes = self._nodes
            for index_in, (source, port) in enumerate(zip(sources, node.inputs, strict=True)):
                if source is not None:
                    producer = nodes[source.node_id]
                    tensor = producer.outputs[source.index].type or self._output_type(producer, source.index)
                    from_layer = ids[source.node_id]
                    edges.append((from_layer, len(producer.inputs) + source.index, index, index_in))
                else:
                    tensor = _require(port.declared_type, node, f"input {index_in} (not connected)")
                text = tensors.get(id(tensor)) or self._tensor_text(tensor)
                if v11 and port.rt_info:
                    self._port_with_rt_info(index_in, text, None, port.rt_info)
                else:
                    out.append(heads[index_in] + text.tail)
            out.append("\t\t\t</input>\n")
        if num_outputs:
            out.append("\t\t\t<output>\n")
            for index_out, output in enumerate(node.outputs):
                tensor = output.type or self._output_type(node, index_out)
                text = tensors.get(id(tensor)) or self._tensor_text(tensor)
                port_id = num_inputs + index_out
                names = output.tensor_names
                if v11 and output.rt_info:
                    self._port_with_rt_info(port_id, text, names, output.rt_info)
                elif names:
                    out.append(
                        f'{heads[port_id]}{text.precision} names="{escape_attribute(join_key_first(names))}"'
                        f"{text.rest}"
                    )
                else:
                    out.append(heads[port_id] + text.tail)
            out.append("\t\t\t</output>\n")
        for body, _, body_text in bodies:
            out.append(f"\t\t\t<{body.tag}>\n{body_text}\t\t\t</{body.tag}>\n")
        out.append("\t\t</layer>\n")

    # ------------------------------------------------------------------------------ sub-graphs
    def _bodies(self, node: Node) -> list[tuple[Body, dict[int, int], str]]:
        """Each body's text (indented into the layer) and written ids; their Consts go to the one .bin in order."""
        written = []
        for body in node.bodies:
            inner = _Serializer(body.model, self.version, self.blobs)
            ids = inner._graph()
            text = "".join(inner.out)
            written.append((body, ids, _BODY_INDENT + text[:-1].replace("\n", "\n" + _BODY_INDENT) + "\n"))
        return written

    def _port_maps(self, node: Node, bodies: list[tuple[Body, dict[int, int], str]]) -> None:
        """The port maps (last body's first, as OpenVINO inserts each before the others) and back edges."""
        out = self.out
        for body, ids, _ in reversed(bodies):
            if body.port_map is not None:
                entries = [self._port_map_entry(node, body, entry, ids) for entry in body.port_map]
                if entries:
                    out.append(f"\t\t\t<{body.port_map_tag}>\n{''.join(entries)}\t\t\t</{body.port_map_tag}>\n")
                else:
                    out.append(f"\t\t\t<{body.port_map_tag} />\n")
            if body.back_edges:
                out.append("\t\t\t<back_edges>\n")
                out.extend(
                    f'\t\t\t\t<edge from-layer="{_body_id(node, body, edge.from_layer, ids)}" '
                    f'to-layer="{_body_id(node, body, edge.to_layer, ids)}" />\n'
                    for edge in body.back_edges
                )
                out.append("\t\t\t</back_edges>\n")

    def _port_map_entry(self, node: Node, body: Body, entry: PortMapEntry, ids: dict[int, int]) -> str:
        external = entry.external_port
        if external >= 0 and entry.output:
            external += node.num_inputs  # port ids: inputs first, outputs after
        text = "\t\t\t\t<output" if entry.output else "\t\t\t\t<input"
        if entry.axis is not None:
            text += f' axis="{entry.axis}"'
        internal = _body_id(node, body, entry.internal_layer_id, ids)
        text += f' external_port_id="{external}" internal_layer_id="{internal}"'
        for name in ("start", "end", "stride", "part_size"):
            value = getattr(entry, name)
            if value is not None:
                text += f' {name}="{value}"'
        if entry.purpose is not None:
            text += f' purpose="{escape_attribute(entry.purpose)}"'
        return text + " />\n"

    def _data(self, node: Node) -> str:
        """The ``<data .../>`` line ('' when the op has no attributes); shared ops format it once.

        A shared Const is added to the .bin once: its bytes would be found again at the same offset.
        """
        op = node.op
        if self.in_body and isinstance(op, Parameter):
            op = _body_parameter(node, op)
        extra = node.extra_attributes
        if not extra:
            cached = self._data_lines.get(id(op))
            if cached is not None:
                return cached[1]
        attributes = op.to_attributes()
        if isinstance(op, Const):
            offset, size = self.blobs.add(_blob(op), zero_bytes=op.zero_byte_blob)
            attributes["offset"] = str(offset)
            attributes["size"] = str(size)
        if extra:
            attributes.update((k, v) for k, v in extra.items() if k not in attributes)
        line = (
            "\t\t\t<data" + "".join(f' {k}="{escape_attribute(v)}"' for k, v in attributes.items()) + " />\n"
            if attributes else ""
        )
        if not extra:
            self._data_lines[id(op)] = (op, line)
        return line

    def _tensor_text(self, tensor: TensorType) -> _TensorText:
        dims = tensor.shape.dims
        body = "".join(f"\t\t\t\t\t<dim>{d.to_port_dim()}</dim>\n" for d in dims or ())
        text = self._tensors[id(tensor)] = _TensorText(tensor, f'" precision="{tensor.element_type.precision}"', body)
        return text

    def _port_with_rt_info(
        self, port_id: int, text: _TensorText, names: list[str] | None, rt_info: tuple[RtEntry, ...]
    ) -> None:
        out = self.out
        out.append(self._port_heads[port_id] + text.precision)
        if names:
            out.append(f' names="{escape_attribute(join_key_first(names))}"')
        out.append(">\n" + text.body)
        write_rt_info(out, rt_info, 5)
        out.append("\t\t\t\t</port>\n")

    def _output_type(self, node: Node, index: int) -> TensorType:
        """The declared type of an output inference left unknown (callers try its inferred ``type`` first)."""
        return _require(node.outputs[index].declared_type, node, f"output {index}")


class _TensorText:
    """A port's text after its id for one tensor type: the precision attribute, the dims, both closed."""

    __slots__ = ("body", "precision", "rest", "tail", "tensor")

    def __init__(self, tensor: TensorType, precision: str, body: str) -> None:
        self.tensor = tensor  # keeps the id this text is cached under taken
        self.precision = precision
        self.body = body
        self.rest = f">\n{body}\t\t\t\t</port>\n" if body else " />\n"
        self.tail = precision + self.rest


_BODY_INDENT = "\t\t\t"  # a body's <layers> sits three levels deeper than a net's


def _body_parameter(node: Node, op: Parameter) -> Parameter:
    """A body Parameter as OpenVINO writes it: with the type its layer gave it (the outer input's), once inferred.

    Except a declared shape that only narrows the bounds of dims the inferred type leaves dynamic too:
    that is OpenVINO's own inference where irgraph's bounds are looser (an op whose bounds it does
    not follow upstream), so it is kept as read. Such bounds are only a hint: OpenVINO and irgraph
    both give the Parameter the outer input's type again when they read the file.
    """
    inferred = node.outputs[0].type if node.outputs else None
    if inferred is None or (inferred.shape == op.shape and inferred.element_type == op.element_type):
        return op
    if inferred.element_type == op.element_type and _narrows_bounds(op.shape, inferred.shape):
        return op
    return Parameter(shape=inferred.shape, element_type=inferred.element_type)


def _narrows_bounds(declared: Shape, inferred: Shape) -> bool:
    """Same rank and static dims; each dynamic dim of ``declared`` an interval within ``inferred``'s."""
    if declared.rank_is_dynamic or inferred.rank_is_dynamic or declared.rank != inferred.rank:
        return False
    for mine, theirs in zip(declared, inferred, strict=True):
        if mine.is_static or theirs.is_static:
            if mine != theirs:
                return False
        elif mine.min < theirs.min or (theirs.max is not None and (mine.max is None or mine.max > theirs.max)):
            return False
    return True


def _body_id(node: Node, body: Body, layer_id: int, ids: dict[int, int]) -> int:
    written = ids.get(layer_id)
    if written is None:
        raise GraphError(f"the <{body.tag}> port map or back edges name body layer {layer_id}, which does not exist",
                         node.location)
    return written


def _port_head(port_id: int) -> str:
    return f'\t\t\t\t<port id="{port_id}'


def _escape_all(values: list[str]) -> list[str]:
    """``escape_attribute`` of each value; one check of all of them when none needs escaping (the usual case)."""
    joined = "".join(values)
    return values if escape_attribute(joined) == joined else [escape_attribute(value) for value in values]


_from_layer = operator.itemgetter(0)


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
    return flat.tobytes() if flat.size <= _SMALL_BLOB else flat.data


# ------------------------------------------------------------------------------------ files
def _write_files(files: list[tuple[str, Writer]]) -> None:
    """Create the files' directories, then write them through ``replace_files`` (fsynced, renamed in order).

    Errors are IrIOError naming the destination that failed, never a temporary file.
    """
    try:
        for path, _ in files:
            try:
                os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            except OSError as exc:
                raise OSError(exc.errno, exc.strerror, path) from exc
        replace_files(files)
    except IrError:
        raise
    except OSError as exc:
        where = os.fsdecode(exc.filename) if exc.filename is not None else files[0][0]
        raise IrIOError(f"cannot write the model: {exc.strerror or exc}", Location(file=where)) from exc
