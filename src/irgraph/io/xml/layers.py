"""The ``<layers>`` section: one Model node per ``<layer>``, in document order, with its declared ports.

This is the reader's hot loop (a 20,000-layer IR has ~250,000 elements), so it walks lxml children
directly, caches parsed port types and shares equal attribute-only ops (ops are immutable values).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, TypedDict

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import GraphError, IrError, IrIOError, IrParseError, Location, ResourceLimitError, WeightsError
from irgraph.core.integers import INT64_MAX, SIGNED, UNSIGNED, parse_int
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.graph import Input, Model, Node, Output, RtEntry
from irgraph.io.weights import byte_size, decode_tensor
from irgraph.io.xml.lazy_etree import etree
from irgraph.io.xml.names import split_names
from irgraph.io.xml.rt_info import attribute_items
from irgraph.ops import Const, Op, OpaqueOp, Parameter, Result, lookup
from irgraph.ops.infrastructure.const import holds_value

if TYPE_CHECKING:
    from irgraph.io.xml.context import ReadContext

_CONST_PLACEMENT = ("offset", "size")
_PLAIN_TYPES = frozenset(
    element_type for element_type in ElementType
    if not element_type.is_dynamic and element_type is not ElementType.STRING and not element_type.is_packed
    and element_type is not ElementType.BOOLEAN
)
"""Element types whose .bin bytes are their NumPy array as it is (no unpacking, no normalising)."""
SUB_GRAPH_TAGS = frozenset(
    ("body", "then_body", "else_body", "port_map", "then_port_map", "else_port_map", "back_edges")
)
"""Layer children that make sub-graphs (TensorIterator, Loop, If): read by ``irgraph.io.xml.sub_graphs``."""


def non_negative(text: str) -> int:
    """An id, port id, offset or size: ASCII digits after optional whitespace, at most INT64_MAX.

    ValueError says what the text must be. OpenVINO 2026.4.1 (``pugixml::get_uint64_attr``) also
    takes a ``+`` or ``-`` sign (``-0`` is 0); irgraph does not (see :mod:`irgraph.core.integers`).
    """
    if len(text) <= 18 and text.isdigit() and text.isascii():  # the usual spelling: int() reads it alike
        return int(text)
    return parse_int(text, 0, INT64_MAX, UNSIGNED)


PortList = tuple[dict[str, int], list["TensorType | None"], dict[int, tuple[RtEntry, ...]], list[list[str]]]
"""One ``<input>`` or ``<output>``: port id label -> index, declared types, rt_info by index, tensor names."""

NO_PORTS: PortList = ({}, [], {}, [])


class LayerBody:
    """What a layer's type, version and children determine: everything but its id, name and line."""

    __slots__ = ("extras", "inputs", "is_result", "name_slots", "op", "outputs", "rt_info")

    def __init__(
        self, op: Op, is_result: bool, extras: dict[str, str], inputs: PortList, outputs: PortList,
        rt_info: tuple[RtEntry, ...] | None,
    ) -> None:
        self.op = op
        self.is_result = is_result
        self.extras = extras
        self.inputs = inputs
        self.outputs = outputs
        self.rt_info = rt_info
        self.name_slots: list[int | None] = []
        """For a body read with its tensor names cut out: the output port each cut-out value names."""


class PortIndex(TypedDict):
    """Every layer's ports, by its id text (as edges name it) and by its id."""

    by_text: dict[str, LayerPorts]
    by_id: dict[int, LayerPorts]


class LayerPorts:
    """Where a layer's port id labels point: label text -> index, per direction."""

    __slots__ = ("inputs", "node", "outputs")

    def __init__(self, node: Node, inputs: dict[str, int], outputs: dict[str, int]) -> None:
        self.node = node
        self.inputs = inputs
        self.outputs = outputs


