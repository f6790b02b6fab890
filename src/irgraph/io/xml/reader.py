"""read_model: IR v10/v11 ``.xml`` + ``.bin`` -> Model, hardened and located to file, line and layer."""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING

from irgraph.core.collector import paused_collector
from irgraph.core.errors import GraphError, IrError, IrIOError, IrParseError, Location, WeightsError
from irgraph.core.limits import DEFAULT_ELEMENT_LIMIT
from irgraph.core.text import counted, plural
from irgraph.graph import Body, InputPort, Model, OutputPort, RtEntry
from irgraph.io.weights import WeightsFile
from irgraph.io.xml import _fast
from irgraph.io.xml.context import ReadResult
from irgraph.io.xml.layers import LayerPorts, LayerReader, PortIndex, non_negative, twice
from irgraph.io.xml.lazy_etree import etree
from irgraph.io.xml.rt_info import LEGACY_SECTIONS, RtInfoReader
from irgraph.io.xml.security import XmlDocument, load_xml, restore_controls, shield_controls
from irgraph.io.xml.sub_graphs import detach_bodies, read_bodies
from irgraph.ops import OpaqueOp

if TYPE_CHECKING:
    from irgraph.core.diagnostics import Diagnostic

__all__ = ["ReadResult", "read_ir", "read_model"]

SUPPORTED_VERSIONS = (10, 11)


def read_model(
    path: str | os.PathLike[str],
    weights: str | os.PathLike[str] | None = None,
    *,
    element_limit: int = DEFAULT_ELEMENT_LIMIT,
) -> Model:
    """Read an IR model (``.xml``, weights from ``weights`` or the ``.bin`` beside it).

    Raises IrIOError when a file cannot be read, IrParseError/WeightsError for malformed XML,
    attributes or weights, GraphError for broken structure (duplicate ids, dangling edges), OpError
    for attributes that break an op's rules, ResourceLimitError for a Const above ``element_limit``
    elements. Every error names the file, and the line and layer where known.
    """
    return read_ir(path, weights, element_limit=element_limit).model


def read_ir(
    path: str | os.PathLike[str],
    weights: str | os.PathLike[str] | None = None,
    *,
    element_limit: int = DEFAULT_ELEMENT_LIMIT,
    document: XmlDocument | None = None,
    weights_optional: bool = False,
) -> ReadResult:
    """Like :func:`read_model`, also returning the reader's findings (``document``: already loaded XML).

    ``weights_optional``: a missing or unreadable weights file, or Const bytes outside it, leave those
    Consts without a value (one ``weights`` finding says how many and why) instead of failing: the
    topology needs no weights.
    """
    name = os.fspath(path)
    where = Location(file=name)
    try:
        with paused_collector():
            if document is None:
                document = load_xml(name, parse=False)
            return _Reader(document, weights, element_limit, weights_optional).read()
    except IrError as err:
        err.locate(where)
        raise
    except (ValueError, TypeError, KeyError, IndexError, OverflowError, etree.LxmlError) as exc:
        raise IrParseError(f"cannot read the model: {type(exc).__name__}: {exc}", where) from exc


