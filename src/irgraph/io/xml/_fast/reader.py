"""The fast reader: IR files laid out exactly as OpenVINO writes them, read without an lxml tree (behind the
switch in ``irgraph.io.xml._fast``).

OpenVINO's serializer (pugixml) writes one fixed layout: tabs and newlines between elements,
attributes in a fixed order, ``&amp;``-style escapes. This module recognises that layout with
regular expressions and feeds the same :meth:`LayerReader.prepare` the lxml walk feeds. What makes
layers differ (tensor names, port dims, a Const's ``<data>``) is cut out of the whole ``<layers>``
section in C first; what is left of a layer's body repeats across the network, so each distinct
body is read once into a template, and a layer costs a few dictionary lookups and its Node.

The lxml path stays the reference. Anything outside the layout (another attribute order,
comments, character references, carriage returns, unknown elements, anything near libxml2's size
limits), any error and anything the reader would note makes :func:`read_fast` return None, and the
caller reads the file through lxml, which reports errors and findings with their lines. Where the
layout allows free text (rt_info) the pieces are still parsed by lxml.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from irgraph.core.errors import IrError, Location
from irgraph.core.shapes import TensorType
from irgraph.graph import Input, Model, Node, Output, RtEntry
from irgraph.io.xml._fast import bodies as sub_graphs
from irgraph.io.xml._fast.edges import Placed, connect_edges
from irgraph.io.xml._fast.layers import FastLayerReader, PortTypes, fast_constructor, new_node
from irgraph.io.xml._fast.patterns import (
    CLOSE,
    CONST_ATTRIBUTES,
    CONST_DATA,
    DATA,
    DIMS_CUT,
    HEAD,
    LAYER_END,
    LAYER_START,
    NOT_XML_CHARACTERS,
    OPEN,
    PORT,
    PORT_NAMES,
    RT_INFO,
    RT_INFO_DEPTH,
    SECTIONS,
    SUB_GRAPH_MARK,
    TAIL,
    NotCanonical,
    attributes,
    has_long_run,
    unescape,
)
from irgraph.io.xml.context import ReadResult
from irgraph.io.xml.layers import NO_PORTS, LayerReader, PortList
from irgraph.io.xml.lazy_etree import etree
from irgraph.io.xml.names import split_names
from irgraph.io.xml.rt_info import RtInfoReader
from irgraph.io.xml.security import hardened_parser
from irgraph.ops import Const, Op, OpaqueOp
from irgraph.ops.infrastructure.const import holds_value

if TYPE_CHECKING:
    from irgraph.io.xml.context import ReadContext

__all__ = ["read_fast"]

_location = fast_constructor(Location, ("file", "line", "layer_id", "layer_name", "layer_type"))


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


class _FastReader(sub_graphs.SubGraphReading):
    def __init__(self, reader: ReadContext, data: bytes) -> None:
        # Carriage returns would change how lines are counted (by newlines). Other controls XML forbids
        # match none of the patterns below and fail lxml where it parses rt_info, and U+FFFE and U+FFFF
        # are declined here: such a file is left to the lxml path, which says where they are.
        # NUL, \x01 and \x02 stand for cut-out dims, port maps and bodies below (and are not XML).
        if b"\r" in data or b"\x00" in data or b"\x01" in data or b"\x02" in data:
            raise NotCanonical
        if has_long_run(data):  # near libxml2's size limits: the lxml path says what it refuses
            raise NotCanonical
        self.reader = reader
        self.text = data.decode("utf-8")
        # Looked for in the text, not the bytes: a one-character search, none at all in a text of Latin-1 (an
        # ASCII IR file: 0.8 ms less per read of a 650 kB file than two three-byte searches of its bytes)
        if not self.text.isascii() and any(character.decode() in self.text for character in NOT_XML_CHARACTERS):
            raise NotCanonical
        self._bodies = sub_graphs.TagScan(self.text) if sub_graphs.has_bodies(self.text) else None
        self._depth = 0
        """How many bodies deep the layers being read are."""
        self._counted = (0, 1)
        """A position in the text and its line: lines are counted on from the last one asked for."""
        self.escaped = b"&" in data  # no '&' anywhere: no value needs unescaping
        self._templates: dict[int, dict[tuple[str, str, str], tuple]] = {}
        self._shared: dict[tuple[str, str, str], tuple] = {}
        port_types = PortTypes()
        self._port_types, self._block_type = port_types.known, port_types.read
        self._rt_infos: dict[tuple[str, int], tuple[tuple[RtEntry, ...], int]] = {}
        """(content, depth in elements) -> the entries and how many elements and attributes they hold."""
        # Its own: a file the lxml path reads after all is counted from zero there.
        self._rt_info_reader = RtInfoReader()
        self._parser: etree.XMLParser | None = None
        self._layer_reader_made: LayerReader | None = None  # made by read(), for its model
        self._opaque_heads: dict[tuple[str, str, str], tuple[dict[str, str] | None, tuple[RtEntry, ...] | None]] = {}
        self._opaque_ops: dict[tuple, Op] = {}
        self._where = Location(reader.file)
        self._tensor_types: dict[tuple[str, str], type[Op] | None] = {}
        self._tensors: dict[tuple[str, str, str], tuple[Const, dict[str, str]]] = {}
        self._placed_tensors: dict[int, dict[str, tuple]] = {}
        self._port_maps: dict[tuple[str, tuple, tuple], tuple[sub_graphs.PortMapEntry, ...]] = {}
        self.v11 = True

    def read(self) -> Model:
        text = self.text
        head = HEAD.match(text)
        if head is None:
            raise NotCanonical
        version = int(head["version"])
        self.v11 = version >= 11
        model = Model(self._value(head["name"]), ir_version=version)
        model.source = self.reader.file
        model.source_line = text.count("\n", 0, head.start("name")) + 1
        self._layer_reader_made = FastLayerReader(self.reader, model, version)
        by_text, end = self._layers(model, head.end())
        sections = SECTIONS.match(text, end)
        if sections is None:
            raise NotCanonical
        end = text.find("</edges>", sections.end())
        if end < 0:
            raise NotCanonical
        connect_edges(model, text[sections.end():end], by_text)
        tail = TAIL.fullmatch(text, end + len("</edges>"))
        if tail is None:
            raise NotCanonical
        model.rt_info = self._rt_info(tail.group(1), "net") if tail.group(1) is not None else (
            () if tail.group(2) else None
        )
        return model

    def _layers(self, model: Model, start: int) -> tuple[dict[str, Placed], int]:
        """Every layer from ``start`` to the ``</layers>`` closing the section placed in ``model``, and where
        that ``</layers>`` is.

        Tensor names and port dims make most layer bodies unique; without them most repeat. So
        they are cut out of the whole section at once (names left blank, each run of ``<dim>``
        elements replaced by a NUL, which no XML file holds), the section is split at the layer
        start tags (all in C), and each distinct (type, version, body) is read once into a template
        that every such layer shares. Per layer, only its id, name, names and dims are read.
        """
        text, file, escaped, v11 = self.text, self.reader.file, self.escaped, self.v11
        end, spans = sub_graphs.section_end(text, start, self._bodies)
        section = text[start:end]
        body_runs: list[list[sub_graphs.Span]] = []
        map_runs: list[list[tuple[str, str]]] = []
        if spans:  # the top-level bodies and then the port maps out first: the layers left are read as usual
            section, body_runs = sub_graphs.cut_bodies(section, start, spans)
            section, map_runs = sub_graphs.cut_maps(section)
        names: list[str] = []
        if ' names="' in section:
            pieces = PORT_NAMES.split(section)
            names = pieces[1::2]
            section = ' names=""'.join(pieces[::2])
        blocks: list[str] = []
        if "<dim>" in section:
            pieces = DIMS_CUT.split(section)
            blocks = pieces[1::2]
            section = "\x00".join(pieces[::2])
        parts = LAYER_START.split(section)
        if parts[0].strip(" \t\n"):
            raise NotCanonical
        line = self._line_at(start) + parts[0].count("\n")
        # Templates holding rt_info are kept per body depth (parsed at the depth it has in the file); others hold
        # at any depth.
        templates, shared = self._templates.setdefault(self._depth, {}), self._shared.get
        known, tensor_types, block_type = templates.get, self._tensor_types, self._block_type
        made: list[Node] = []  # placed at the end, all at once
        place, make_location = made.append, _location
        charge = self._rt_info_reader.charge
        # Per depth, as the templates holding rt_info: body -> ((type, version), template, op, extras, <data> lines)
        placed_tensors: dict[str, tuple] = self._placed_tensors.setdefault(self._depth, {})
        by_text: dict[str, Placed] = {}
        cursor = block_cursor = map_cursor = body_cursor = 0
        for id_text, name, type_name, version, output_names, body in zip(
            parts[1::6], parts[2::6], parts[3::6], parts[4::6], parts[5::6], parts[6::6], strict=True
        ):
            if escaped:
                name, type_name, version = unescape(name), unescape(type_name), unescape(version)
                output_names = None if output_names is None else unescape(output_names)
            layer_id = int(id_text)  # canonical digits: what non_negative reads
            location = make_location(file, line, layer_id, name, type_name)
            data = placed = None
            kind = (type_name, version)
            if (tensor := tensor_types.get(kind, Op)) is Op:  # (Op: not asked yet; None: no tensor)
                tensor = self._tensor_class(type_name, version)
            if tensor is not None and (placed := placed_tensors.get(body)) is not None and placed[0] == kind:
                # A Const placed before with this very body (OpenVINO writes shared weights once: a third of an
                # LLM export's Consts): its template, op and lines, without matching its <data> again.
                template = placed[1]
                if template[-1]:
                    charge(template[-1])
            else:
                placed = None
                if tensor is not None and (data := DATA.match(body)) is not None:
                    # A Const's <data> (type, shape, offset, size) is its own; the rest of its body repeats.
                    key = (type_name, version, body[data.end():])
                else:
                    key = (type_name, version, body)
                template = shared(key) or known(key)
                if template is None:
                    template = self._template(type_name, version, key[2], location, data is not None)
                    (templates if template[-1] else self._shared)[key] = template
                elif template[-1]:  # each layer's rt_info counts against the file's total, shared or not
                    charge(template[-1])
            (op, _, _, in_types, out_types, extras, rt_info, in_rt, out_rt, is_result, slots,
             dim_slots, newlines, in_labels, out_labels, (has_maps, has_bodies), _) = template
            if placed is not None:
                _, _, op, extras, data_lines = placed
                newlines += data_lines
            elif data is not None and tensor is not None:  # (data is matched for tensor layers only)
                op, extras = self._tensor(tensor, type_name, version, data.group(1), location)
                data_lines = body.count("\n", 0, data.end())  # the template counted the lines after <data> only
                newlines += data_lines
                if holds_value(op):  # (a Const without its weights is counted per layer: see _tensor)
                    placed_tensors[body] = (kind, template, op, extras, data_lines)
            input_types, output_types = list(in_types), list(out_types)
            if dim_slots:
                count = len(dim_slots)
                for (is_output, index, precision, port_types), block in zip(
                    dim_slots, blocks[block_cursor:block_cursor + count], strict=True
                ):
                    found = port_types.get(block)
                    if found is None:
                        found = block_type(is_output, precision, block)
                    (output_types if is_output else input_types)[index] = found[0]
                    newlines += found[1]
                block_cursor += count
                if op is None:  # an op irgraph does not know: its declared outputs are part of it
                    op = self._opaque(key, output_types, location)
            # The records of the usual layer (one or two inputs, one output, no port rt_info) are made without a
            # comprehension: its frame costs as much as the records (t5-tiny: a read 5% slower with them).
            count = len(input_types)
            if in_rt:
                inputs = [Input(layer_id, index, declared, in_rt.get(index) or ())
                          for index, declared in enumerate(input_types)]
            elif count == 0:  # a Const (an empty comprehension costs its frame all the same)
                inputs = []
            elif count == 1:
                inputs = [Input(layer_id, 0, input_types[0])]
            elif count == 2:
                inputs = [Input(layer_id, 0, input_types[0]), Input(layer_id, 1, input_types[1])]
            else:
                inputs = [Input(layer_id, index, declared) for index, declared in enumerate(input_types)]
            if out_rt:
                outputs = [Output(layer_id, index, None, declared, None, out_rt.get(index) or ())
                           for index, declared in enumerate(output_types)]
            elif len(output_types) == 1:
                outputs = [Output(layer_id, 0, None, output_types[0])]
            else:
                outputs = [Output(layer_id, index, None, declared) for index, declared in enumerate(output_types)]
            if slots == (0,):  # the usual layer: one output port with names, no input port with any
                value = names[cursor]
                if escaped:
                    value = unescape(value)
                cursor += 1
                outputs[0].tensor_names = [value] if value and "," not in value else split_names(value)
            elif slots:
                for slot, value in zip(slots, names[cursor:cursor + len(slots)], strict=True):
                    if slot is not None:  # None: an input port's names, which OpenVINO ignores
                        if escaped:
                            value = unescape(value)
                        # One name without commas (most ports): what split_names gives, without the call.
                        outputs[slot].tensor_names = [value] if value and "," not in value else split_names(value)
                cursor += len(slots)
            if v11:
                result_names = split_names(output_names) if output_names is not None and is_result else None
            elif output_names is not None:  # IR v10 has none: the lxml path notes it
                raise NotCanonical
            else:
                result_names = None  # and no rt_info: the template said so
            node = new_node(layer_id, name, op, inputs, outputs, result_names, () if rt_info is None else rt_info,
                            dict(extras) if extras else None, location)
            place(node)
            if has_maps or has_bodies:  # read right after the layer, as the plain path reads them
                maps = map_runs[map_cursor] if has_maps else []
                bodies = body_runs[body_cursor] if has_bodies else []
                map_cursor, body_cursor = map_cursor + has_maps, body_cursor + has_bodies
                node.bodies = sub_graphs.read_sub_graphs(
                    maps, bodies, in_labels, out_labels, partial(attributes, escaped=self.escaped),
                    partial(self._body_model, model), location, self._port_maps)
            by_text[id_text] = (layer_id, in_labels, out_labels)
            line += newlines
        if map_cursor != len(map_runs) or body_cursor != len(body_runs):  # port maps or bodies off their layers
            raise NotCanonical
        # A repeated id (also when written differently, as 01 and 1) raises GraphError: the lxml path reports it.
        model.place_all(made)
        return by_text, end

    @property
    def _layer_reader(self) -> LayerReader:
        """The layer reader ``read`` makes for its model (the other methods run inside ``read``)."""
        if self._layer_reader_made is None:
            raise NotCanonical  # not reading a model: nowhere to put layers
        return self._layer_reader_made

    def _tensor_class(self, type_name: str, version: str) -> type[Op] | None:
        """The op class of a layer type that holds a tensor (Const: its ops are made per layer), else None."""
        op_class = self._layer_reader.op_class(type_name, version)
        found = self._tensor_types[(type_name, version)] = (
            op_class if op_class is not None and op_class.traits.carries_tensor else None
        )
        return found

    def _tensor(
        self, op_class: type[Op], type_name: str, version: str, data: str, location: Location
    ) -> tuple[Const, dict[str, str]]:
        """The op and unknown attributes of a tensor layer with this ``<data>`` (equal ones share them:
        OpenVINO writes equal weights once, so their Consts have equal offset and size)."""
        key = (type_name, version, data)
        found = self._tensors.get(key)
        if found is None:
            layers = self._layer_reader
            plain = CONST_DATA.fullmatch(data)
            if plain is None:
                prepared = layers.prepare(
                    type_name, version, location, attrs=attributes(data, self.escaped), inputs=NO_PORTS,
                    outputs=NO_PORTS, rt_info=None,
                )
                if not isinstance(prepared.op, Const):  # prepare makes a tensor class's op with tensor_op
                    raise NotCanonical
                found = (prepared.op, prepared.extras)
            else:  # OpenVINO's own four attributes, which need no unescaping: what prepare does, more directly
                attrs = dict(zip(CONST_ATTRIBUTES, plain.groups(), strict=True))
                found = (layers.tensor_op(op_class, attrs, location), layers.unknown_attributes(op_class, attrs))
            self._tensors[key] = found
        elif not holds_value(found[0]):
            # Counted per layer (as ir-info counts Consts), not once per shared placement.
            self._layer_reader.reader.without_data()
        return found

    def _template(self, type_name: str, version: str, body: str, location: Location, tensor: bool = False) -> tuple:
        """What a layer's ``<data>``, rt_info and ports make (shared by every layer with this type and body).

        ``body`` runs from the end of the layer's start tag to the next layer's start tag, its
        ``names`` values blanked and its dims cut out; the template's ``slots`` say which output port
        each names value names, its ``dim_slots`` which port each run of dims shapes. The op is
        None when it depends on those dims (an op irgraph does not know keeps its declared outputs).
        """
        rt_items = self._rt_info_reader.total
        data = DATA.match(body)
        position = data.end() if data else 0
        rt_info: tuple[RtEntry, ...] | None = None
        if (opening := RT_INFO.match(body, position)) is not None:
            if opening.group().endswith("/>"):
                rt_info, position = (), opening.end()
            else:
                end = body.find("</rt_info>", opening.end())
                if end < 0:
                    raise NotCanonical
                rt_info, position = self._rt_info(body[opening.end():end], "layer"), end + len("</rt_info>")
        dim_slots: list[tuple[bool, int, str, dict[str, tuple[TensorType, int]]]] = []
        if (maps := SUB_GRAPH_MARK[False].match(body, position)) is not None:
            position = maps.end()
        (inputs, input_slots), position = self._ports(body, position, False, dim_slots)
        (outputs, output_slots), position = self._ports(body, position, True, dim_slots)
        if (bodies := SUB_GRAPH_MARK[True].match(body, position)) is not None:
            position = bodies.end()
        if LAYER_END.match(body, position) is None:
            raise NotCanonical
        slots = [None] * input_slots + output_slots
        # A names attribute or dims off a port (in rt_info, <data>) would be read in the wrong place.
        if len(slots) != body.count(' names="') or len(dim_slots) != body.count("\x00"):
            raise NotCanonical
        attrs = None if data is None else attributes(data.group(1), self.escaped)
        op: Op | None
        if tensor:  # the op comes from each layer's own <data> (cut off ``body``): see _tensor
            if data is not None:
                raise NotCanonical  # a second <data>
            op, is_result, extras, layer_rt_info = None, False, {}, rt_info
        else:
            prepared = self._layer_reader.prepare(
                type_name, version, location, attrs=attrs, inputs=inputs, outputs=outputs, rt_info=rt_info,
            )
            inputs, outputs = prepared.inputs, prepared.outputs
            op, is_result, extras, layer_rt_info = prepared.op, prepared.is_result, prepared.extras, prepared.rt_info
        in_labels, in_types, in_rt, _ = inputs
        out_labels, out_types, out_rt, _ = outputs
        if not self.v11 and (rt_info is not None or in_rt or out_rt):
            raise NotCanonical  # IR v10 has no rt_info: the lxml path notes that it is ignored
        if isinstance(op, OpaqueOp) and any(slot[0] for slot in dim_slots):
            op = None
            self._opaque_heads[(type_name, version, body)] = (attrs, rt_info)
        return (
            op, len(in_types), len(out_types), tuple(in_types), tuple(out_types), extras, layer_rt_info,
            in_rt, out_rt, is_result, tuple(slots), tuple(dim_slots), body.count("\n"), in_labels,
            out_labels, (maps is not None, bodies is not None), self._rt_info_reader.total - rt_items,
        )

    def _opaque(self, key: tuple[str, str, str], output_types: list[TensorType | None], location: Location) -> Op:
        """The op of a type irgraph does not know, with these declared outputs (shared by equal layers)."""
        output_types_key = (key, tuple(output_types))
        op = self._opaque_ops.get(output_types_key)
        if op is None:
            attrs, rt_info = self._opaque_heads[key]
            prepared = self._layer_reader.prepare(
                key[0], key[1], location, attrs=None if attrs is None else dict(attrs),
                inputs=NO_PORTS, outputs=({}, output_types, {}, []), rt_info=rt_info,
            )
            op = self._opaque_ops[output_types_key] = prepared.op
        return op

    def _ports(
        self, body: str, position: int, outputs: bool, dim_slots: list[tuple[bool, int, str, dict]]
    ) -> tuple[tuple[PortList, Any], int]:
        """The ``<input>``/``<output>`` at ``position``: its ports, where their names go, and the position after it.

        For inputs the second item is how many ports carry a names attribute; for outputs, their indices.
        A port whose dims were cut out gets the type None here and an entry in ``dim_slots``.
        """
        opening = OPEN[outputs].match(body, position)
        if opening is None:
            return (NO_PORTS, [] if outputs else 0), position
        position = opening.end()
        labels: dict[str, int] = {}
        types: list = []
        rt: dict[int, tuple[RtEntry, ...]] = {}
        named: list[int] = []
        port_types, block_type = self._port_types, self._block_type
        match = PORT.match
        while (port := match(body, position)) is not None:
            label, precision, port_names, dims, rt_info, empty_rt_info = port.groups()
            if label in labels:
                raise NotCanonical
            index = labels[label] = len(types)
            if dims is None:  # no <dim>: a scalar
                found = port_types.get(precision, {}).get("")
                types.append((found or block_type(outputs, precision, ""))[0])
            else:
                types.append(None)
                # The types this precision has been seen with: what each layer looks its dims up in.
                dim_slots.append((outputs, index, precision, port_types.setdefault(precision, {})))
            if rt_info is not None:
                rt[index] = self._rt_info(rt_info, "port")
            elif empty_rt_info:
                rt[index] = ()
            if port_names is not None:
                named.append(index)
            position = port.end()
        closing = CLOSE[outputs].match(body, position)
        if closing is None:
            raise NotCanonical
        names_per_port: list[list[str]] = [[] for _ in types] if outputs else []
        ports = (labels, types, rt, names_per_port)
        return (ports, named if outputs else len(named)), closing.end()

    def _value(self, value: str) -> str:
        """An attribute value, unescaped."""
        return unescape(value) if self.escaped else value

    def _rt_info(self, content: str, parent: str) -> tuple[RtEntry, ...]:
        """rt_info children parsed by lxml at the depth they have in the file (so its nesting limit holds).

        Entries are immutable, so equal texts (every fp16 ``decompression`` marker) share one parse; each
        use counts against the file's rt_info total, as on the lxml path (which says where a bound is passed).
        """
        depth = RT_INFO_DEPTH[parent] + 3 * self._depth  # each body level adds <layer><body><layers>
        key = (content, depth)
        found = self._rt_infos.get(key)
        if found is not None:
            self._rt_info_reader.charge(found[1])
            return found[0]
        if "</rt_info" in content:  # the pattern ran past one rt_info (a second one, or stray end tags)
            raise NotCanonical
        if self._parser is None:
            self._parser = hardened_parser()
        element = etree.fromstring("<a>" * depth + f"<rt_info>{content}</rt_info>" + "</a>" * depth, self._parser)
        for _ in range(depth):
            element = element[0]
        before = self._rt_info_reader.total
        entries = self._rt_info_reader.read(element)
        self._rt_infos[key] = (entries, self._rt_info_reader.total - before)
        return entries
