"""ONNX -> IR rules for control flow: Loop -> Loop-5, If -> If-8, Scan -> TensorIterator-1.

Bodies are converted recursively, each into its own Model. ONNX bodies read outer-scope tensors by name; IR bodies
see only their Parameters, so every outer name a body reads becomes a body Parameter fed by an extra input of the
layer (an outer constant becomes a Const of its value in the body instead). Nested bodies capture through every
level between.

* Loop: ONNX's (M, cond, v...) and body (iteration_num, cond_in, v... -> cond_out, v..., scan...) map onto
  Loop-5's trip count (-1 without M), execution condition (true without cond), the current_iteration and
  execution_condition special ports, and back edges for cond and the carried values. ONNX stacks scan outputs on
  a new axis 0: each is unsqueezed in the body and concatenated on axis 0.
* If: both branches become then_body/else_body; the outer names either reads become inputs 1.. of If-8.
* Scan (opset 9 on): the states are carried by back edges; each scan input is sliced one element at a time along
  its axis (backwards for direction 1) and squeezed in the body; each scan output is unsqueezed at its axis and
  concatenated (backwards for direction 1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.control_flow import If, Loop, TensorIterator
from irgraph.core.element_types import ElementType
from irgraph.core.errors import IrError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.graph import BackEdge, Body, Node, OutputPort, PortMapEntry
from irgraph.graph.subgraph import CURRENT_ITERATION, EXECUTION_CONDITION
from irgraph.io.onnx.common import port_type
from irgraph.io.onnx.import_rules.registry import imports
from irgraph.ops import Const, Op, Parameter, Result
from irgraph.ops.shape.squeeze import Squeeze
from irgraph.ops.shape.unsqueeze import Unsqueeze

if TYPE_CHECKING:
    from irgraph.io.onnx.import_rules.registry import BodyImport, ImportContext

BOOLEAN_SCALAR = TensorType(ElementType.BOOLEAN, Shape(()))
I64_SCALAR = TensorType(ElementType.I64, Shape(()))


def _graph(context: ImportContext, name: str) -> Any:
    attributes = context.attributes({name: "GRAPH"})
    if name not in attributes:
        raise context.fail(f"the {name!r} attribute is required")
    return attributes[name]


def _result(body: BodyImport, port: OutputPort, name: str) -> int:
    """A body Result of ``port``; its id."""
    return body.model.add_node(Result(), name, [port]).id


def _body_op(body: BodyImport, op: Op, name: str, inputs: list[OutputPort]) -> OutputPort:
    return OutputPort(body.add(op, name, inputs).id, 0)


def _body_const(body: BodyImport, value: Any, name: str) -> OutputPort:
    array = np.asarray(value, dtype=np.int64)
    return OutputPort(body.add(Const(element_type=ElementType.I64, shape=array.shape, value=array), name, []).id, 0)


def _used(body: BodyImport, port: OutputPort) -> bool:
    return bool(body.model.consumers(port))


def _place(context: ImportContext, op: Op, inputs: list[OutputPort], bodies: list[Body], count: int) -> Node:
    try:
        return context.add_sub_graph(op, inputs, bodies, count)
    except IrError as err:
        raise context.fail(err.message) from None


def _name_outputs(context: ImportContext, node: Node) -> None:
    for index, name in enumerate(context.node.output):
        if name:
            context.bind(OutputPort(node.id, index), name)


def _body_type(body: BodyImport, index: int, outer: TensorType) -> TensorType:
    """A carried value's body Parameter type: the outer value's element type; its shape, unless the body declares
    a shape the outer one does not fit (a value that changes shape across iterations)."""
    declared = body.declared(index)
    if declared is None or declared.shape.rank_is_dynamic or declared.shape.compatible(outer.shape):
        return outer
    return TensorType(outer.element_type, declared.shape)


# ------------------------------------------------------------------------------------ Loop
@imports("Loop", versions=(1, 11, 13, 16, 19, 21, 23, 24, 25))
def loop(context: ImportContext) -> None:
    """Loop -> Loop-5 (module docstring)."""
    graph = _graph(context, "body")
    inputs = list(context.node.input)
    if len(inputs) < 2:
        raise context.fail(f"takes M, cond and the loop-carried values (M and cond may be empty names); got {inputs}")
    carried = [context.tensor(name) for name in inputs[2:]]
    if any(not name for name in inputs[2:]):
        raise context.fail(f"its loop-carried inputs must all be named; got {inputs[2:]}")
    count = len(carried)
    if len(graph.input) != count + 2:
        raise context.fail(f"its body takes {len(graph.input)} inputs; it needs {count + 2} (iteration_num, cond and "
                           f"{count} loop-carried values)")
    scans = len(graph.output) - 1 - count
    if scans < 0 or len(context.node.output) != count + scans:
        raise context.fail(f"its body gives {len(graph.output)} outputs and the node {len(context.node.output)}; a "
                           f"body gives cond, the {count} loop-carried values and the scan outputs, the node the "
                           "carried values and the scan outputs")
    trip = context.tensor(inputs[0]) if inputs[0] else context.const(-1, ElementType.I64,
                                                                               "trip_count")
    condition = context.tensor(inputs[1]) if inputs[1] else context.const(True,
                                                                                   ElementType.BOOLEAN, "cond")
    body = context.body(graph, f"{context.name}/body", f"{context.label} body")
    counter_type = body.declared(0) or I64_SCALAR
    if counter_type.element_type is not ElementType.I64:
        raise context.fail(f"its iteration_num input is {counter_type}; ONNX makes it int64")
    if not counter_type.shape.is_static:
        counter_type = I64_SCALAR
    counter = body.parameter(graph.input[0].name, counter_type)
    cond_in = body.parameter(graph.input[1].name, BOOLEAN_SCALAR)
    values = [body.parameter(graph.input[2 + i].name, _body_type(body, 2 + i, context.type_of(port)))
              for i, port in enumerate(carried)]
    outputs = body.convert_body()
    port_map: list[PortMapEntry] = []
    back_edges: list[BackEdge] = []
    layer_inputs = [trip, condition]
    # every Result first: a body output may be the iteration number or cond_in itself
    condition_result = _result(body, outputs[0], "cond_out")
    carried_results = [_result(body, port, f"carried{index}") for index, port in enumerate(outputs[1:1 + count])]
    scan_results = []
    for index, port in enumerate(outputs[1 + count:]):
        stacked = _body_op(body, Unsqueeze(), f"scan{index}/stacked", [port, _body_const(body, 0, f"scan{index}/axis")])
        scan_results.append(_result(body, stacked, f"scan{index}"))
    port_map.append(PortMapEntry(True, -1, condition_result, purpose=EXECUTION_CONDITION))
    if _used(body, counter):
        port_map.append(PortMapEntry(False, -1, counter.node_id, purpose=CURRENT_ITERATION))
    else:
        body.model.remove_node(counter.node_id)
    if _used(body, cond_in):
        layer_inputs.append(condition)  # cond_in starts as the cond input, then takes each cond_out
        port_map.append(PortMapEntry(False, len(layer_inputs) - 1, cond_in.node_id))
        back_edges.append(BackEdge(condition_result, cond_in.node_id))
    else:
        body.model.remove_node(cond_in.node_id)
    for index, (value, initial, result) in enumerate(zip(values, carried, carried_results, strict=True)):
        layer_inputs.append(initial)
        port_map.append(PortMapEntry(False, len(layer_inputs) - 1, value.node_id))
        back_edges.append(BackEdge(result, value.node_id))
        port_map.append(PortMapEntry(True, index, result))
    for index, result in enumerate(scan_results):
        port_map.append(PortMapEntry(True, count + index, result, axis=0, start=0, end=-1, stride=1, part_size=1))
    for name, outer in body.captured.items():
        layer_inputs.append(outer)
        port_map.append(PortMapEntry(False, len(layer_inputs) - 1, body.ports[name].node_id))
    node = _place(context, Loop(), layer_inputs, [Body("body", body.model, tuple(port_map), tuple(back_edges))],
                  count + scans)
    _name_outputs(context, node)
    context.explain(f"{context.label}: -> Loop-5 with {count} carried value(s) (back edges), {scans} scan output(s) "
                    f"(unsqueezed, concatenated on axis 0), {len(body.captured)} outer-scope input(s)"
                    f"{'' if inputs[0] else ', trip count -1 (no M)'}"
                    f"{'' if inputs[1] else ', condition true (no cond)'}")


# ------------------------------------------------------------------------------------ If
@imports("If", versions=(1, 11, 13, 16, 19, 21, 23, 24, 25))
def if_(context: ImportContext) -> None:
    """If -> If-8 (module docstring)."""
    attributes = context.attributes({"then_branch": "GRAPH", "else_branch": "GRAPH"})
    if set(attributes) != {"then_branch", "else_branch"}:
        raise context.fail("needs both then_branch and else_branch")
    names = [name for name in context.node.input if name]
    if len(names) != 1 or len(context.node.input) != 1:
        raise context.fail(f"takes one input, cond; got {list(context.node.input)}")
    condition = context.tensor(names[0])
    count = len(context.node.output)
    converted = []
    for tag, key in (("then_body", "then_branch"), ("else_body", "else_branch")):
        graph = attributes[key]
        if graph.input:
            raise context.fail(f"its {key} takes inputs; an If branch takes none")
        if len(graph.output) != count:
            raise context.fail(f"its {key} gives {len(graph.output)} outputs; the node has {count}")
        body = context.body(graph, f"{context.name}/{tag}", f"{context.label} {key}")
        converted.append((tag, body, body.convert_body()))
    layer_inputs = [condition]
    index_of: dict[str, int] = {}
    for _, body, _ in converted:
        for name, outer in body.captured.items():
            if name not in index_of:
                layer_inputs.append(outer)
                index_of[name] = len(layer_inputs) - 1
    bodies = []
    for tag, body, outputs in converted:
        entries = [PortMapEntry(False, index_of[name], body.ports[name].node_id) for name in body.captured]
        entries += [PortMapEntry(True, index, _result(body, port, f"out{index}")) for index, port in enumerate(outputs)]
        bodies.append(Body(tag, body.model, tuple(entries)))
    node = _place(context, If(), layer_inputs, bodies, count)
    _name_outputs(context, node)
    context.explain(f"{context.label}: -> If-8, {len(index_of)} outer-scope input(s) shared by the branches")


# ------------------------------------------------------------------------------------ Scan
@imports("Scan", versions=(8, 9, 11, 16, 19, 21, 23, 24, 25))
def scan(context: ImportContext) -> None:
    """Scan -> TensorIterator-1 (module docstring). Scan-8's batch axis and sequence_lens are refused."""
    if context.version == 8:
        raise context.fail("Scan-8 scans a batch with sequence_lens; irgraph converts Scan from opset 9 on")
    attributes = context.attributes({"body": "GRAPH", "num_scan_inputs": "INT", "scan_input_axes": "INTS",
                                     "scan_input_directions": "INTS", "scan_output_axes": "INTS",
                                     "scan_output_directions": "INTS"})
    graph = attributes.get("body")
    if graph is None or "num_scan_inputs" not in attributes:
        raise context.fail("needs the 'body' and 'num_scan_inputs' attributes")
    names = list(context.node.input)
    scans = attributes["num_scan_inputs"]
    states = len(names) - scans
    if scans < 1 or states < 0 or any(not name for name in names):
        raise context.fail(f"num_scan_inputs={scans} does not fit its named inputs {names}")
    outputs_count = len(graph.output) - states
    if len(graph.input) != len(names) or outputs_count < 0 or len(context.node.output) != len(graph.output):
        raise context.fail(f"its body takes {len(graph.input)} inputs and gives {len(graph.output)} outputs; the node "
                           f"has {len(names)} inputs and {len(context.node.output)} outputs")
    ports = [context.tensor(name) for name in names]

    def listed(key: str, size: int) -> list[int]:
        found = list(attributes.get(key, [0] * size))
        if len(found) != size:
            raise context.fail(f"{key} {found} must have {size} entries")
        return found

    in_axes, in_directions = listed("scan_input_axes", scans), listed("scan_input_directions", scans)
    out_axes, out_directions = listed("scan_output_axes", outputs_count), listed("scan_output_directions",
                                                                               outputs_count)
    if any(d not in (0, 1) for d in in_directions + out_directions):
        raise context.fail("scan directions must be 0 (forward) or 1 (reverse)")
    body = context.body(graph, f"{context.name}/body", f"{context.label} body")
    state_parameters = [body.parameter(graph.input[i].name, _body_type(body, i, context.type_of(ports[i])))
                        for i in range(states)]
    sliced = []
    for j in range(scans):
        outer = context.type_of(ports[states + j])
        if outer.shape.rank_is_dynamic:
            raise context.fail(f"scan input {names[states + j]!r} has a dynamic rank; irgraph needs its rank")
        rank = outer.shape.rank
        axis = in_axes[j] + rank if in_axes[j] < 0 else in_axes[j]
        if not 0 <= axis < rank:
            raise context.fail(f"scan_input_axes {in_axes[j]} is out of range for rank {rank}")
        part = body.add(_parameter_op(outer, axis), f"{graph.input[states + j].name}/part", [])
        part_port = OutputPort(part.id, 0)
        squeezed = body.add(Squeeze(), f"{graph.input[states + j].name}/slice",
                            [part_port, _body_const(body, [axis], f"{graph.input[states + j].name}/axis")])
        squeezed.outputs[0].tensor_names = [graph.input[states + j].name]
        body.ports[graph.input[states + j].name] = OutputPort(squeezed.id, 0)
        sliced.append((part.id, axis, in_directions[j]))
    outputs = body.convert_body()
    port_map: list[PortMapEntry] = []
    back_edges: list[BackEdge] = []
    for i, parameter in enumerate(state_parameters):
        port_map.append(PortMapEntry(False, i, parameter.node_id))
        result = _result(body, outputs[i], f"state{i}")
        back_edges.append(BackEdge(result, parameter.node_id))
        port_map.append(PortMapEntry(True, i, result))
    for j, (parameter_id, axis, direction) in enumerate(sliced):
        start, end, stride = (0, -1, 1) if direction == 0 else (-1, 0, -1)
        port_map.append(PortMapEntry(False, states + j, parameter_id, axis=axis, start=start, end=end, stride=stride,
                                     part_size=1))
    for k in range(outputs_count):
        value = port_type(body.model, outputs[states + k])
        if value.shape.rank_is_dynamic:
            raise context.fail(f"scan output {k} has a dynamic rank; irgraph needs it to place the scan axis")
        rank = value.shape.rank + 1
        axis = out_axes[k] + rank if out_axes[k] < 0 else out_axes[k]
        if not 0 <= axis < rank:
            raise context.fail(f"scan_output_axes {out_axes[k]} is out of range for rank {rank}")
        stacked = _body_op(body, Unsqueeze(), f"scan{k}/stacked", [outputs[states + k], _body_const(body, axis,
                                                                                                  f"scan{k}/axis")])
        result = _result(body, stacked, f"scan{k}")
        start, end, stride = (0, -1, 1) if out_directions[k] == 0 else (-1, 0, -1)
        port_map.append(PortMapEntry(True, states + k, result, axis=axis, start=start, end=end, stride=stride,
                                     part_size=1))
    layer_inputs = list(ports)
    for name, outer_port in body.captured.items():
        layer_inputs.append(outer_port)
        port_map.append(PortMapEntry(False, len(layer_inputs) - 1, body.ports[name].node_id))
    node = _place(context, TensorIterator(), layer_inputs,
                  [Body("body", body.model, tuple(port_map), tuple(back_edges))], states + outputs_count)
    _name_outputs(context, node)
    context.explain(f"{context.label}: -> TensorIterator-1 with {states} state(s) (back edges), {scans} sliced "
                    f"input(s) (squeezed in the body), {outputs_count} scan output(s) (unsqueezed, concatenated), "
                    f"{len(body.captured)} outer-scope input(s)")


def _parameter_op(outer: TensorType, axis: int) -> Parameter:
    return Parameter(shape=outer.shape.replace(axis, Dim.static(1)), element_type=outer.element_type)
