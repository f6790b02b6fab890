"""The layer reader with constructors that skip what is known to hold: the fast path's half of ``layers``.

Frozen dataclasses set each field through ``object.__setattr__`` and run ``__post_init__`` checks; the
reader makes one Location per layer, a type per distinct port declaration and an op per
Const placement (thousands in a real network), each from values already checked. The constructors here
make the same objects (equal, same hash and repr: tests/io/test_fast_paths.py) through their slots.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import Location
from irgraph.core.mappings import check_mapping, mapping_of
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.graph import Input, Node, Output, RtEntry
from irgraph.io.weights import decode_tensor
from irgraph.io.xml._fast.patterns import DIM, DIMS, NotCanonical
from irgraph.io.xml.layers import LayerReader
from irgraph.ops import Const, Op
from irgraph.ops.infrastructure.const import const_unpacked_later

__all__ = ["FastLayerReader", "PortTypes", "checked_tensor_constructor", "fast_constructor", "new_node"]


def fast_constructor(cls: type, names: tuple[str, ...]) -> Callable[..., Any]:
    """A constructor of the frozen, slotted dataclass (or class written as one: Shape) ``cls`` with exactly the
    fields ``names``, three times cheaper than its ``__init__`` (which calls ``object.__setattr__`` per field).
    ``cls`` itself when its fields differ or it checks them in ``__post_init__``."""
    slotted = vars(cls).get("__slots__", ())
    fields = tuple(f.name for f in dataclasses.fields(cls)) if dataclasses.is_dataclass(cls) else slotted
    if fields != names or not hasattr(cls, "__slots__") or hasattr(cls, "__post_init__"):
        return cls
    new: Callable[[type], Any] = object.__new__
    setters = tuple(getattr(cls, name).__set__ for name in names)
    if len(names) == 1:
        (only,) = setters

        def make_one(a: object) -> Any:
            made = new(cls)
            only(made, a)
            return made

        return make_one
    if len(names) == 2:
        first, second = setters

        def make_pair(a: object, b: object) -> Any:
            made = new(cls)
            first(made, a)
            second(made, b)
            return made

        return make_pair

    if len(names) == 5:
        set_a, set_b, set_c, set_d, set_e = setters

        def make_five(a: object, b: object, c: object, d: object, e: object) -> Any:
            made = new(cls)
            set_a(made, a)
            set_b(made, b)
            set_c(made, c)
            set_d(made, d)
            set_e(made, e)
            return made

        return make_five
    return cls


new_shape = fast_constructor(Shape, ("dims",))
new_tensor_type = fast_constructor(TensorType, ("element_type", "shape"))

_NODE_SLOTS = ("bodies", "extra_attributes", "id", "inputs", "location", "name", "op", "outputs", "result_names",
               "rt_info")


def _new_node(
    layer_id: int, name: str, op: Op, inputs: list[Input], outputs: list[Output], result_names: list[str] | None,
    rt_info: tuple[RtEntry, ...], extra_attributes: dict[str, str] | None, location: Location,
) -> Node:
    """``Node(layer_id, name, op, inputs, outputs, result_names=..., rt_info=..., extra_attributes=...,
    location=...)`` for a layer the reader has read (its port records made, a location naming it): what
    ``Node.__init__`` does with those, as plain slot stores (0.6 us a layer instead of 1.4 with the keywords)."""
    node = _new(Node)
    node.id = layer_id
    node.name = name
    node.op = op
    node.inputs = inputs
    node.outputs = outputs
    node.result_names = result_names
    node.rt_info = rt_info
    node.extra_attributes = {} if extra_attributes is None else extra_attributes
    node.bodies = ()
    node.location = location
    return node


def _node_by_init(
    layer_id: int, name: str, op: Op, inputs: list[Input], outputs: list[Output], result_names: list[str] | None,
    rt_info: tuple[RtEntry, ...], extra_attributes: dict[str, str] | None, location: Location,
) -> Node:
    return Node(layer_id, name, op, inputs, outputs, result_names=result_names, rt_info=rt_info,
                extra_attributes=extra_attributes, location=location)


_new: Callable[[type[Node]], Node] = object.__new__
# A Node with other slots than these (a field added since) is made by its __init__: nothing is left unset.
new_node = _new_node if tuple(sorted(Node.__slots__)) == _NODE_SLOTS else _node_by_init

_TENSOR_FIELDS = ("element_type", "shape", "value", "zero_byte_blob")
_tensor_constructors: dict[type[Const], Callable[[ElementType, tuple[int, ...], np.ndarray], Const] | None] = {}


def checked_tensor_constructor(
    op_class: type[Const],
) -> Callable[[ElementType, tuple[int, ...], np.ndarray], Const] | None:
    """``op_class(element_type, shape, value)`` without ``__post_init__``, for a value the reader has just made
    of the dtype and shape the op's own checks passed (``from_attributes`` in ``LayerReader._const``): what
    those checks would find is known. None when the class has other fields."""
    if op_class in _tensor_constructors:
        return _tensor_constructors[op_class]
    make = None
    if dataclasses.is_dataclass(op_class) and tuple(f.name for f in dataclasses.fields(op_class)) == _TENSOR_FIELDS:
        new, set_field = object.__new__, object.__setattr__

        def make(element_type: ElementType, shape: tuple[int, ...], value: np.ndarray) -> Const:
            op = new(op_class)
            set_field(op, "element_type", element_type)
            set_field(op, "shape", shape)
            set_field(op, "value", value)
            set_field(op, "zero_byte_blob", False)  # the reader makes the rare zero-byte empty Const itself
            return op

    _tensor_constructors[op_class] = make
    return make


class FastLayerReader(LayerReader):
    """:class:`LayerReader` making port types and Const ops through the constructors above."""

    def new_tensor_op(
        self, op_class: type[Const], element_type: ElementType, shape: tuple[int, ...], value: np.ndarray | None,
        *, checked: bool,
    ) -> Const:
        make = checked_tensor_constructor(op_class) if checked else None
        if make is None or value is None:
            return super().new_tensor_op(op_class, element_type, shape, value, checked=checked)
        return make(element_type, shape, value)

    def unpacked_later(
        self, op_class: type[Const], element_type: ElementType, shape: tuple[int, ...], data: memoryview
    ) -> Const | None:
        # Kept packed as OpenVINO keeps them: most of a u4 LLM's weights are first read when an Interpreter folds
        # them, and unpacking them here cost 1.5-2 ms of an 8-layer export's 19 ms read.
        if checked_tensor_constructor(op_class) is None:  # other fields than a Const's: made with its checks
            return None
        return const_unpacked_later(op_class, element_type, shape, partial(_unpack, data, element_type, shape))

    def new_type(self, element_type: ElementType, dims: tuple[Dim, ...]) -> TensorType:
        made: TensorType = new_tensor_type(element_type, new_shape(dims))
        return made


def _unpack(data: memoryview, element_type: ElementType, shape: tuple[int, ...]) -> np.ndarray:
    """The codes of a packed Const, first read maybe long after the file was: its mapping's size is checked
    before its bytes are read (a page past the end of a truncated file kills the process with SIGBUS)."""
    mapping = mapping_of(data)
    if mapping is not None:
        check_mapping(mapping)
    return decode_tensor(data, element_type, shape)


class PortTypes:
    """The types ports declare, each distinct run of ``<dim>`` elements read once (for every precision: a Const's f16
    output, its Convert's f32 output) and each (precision, run) made into a type once."""

    __slots__ = ("known", "_dims", "_shapes", "_element_types")

    def __init__(self) -> None:
        self.known: dict[str, dict[str, tuple[TensorType | None, int]]] = {}
        """precision -> run of dims -> (the port type, the run's newlines)."""
        self._dims: dict[str, Dim] = {}
        self._shapes: dict[str, Shape] = {}
        self._element_types: dict[str, ElementType] = {}

    def read(self, outputs: bool, precision: str, block: str) -> tuple[TensorType | None, int]:
        """The type a port declares with this precision and run of ``<dim>`` elements, and the run's newlines."""
        shape = self._shapes.get(block)
        if shape is None:
            if block and DIMS.fullmatch(block) is None:
                raise NotCanonical
            dims = []
            for text in DIM.findall(block) if block else ():
                dim = self._dims.get(text)
                if dim is None:
                    value = int(text)  # canonical digits (at most 18): what parse_int reads
                    if value < -1:  # the lxml path says what a dim must be
                        raise NotCanonical
                    dim = self._dims[text] = Dim.of(value)
                dims.append(dim)
            shape = self._shapes[block] = new_shape(tuple(dims))
        element_type = self._element_types.get(precision)
        if element_type is None:  # an unknown precision raises: the lxml path reports or notes it
            element_type = self._element_types[precision] = ElementType.from_precision(precision)
        found = (new_tensor_type(element_type, shape), block.count("\n"))
        self.known.setdefault(precision, {})[block] = found
        return found