class _Reader:
    def __init__(
        self, document: XmlDocument, weights: str | os.PathLike[str] | None, element_limit: int,
        weights_optional: bool = False,
    ) -> None:
        self.document = document
        self.file = document.path
        self.findings: list[Diagnostic] = []
        self.element_limit = element_limit
        self.weights_optional = weights_optional
        self.consts_without_data = 0
        self._weights_problem = ""
        self._weights: WeightsFile | None = None
        self.body_depth = 0
        self.rt_info = RtInfoReader()
        """How many bodies deep the layers being read are (bounded by ``MAX_BODY_DEPTH``)."""
        self.detached: dict[etree._Element, etree._Element] = {}
        """Bodies parsed apart from the document (nested too deep for one parse): see ``detach_bodies``."""
        self._missing_weights = ""
        if weights is not None:
            self._weights_path: str | None = os.fspath(weights)
            if not weights_optional:
                self._weights = _open_weights(self._weights_path)
        else:
            candidate = os.path.splitext(self.file)[0] + ".bin"
            self._weights_path = candidate if os.path.exists(candidate) else None  # a directory: 'Is a directory'
            self._missing_weights = candidate

    # -------------------------------------------------------------------------------- pieces
    def here(self, element: etree._Element) -> Location:
        """The location of ``element`` (file and line)."""
        return Location(file=self.file, line=self.document.line(element))

    def note(self, code: str, message: str, location: Location) -> None:
        """Record something tolerated (a warning for validate_file)."""
        from irgraph.core.diagnostics import Diagnostic, Severity  # most reads note nothing

        self.findings.append(Diagnostic(code, Severity.WARNING, message, location))

    def weights(self) -> WeightsFile:
        """The weights file, opened on the first Const."""
        if self._weights is None:
            if self._weights_path is None:
                raise WeightsError(
                    f"the model has Const layers but there is no weights file: {self._missing_weights!r} does not "
                    "exist (pass the .bin path explicitly)"
                )
            self._weights = _open_weights(self._weights_path)
        return self._weights

    def read_bodies(self, layers: LayerReader, ports: LayerPorts, elements: list[etree._Element]) -> tuple[Body, ...]:
        """The bodies of a TensorIterator, Loop or If layer (``sub_graphs`` reads them with LayerReaders)."""
        return read_bodies(layers, ports, elements)

    def without_data(self, err: IrError | None = None) -> None:
        """Note a Const layer left without its value (``weights_optional``): the first reason is kept; ``err``
        is None for a layer sharing the bytes (and so the op) of a Const counted already."""
        self.consts_without_data += 1
        if err is not None and not self._weights_problem:
            self._weights_problem = err.message
            if self._weights_path is not None and self._weights_path not in err.message:
                self._weights_problem = f"{self._weights_path}: {err.message}"

    def _finish(self, result: ReadResult) -> ReadResult:
        if self.consts_without_data:
            from irgraph.core.diagnostics import Diagnostic, Severity

            count = self.consts_without_data
            result.findings.append(Diagnostic(
                "weights", Severity.WARNING,
                f"{self._weights_problem}; so {counted(count, 'Const layer')} {plural(count, 'has', 'have')} no data "
                "(the topology needs none)",
                Location(file=self.file),
            ))
        return result

    # -------------------------------------------------------------------------------- reading
    def read(self) -> ReadResult:
        if not self.document.parsed and not self.document.controls:
            fast = _fast.read_fast(self)
            if fast is not None:
                return self._finish(fast)
        self.consts_without_data = 0
        self._weights_problem = ""
        root = self._root()
        if root.tag != "net":
            raise IrParseError(f"the root element is <{root.tag}>; an IR file has <net> at its root", self.here(root))
        version = _version(root.get("version"), self.here(root))
        sections: dict[str, etree._Element] = {}
        legacy = []
        for child in root:
            tag = child.tag
            if tag in _NET_SECTIONS:
                if tag in sections:
                    raise twice(child, "<net>", self.here(child))
                sections[tag] = child
            elif tag in LEGACY_SECTIONS:
                legacy.append(child)
            else:
                self.note("ignored", f"element <{tag}> in <net> is not part of IR; it is ignored", self.here(child))
        layers, edges, rt_info = (sections.get(tag) for tag in _NET_SECTIONS)
        if layers is None:
            raise IrParseError("<net> has no <layers> section", self.here(root))
        model = Model(root.get("name", "model"), ir_version=version)
        model.source = self.file
        model.source_line = self.here(root).line
        ports = _fast.layer_reader(self, model, version).read(layers)
        if edges is not None:
            self.connect_edges(model, edges, ports)
        elif any(node.num_inputs for node in model):  # OpenVINO always writes <edges>; the schema requires it
            raise IrParseError("<net> has no <edges> section, so no layer input is connected", self.here(root))
        model.rt_info = self.rt_info.read(rt_info, self.here(rt_info)) if rt_info is not None else None
        model.legacy_sections = self.rt_info.read(legacy, self.here(legacy[0]) if legacy else None)
        if self.document.controls:
            _restore_controls(model)
        return self._finish(ReadResult(model, self.findings))

    def _root(self) -> etree._Element:
        """The parsed ``<net>``; bodies nested past libxml2's depth limit are parsed one by one."""
        try:
            return self.document.root
        except IrParseError as err:
            if "Excessive depth" not in err.message:
                raise
            where = Location(file=self.file)
            try:
                root, self.detached = detach_bodies(shield_controls(self.document.data, where)[0], where)
            except IrParseError:
                raise err from None
            return root

    def connect_edges(self, model: Model, edges: etree._Element, ports: PortIndex) -> None:
        """Connect every ``<edge>``: port ids are labels, a port's position in its list is its index."""
        by_text = ports["by_text"]
        claimed: dict[tuple[int, int], int] = {}
        connect = model.connect
        for position, edge in enumerate(edges):
            if edge.tag != "edge":
                self.note("ignored", f"element <{edge.tag}> in <edges> is not an edge; it is ignored", self.here(edge))
                continue
            get = edge.get
            from_port, to_port = get("from-port"), get("to-port")
            source, target = by_text.get(get("from-layer")), by_text.get(get("to-layer"))
            if source is None or target is None:
                source, target = self._layers_of(edge, ports["by_id"])
            out_index = source.outputs.get(from_port)
            if out_index is None:
                out_index = self._port_of(edge, source, "from-port")
            in_index = target.inputs.get(to_port)
            if in_index is None:
                in_index = self._port_of(edge, target, "to-port")
            key = (target.node.id, in_index)
            if key in claimed:
                raise self._two_producers(edge, edges[claimed[key]], target)
            claimed[key] = position
            connect(OutputPort(source.node.id, out_index), InputPort(key[0], in_index))

    # Error paths and the rare edges whose id texts differ from the layers' / ports' own spelling.
    def _edge_texts(self, edge: etree._Element) -> tuple[str, str, str, str]:
        texts = tuple(edge.get(key) for key in _EDGE_ATTRIBUTES)
        for key, text in zip(_EDGE_ATTRIBUTES, texts, strict=True):
            if text is None:
                raise IrParseError(f"<edge> is missing the attribute '{key}'", self.here(edge))
        return texts

    def _describe(self, edge: etree._Element) -> str:
        from_layer, from_port, to_layer, to_port = self._edge_texts(edge)
        return f"edge from layer {from_layer} port {from_port} to layer {to_layer} port {to_port}"

    def _layers_of(self, edge: etree._Element, by_id: dict[int, LayerPorts]) -> tuple[LayerPorts, LayerPorts]:
        from_layer, _, to_layer, _ = self._edge_texts(edge)
        found = []
        for text, what in ((from_layer, "from-layer"), (to_layer, "to-layer")):
            layer = by_id.get(_int(text, what, self, edge))
            if layer is None:
                raise GraphError(f"{self._describe(edge)}: there is no layer with id {text}", self.here(edge))
            found.append(layer)
        return found[0], found[1]

    def _port_of(self, edge: etree._Element, layer: LayerPorts, what: str) -> int:
        text = self._edge_texts(edge)[_EDGE_ATTRIBUTES.index(what)]
        output = what == "from-port"
        label = _int(text, what, self, edge)
        labels = layer.outputs if output else layer.inputs
        # Port ids compared as integers ('01' is port 1).
        index = next((i for known, i in labels.items() if non_negative(known) == label), None)
        if index is None:
            direction = "output" if output else "input"
            raise GraphError(
                f"{self._describe(edge)}: {layer.node.location.layer()} has no {direction} port with id {text} "
                f"(its {direction} port ids: {', '.join(labels) or 'none'})",
                self.here(edge),
            )
        return index

    def _two_producers(self, edge: etree._Element, earlier: etree._Element, target: LayerPorts) -> GraphError:
        from_layer, from_port, _, to_port = self._edge_texts(edge)
        return GraphError(
            f"input port {to_port} of {target.node.location.layer()} has two producers: layer "
            f"{earlier.get('from-layer')} port {earlier.get('from-port')} (edge at line "
            f"{self.document.line(earlier)}) and layer {from_layer} port {from_port}",
            self.here(edge),
        )


