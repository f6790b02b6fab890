"""Set the shapes of a model's inputs and re-infer every shape after them, as OpenVINO's ``Model.reshape`` does."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from irgraph.analysis.shape_inference import infer_shapes
from irgraph.core.errors import FeedError, IrError, ShapeInferenceError
from irgraph.core.shapes import Shape
from irgraph.graph import Model, Node, OutputPort
from irgraph.ops import Parameter
from irgraph.ops.opaque import OpaqueOp

UNNAMED = ""
"""The key of a shape given without a name (``[1,3,224,224]``): the model's one input."""


def reshape(model: Model, shapes: Mapping[str, Shape]) -> list[tuple[str, Shape]]:
    """Give the inputs named in ``shapes`` (a Parameter's name or tensor name) those partial shapes (in place) and
    re-infer the model; returns each Parameter changed (its layer name) with its new shape.

    The element type and everything else of an input stay. A layer that cannot take the new shapes raises
    ShapeInferenceError at that layer, saying which reshape it refuses; the model is then left as it was.
    """
    targets = _resolve(model, shapes)
    blocked = _opaque_after(model, [node for node, _ in targets])
    if blocked is not None:
        raise ShapeInferenceError(
            f"--reshape {_describe(targets)}: layer {blocked.name!r} is of type {blocked.type_name}, which irgraph "
            "does not implement, so the shapes after it cannot be re-inferred", blocked.location)
    previous = [(node, node.op) for node, _ in targets]
    for node, shape in targets:
        node.op = replace(_parameter(node), shape=shape)
    try:
        infer_shapes(model)
    except IrError as err:
        for node, op in previous:
            node.op = op
        infer_shapes(model)
        raise ShapeInferenceError(f"--reshape {_describe(targets)}: the layer cannot take it: {err.message}",
                                  err.location) from None
    adopt_inferred_types(model)
    return [(node.name, shape) for node, shape in targets]


def adopt_inferred_types(model: Model) -> None:
    """Make what inference found the declared types too, so validation compares the file with itself, not with the
    types the source file declared before the surgery."""
    for node in model:
        for output in node.outputs:
            output.declared_type = output.type
        for port, source in zip(node.inputs, model.input_sources(node), strict=True):
            port.declared_type = None if source is None else model.output_type(source)


def _resolve(model: Model, shapes: Mapping[str, Shape]) -> list[tuple[Node, Shape]]:
    inputs = model.input_index()
    resolved: dict[int, tuple[Node, Shape]] = {}
    for name, shape in shapes.items():
        if name == UNNAMED:
            if len(model.parameters) != 1:
                raise FeedError(f"--reshape {shape} names no input, which only a model of one input allows; this one "
                                 f"has {len(model.parameters)} ({_names(model)}): write NAME{shape}")
            parameter = model.parameters[0]
        else:
            found = inputs.get(name)
            if found is None:
                raise FeedError(f"--reshape names {name!r}, but the model has no such input; inputs: {_names(model)}")
            parameter = found
        if parameter.id in resolved:
            raise FeedError(f"--reshape gives input {parameter.name!r} twice")
        resolved[parameter.id] = (parameter, shape)
    return list(resolved.values())


def _opaque_after(model: Model, parameters: list[Node]) -> Node | None:
    """The first layer downstream of ``parameters`` irgraph cannot infer (its types would be the file's, stale)."""
    seen: set[int] = set()
    pending = [node.id for node in parameters]
    while pending:
        node_id = pending.pop()
        if node_id in seen:
            continue
        seen.add(node_id)
        node = model.node(node_id)
        if isinstance(node.op, OpaqueOp):
            return node
        for index in range(node.num_outputs):
            pending.extend(port.node_id for port in model.consumers(OutputPort(node_id, index)))
    return None


def _parameter(node: Node) -> Parameter:
    op = node.op
    assert isinstance(op, Parameter)
    return op


def _describe(targets: list[tuple[Node, Shape]]) -> str:
    return ", ".join(f"{node.name}{shape}" for node, shape in targets)


def _names(model: Model) -> str:
    return ", ".join(repr(p.name) for p in model.parameters) or "none"