class LayerReader:
    """Reads every ``<layer>`` into ``model``; returns the port-label maps the edges need."""

    def __init__(self, reader: ReadContext, model: Model, version: int) -> None:
        self.reader = reader
        self.model = model
        self.v11 = version >= 11
        self.file = reader.file
        self._types: dict[tuple[object, ...], TensorType] = {}
        self._dims: dict[str | None, Dim] = {}
        self._ops: dict[tuple, Op] = {}
        self._known: dict[type[Op], frozenset[str]] = {}
        self._classes: dict[tuple[str, str], type[Op] | None] = {}
        self._consts: dict[tuple, tuple[ElementType, tuple[int, ...], int | None]] = {}
        self._placed_consts: dict[tuple, Const] = {}

    def read(self, layers: etree._Element) -> PortIndex:
        elements = []
        for element in layers:
            if element.tag == "layer":
                elements.append(element)
            else:
                self.reader.note(
                    "ignored", f"element <{element.tag}> in <layers> is not a layer; it is ignored",
                    self.reader.here(element),
                )
        lines = self.reader.document.lines_of(elements)
        by_text: dict[str, LayerPorts] = {}
        by_id: dict[int, LayerPorts] = {}
        first_line: dict[int, int | None] = {}
        file = self.file
        for element, line in zip(elements, lines, strict=True):
            get = element.get
            id_text, name, type_name, version = get("id"), get("name"), get("type"), get("version")
            if id_text is None or name is None or type_name is None or version is None:
                raise _missing(id_text, name, type_name, version, Location(file, line, None, name, type_name))
            try:
                layer_id = non_negative(id_text)
            except ValueError as err:
                raise IrParseError(
                    f"layer 'id' must be {err}. Got: {id_text!r}", Location(file, line, None, name, type_name)
                ) from None
            location = Location(file, line, layer_id, name, type_name)
            if layer_id in first_line:
                raise GraphError(
                    f"layer id {layer_id} is used twice: by the layer at line {first_line[layer_id]} and the layer "
                    f"at line {line} (OpenVINO would silently keep only the later one)",
                    location,
                )
            first_line[layer_id] = line
            try:
                ports = self._layer(element, layer_id, name, type_name, version, location)
            except IrError as err:
                err.locate(location)
                raise
            by_id[layer_id] = ports
            if id_text not in by_text:
                by_text[id_text] = ports
        return {"by_text": by_text, "by_id": by_id}

    def _layer(
        self, element: etree._Element, layer_id: int, name: str, type_name: str, version: str, location: Location
    ) -> LayerPorts:
        data = inputs = outputs = rt_info = None
        sub_graphs: list[etree._Element] | None = None  # a list only for the rare layer with bodies
        for child in element:
            tag = child.tag
            if tag == "data":
                if data is not None:
                    raise twice(child, "the layer", self._at(child, location))
                data = child
            elif tag == "output":
                if outputs is not None:
                    raise twice(child, "the layer", self._at(child, location))
                outputs = child
            elif tag == "input":
                if inputs is not None:
                    raise twice(child, "the layer", self._at(child, location))
                inputs = child
            elif tag == "rt_info":
                if rt_info is not None:
                    raise twice(child, "the layer", self._at(child, location))
                rt_info = child
            elif tag in SUB_GRAPH_TAGS:
                if sub_graphs is None:
                    sub_graphs = []
                sub_graphs.append(child)
            else:
                self.reader.note("ignored", f"element <{tag}> in a layer is not part of IR; it is ignored", location)
        body = self.prepare(
            type_name, version, location,
            attrs=dict(attribute_items(data)) if data is not None else None,
            inputs=NO_PORTS if inputs is None else self._ports(inputs, False, location),
            outputs=NO_PORTS if outputs is None else self._ports(outputs, True, location),
            rt_info=self.reader.rt_info.read(rt_info, self._at(rt_info, location)) if rt_info is not None else None,
        )
        ports = self.place(body, layer_id, name, location, element.get("output_names"))
        if sub_graphs:
            ports.node.bodies = self.reader.read_bodies(self, ports, sub_graphs)
        return ports

    def prepare(
        self,
        type_name: str,
        version: str,
        location: Location,
        *,
        attrs: dict[str, str] | None,
        inputs: PortList,
        outputs: PortList,
        rt_info: tuple[RtEntry, ...] | None,
    ) -> LayerBody:
        """The op and ports a layer's type, version and children make (``attrs`` None: no ``<data>``)."""
        has_data = attrs is not None
        if attrs is None:
            attrs = {}
        op_class = self.op_class(type_name, version)
        extras: dict[str, str] = {}
        if op_class is None:
            declared = tuple(
                TensorType(t.element_type, t.shape if t.shape.dims else DYNAMIC_RANK)
                if t is not None else TensorType(ElementType.DYNAMIC, DYNAMIC_RANK)
                for t in outputs[1]
            )
            op: Op = OpaqueOp(op_type=type_name, op_version=version, attributes=attrs, declared_outputs=declared)
        else:
            if op_class.traits.carries_tensor:
                op = self._const(op_class, attrs, location)
            elif not has_data and op_class is Parameter:
                raise IrParseError("a Parameter layer needs <data> with 'shape' and 'element_type'", location)
            else:
                op = self._op(op_class, attrs)
            if attrs:
                extras = self.unknown_attributes(op_class, attrs)
        return LayerBody(op, op_class is Result, extras, inputs, outputs, rt_info)

    def unknown_attributes(self, op_class: type[Op], attrs: dict[str, str]) -> dict[str, str]:
        """The ``<data>`` attributes ``op_class`` does not declare (kept on the node, as OpenVINO ignores them)."""
        known = self._known.get(op_class)
        if known is None:
            known = frozenset(f.ir_name for f in op_class.attribute_fields())
            if op_class.traits.carries_tensor:
                known |= frozenset(_CONST_PLACEMENT)
            self._known[op_class] = known
        if known.issuperset(attrs):
            return {}
        return {k: v for k, v in attrs.items() if k not in known}

    def op_class(self, type_name: str, version: str) -> type[Op] | None:
        """The op class of a layer type and version (None: irgraph has none), looked up once per read."""
        key = (type_name, version)
        if key in self._classes:
            return self._classes[key]
        op_class = self._classes[key] = lookup(type_name, version)
        return op_class

    def place(
        self, body: LayerBody, layer_id: int, name: str, location: Location, output_names: str | None
    ) -> LayerPorts:
        """Add a layer with ``body`` to the model (a body may be shared by many identical layers)."""
        in_labels, in_types, in_rt, _ = body.inputs
        out_labels, out_types, out_rt, names = body.outputs
        rt_info = body.rt_info
        result_names = None
        if self.v11:
            if output_names is not None and body.is_result:
                result_names = split_names(output_names)
        else:
            if rt_info is not None or in_rt or out_rt:
                self.reader.note("ignored", "IR v10 has no layer or port rt_info; OpenVINO ignores it", location)
            if output_names is not None:
                self.reader.note("ignored", "IR v10 has no Result output_names; OpenVINO ignores it", location)
            rt_info, in_rt, out_rt = None, {}, {}
        inputs = [Input(layer_id, index, declared, in_rt.get(index) or ()) for index, declared in enumerate(in_types)]
        outputs = [
            Output(layer_id, index, list(names[index]) if names else None, declared, None, out_rt.get(index) or ())
            for index, declared in enumerate(out_types)
        ]
        node = self.model.place(Node(
            layer_id, name, body.op, inputs, outputs, result_names=result_names, rt_info=rt_info or (),
            extra_attributes=dict(body.extras) if body.extras else None, location=location,
        ))
        return LayerPorts(node, in_labels, out_labels)

    def _op(self, op_class: type[Op], attrs: dict[str, str]) -> Op:
        key = (op_class, *attrs.items())
        op = self._ops.get(key)
        if op is None:
            op = self._ops[key] = op_class.from_attributes(attrs)
        return op

    def tensor_op(self, op_class: type[Op], attrs: dict[str, str], location: Location) -> Const:
        """The op of a layer that holds a tensor (Const), its value read from the weights file."""
        return self._const(op_class, attrs, location)

    def _const(self, carrier: type[Op], attrs: dict[str, str], location: Location) -> Const:
        op_class = tensor_class(carrier)
        key = (op_class, attrs.get("element_type"), attrs.get("shape"))
        known = self._consts.get(key)
        if known is None:
            plain = _plain_tensor_attributes(op_class, attrs)
            if plain is not None:
                element_type, shape = plain
            else:
                base = op_class.from_attributes(attrs)
                element_type, shape = base.element_type, base.shape
            count = math.prod(shape)
            if count > self.reader.element_limit:
                raise ResourceLimitError(
                    f"Const of shape {list(shape)} has {count} elements; the limit is {self.reader.element_limit} "
                    "(element_limit); nothing was read"
                )
            needed = None if element_type is ElementType.STRING else byte_size(element_type, count)
            known = self._consts[key] = (element_type, shape, needed)
        element_type, shape, needed = known
        offset, size = _placement(attrs, "offset"), _placement(attrs, "size")
        if needed is not None and size != needed:
            if size < needed:
                raise WeightsError(
                    f"Const {element_type} {list(shape)} needs {needed} bytes but its size is {size} "
                    "(OpenVINO: 'Attribute and shape size are inconsistent')"
                )
            if not (needed == 0 and size == 1):  # OpenVINO writes empty Consts with size 1
                self.reader.note(
                    "const-size", f"Const size is {size} bytes but {element_type} {list(shape)} needs {needed}; "
                    "the extra bytes are ignored", location,
                )
        placed = (key, offset, size)
        op = self._placed_consts.get(placed)
        if op is None:  # Consts sharing their bytes in the .bin (OpenVINO deduplicates) share one op
            dtype = element_type.dtype if element_type in _PLAIN_TYPES else None
            value: np.ndarray | None = None
            try:
                data = self.reader.weights().view(offset, size)
                if dtype is None and element_type.is_packed and needed:
                    op = self.unpacked_later(op_class, element_type, shape, data)
                if op is None:  # Byte-aligned numbers: what decode_tensor does, without re-checking the shape
                    value = (
                        decode_tensor(data, element_type, shape) if dtype is None
                        else np.frombuffer(data, dtype=dtype, count=math.prod(shape)).reshape(shape)
                    )
            except (WeightsError, IrIOError) as err:
                if not self.reader.weights_optional:
                    raise
                self.reader.without_data(err)
                value = dtype = None
            if op is None and size == 0 and needed == 0 and op_class is Const:  # from a zero-byte tensor: kept so
                op = Const(element_type=element_type, shape=shape, value=value, zero_byte_blob=True)
            elif op is None:
                op = self.new_tensor_op(op_class, element_type, shape, value, checked=dtype is not None)
            self._placed_consts[placed] = op
        elif not holds_value(op):
            self.reader.without_data()  # counted per layer, as ir-info counts them, not per shared placement
        return op

    def new_tensor_op(
        self, op_class: type[Const], element_type: ElementType, shape: tuple[int, ...], value: np.ndarray | None,
        *, checked: bool,
    ) -> Const:
        """``op_class(element_type, shape, value)``. ``checked``: ``value`` was just made of the dtype and shape
        that the op's own checks passed (``from_attributes`` or the op's codecs in ``_const``)."""
        return op_class(element_type=element_type, shape=shape, value=value)

    def unpacked_later(
        self, op_class: type[Const], element_type: ElementType, shape: tuple[int, ...], data: memoryview
    ) -> Const | None:
        """A Const of packed ``data`` (enough bytes) that unpacks its value on first read, or None: unpack now."""
        return None

    def new_type(self, element_type: ElementType, dims: tuple[Dim, ...]) -> TensorType:
        """The type a port declares (made once per distinct declaration)."""
        return TensorType(element_type, Shape(dims))

    def _ports(self, container: etree._Element, outputs: bool, location: Location) -> PortList:
        """Port id label -> index, declared types, rt_info by index and (outputs only) tensor names."""
        labels: dict[str, int] = {}
        types: list[TensorType | None] = []
        rt: dict = {}
        names: list[list[str]] = []
        for port in container:
            if port.tag != "port":
                where = self._at(port, location)
                self.reader.note("ignored", f"element <{port.tag}> among ports is not a port; it is ignored", where)
                continue
            label = port.get("id")
            problem = "is missing" if label is None else "is used twice" if label in labels else None
            if problem is None:
                try:
                    non_negative(label)
                except ValueError as err:
                    problem = f"must be {err}"
            if problem is not None:
                raise IrParseError(
                    f"port id {label!r} {problem} ({'output' if outputs else 'input'} ports)", self._at(port, location)
                )
            index = labels[label] = len(types)
            dims = []
            for sub in port:
                if sub.tag == "dim":
                    dims.append(sub.text)
                elif sub.tag == "rt_info":
                    if index in rt:
                        raise twice(sub, "the port", self._at(sub, location))
                    rt[index] = self.reader.rt_info.read(sub, self._at(sub, location))
            types.append(self.port_type(port.get("precision"), dims, outputs, port, location))
            if outputs:
                names.append(split_names(port.get("names")))
        return labels, types, rt, names

    def _at(self, element: etree._Element, location: Location) -> Location:
        """``location`` moved to ``element``'s own line."""
        return location.replace(line=self.reader.document.line(element))

    def port_type(
        self, precision: str | None, dims: list[str], outputs: bool, port: etree._Element | None, location: Location
    ) -> TensorType | None:
        """The type a port declares, from its precision and dim texts (cached: most ports repeat a few types).

        None for an input port's unknown precision (noted and ignored, as OpenVINO ignores it).
        ``port`` (when given) moves ``location`` to its line for errors.
        """
        key = (outputs, precision, *dims)  # an unknown precision is an error on outputs, a note on inputs
        declared = self._types.get(key)  # None is never cached (see below)
        if declared is None:
            declared = self._declared(precision, dims, outputs, location if port is None else self._at(port, location))
            if declared is not None:  # not cached: every input port with an unknown precision is noted
                self._types[key] = declared
        return declared

    def _declared(self, precision: str | None, dims: list, outputs: bool, location: Location) -> TensorType | None:
        if precision is None:
            element_type = ElementType.DYNAMIC
        else:
            try:
                element_type = ElementType.from_precision(precision)
            except IrParseError as err:
                if outputs:
                    raise err.locate(location) from None
                # OpenVINO never parses input-port precisions: tolerate, but say so.
                self.reader.note("declared-type", f"input port {err.message}; it is ignored", location)
                return None
        parsed = []
        for text in dims:
            dim = self._dims.get(text)
            if dim is None:
                try:  # OpenVINO 2026.4.1 also reads '+6' and drops anything after the digits ('6abc' is 6)
                    value = parse_int(text or "", -1, INT64_MAX, SIGNED)
                except ValueError as err:
                    raise IrParseError(f"port <dim> must be {err}. Got: {text!r}", location) from None
                dim = self._dims[text] = Dim.of(value)
            parsed.append(dim)
        return self.new_type(element_type, tuple(parsed))