_EDGE_ATTRIBUTES = ("from-layer", "from-port", "to-layer", "to-port")
_NET_SECTIONS = ("layers", "edges", "rt_info")


def _restore_controls(model: Model) -> None:
    """Put back the control characters :func:`shield_controls` replaced, in every text the model keeps."""
    fix = restore_controls

    def entries(tree: tuple[RtEntry, ...] | None) -> tuple[RtEntry, ...] | None:
        if tree is None:
            return None
        return tuple(
            RtEntry(fix(e.tag), tuple((fix(k), fix(v)) for k, v in e.attributes), entries(e.children) or (),
                    None if e.text is None else fix(e.text))
            for e in tree
        )

    model.name = fix(model.name)
    model.rt_info = entries(model.rt_info)
    model.legacy_sections = entries(model.legacy_sections) or ()
    for node in model:
        node.name = fix(node.name)
        where = node.location
        node.location = where.replace(layer_name=fix(where.layer_name or ""), layer_type=fix(where.layer_type or ""))
        for output in node.outputs:
            output.tensor_names = [fix(name) for name in output.tensor_names]
            output.rt_info = entries(output.rt_info) or ()
        for port in node.inputs:
            port.rt_info = entries(port.rt_info) or ()
        if node.result_names:
            node.result_names = [fix(name) for name in node.result_names]
        node.extra_attributes = {fix(k): fix(v) for k, v in node.extra_attributes.items()}
        node.rt_info = entries(node.rt_info) or ()
        for body in node.bodies:
            _restore_controls(body.model)
        if isinstance(node.op, OpaqueOp):
            node.op = dataclasses.replace(
                node.op, op_type=fix(node.op.op_type), op_version=fix(node.op.op_version),
                attributes={fix(k): fix(v) for k, v in node.op.attributes.items()},
            )


def _version(text: str | None, where: Location) -> int:
    if text is None:
        raise IrParseError("<net> has no 'version' attribute; irgraph reads IR versions 10 and 11", where)
    try:  # read as OpenVINO reads it (so '011' is 11), without its sign
        version = non_negative(text)
    except ValueError:
        version = None
    if version not in SUPPORTED_VERSIONS:
        raise IrParseError(f"IR version {text!r} is not supported; irgraph reads IR versions 10 and 11", where)
    return version


def _int(text: str, what: str, reader: _Reader, element: etree._Element) -> int:
    try:
        return non_negative(text)
    except ValueError as err:
        raise IrParseError(f"'{what}' must be {err}. Got: {text!r}", reader.here(element)) from None


def _open_weights(path: str) -> WeightsFile:
    try:
        return WeightsFile(path)
    except WeightsError as err:
        if isinstance(err.__cause__, OSError):
            # Located by the caller at the model file (and the Const's line): the message names the .bin.
            raise IrIOError(f"cannot open the weights file {path!r}: {err.__cause__.strerror or err.__cause__}") \
                from err.__cause__
        raise
