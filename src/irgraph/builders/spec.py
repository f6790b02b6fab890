"""What a builder is made from: an op class's inputs, attributes, outputs and name, read off the class.

One reading serves both the builder made at run time (:mod:`irgraph.builders.builder`) and the typed stubs a
type checker reads (:mod:`irgraph.builders.stubgen`), so the two cannot disagree.
"""

from __future__ import annotations

import dataclasses
import inspect
import keyword
import typing
from dataclasses import dataclass
from typing import Any

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Shape
from irgraph.ops import Op, catalogue

_BUILDER_NAMES = {"Constant": "constant", "PRelu": "prelu"}
"""Where the snake case of the op module's name is not what OpenVINO's Python builders call the op."""


def builder_name(type_name: str) -> str:
    """The builder of an OpenVINO type: ``MatMul`` -> ``mat_mul``, ``If`` -> ``if_`` (the op module's name)."""
    return _BUILDER_NAMES.get(type_name) or catalogue.module_name(type_name)


REQUIRED: Any = dataclasses.MISSING
"""The default of an attribute the op declares none for."""


@dataclass(frozen=True)
class AttributeSpec:
    """One attribute as a builder takes it: keyword ``name`` of ``kind`` (the declared Python type)."""

    name: str
    kind: Any
    """int, bool, float, str, tuple[int, ...], tuple[float, ...], tuple[str, ...], Shape or ElementType."""
    default: Any = None
    """The op's default, or :data:`REQUIRED`."""
    names_element_type: bool = False
    """A ``str`` attribute holding an element type's IR name (``index_element_type="i64"``): numpy dtypes
    are taken and written as their IR names."""

    @property
    def required(self) -> bool:
        """True when the op declares no default."""
        return self.default is REQUIRED


class Returns:
    """What a builder returns, by how many outputs its op has."""

    PORT = "port"
    """One output: its OutputPort."""
    PORTS = "ports"
    """Several, or a number the attributes or inputs decide (Split, TopK): a tuple of OutputPorts."""
    NODE = "node"
    """None (Result, Assign): the Node."""


@dataclass(frozen=True)
class BuilderSpec:
    """An op version's builder: name, inputs in order, variadic input, attributes, return kind, summary."""

    op_class: type[Op]
    name: str
    inputs: tuple[str, ...]
    required_inputs: int
    variadic: str | None
    attributes: tuple[AttributeSpec, ...]
    returns: str
    summary: str

    @property
    def title(self) -> str:
        """``MatMul-1``."""
        return self.op_class.title()


_SPECS: dict[type[Op], BuilderSpec] = {}


def spec_of(op_class: type[Op]) -> BuilderSpec:
    """The builder spec of a registered op class (read once)."""
    known = _SPECS.get(op_class)
    if known is None:
        known = _SPECS[op_class] = _read_spec(op_class)
    return known


def _read_spec(op_class: type[Op]) -> BuilderSpec:
    hints = typing.get_type_hints(op_class)
    declared = {field.name: field for field in dataclasses.fields(op_class)}
    attributes = []
    for attribute in op_class.attribute_fields():
        field = declared[attribute.name]
        default = field.default
        if field.default_factory is not dataclasses.MISSING:
            default = field.default_factory()
        kind = hints[attribute.name]
        attributes.append(AttributeSpec(attribute.name, kind, default, _names_element_type(attribute.name, kind,
                                                                                            default)))
    inputs = op_class.inputs
    entry = catalogue.find(op_class.type_name, f"opset{op_class.introduced}")
    type_name = entry.type_name if entry is not None else op_class.type_name
    return BuilderSpec(
        op_class=op_class,
        name=builder_name(type_name),
        inputs=tuple(_identifier(spec.name) for spec in inputs.fixed),
        required_inputs=min(inputs.minimum, len(inputs.fixed)),
        variadic=None if inputs.variadic is None else _identifier(inputs.variadic.name),
        attributes=tuple(attributes),
        returns=_returns(op_class, attributes),
        summary=_summary(op_class),
    )


def _identifier(name: str) -> str:
    """An input's name as a parameter: Selu's ``lambda`` is ``lambda_``."""
    return name + "_" if keyword.iskeyword(name) else name


def _names_element_type(name: str, kind: Any, default: Any) -> bool:
    if kind is not str or not name.endswith("_type") or not isinstance(default, str):
        return False
    try:
        ElementType.from_ir_name(default)
    except ValueError:
        return False
    return True


def _returns(op_class: type[Op], attributes: list[AttributeSpec]) -> str:
    if op_class.output_count is Op.output_count:
        return Returns.PORT
    counts = {_count_with(op_class, attributes, variant) for variant in (1, 2)}
    if counts == {1}:
        return Returns.PORT
    return Returns.NODE if counts == {0} else Returns.PORTS


_PLACEHOLDERS: dict[Any, Any] = {
    int: lambda n: n, float: float, bool: lambda n: n == 2, tuple[int, ...]: lambda n: (n,),
    tuple[float, ...]: lambda n: (float(n),),
}


def _count_with(op_class: type[Op], attributes: list[AttributeSpec], variant: int) -> int | None:
    """The op's output count with its required attributes set to ``variant`` placeholders (None when it cannot
    be told): a count that differs between two variants follows the attributes (Split's num_splits)."""
    values = {}
    for attribute in attributes:
        if attribute.required:
            make = _PLACEHOLDERS.get(attribute.kind)
            if make is None:
                return None
            values[attribute.name] = make(variant)
    try:
        return op_class(**values).output_count([None] * len(op_class.inputs.fixed))
    except Exception:  # a placeholder the op refuses, or a count that needs input values: not told
        return None


def _summary(op_class: type[Op]) -> str:
    doc = inspect.getdoc(op_class) or ""
    first = doc.split("\n\n")[0].replace("\n", " ").strip()
    return first or op_class.title()


def shape_of(value: Any) -> Shape:
    """A Shape attribute from a Shape, or what :meth:`Shape.of` takes (``[1, -1, "1..8"]``)."""
    return value if isinstance(value, Shape) else Shape.of(value)