def twice(element: etree._Element, holder: str, where: Location) -> IrParseError:
    """The error for a second ``<data>``, ``<input>``, ``<output>``, ``<rt_info>``, ``<layers>`` or ``<edges>``
    where IR has one: OpenVINO 2026.4.1 silently reads the first, and which one a file means is a guess."""
    return IrParseError(f"{holder} has two <{element.tag}> elements (OpenVINO would silently use the first); "
                        "IR allows one", where)


def tensor_class(op_class: type[Op]) -> type[Const]:
    """A ``carries_tensor`` op class as the class it is: Const, whose layers hold a tensor read from the weights."""
    if not issubclass(op_class, Const):
        raise TypeError(f"{op_class.__name__} carries a tensor but is not a Const: the reader cannot fill it")
    return op_class


def _plain_tensor_attributes(op_class: type[Op], attrs: dict[str, str]) -> tuple[ElementType, tuple[int, ...]] | None:
    """A tensor op's ``element_type`` and ``shape`` read by its own codecs, when they are a plain numeric type
    and dims >= 0: what ``from_attributes`` accepts, without building an op only to read them back (a real
    network has a distinct shape per weight). None otherwise: ``from_attributes`` reads them, or says why not."""
    fields = op_class.attribute_fields()
    if tuple(field.name for field in fields) != ("element_type", "shape"):
        return None
    try:
        element_type = fields[0].codec.read(attrs[fields[0].ir_name])
        shape = fields[1].codec.read(attrs[fields[1].ir_name])
    except (KeyError, ValueError):
        return None
    if element_type not in _PLAIN_TYPES or (shape and min(shape) < 0):
        return None
    return element_type, shape


def _placement(attrs: dict[str, str], what: str) -> int:
    text = attrs.get(what)
    if text is None:
        raise IrParseError(f"Const needs the attribute '{what}'; it is missing")
    try:
        return non_negative(text)
    except ValueError as err:
        raise IrParseError(f"Const attribute '{what}' must be {err}. Got: {text!r}") from None


def _missing(id_text: str | None, name: str | None, type_name: str | None, version: str | None,
             where: Location) -> IrParseError:
    missing = next(what for what, value in (("id", id_text), ("name", name), ("type", type_name),
                                            ("version", version)) if value is None)
    return IrParseError(f"<layer> is missing the attribute '{missing}'", where)
