"""Shape inference through sub-graph bodies (TensorIterator-1, Loop-5, If-8), as OpenVINO does it.

The outer input types become the body Parameters' types through the port map (a sliced input
gives its Parameter ``part_size`` along the iteration axis), the body is inferred with those types
(the body's own Parameter ops keep what the file declared), and the outer outputs come from the
body Results: the last iteration's value, or the iterations concatenated along the axis (static
only where the number of iterations is known: TensorIterator from its sliced inputs, Loop from a
constant trip count and an always-true condition). OpenVINO's rules (``tensor_iterator.cpp``,
``loop.cpp``, ``if.cpp``) are followed, including where they make a dim dynamic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from irgraph.errors import IrError, OpError, ShapeInferenceError
from irgraph.graph import Body, InputPort, Model, Node, PortMapEntry
from irgraph.graph.subgraph import EXECUTION_CONDITION
from irgraph.ops import Parameter, Result
from irgraph.ops.infrastructure.if_ import If
from irgraph.ops.infrastructure.loop import Loop
from irgraph.shapes import DYNAMIC_RANK, Dim, Shape, TensorType

__all__ = ["infer_sub_graph"]

Walk = Callable[[Model, dict[int, TensorType]], None]
"""Infers a body Model with some Parameters' types given (``shape_inference.walk`` with overrides)."""


def infer_sub_graph(
    node: Node, input_types: Sequence[TensorType], input_values: Sequence[np.ndarray | None], walk: Walk
) -> list[TensorType]:
    """The output types of a TensorIterator, Loop or If ``node`` from its inputs and its bodies."""
    needed = node.op.body_tags  # type: ignore[attr-defined]
    bodies = {body.tag: body for body in node.bodies}
    missing = [tag for tag in needed if tag not in bodies]
    if missing:
        raise OpError(f"{node.op.title()} has no <{missing[0]}> (OpenVINO: 'Missing body part.')")
    for tag in needed:
        if bodies[tag].port_map is None:
            raise OpError(f"{node.op.title()} has no <{bodies[tag].port_map_tag}> for its <{tag}>")
    if isinstance(node.op, If):
        return _if(node, bodies, input_types, input_values, walk)
    return _iterations(node, bodies["body"], input_types, input_values, walk, isinstance(node.op, Loop))


# ------------------------------------------------------------------------------------ helpers
def _body_node(body: Body, layer_id: int, kind: type, entry: PortMapEntry | None = None) -> Node:
    node = body.model._nodes.get(layer_id)
    if node is None or not isinstance(node.op, kind):
        what = entry.describe() if entry is not None else "a back edge"
        raise OpError(f"<{body.tag}> {what} names body layer {layer_id}, which is not a body {kind.__name__}")
    return node


def _result_type(body: Body, result: Node) -> TensorType:
    source = body.model.producer(InputPort(result.id, 0))
    tensor = None if source is None else body.model.output_type(source)
    if tensor is None:
        raise OpError(f"the type of body Result {result.id} ({result.name!r}) is unknown")
    return tensor


def _input(entry: PortMapEntry, input_types: Sequence[TensorType]) -> TensorType:
    if not 0 <= entry.external_port < len(input_types):
        raise OpError(f"{entry.describe()} names outer input {entry.external_port}; the layer has {len(input_types)}")
    return input_types[entry.external_port]


def _axis(axis: int, rank: int, what: str) -> int:
    if not -rank <= axis < rank:
        raise OpError(f"{what} axis {axis} is out of the range [{-rank}, {rank - 1}] of a rank-{rank} value")
    return axis + rank if axis < 0 else axis


def _run(body: Body, overrides: dict[int, TensorType], walk: Walk) -> None:
    try:
        walk(body.model, overrides)
    except IrError as err:
        raise ShapeInferenceError(f"in <{body.tag}>: {err.message}", err.location) from None


def _outputs(node: Node, found: dict[int, TensorType]) -> list[TensorType]:
    missing = [index for index in range(node.num_outputs) if index not in found]
    if missing:
        raise OpError(f"output {missing[0]} of the layer has no port map output entry")
    return [found[index] for index in range(node.num_outputs)]


def _scalar_value(values: Sequence[np.ndarray | None], index: int) -> np.ndarray | None:
    value = values[index] if index < len(values) else None
    return None if value is None or np.size(value) != 1 else np.asarray(value).reshape(-1)


