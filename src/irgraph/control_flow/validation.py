"""Validation rules of sub-graph layers: bodies present, port maps, back edges and Loop special body ports.

Each rule reports through the ``error``/``warning`` callbacks of :func:`irgraph.analysis.validation.validate`
with the code ``sub-graph`` and the layer's location. What OpenVINO's reader would refuse or
misread (a port map naming a port or body layer that does not exist, an axis out of range, a back
edge between the wrong kinds of layers) is an error; what it silently ignores is a warning.
"""

from __future__ import annotations

from collections.abc import Callable

from irgraph.control_flow.sub_graph_op import SubGraphOp
from irgraph.core.errors import Location
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.graph import Body, InputPort, Node, PortMapEntry
from irgraph.graph.subgraph import CURRENT_ITERATION, EXECUTION_CONDITION, PURPOSES
from irgraph.ops import Parameter, Result

__all__ = ["CODE", "check_bodies"]

CODE = "sub-graph"
Report = Callable[[str, str, Location], None]


def check_bodies(node: Node, input_types: list[TensorType | None], error: Report, warning: Report) -> None:
    """Report every problem of ``node``'s bodies, port maps and back edges (not of the bodies' own layers).

    ``input_types``: the types of the layer's inputs where known (inferred, else declared).
    """
    op, where = node.op, node.location
    tags = [body.tag for body in node.bodies]
    if isinstance(op, SubGraphOp):  # bodies on another op are still checked, as OpenVINO reads them
        for tag in op.body_tags:
            if tag not in tags:
                error(CODE, f"{op.title()} needs a <{tag}>; the layer has none (OpenVINO: 'Missing body part.')", where)
        for tag in tags:
            if tag not in op.body_tags:
                error(CODE, f"{op.title()} has no <{tag}>; its bodies are {', '.join(op.body_tags)}", where)
    for body in node.bodies:
        _check_body(node, body, input_types, error, warning)
    if isinstance(op, SubGraphOp):
        _check_outer_ports(node, op, error)


def _check_body(node: Node, body: Body, input_types: list[TensorType | None], error: Report, warning: Report) -> None:
    where = node.location
    model = body.model
    if not model.results:
        error(CODE, f"<{body.tag}> has no Result layers (OpenVINO: 'No results found in body Model.')", where)
    op = node.op if isinstance(node.op, SubGraphOp) else None
    if body.port_map is None:
        if op is not None:
            error(CODE, f"<{body.tag}> has no <{body.port_map_tag}>: no outer port reaches it", where)
        return
    purposes: dict[str, PortMapEntry] = {}
    for entry in body.port_map:
        if entry.purpose is not None:
            _check_purpose(node, body, entry, purposes, error)
        elif entry.external_port < 0:
            warning(CODE, f"<{body.port_map_tag}> {entry.describe()} maps no outer port; OpenVINO ignores it", where)
        else:
            direction = "output" if entry.output else "input"
            count = node.num_outputs if entry.output else node.num_inputs
            if entry.external_port >= count:
                error(CODE, f"<{body.port_map_tag}> {entry.describe()} names outer {direction} {entry.external_port}; "
                      f"the layer has {count} {direction}s", where)
        _check_internal(body, entry, where, error)
        if entry.sliced:
            _check_slicing(node, body, entry, input_types, error)
    for edge in body.back_edges:
        _check_layer(body, edge.from_layer, Result, f"back edge from body layer {edge.from_layer}", where, error)
        _check_layer(body, edge.to_layer, Parameter, f"back edge to body layer {edge.to_layer}", where, error)
    _check_declared_shapes(node, body, input_types, warning)
    if op is not None and op.special_ports:
        _check_special_ports(node, body, purposes, error, warning)


