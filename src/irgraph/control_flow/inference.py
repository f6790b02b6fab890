"""Shape inference through sub-graph bodies, as OpenVINO does it: TensorIterator-1 and Loop-5 here, the
helpers If-8 (``if_``) shares too.

The outer input types become the body Parameters' types through the port map (a sliced input
gives its Parameter ``part_size`` along the iteration axis), the body is inferred with those types
(the body's own Parameter ops keep what the file declared), and the outer outputs come from the
body Results: the last iteration's value, or the iterations concatenated along the axis (static
only where the number of iterations is known: TensorIterator from its sliced inputs, Loop from a
constant trip count and an always-true condition). OpenVINO's rules (``tensor_iterator.cpp``,
``loop.cpp``, ``if.cpp``) are followed, including where they make a dim dynamic, and where If's
known condition leaves the body it skips with the types it declares.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from irgraph.core.errors import IrError, OpError, ShapeInferenceError
from irgraph.core.limits import MAX_BODY_DEPTH
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.graph import Body, InputPort, Model, Node, PortMapEntry
from irgraph.graph.subgraph import EXECUTION_CONDITION
from irgraph.ops import Parameter, Result

__all__ = ["Walk", "body_node", "check_fed", "infer_body", "infer_iterations", "outer_input", "outputs_by_port",
           "result_type", "scalar_value"]

Walk = Callable[[Model, dict[int, TensorType]], None]
"""Infers a body Model with some Parameters' types given (``shape_inference.walk`` with overrides)."""


# ------------------------------------------------------------------------------------ helpers
def body_node(body: Body, layer_id: int, kind: type, entry: PortMapEntry) -> Node:
    """The body layer ``entry`` names, which must hold an op of ``kind`` (Parameter, Result)."""
    node = body.model._nodes.get(layer_id)
    if node is None or not isinstance(node.op, kind):
        raise OpError(f"<{body.tag}> {entry.describe()} names body layer {layer_id}, which is not a body "
                      f"{kind.__name__}")
    return node


def result_type(body: Body, result: Node) -> TensorType:
    """The inferred type of the value body Result ``result`` gives."""
    source = body.model.producer(InputPort(result.id, 0))
    tensor = None if source is None else body.model.output_type(source)
    if tensor is None:
        raise OpError(f"the type of body Result {result.id} ({result.name!r}) is unknown")
    return tensor


def outer_input(entry: PortMapEntry, input_types: Sequence[TensorType]) -> TensorType:
    """The type of the outer input ``entry`` names."""
    if not 0 <= entry.external_port < len(input_types):
        raise OpError(f"{entry.describe()} names outer input {entry.external_port}; the layer has {len(input_types)}")
    return input_types[entry.external_port]


def _axis(axis: int, rank: int, what: str, *, negative: bool = True) -> int:
    """``axis`` in ``[-rank, rank-1]`` (Loop normalizes it) or ``[0, rank-1]`` (TensorIterator takes it as is)."""
    low = -rank if negative else 0
    if not low <= axis < rank:
        raise OpError(f"{what} axis {axis} is out of the range [{low}, {rank - 1}] of a rank-{rank} value")
    return axis + rank if axis < 0 else axis


_depth = [0]  # bodies being inferred, outermost first (inference is single-threaded, as the walk is)


def infer_body(body: Body, overrides: dict[int, TensorType], walk: Walk) -> None:
    """Infer ``body`` with its Parameters' types ``overrides``, at most ``MAX_BODY_DEPTH`` bodies deep."""
    if _depth[0] >= MAX_BODY_DEPTH:
        raise OpError(f"sub-graph bodies nest more than {MAX_BODY_DEPTH} levels deep; irgraph infers at most "
                      f"{MAX_BODY_DEPTH}")
    _depth[0] += 1
    try:
        walk(body.model, overrides)
    except IrError as err:
        message = err.message if err.message.startswith("in <") else f"in <{body.tag}>: {err.message}"
        raise ShapeInferenceError(message, err.location) from None
    finally:
        _depth[0] -= 1


def outputs_by_port(node: Node, found: dict[int, TensorType]) -> list[TensorType]:
    """The output types of ``node`` from ``found`` (outer output -> type), refused when one is missing."""
    missing = [index for index in range(node.num_outputs) if index not in found]
    if missing:
        raise OpError(f"output {missing[0]} of the layer has no port map output entry")
    return [found[index] for index in range(node.num_outputs)]


