"""What many import rules share: their inputs checked and taken as ports, helper layers, output names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from irgraph.core.element_types import ElementType
from irgraph.graph import OutputPort
from irgraph.ops import Op

if TYPE_CHECKING:
    from irgraph.io.onnx.import_rules.registry import ImportContext


def node_inputs(context: ImportContext, least: int, most: int) -> list[str]:
    """The input names, trailing empty (absent optional) ones dropped; their count checked."""
    names = list(context.node.input)
    while names and not names[-1]:
        names.pop()
    if not least <= len(names) <= most or any(not name for name in names[:least]):
        raise context.fail(f"takes {least} to {most} inputs; got {list(context.node.input)}")
    return names


def ports_of(context: ImportContext, names: Sequence[str]) -> list[OutputPort]:
    """The output ports that the ONNX tensors ``names`` stand for."""
    return [context.tensor(name) for name in names]


def helper_layer(context: ImportContext, op: Op, inputs: Sequence[OutputPort],
                 what: str) -> OutputPort:
    """A layer in the middle of a pattern."""
    return OutputPort(context.add(op, f"{context.name}/{what}", inputs).id, 0)


def text(value: Any) -> str:
    """A STRING attribute (bytes in the protobuf) as text."""
    return value.decode() if isinstance(value, bytes) else str(value)


def one_output(context: ImportContext) -> None:
    """Refuse a node that does not have exactly one (named) output."""
    outputs = [name for name in context.node.output if name]
    if len(outputs) != 1 or len(context.node.output) != 1:
        raise context.fail(f"must have one output; got {list(context.node.output)}")


def alias_output(context: ImportContext, source: str) -> None:
    """The node's one output becomes another tensor name of ``source`` (no layer)."""
    output = context.node.output[0]
    context.alias(output, context.tensor(source))
    context.explain(f"{context.label}: {output!r} is another name of {source!r} (no layer)")


def static_rank(port: OutputPort, context: ImportContext, what: str) -> int:
    """The rank at ``port`` (``what`` names it in the refusal when the rank is dynamic)."""
    shape = context.type_of(port).shape
    if shape.rank_is_dynamic:
        raise context.fail(f"{what} has a dynamic rank; irgraph needs it to convert this node")
    return shape.rank


def unary_input(context: ImportContext, allowed: dict[str, str] | None = None) -> tuple[OutputPort, dict[str, Any]]:
    """The one input of a one-output node and its attributes (of ``allowed``)."""
    attributes = context.attributes(allowed or {})
    one_output(context)
    (data,) = ports_of(context, node_inputs(context, 1, 1))
    return data, attributes


def element_type_of(context: ImportContext, port: OutputPort) -> ElementType:
    """The element type at ``port``."""
    return context.type_of(port).element_type


def float_only(context: ImportContext, port: OutputPort) -> ElementType:
    """The element type at ``port``, which must be a floating-point one."""
    element_type = element_type_of(context, port)
    if not element_type.is_real:
        raise context.fail(f"takes floating-point data; got {element_type}")
    return element_type