def _check_declared_shapes(node: Node, body: Body, input_types: list[TensorType | None], warning: Report) -> None:
    """Warn where a port map input or back edge gives a body Parameter a shape its declaration contradicts.

    OpenVINO 2026.4.1 takes the shape given (a back edge makes the differing dims dynamic), so the file
    runs, but what it declares is not what its body sees. (Element types that differ are refused by
    shape inference: the body would compute in another type.)
    """
    model = body.model
    given: list[tuple[str, int, Shape]] = []
    for entry in body.inputs:
        if entry.purpose is None and 0 <= entry.external_port < len(input_types):
            fed = input_types[entry.external_port]
            shape = None if fed is None else _part_shape(node, entry, fed.shape)
            if shape is not None:
                given.append((f"<{body.port_map_tag}> {entry.describe()}", entry.internal_layer_id, shape))
    for edge in body.back_edges:
        source = model.producer(InputPort(edge.from_layer, 0)) if edge.from_layer in model else None
        value = None if source is None else model.output_type(source)
        if value is not None:
            given.append((f"back edge from body layer {edge.from_layer} to body layer {edge.to_layer}", edge.to_layer,
                          value.shape))
    for what, layer_id, shape in given:
        parameter = model._nodes.get(layer_id)
        if parameter is None:
            continue
        declared = getattr(parameter.op, "shape", None)
        if isinstance(declared, Shape) and not declared.compatible(shape):
            warning(CODE, f"{what} gives shape {shape} to body Parameter {layer_id} ({parameter.name!r}), which "
                    f"declares {declared}; OpenVINO takes the shape given", node.location)


def _part_shape(node: Node, entry: PortMapEntry, shape: Shape) -> Shape | None:
    """The shape a body Parameter gets from an outer input of ``shape``: one part of it when sliced."""
    if not entry.sliced:
        return shape
    part_size = 1 if entry.part_size is None else entry.part_size
    if shape.rank_is_dynamic or entry.axis is None or part_size <= 0:
        return None
    low = -shape.rank if _negative_axes(node) else 0
    if not low <= entry.axis < shape.rank:
        return None  # reported by _check_slicing
    return shape.replace(entry.axis % shape.rank, Dim.static(part_size))


def _check_internal(body: Body, entry: PortMapEntry, where: Location, error: Report) -> None:
    kind = Result if entry.output else Parameter
    _check_layer(body, entry.internal_layer_id, kind, f"<{body.port_map_tag}> {entry.describe()}", where, error)


def _check_layer(body: Body, layer_id: int, kind: type, what: str, where: Location, error: Report) -> None:
    if layer_id not in body.model:
        error(CODE, f"{what}: <{body.tag}> has no layer with id {layer_id}; it must name a body {kind.__name__}", where)
        return
    found = body.model.node(layer_id)
    if not isinstance(found.op, kind):
        error(CODE, f"{what}: body layer {layer_id} ({found.name!r}) is a {found.type_name}; it must be a body "
              f"{kind.__name__}", where)


def _check_slicing(
    node: Node, body: Body, entry: PortMapEntry, input_types: list[TensorType | None], error: Report
) -> None:
    where = node.location
    what = f"<{body.port_map_tag}> {entry.describe()}"
    if isinstance(node.op, SubGraphOp) and not node.op.slices:
        error(CODE, f"{what} has an axis; {node.op.type_name} does not slice its inputs or concatenate its outputs",
              where)
        return
    if entry.part_size is not None and entry.part_size <= 0:
        error(CODE, f"{what} part_size must be positive. Got: {entry.part_size}", where)
    if entry.stride == 0:
        error(CODE, f"{what} stride must not be 0", where)
    shape = _sliced_shape(body, entry, input_types)
    if shape is None or shape.rank_is_dynamic:
        return
    rank = shape.rank
    sliced = "outer input" if not entry.output else "body Result's value"
    axis = entry.axis
    assert axis is not None
    if not -rank <= axis < rank or (axis < 0 and not _negative_axes(node)):
        low = -rank if _negative_axes(node) else 0  # TensorIterator takes the axis as given
        error(CODE, f"{what} axis {axis} is out of the range [{low}, {rank - 1}] of the rank-{rank} {sliced}", where)