def _const_value(model: Model, result: Node) -> np.ndarray | None:
    source = model.producer(InputPort(result.id, 0))
    value = model.constant_value(source)
    return None if value is None or np.size(value) != 1 else np.asarray(value).reshape(-1)


# ------------------------------------------------------------------------------------ TensorIterator, Loop
def _iterations(
    node: Node, body: Body, input_types: Sequence[TensorType], input_values: Sequence[np.ndarray | None],
    walk: Walk, loop: bool,
) -> list[TensorType]:
    merged = {edge.to_layer: edge.from_layer for edge in body.back_edges}
    overrides: dict[int, TensorType] = {}
    iterations = -1
    zero_iterations = False
    if loop:
        condition = _scalar_value(input_values, 1)
        zero_iterations = condition is not None and not bool(condition[0])
    for entry in body.inputs:
        if entry.purpose is not None or entry.external_port < 0:
            continue
        parameter = _body_node(body, entry.internal_layer_id, Parameter, entry)
        outer = _input(entry, input_types)
        element_type = parameter.op.element_type  # type: ignore[attr-defined]
        shape = outer.shape
        if entry.sliced:
            part_size = 1 if entry.part_size is None else entry.part_size
            if loop:
                if not shape.rank_is_dynamic:
                    shape = shape.replace(_axis(entry.axis, shape.rank, entry.describe()), Dim.static(part_size))
            elif shape.is_static:
                axis = _axis(entry.axis, shape.rank, entry.describe())
                size = shape[axis].value
                start = _positive(0 if entry.start is None else entry.start, size)
                end = _positive(-1 if entry.end is None else entry.end, size)
                if part_size <= 0:
                    raise OpError(f"{entry.describe()} part_size must be positive. Got: {part_size}")
                iterations = (abs(end - start) + 1) // part_size
                shape = shape.replace(axis, Dim.static(part_size))
            else:
                shape = DYNAMIC_RANK if shape.rank_is_dynamic else Shape.dynamic(shape.rank)
        overrides[parameter.id] = TensorType(element_type, shape)
    if loop:
        iterations = _loop_iterations(node, body, input_values, zero_iterations)
    elif iterations == -1 and not any(entry.sliced for entry in body.inputs):
        concatenated = next((entry for entry in body.outputs if entry.sliced and entry.external_port >= 0), None)
        if concatenated is not None:
            part_size = concatenated.part_size or 1
            iterations = abs((concatenated.end or -1) - (concatenated.start or 0)) // part_size
    _run(body, overrides, walk)
    found: dict[int, TensorType] = {}
    for entry in body.outputs:
        if entry.purpose is not None or entry.external_port < 0:
            continue
        result = _body_node(body, entry.internal_layer_id, Result, entry)
        value = _result_type(body, result)
        if entry.sliced:
            found[entry.external_port] = _concatenated(entry, value, iterations, loop, zero_iterations)
        elif loop and not value.shape.rank_is_dynamic and value.shape.is_static:
            found[entry.external_port] = _last_value(body, result, value, merged, overrides, walk, zero_iterations)
        else:
            found[entry.external_port] = value
    return _outputs(node, found)


def _positive(value: int, size: int) -> int:
    return size + value if value < 0 else value


def _loop_iterations(node: Node, body: Body, input_values: Sequence[np.ndarray | None], zero: bool) -> int:
    """Loop-5's known iteration count: the constant trip count when the body condition is always true."""
    conditions = [entry for entry in body.outputs if entry.purpose == EXECUTION_CONDITION]
    if not conditions:
        return -1
    result = _body_node(body, conditions[0].internal_layer_id, Result, conditions[0])
    value = _const_value(body.model, result)
    if value is None:
        # Const(true) -> Loop input -> body Parameter -> the condition Result
        source = body.model.producer(InputPort(result.id, 0))
        for entry in body.inputs:
            if source is not None and entry.internal_layer_id == source.node_id and entry.external_port >= 0:
                value = _scalar_value(input_values, entry.external_port)
    if value is None:
        return -1
    if not bool(value[0]):
        return 1  # do-while: the body runs once
    trip_count = _scalar_value(input_values, 0)
    return -1 if trip_count is None else int(trip_count[0])