def scalar_value(values: Sequence[np.ndarray | None], index: int) -> np.ndarray | None:
    """Input ``index``'s constant value flattened when it holds one element (a condition), else None."""
    value = values[index]  # Loop has inputs 0 and 1, If input 0: the op's input spec is checked before
    return None if value is None or np.size(value) != 1 else np.asarray(value).reshape(-1)


def result_constant(model: Model, result: Node) -> np.ndarray | None:
    """The one-element Const that body Result ``result`` gives, flattened, else None (a computed value, or more
    elements than a condition has)."""
    source = model.producer(InputPort(result.id, 0))
    value = model.constant_value(source)
    return None if value is None or np.size(value) != 1 else np.asarray(value).reshape(-1)


# ------------------------------------------------------------------------------------ TensorIterator, Loop
def infer_iterations(
    node: Node, body: Body, input_types: Sequence[TensorType], input_values: Sequence[np.ndarray | None],
    walk: Walk, loop: bool,
) -> list[TensorType]:
    """TensorIterator-1 (``tensor_iterator.cpp``) and Loop-5 (``loop.cpp``) as OpenVINO 2025 infers them."""
    overrides: dict[int, TensorType] = {}
    iterations = -1
    zero_iterations = False
    if loop:
        condition = scalar_value(input_values, 1)
        zero_iterations = condition is not None and not bool(condition[0])
    for entry in body.inputs:
        if entry.purpose is not None or entry.external_port < 0:
            continue
        parameter = body_node(body, entry.internal_layer_id, Parameter, entry)
        outer = outer_input(entry, input_types)
        check_fed(f"<{body.port_map_tag}> {entry.describe()}", outer, parameter)
        # Loop gives its body Parameters the outer element types; TensorIterator only the shapes.
        element_type = outer.element_type if loop else parameter.op_as(Parameter).element_type
        shape = outer.shape
        if entry.axis is not None and not shape.rank_is_dynamic:  # sliced
            part_size = 1 if entry.part_size is None else entry.part_size
            if part_size <= 0:
                raise OpError(f"{entry.describe()} part_size must be positive. Got: {part_size}")
            axis = _axis(entry.axis, shape.rank, entry.describe(), negative=loop)
            if not loop and shape[axis].is_static:
                size = shape[axis].value
                start = _positive(0 if entry.start is None else entry.start, size)
                end = _positive(-1 if entry.end is None else entry.end, size)
                iterations = (abs(end - start) + 1) // part_size
            shape = shape.replace(axis, Dim.static(part_size))
        elif entry.sliced:
            shape = DYNAMIC_RANK
        overrides[parameter.id] = TensorType(element_type, shape)
    if loop:
        iterations = _loop_iterations(body, input_values)
    elif iterations == -1 and not any(entry.sliced for entry in body.inputs):
        concatenated = next((entry for entry in body.outputs if entry.sliced and entry.external_port >= 0), None)
        if concatenated is not None:
            start = 0 if concatenated.start is None else concatenated.start
            end = -1 if concatenated.end is None else concatenated.end
            iterations = abs(end - start) // (concatenated.part_size or 1)
    infer_body(body, overrides, walk)
    _check_back_edges(body)
    if loop and body.back_edges:
        _relax_back_edges(body, overrides, walk, iterations)
    found: dict[int, TensorType] = {}
    for entry in body.outputs:
        if entry.purpose is not None or entry.external_port < 0:
            continue
        value = result_type(body, body_node(body, entry.internal_layer_id, Result, entry))
        if entry.sliced:
            found[entry.external_port] = _concatenated(entry, value, iterations, loop, zero_iterations)
        elif loop and zero_iterations and value.shape.is_static and value.shape.rank:
            found[entry.external_port] = TensorType(value.element_type, value.shape.replace(0, Dim.static(0)))
        else:
            found[entry.external_port] = value
    return outputs_by_port(node, found)


def check_fed(what: str, fed: TensorType, parameter: Node) -> TensorType:
    """``fed`` when its element type is the one body ``parameter`` declares (either may be dynamic), else OpError.

    OpenVINO 2026.4.1 gives a Loop's or If's body Parameter the type fed to it, then refuses the body's ops or
    computes them in a type the file never declared (a TensorIterator keeps the declared type and reads the
    bytes as that): both differ from what the file says, so the file is refused.
    """
    declared = parameter.op_as(Parameter).element_type
    if fed.element_type != declared and not (fed.element_type.is_dynamic or declared.is_dynamic):
        raise OpError(f"{what} feeds {fed.element_type} to body Parameter {parameter.id} ({parameter.name!r}), "
                      f"which declares {declared}; element types must match")
    return fed


