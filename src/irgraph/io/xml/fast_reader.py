"""The reader's fast path: IR files laid out exactly as OpenVINO writes them, read without an lxml tree.

OpenVINO's serializer (pugixml) writes one fixed layout: tabs and newlines between elements,
attributes in a fixed order, ``&amp;``-style escapes. This module recognises that layout with
regular expressions and feeds the same :meth:`LayerReader.build` the lxml walk feeds, remembering
what repeats (a layer's whole body, a port list, a port type), so most layers cost a dictionary
lookup instead of a dozen element visits.

The lxml path stays the reference. Anything outside the layout (another attribute order,
comments, character references, carriage returns, unknown elements, anything near libxml2's size
limits), any error and anything the reader would note makes :func:`read_fast` return None, and the
caller reads the file through lxml, which reports errors and findings with their lines. Where the
layout allows free text (rt_info) the pieces are still parsed by lxml.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from lxml import etree

from irgraph.errors import IrError, Location
from irgraph.graph import InputPort, Model, OutputPort, RtEntry
from irgraph.integers import CANONICAL
from irgraph.io.xml.context import ReadResult
from irgraph.io.xml.layers import NO_PORTS, LayerBody, LayerPorts, LayerReader, PortList, non_negative
from irgraph.io.xml.names import split_names
from irgraph.io.xml.rt_info import MAX_ATTRIBUTES, read_rt_info
from irgraph.io.xml.security import hardened_parser
from irgraph.shapes import TensorType

if TYPE_CHECKING:
    from irgraph.io.xml.context import ReadContext

__all__ = ["read_fast"]

_SPACE = r"[ \t\n]*"  # no carriage returns: lines are counted by newlines
_VALUE = r'[^"<&\t\n\r]*(?:&(?:amp|lt|gt|quot|apos);[^"<&\t\n\r]*)*'  # tabs/newlines would be normalised to spaces
_INT = CANONICAL  # ids, port ids and dims as OpenVINO writes them: ASCII digits, never above int64
_NAME = r"[A-Za-z_][A-Za-z0-9_.-]{0,999}"

_HEAD = re.compile(
    rf"""(?:<\?xml version=(["'])1\.0\1(?: encoding=(["'])(?:UTF-8|utf-8)\2)?\?>)?{_SPACE}"""
    rf'<net name="(?P<name>{_VALUE})" version="(?P<version>10|11)">{_SPACE}<layers>'
)
_LAYER = re.compile(
    rf'{_SPACE}<layer id="({_INT})" name="({_VALUE})" type="({_VALUE})" version="({_VALUE})"'
    rf'(?: output_names="({_VALUE})")?>'
)
_DATA = re.compile(rf'{_SPACE}<data((?: {_NAME}="{_VALUE}")*) />')
_RT_INFO = re.compile(rf"{_SPACE}<rt_info(?:>| />)")
_OPEN = {False: re.compile(rf"{_SPACE}<input>"), True: re.compile(rf"{_SPACE}<output>")}
_CLOSE = {False: re.compile(rf"{_SPACE}</input>"), True: re.compile(rf"{_SPACE}</output>")}
_END = re.compile(rf"{_SPACE}\Z")
_PORT_NAMES = re.compile(r' names="([^"]*)"')  # cut out of a body: the rest repeats across layers
_VALID_VALUE = re.compile(_VALUE)
_ATTRIBUTE = re.compile(rf' ({_NAME})="({_VALUE})"')
_PORT = re.compile(
    rf'{_SPACE}<port id="({_INT})" precision="([A-Za-z0-9]{{1,16}})"(?: names="({_VALUE})")?'
    rf"(?: />|>((?:{_SPACE}<dim>-?{_INT}</dim>)*){_SPACE}"
    rf"(?:<rt_info>(.*?)</rt_info>{_SPACE}|(<rt_info />){_SPACE})?</port>)",
    re.DOTALL,
)
_DIM = re.compile(rf"<dim>(-?{_INT})</dim>")
_SECTIONS = re.compile(rf"{_SPACE}</layers>{_SPACE}<edges>")
_EDGE = rf'<edge from-layer="({_INT})" from-port="({_INT})" to-layer="({_INT})" to-port="({_INT})" />'
_EDGES = re.compile(rf"(?:{_SPACE}{_EDGE})*{_SPACE}")
_EDGE_FIELDS = re.compile(_EDGE)
_TAIL = re.compile(rf"{_SPACE}(?:<rt_info>(.*)</rt_info>|(<rt_info />))?{_SPACE}</net>{_SPACE}", re.DOTALL)
_SUB_GRAPH = re.compile(rb"<(?:body|then_body|else_body|port_map|then_port_map|else_port_map|back_edges)[\s/>]")
_CONTROL_BYTES = bytes(range(0x09)) + bytes(range(0x0B, 0x20))

# libxml2 (huge_tree off) refuses a start tag, attribute value or text node past 10,000,000 bytes,
# counted from where its input buffer starts, which moves with the parse. Every such piece lies
# between two '<', so a file with no long run without one is far inside those limits.
_MAX_RUN = 1_000_000  # bytes
_RT_INFO_DEPTH = {"net": 1, "layer": 3, "port": 5}  # elements above an <rt_info> (libxml2 limits nesting)


class NotCanonical(Exception):
    """The file leaves the layout this module reads (the lxml path reads it instead)."""


def read_fast(reader: ReadContext) -> ReadResult | None:
    """The model of ``reader``'s document when it is laid out as OpenVINO writes it, else None."""
    try:
        model = _FastReader(reader, reader.document.data).read()
    except (NotCanonical, IrError, ValueError, TypeError, KeyError, IndexError, OverflowError, etree.LxmlError):
        model = None
    if model is None or reader.findings:
        reader.findings.clear()
        return None
    return ReadResult(model, [])


class _FastReader:
    def __init__(self, reader: ReadContext, data: bytes) -> None:
        # XML forbids these characters (and the lxml path would say where): controls but tab and
        # newline (carriage returns too: lines are counted by newlines), U+FFFE and U+FFFF.
        if len(data.translate(None, _CONTROL_BYTES)) != len(data) or (
            b"\xef" in data and (b"\xef\xbf\xbe" in data or b"\xef\xbf\xbf" in data)
        ):
            raise NotCanonical
        if _has_long_run(data):  # near libxml2's size limits: the lxml path says what it refuses
            raise NotCanonical
        if _SUB_GRAPH.search(data):  # bodies (TensorIterator, Loop, If) are read by the lxml path
            raise NotCanonical
        self.reader = reader
        self.text = data.decode("utf-8")
        self.escaped = b"&" in data  # no '&' anywhere: no value needs unescaping
        self._bodies: dict[tuple[str, str, str], LayerBody] = {}
        self._port_types: dict[tuple[bool, str, str | None], TensorType | None] = {}
        self._parser = hardened_parser()
        self._layer_reader: LayerReader | None = None

    def read(self) -> Model:
        text = self.text
        head = _HEAD.match(text)
        if head is None:
            raise NotCanonical
        version = non_negative(head["version"])
        model = Model(self._value(head["name"]), ir_version=version)
        model.source = self.reader.file
        model.source_line = text.count("\n", 0, head.start("name")) + 1
        self._layer_reader = LayerReader(self.reader, model, version)
        by_text, position = self._layers(head.end())
        sections = _SECTIONS.match(text, position)
        if sections is None:
            raise NotCanonical
        end = text.find("</edges>", sections.end())
        if end < 0:
            raise NotCanonical
        self._edges(model, text[sections.end():end], by_text)
        tail = _TAIL.fullmatch(text, end + len("</edges>"))
        if tail is None:
            raise NotCanonical
        model.rt_info = self._rt_info(tail.group(1), "net") if tail.group(1) is not None else (
            () if tail.group(2) else None
        )
        return model

    def _layers(self, position: int) -> tuple[dict[str, LayerPorts], int]:
        text, file, bodies, escaped = self.text, self.reader.file, self._bodies, self.escaped
        layers = self._layer_reader
        place, model = layers.place, layers.model  # type: ignore[union-attr]
        match, find, count, cut = _LAYER.match, text.find, text.count, _PORT_NAMES.split
        by_text: dict[str, LayerPorts] = {}
        line, counted = 1, 0
        while (layer := match(text, position)) is not None:
            id_text, name, type_name, version, output_names = layer.groups()
            start, body_start = layer.start(1), layer.end()
            if escaped:
                name, type_name, version = _unescape(name), _unescape(type_name), _unescape(version)
                output_names = None if output_names is None else _unescape(output_names)
            line += count("\n", counted, start)
            counted = start
            body_end = find("</layer>", body_start)
            if body_end < 0:
                raise NotCanonical
            # Tensor names make most bodies unique; without them most repeat, so they are cut out
            # and the rest is looked up (or parsed once).
            pieces = cut(text[body_start:body_end])
            key = (type_name, version, ' names=""'.join(pieces[::2]) if len(pieces) > 1 else pieces[0])
            layer_id = non_negative(id_text)
            location = Location(file, line, layer_id, name, type_name)
            body = bodies.get(key)
            if body is None:
                body = bodies[key] = self._body(key, location)
            if layer_id in model:  # a repeated id (also when written differently, as 01 and 1)
                raise NotCanonical
            by_text[id_text] = place(
                body, layer_id, name, location, output_names,
                tensor_names=self._tensor_names(body, pieces[1::2]) if len(pieces) > 1 else None,
            )
            position = body_end + len("</layer>")
        return by_text, position

    def _tensor_names(self, body: LayerBody, values: list[str]) -> list[list[str]]:
        """Each output port's tensor names, from the ``names`` values cut out of a layer's body."""
        names: list[list[str]] = [[] for _ in body.outputs[1]]
        for slot, value in zip(body.name_slots, values, strict=True):
            if _VALID_VALUE.fullmatch(value) is None:
                raise NotCanonical
            if slot is not None:  # None: an input port's names, which OpenVINO ignores
                names[slot] = split_names(self._value(value))
        return names

    def _body(self, key: tuple[str, str, str], location: Location) -> LayerBody:
        """What a layer's ``<data>``, rt_info and ports make (shared by every layer with this type and body).

        The body's ``names`` values are blank here; ``name_slots`` says which output port each fills.
        """
        type_name, version, body = key
        data = _DATA.match(body)
        position = data.end() if data else 0
        rt_info = None
        if (opening := _RT_INFO.match(body, position)) is not None:
            if opening.group().endswith("/>"):
                rt_info, position = (), opening.end()
            else:
                end = body.find("</rt_info>", opening.end())
                if end < 0:
                    raise NotCanonical
                rt_info, position = self._rt_info(body[opening.end():end], "layer"), end + len("</rt_info>")
        (inputs, input_slots), position = self._ports(body, position, False)
        (outputs, output_slots), position = self._ports(body, position, True)
        if _END.match(body, position) is None:
            raise NotCanonical
        slots = [None] * input_slots + output_slots
        if len(slots) != body.count(' names="'):  # a names attribute off a port start tag (rt_info, <data>)
            raise NotCanonical
        prepared = self._layer_reader.prepare(  # type: ignore[union-attr]
            type_name, version, location,
            attrs=None if data is None else self._attributes(data.group(1)),
            inputs=inputs, outputs=outputs, rt_info=rt_info,
        )
        prepared.name_slots = slots
        return prepared

    def _ports(self, body: str, position: int, outputs: bool) -> tuple[tuple[PortList, Any], int]:
        """The ``<input>``/``<output>`` at ``position``: its ports, where their names go, and the position after it.

        For inputs the second item is how many ports carry a names attribute; for outputs, their indices.
        """
        opening = _OPEN[outputs].match(body, position)
        if opening is None:
            return (NO_PORTS, [] if outputs else 0), position
        position = opening.end()
        labels: dict[str, int] = {}
        types: list = []
        rt: dict[int, tuple[RtEntry, ...]] = {}
        named: list[int] = []
        where = Location(self.reader.file)
        port_type, known_types = self._layer_reader.port_type, self._port_types  # type: ignore[union-attr]
        while (port := _PORT.match(body, position)) is not None:
            label, precision, port_names, dims_text, rt_info, empty_rt_info = port.groups()
            if label in labels:
                raise NotCanonical
            index = labels[label] = len(types)
            tensor = known_types.get((outputs, precision, dims_text), False)
            if tensor is False:
                dims = _DIM.findall(dims_text) if dims_text else []
                tensor = known_types[(outputs, precision, dims_text)] = port_type(precision, dims, outputs, None, where)
            types.append(tensor)
            if rt_info is not None:
                rt[index] = self._rt_info(rt_info, "port")
            elif empty_rt_info:
                rt[index] = ()
            if port_names is not None:
                named.append(index)
            position = port.end()
        closing = _CLOSE[outputs].match(body, position)
        if closing is None:
            raise NotCanonical
        ports = (labels, types, rt, [[] for _ in types] if outputs else [])
        return (ports, named if outputs else len(named)), closing.end()

    def _edges(self, model: Model, section: str, by_text: dict[str, LayerPorts]) -> None:
        if _EDGES.fullmatch(section) is None:
            raise NotCanonical
        connect = model.connect
        for from_layer, from_port, to_layer, to_port in _EDGE_FIELDS.findall(section):
            source, target = by_text.get(from_layer), by_text.get(to_layer)
            if source is None or target is None:
                raise NotCanonical
            out_index, in_index = source.outputs.get(from_port), target.inputs.get(to_port)
            if out_index is None or in_index is None:
                raise NotCanonical
            # Two producers for one input raise GraphError here: the lxml path then reports it with lines.
            connect(OutputPort(source.node.id, out_index), InputPort(target.node.id, in_index))

    def _value(self, value: str) -> str:
        """An attribute value, unescaped."""
        return _unescape(value) if self.escaped else value

    def _attributes(self, data: str) -> dict[str, str]:
        items = _ATTRIBUTE.findall(data)
        attrs = {name: self._value(value) for name, value in items}
        if len(attrs) != len(items) or len(items) > MAX_ATTRIBUTES or any(name.startswith("xmlns") for name in attrs):
            raise NotCanonical  # a repeated attribute (not well-formed), too many, or a namespace declaration
        return attrs

    def _rt_info(self, content: str, parent: str) -> tuple[RtEntry, ...]:
        """rt_info children parsed by lxml at the depth they have in the file (so its nesting limit holds)."""
        if "</rt_info" in content:  # the pattern ran past one rt_info (a second one, or stray end tags)
            raise NotCanonical
        depth = _RT_INFO_DEPTH[parent]
        element = etree.fromstring("<a>" * depth + f"<rt_info>{content}</rt_info>" + "</a>" * depth, self._parser)
        for _ in range(depth):
            element = element[0]
        return read_rt_info(element)


def _has_long_run(data: bytes) -> bool:
    """Whether ``data`` holds ``_MAX_RUN`` bytes in a row without a '<'."""
    position = 0
    while len(data) - position >= _MAX_RUN:
        last = data.rfind(b"<", position, position + _MAX_RUN)
        if last < 0:
            return True
        position = last + 1
    return False


def _unescape(value: str) -> str:
    """An attribute value with pugixml's five escapes undone (``&amp;`` last)."""
    if "&" not in value:
        return value
    return (
        value.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&apos;", "'")
        .replace("&amp;", "&")
    )
