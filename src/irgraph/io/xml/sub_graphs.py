"""Reading a layer's sub-graphs: ``<body>``/``<then_body>``/``<else_body>``, their port maps and back edges.

Each body is read into its own :class:`Model` by a :class:`LayerReader` of its own (the weights
file is the model's one ``.bin``), so bodies nest to any depth the XML parser allows. Port map
``external_port_id`` values are the layer's port id labels, turned into port indices here;
``internal_layer_id`` values stay body layer ids (the body Model keys its nodes by them). Whether
they name real ports, Parameters and Results is checked by validation, not here: a file OpenVINO
would refuse is still read, so ``ir-validate`` can say what is wrong with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgraph.core.errors import GraphError, IrParseError, Location, ResourceLimitError
from irgraph.core.integers import parse_int
from irgraph.core.lazy import lazy_pattern
from irgraph.core.limits import MAX_BODY_DEPTH
from irgraph.graph import BackEdge, Body, Model, PortMapEntry
from irgraph.graph.subgraph import BODY_TAGS, PORT_MAP_TAGS
from irgraph.io.xml.layers import LayerPorts, LayerReader, twice
from irgraph.io.xml.lazy_etree import etree

if TYPE_CHECKING:
    from irgraph.io.xml.context import ReadContext

__all__ = ["detach_bodies", "read_bodies"]

# What the cutter must see as libxml2 does: body tags, and the markup that can hold text looking like one.
_MARKUP = lazy_pattern(rb"<(?:!--|!\[CDATA\[|\?|(/?)(body|then_body|else_body)(?=[\s/>]))")
_MARKUP_ENDS = {b"<!--": b"-->", b"<![CDATA[": b"]]>", b"<?": b"?>"}
_TAG_REST = lazy_pattern(rb"""(?:[^<>"']|"[^"<]*"|'[^'<]*')*>""")  # a tag's attributes (quoted '>' too) and end
_LINE_PREFIX_BUDGET = 1 << 26  # bytes of newlines spent keeping detached bodies' line numbers exact

_SLICING = ("axis", "start", "end", "stride", "part_size")
_ENTRY_ATTRIBUTES = frozenset(("external_port_id", "internal_layer_id", "purpose", *_SLICING))


def read_bodies(layers: LayerReader, ports: LayerPorts, elements: list[etree._Element]) -> tuple[Body, ...]:
    """The bodies of one layer from its sub-graph children (bodies, port maps, back edges), in body order."""
    reader = layers.reader
    found: dict[str, etree._Element] = {}
    for element in elements:
        if element.tag in found:
            raise IrParseError(f"the layer has two <{element.tag}> elements", reader.here(element))
        found[element.tag] = element
    for port_map_tag, body_tag in PORT_MAP_TAGS.items():
        if port_map_tag in found and body_tag not in found:
            raise IrParseError(f"<{port_map_tag}> has no <{body_tag}> to map (OpenVINO: 'Missing body part.')",
                               reader.here(found[port_map_tag]))
    if "back_edges" in found and "body" not in found:
        raise IrParseError("<back_edges> has no <body> to connect", reader.here(found["back_edges"]))
    bodies = []
    for tag in BODY_TAGS:
        element = found.get(tag)
        if element is None:
            continue
        port_map_element = found.get(tag[: -len("body")] + "port_map")
        port_map = None if port_map_element is None else tuple(_port_map(reader, port_map_element, ports))
        back_edges = tuple(_back_edges(reader, found["back_edges"])) if tag == "body" and "back_edges" in found else ()
        bodies.append(Body(tag, _body_model(layers, element), port_map, back_edges))
    return tuple(bodies)


def _body_model(layers: LayerReader, element: etree._Element) -> Model:
    """The Model of one ``<body>``: its layers, edges and rt_info, as the reader reads a ``<net>``."""
    reader = layers.reader
    detached = reader.detached.get(element) if reader.detached else None
    if detached is not None:
        element = detached
    parent = layers.model
    sections: dict[str, etree._Element] = {}
    for child in element:
        if child.tag in ("layers", "edges", "rt_info"):
            if child.tag in sections:
                raise twice(child, f"<{element.tag}>", reader.here(child))
            sections[child.tag] = child
        else:
            reader.note("ignored", f"element <{child.tag}> in <{element.tag}> is not part of IR; it is ignored",
                        reader.here(child))
    if "layers" not in sections:
        raise IrParseError(f"<{element.tag}> has no <layers> section", reader.here(element))
    model = Model(element.get("name", element.tag), ir_version=parent.ir_version)
    model.source = parent.source
    if reader.body_depth >= MAX_BODY_DEPTH:
        raise ResourceLimitError(f"sub-graph bodies nest more than {MAX_BODY_DEPTH} levels deep; irgraph reads at "
                                 f"most {MAX_BODY_DEPTH}", reader.here(element))
    reader.body_depth += 1
    try:
        # A reader of the parent's kind: plain, or with the fast constructors (irgraph.io.xml._fast).
        body_ports = type(layers)(reader, model, parent.ir_version or 11).read(sections["layers"])
    finally:
        reader.body_depth -= 1
    if "edges" in sections:
        reader.connect_edges(model, sections["edges"], body_ports)
    elif any(node.num_inputs for node in model):
        raise IrParseError(f"<{element.tag}> has no <edges> section, so no layer input is connected",
                           reader.here(element))
    rt_info = sections.get("rt_info")
    model.rt_info = reader.rt_info.read(rt_info, reader.here(rt_info)) if rt_info is not None else None
    return model


def _port_map(reader: ReadContext, element: etree._Element, ports: LayerPorts) -> list[PortMapEntry]:
    inputs = {int(label): index for label, index in ports.inputs.items()}
    outputs = {int(label): index for label, index in ports.outputs.items()}
    entries = []
    for child in element:
        where = reader.here(child)
        if child.tag not in ("input", "output"):
            reader.note("ignored", f"element <{child.tag}> in <{element.tag}> is not a port; it is ignored", where)
            continue
        output = child.tag == "output"
        for name in child.keys():
            if name not in _ENTRY_ATTRIBUTES:
                reader.note("ignored", f"<{element.tag}> <{child.tag}> attribute {name!r} is not part of IR; "
                            "it is ignored", where)
        external = _integer(child, "external_port_id", where)
        assert external is not None
        internal = _integer(child, "internal_layer_id", where)
        if internal is None or internal < 0:
            raise IrParseError(f"<{element.tag}> <{child.tag}> 'internal_layer_id' must be a non-negative integer. "
                               f"Got: {child.get('internal_layer_id')!r}", where)
        slicing = {name: _integer(child, name, where, required=False) for name in _SLICING}
        entries.append(PortMapEntry(
            output, _port_index(external, outputs if output else inputs, len(ports.inputs) if output else 0, where),
            internal, purpose=child.get("purpose"), **slicing,
        ))
    return entries


def _port_index(label: int, labels: dict[int, int], first: int, where: Location) -> int:
    """The port index a port id label names; a label no port has stays a number validation reports."""
    if label < 0:
        return -1
    index = labels.get(label)
    if index is not None:
        return index
    canonical = label - first  # as OpenVINO numbers ports: inputs from 0, outputs after them
    if 0 <= canonical < len(labels):
        raise GraphError(f"port map external_port_id {label} names no port of the layer "
                         f"(its port ids: {', '.join(map(str, labels)) or 'none'})", where)
    return canonical


def _back_edges(reader: ReadContext, element: etree._Element) -> list[BackEdge]:
    edges = []
    for child in element:
        where = reader.here(child)
        if child.tag != "edge":
            reader.note("ignored", f"element <{child.tag}> in <back_edges> is not an edge; it is ignored", where)
            continue
        from_layer, to_layer = _integer(child, "from-layer", where), _integer(child, "to-layer", where)
        assert from_layer is not None and to_layer is not None
        edges.append(BackEdge(from_layer, to_layer))
    return edges


def _integer(element: etree._Element, name: str, where: Location, *, required: bool = True) -> int | None:
    text = element.get(name)
    if text is None:
        if required:
            raise IrParseError(f"<{element.tag}> is missing the attribute '{name}'", where)
        return None
    try:
        return parse_int(text)  # port map and back edge numbers are written like op attributes
    except ValueError as err:
        raise IrParseError(f"<{element.tag}> attribute '{name}' must be {err}. Got: {text!r}", where) from None


def detach_bodies(data: bytes, where: Location) -> tuple[etree._Element, dict[etree._Element, etree._Element]]:
    """Parse an IR whose bodies nest deeper than libxml2 allows (256 elements, huge_tree off) body by body.

    Every non-empty ``<body>``/``<then_body>``/``<else_body>`` is cut out of the text around it (its
    place keeps its newlines, so lines stay right) and parsed on its own, with its own bodies cut out
    in turn. The stub left in the parent keeps the body's start tag; the returned map takes each stub
    element to its parsed body. No document is deeper than one level of nesting. A body's own leading
    lines are restored with newlines (up to a budget; past it, lines inside later bodies count from
    the body).

    Which body a stub stands for is never read from the file: stubs are found by an attribute whose
    name is random per call (and absent from ``data``), removed once found, so a file cannot name a
    body it does not hold. Comments, CDATA sections and processing instructions are skipped as libxml2
    skips them, so only real body tags are cut.
    """
    spans = _body_spans(data, where)
    children: dict[int, list[int]] = {-1: []}
    for slot, (_, _, _, _, parent) in enumerate(spans):
        children[slot] = []
        children[parent].append(slot)
    marker = _marker(data)

    def cut(begin: int, end: int, slots: list[int]) -> bytes:
        pieces, position = [], begin
        for slot in slots:
            open_start, open_end, close_start, close_end, _ = spans[slot]
            pieces += [data[position:open_end - 1], b' %s="%d">' % (marker, slot),
                       b"\n" * data.count(b"\n", open_end, close_start), data[close_start:close_end]]
            position = close_end
        pieces.append(data[position:end])
        return b"".join(pieces)

    from irgraph.io.xml.security import parse_bytes

    stubs: dict[int, etree._Element] = {}

    def parse(text: bytes, slots: list[int]) -> etree._Element:
        parsed = parse_bytes(text, where)
        name = marker.decode("ascii")
        found = [element for element in parsed.iter() if element.get(name) is not None]
        if [int(element.attrib.pop(name)) for element in found] != slots:
            raise IrParseError("the sub-graph bodies could not be parsed one by one", where)
        stubs.update(zip(slots, found, strict=True))
        return parsed

    root = parse(cut(0, len(data), children[-1]), children[-1])
    bodies: dict[etree._Element, etree._Element] = {}
    budget = _LINE_PREFIX_BUDGET
    for slot, (open_start, open_end, close_start, close_end, _) in enumerate(spans):
        lines_before = data.count(b"\n", 0, open_start) if budget > 0 else 0
        budget -= lines_before
        text = data[open_start:open_end] + cut(open_end, close_start, children[slot]) + data[close_start:close_end]
        bodies[stubs[slot]] = parse(b"\n" * lines_before + text, children[slot])
    return root, bodies


def _body_spans(data: bytes, where: Location) -> list[tuple[int, int, int, int, int]]:
    """(open tag start, open tag end, close tag start, close tag end, parent slot) of every non-empty body
    element in document order; the parent slot is -1 outside any body."""
    spans: list[tuple[int, int, int, int, int]] = []
    stack: list[tuple[int, bytes]] = []  # (slot, tag)
    position = 0
    while (found := _MARKUP.search(data, position)) is not None:
        closing, tag = found.group(1), found.group(2)
        if tag is None:  # a comment, CDATA section or processing instruction: skipped whole
            end = data.find(_MARKUP_ENDS[found.group()], found.end())
            if end < 0:
                raise IrParseError(f"{found.group().decode()} is never closed", where)
            position = end + len(_MARKUP_ENDS[found.group()])
            continue
        rest = _TAG_REST.match(data, found.end())
        if rest is None:
            raise IrParseError(f"the <{closing.decode()}{tag.decode()}> tag is not well-formed", where)
        position = rest.end()
        if closing:
            if not stack or stack[-1][1] != tag:
                raise IrParseError(f"</{tag.decode()}> does not close the open body element", where)
            slot, _ = stack.pop()
            spans[slot] = (*spans[slot][:2], found.start(), position, spans[slot][4])
        elif not rest.group().endswith(b"/>"):  # an empty body has nothing to cut out
            stack.append((len(spans), tag))
            spans.append((found.start(), position, -1, -1, stack[-2][0] if len(stack) > 1 else -1))
    if stack:
        raise IrParseError(f"<{stack[-1][1].decode()}> is never closed", where)
    return spans


def _marker(data: bytes) -> bytes:
    """An attribute name that ``data`` does not contain (random: a file cannot guess it)."""
    while True:
        import secrets  # here: hashlib is costly to import, and only this rare path needs it

        marker = b"irgraph-stub-" + secrets.token_hex(16).encode("ascii")
        if marker not in data:
            return marker