def _check_back_edges(body: Body) -> None:
    """Every back edge gives its body Parameter the element type the Parameter declares (see ``check_fed``)."""
    nodes = body.model._nodes
    for edge in body.back_edges:
        result, parameter = nodes.get(edge.from_layer), nodes.get(edge.to_layer)
        if result is None or parameter is None or not isinstance(parameter.op, Parameter) or (
                not isinstance(result.op, Result)):
            continue  # validation names a back edge between the wrong layers; running refuses it
        source = body.model.producer(InputPort(result.id, 0))
        value = None if source is None else body.model.output_type(source)
        if value is not None:
            check_fed(f"<back_edges> edge from body layer {edge.from_layer} to body layer {edge.to_layer}", value,
                       parameter)


def _positive(value: int, size: int) -> int:
    return size + value if value < 0 else value


def _loop_iterations(body: Body, input_values: Sequence[np.ndarray | None]) -> int:
    """Loop-5's known iteration count: the constant trip count when the body condition is always true."""
    conditions = [entry for entry in body.outputs if entry.purpose == EXECUTION_CONDITION]
    if not conditions:
        return -1
    result = body_node(body, conditions[0].internal_layer_id, Result, conditions[0])
    value = result_constant(body.model, result)
    if value is None:
        # Const(true) -> Loop input -> body Parameter -> the condition Result
        source = body.model.producer(InputPort(result.id, 0))
        for entry in body.inputs:
            if source is not None and entry.internal_layer_id == source.node_id and entry.external_port >= 0:
                value = scalar_value(input_values, entry.external_port)
    if value is None:
        return -1
    if not bool(value[0]):
        return 1  # do-while: the body runs once
    trip_count = scalar_value(input_values, 0)
    return -1 if trip_count is None else int(trip_count[0])


_MAX_RELAXATIONS = 1024


def _relax_back_edges(body: Body, overrides: dict[int, TensorType], walk: Walk, iterations: int) -> None:
    """Loop-5: a back-edge Parameter whose Result (also a last-value output) disagrees takes its dims, dynamic
    where they differ, and the body is inferred again until nothing changes."""
    merged = {edge.from_layer: edge.to_layer for edge in body.back_edges}
    rounds = _MAX_RELAXATIONS if iterations == -1 else min(iterations, _MAX_RELAXATIONS)
    for _ in range(rounds):
        changed = False
        for entry in body.outputs:
            if entry.sliced or entry.purpose is not None or entry.internal_layer_id not in merged:
                continue
            parameter_id = merged[entry.internal_layer_id]
            start = overrides.get(parameter_id)
            if start is None or start.shape.rank_is_dynamic:
                continue
            value = result_type(body, body_node(body, entry.internal_layer_id, Result, entry)).shape
            if value.rank_is_dynamic:
                relaxed = value
            elif value.rank != start.shape.rank:
                relaxed = DYNAMIC_RANK
            elif value == start.shape:
                continue
            else:  # openvino 2026.4.1 makes every differing dim dynamic, even intervals that intersect
                relaxed = Shape(tuple(v if v == s else Dim.dynamic() for v, s in zip(value, start.shape, strict=True)))
            overrides[parameter_id] = TensorType(start.element_type, relaxed)
            changed = True
        if not changed:
            return
        infer_body(body, overrides, walk)


def _concatenated(entry: PortMapEntry, value: TensorType, iterations: int, loop: bool, zero: bool) -> TensorType:
    shape = value.shape
    if loop and zero:
        return TensorType(value.element_type, Shape.static([0]))
    if shape.rank_is_dynamic:
        return TensorType(value.element_type, DYNAMIC_RANK)
    axis = entry.axis
    assert axis is not None
    if loop:
        axis = _axis(axis, max(shape.rank, 1) if shape.rank == 0 else shape.rank, entry.describe())
        if shape.rank == 0:
            shape = Shape.static([1])
        dim = shape[axis]
        total = Dim.static(dim.value * iterations) if dim.is_static and iterations != -1 else Dim.dynamic()
        return TensorType(value.element_type, shape.replace(axis, total))
    if shape.rank == 0:
        if axis != 0:
            raise OpError("Axis must be equal to 0 if concatenated output tensor slices are scalars.")
        shape = Shape.dynamic(1)
    axis = _axis(axis, shape.rank, entry.describe(), negative=False)
    part_size = 1 if entry.part_size is None else entry.part_size
    total = Dim.static(iterations * part_size) if iterations != -1 else Dim.dynamic()
    return TensorType(value.element_type, shape.replace(axis, total))