def _sliced_shape(body: Body, entry: PortMapEntry, input_types: list[TensorType | None]) -> Shape | None:
    """The shape sliced (an outer input) or concatenated (a body Result's value), when known."""
    if entry.output:
        if entry.internal_layer_id not in body.model:
            return None
        source = body.model.producer(InputPort(entry.internal_layer_id, 0))
        tensor = None if source is None else body.model.output_type(source)
        if tensor is None:
            result = body.model.node(entry.internal_layer_id)
            tensor = result.inputs[0].declared_type if result.inputs else None
        if tensor is not None and tensor.shape.rank == 0 and not tensor.shape.rank_is_dynamic:
            return Shape.static([1])  # scalar slices concatenate as [1]
        return None if tensor is None else tensor.shape
    index = entry.external_port
    tensor = input_types[index] if 0 <= index < len(input_types) else None
    return None if tensor is None else tensor.shape


def _check_purpose(
    node: Node, body: Body, entry: PortMapEntry, purposes: dict[str, PortMapEntry], error: Report
) -> None:
    where = node.location
    what = f"<{body.port_map_tag}> {entry.describe()}"
    if not (isinstance(node.op, SubGraphOp) and node.op.special_ports):
        error(CODE, f"{what} has purpose {entry.purpose!r}; only Loop has special body ports", where)
        return
    expected = PURPOSES[entry.output]
    if entry.purpose != expected:
        direction = "output" if entry.output else "input"
        error(CODE, f"{what} has purpose {entry.purpose!r}; a Loop {direction} special body port is {expected!r}",
              where)
        return
    if entry.purpose in purposes:
        error(CODE, f"{what}: a second entry with purpose {entry.purpose!r}", where)
    purposes[entry.purpose] = entry


def _check_special_ports(
    node: Node, body: Body, purposes: dict[str, PortMapEntry], error: Report, warning: Report
) -> None:
    where = node.location
    condition = purposes.get(EXECUTION_CONDITION)
    if condition is None:
        warning(CODE, "Loop has no execution_condition special body port (special_body_ports): OpenVINO cannot "
                "infer its outputs", where)
    iteration = purposes.get(CURRENT_ITERATION)
    if iteration is not None and iteration.internal_layer_id in body.model:
        parameter = body.model.node(iteration.internal_layer_id)
        shape = getattr(parameter.op, "shape", None)
        if isinstance(shape, Shape) and not shape.rank_is_dynamic and shape.rank > 1:
            error(CODE, f"the current_iteration body Parameter {parameter.name!r} has rank {shape.rank}; "
                  "it must be 0 or 1 (OpenVINO: 'Rank of CurrentIteration input must be equal to 0 or 1')", where)


def _check_outer_ports(node: Node, op: SubGraphOp, error: Report) -> None:
    """Every outer input (but Loop's trip count and condition, If's condition) and output is in the port map."""
    where = node.location
    for body in node.bodies:
        if body.port_map is None:
            continue
        mapped_outputs = {entry.external_port for entry in body.outputs if entry.purpose is None}
        for index in range(node.num_outputs):
            if index not in mapped_outputs:
                error(CODE, f"output {index} of the layer is not in <{body.port_map_tag}>: no body Result gives it",
                      where)
    mapped = op.mapped_inputs(node)
    for index in range(op.first_body_input, node.num_inputs):
        if index not in mapped:
            error(CODE, f"input {index} of the layer is not in the port map: it feeds no body Parameter "
                  "(OpenVINO: 'Number of inputs must be the same as number of input descriptions')", where)


def _negative_axes(node: Node) -> bool:
    """Whether ``node``'s op takes a slicing axis counted from the end (Loop)."""
    return isinstance(node.op, SubGraphOp) and node.op.negative_axes