def _concatenated(entry: PortMapEntry, value: TensorType, iterations: int, loop: bool, zero: bool) -> TensorType:
    shape = value.shape
    part_size = 1 if entry.part_size is None else entry.part_size
    if loop:
        if zero:
            return TensorType(value.element_type, Shape.static([0]))
        if shape.rank_is_dynamic:
            return value
        if shape.rank == 0:
            shape = Shape.static([1])
        axis = _axis(entry.axis, shape.rank, entry.describe())
        dim = shape[axis]
        return TensorType(value.element_type, shape.replace(
            axis, Dim.static(dim.value * iterations) if dim.is_static and iterations != -1 else Dim.dynamic()
        ))
    if not shape.is_static:
        return TensorType(value.element_type, DYNAMIC_RANK if shape.rank_is_dynamic else Shape.dynamic(shape.rank))
    if shape.rank == 0:
        if entry.axis != 0:
            raise OpError("Axis must be equal to 0 if concatenated output tensor slices are scalars.")
        shape = Shape.static([1])
    if iterations == -1:
        return TensorType(value.element_type, DYNAMIC_RANK)
    axis = _axis(entry.axis, shape.rank, entry.describe())
    return TensorType(value.element_type, shape.replace(axis, Dim.static(iterations * part_size)))


def _last_value(
    body: Body, result: Node, value: TensorType, merged: dict[int, int], overrides: dict[int, TensorType],
    walk: Walk, zero: bool,
) -> TensorType:
    """A Loop output of the last iteration: dims a back edge changes between iterations become dynamic."""
    shape = value.shape
    parameter_id = next((to for to, source in merged.items() if source == result.id), None)
    if parameter_id is not None and parameter_id in overrides and overrides[parameter_id].shape != shape:
        start = overrides[parameter_id].shape
        if start.rank_is_dynamic or start.rank != shape.rank:
            raise OpError("Back edge input and output rank should be same")
        relaxed = Shape(tuple(d if d == s else Dim.dynamic() for d, s in zip(shape, start, strict=True)))
        overrides[parameter_id] = TensorType(overrides[parameter_id].element_type, relaxed)
        _run(body, overrides, walk)
        return TensorType(value.element_type, relaxed)
    if zero and shape.rank:
        shape = shape.replace(0, Dim.static(0))
    return TensorType(value.element_type, shape)


# ------------------------------------------------------------------------------------ If
def _if(
    node: Node, bodies: dict[str, Body], input_types: Sequence[TensorType],
    input_values: Sequence[np.ndarray | None], walk: Walk,
) -> list[TensorType]:
    condition = _scalar_value(input_values, 0)
    branches: list[dict[int, TensorType]] = []
    for tag in ("then_body", "else_body"):
        body = bodies[tag]
        overrides = {}
        for entry in body.inputs:
            parameter = _body_node(body, entry.internal_layer_id, Parameter, entry)
            overrides[parameter.id] = _input(entry, input_types)
        _run(body, overrides, walk)
        found = {}
        for entry in body.outputs:
            found[entry.external_port] = _result_type(body, _body_node(body, entry.internal_layer_id, Result, entry))
        branches.append(found)
    if condition is not None:
        return _outputs(node, branches[0] if bool(condition[0]) else branches[1])
    then_types, else_types = _outputs(node, branches[0]), _outputs(node, branches[1])
    return [_either(a, b, index) for index, (a, b) in enumerate(zip(then_types, else_types, strict=True))]


def _either(then_type: TensorType, else_type: TensorType, index: int) -> TensorType:
    """The type of an If output either branch may give: per dim the interval covering both (OpenVINO's union)."""
    if then_type.element_type != else_type.element_type and not (
        then_type.element_type.is_dynamic or else_type.element_type.is_dynamic
    ):
        raise OpError(
            f"output {index}: then_body gives {then_type.element_type} but else_body gives {else_type.element_type}"
        )
    element_type = else_type.element_type if then_type.element_type.is_dynamic else then_type.element_type
    a, b = then_type.shape, else_type.shape
    if a.rank_is_dynamic or b.rank_is_dynamic or a.rank != b.rank:
        return TensorType(element_type, DYNAMIC_RANK)
    return TensorType(element_type, Shape(tuple(_union(x, y) for x, y in zip(a, b, strict=True))))


def _union(a: Dim, b: Dim) -> Dim:
    if a == b:
        return a
    return Dim(min(a.min, b.min), None if a.max is None or b.max is None else max(a.max, b.max))
