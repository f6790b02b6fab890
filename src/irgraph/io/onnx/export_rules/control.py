"""If, Loop and TensorIterator: ONNX If and Loop with body graphs that read the layer's inputs from the
enclosing scope.

If: a branch's body Parameters become the outer tensors their port map entries name (ONNX branches have
no inputs), its Results the branch outputs in the If's output order.

Loop-5 and TensorIterator-1 become an ONNX Loop. ONNX's body takes the iteration number, the condition and
the carried values (IR's back edges, first values from the layer's inputs) and gives the condition, the
carried values and the scan outputs. A Loop's trip count and execution condition are ONNX's M and cond (a
negative trip count is no limit); a TensorIterator's M is the number of parts of its sliced inputs. A body
Parameter given whole reads the outer tensor; a sliced one a ``Slice`` of it at the iteration's part (from
the end for a negative stride); ``current_iteration`` the iteration number cast to its type. A value of the
last iteration that no back edge carries is carried from zeros (irgraph's value when nothing runs). A
concatenated output is ONNX's stack of the iterations' values along a new axis 0, reversed for a negative
stride, moved to the output's axis and merged with the part's own axis there.
"""

from __future__ import annotations

import numpy as np

from irgraph.control_flow import If, Loop, TensorIterator
from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Shape
from irgraph.graph import Node, OutputPort, PortMapEntry
from irgraph.graph.subgraph import CURRENT_ITERATION, EXECUTION_CONDITION
from irgraph.io.onnx.common import port_type
from irgraph.io.onnx.export_rules.patterns import int64_input, onnx_type_code
from irgraph.io.onnx.export_rules.registry import ExportContext, exports


@exports(If)
def if_(node: Node, op: If, ctx: ExportContext) -> list:
    """If(cond) with both bodies as branches."""
    names = ctx.inputs(node)
    outputs = ctx.outputs(node)
    branches = {}
    for body in node.bodies:
        outer = {entry.internal_layer_id: names[entry.external_port] for entry in body.inputs
                 if entry.external_port >= 0}
        by_port = {entry.external_port: entry.internal_layer_id for entry in body.outputs}
        missing = [index for index in range(len(outputs)) if index not in by_port]
        if missing:
            raise ctx.refuse(f"<{body.tag}> gives no value for outputs {missing}")
        branches[body.tag] = ctx.body_graph(node, body, outer, [by_port[i] for i in range(len(outputs))])
    return [ctx.make(node, "If", [names[0]], outputs, then_branch=branches["then_body"],
                     else_branch=branches["else_body"])]


# ------------------------------------------------------------------------------------ Loop, TensorIterator
_INT64_MAX = 2**63 - 1
_INT64_MIN = -(2**63)


class _LoopExport:
    """One Loop-5 or TensorIterator-1 layer as an ONNX Loop (module docstring): the body's inputs, prelude and
    outputs, the nodes before the Loop (trip count, condition) and after it (last values, concatenations)."""

    def __init__(self, node: Node, ctx: ExportContext) -> None:
        self.node = node
        self.ctx = ctx
        self.is_loop = isinstance(node.op, Loop)
        self.body = next(body for body in node.bodies if body.tag == "body")
        self.names = ctx.inputs(node)
        self.before: list = []
        """Outer nodes that run before the Loop."""
        self.prelude: list = []
        """Body nodes that run before the body's own (the counter, the slices)."""
        self.outer: dict[int, str] = {}
        self.iteration = ctx.temp(node, "iteration")
        self.condition = ctx.temp(node, "condition")
        self.first_sliced: tuple[int, int, int] | None = None
        """(input port, axis, |stride|) of the first sliced input: a TensorIterator's iteration count."""

    def int64(self, step: str, values: object) -> str:
        return self.ctx.initializer(self.node, step, np.asarray(values, np.int64))

    def op(self, into: list, op_type: str, inputs: list[str], step: str, **attributes: object) -> str:
        out = self.ctx.temp(self.node, step)
        into.append(self.ctx.make(self.node, op_type, inputs, [out], step=step, **attributes))
        return out

    # -------------------------------------------------------------------------------- body inputs
    def counter(self, entry: PortMapEntry) -> None:
        """The current_iteration Parameter: ONNX's int64 scalar iteration number cast and shaped as it is declared."""
        parameter_type = port_type(self.body.model, OutputPort(entry.internal_layer_id, 0))
        name = self.iteration
        if parameter_type.element_type is not ElementType.I64:
            name = self.op(self.prelude, "Cast", [name], "iteration_cast",
                           to=onnx_type_code(parameter_type.element_type))
        if not parameter_type.shape.rank_is_dynamic and parameter_type.shape.rank == 1:
            name = self.op(self.prelude, "Unsqueeze", [name, self.int64("iteration_axes", [0])], "iteration_1d")
        self.outer[entry.internal_layer_id] = name

    def whole_axis(self, entry: PortMapEntry, size: int | None, what: str) -> int:
        """|stride| of a sliced input or concatenated output, refused unless it covers the whole axis in parts of
        |stride| (irgraph and openvino 2026.4.1's CPU plugin run no other range)."""
        stride = 1 if entry.stride is None else entry.stride
        part_size = abs(stride) if entry.part_size is None else entry.part_size
        start = (0 if stride > 0 else -1) if entry.start is None else entry.start
        end = (-1 if stride > 0 else 0) if entry.end is None else entry.end
        if stride == 0 or part_size != abs(stride):
            raise self.ctx.refuse(f"{entry.describe()} has stride {stride} and part_size {part_size}; only parts of "
                                  "|stride| run")
        if size is None:
            whole = (start, end) == ((0, -1) if stride > 0 else (-1, 0))
        else:
            first = start + size + 1 if start < 0 else start
            last = end + size + 1 if end < 0 else end
            whole = sorted((first, last)) == [0, size] and (first < last) == (stride > 0) and size % abs(stride) == 0
        if not whole:
            raise self.ctx.refuse(f"{entry.describe()}: start {start}, end {end}, stride {stride} do not cover the "
                                  f"whole axis of {what} in parts of {abs(stride)}; irgraph runs no other range")
        return abs(stride)

    def axis(self, entry: PortMapEntry, rank: int) -> int:
        axis = entry.axis
        assert axis is not None
        low = -rank if self.is_loop else 0
        if not low <= axis < rank:
            raise self.ctx.refuse(f"{entry.describe()} axis {axis} is out of the range [{low}, {rank - 1}]")
        return axis + rank if axis < 0 else axis

    def sliced(self, entry: PortMapEntry) -> None:
        """A sliced input: ``Slice`` of the outer tensor at the iteration's part (from the end for a negative
        stride)."""
        port = entry.external_port
        shape = self.ctx.input_type(self.node, port).shape
        if shape.rank_is_dynamic or shape.rank == 0:
            raise self.ctx.refuse(f"{entry.describe()} slices input {port} of shape {shape}; the export needs a "
                                  "known rank of at least 1")
        axis = self.axis(entry, shape.rank)
        dim = shape[axis]
        step = self.whole_axis(entry, dim.value if dim.is_static else None, f"input {port}")
        source = self.names[port]
        if self.first_sliced is None:
            self.first_sliced = (port, axis, step)
        tag = f"slice{port}"
        start = self.iteration if step == 1 else self.op(self.prelude, "Mul", [self.iteration,
                                                                               self.int64(f"{tag}_step", step)],
                                                          f"{tag}_offset")
        start = self.op(self.prelude, "Unsqueeze", [start, self.int64(f"{tag}_axes", [0])], f"{tag}_start")
        if entry.stride is not None and entry.stride < 0:  # part i counts from the end
            size = self.size(source, axis, tag)
            end = self.op(self.prelude, "Sub", [size, start], f"{tag}_end")
            start = self.op(self.prelude, "Sub", [end, self.int64(f"{tag}_part", [step])], f"{tag}_first")
        else:
            end = self.op(self.prelude, "Add", [start, self.int64(f"{tag}_part", [step])], f"{tag}_end")
        self.outer[entry.internal_layer_id] = self.op(self.prelude, "Slice", [source, start, end,
                                                                              self.int64(f"{tag}_axis", [axis])], tag)

    def size(self, source: str, axis: int, tag: str) -> str:
        """The [1] int64 size of ``source`` along ``axis``, computed before the Loop."""
        shape = self.op(self.before, "Shape", [source], f"{tag}_shape")
        return self.op(self.before, "Slice", [shape, self.int64(f"{tag}_at", [axis]),
                                              self.int64(f"{tag}_after", [axis + 1])], f"{tag}_size")

    # -------------------------------------------------------------------------------- trip count, condition
    def trip_count(self) -> str:
        """ONNX M: a Loop's trip count (int64 scalar; '' when negative, ONNX's 'no limit'), a TensorIterator's
        number of parts."""
        node, ctx = self.node, self.ctx
        if not self.is_loop:
            return self.parts()
        value = ctx.constant(node, 0)
        if value is not None:
            count = int(np.asarray(value).reshape(-1)[0])
            return "" if count < 0 else self.int64("trip_count", count)
        made: list = []
        trip = int64_input(ctx, node, 0, "trip", made)
        self.before.extend(made)
        trip = self.op(self.before, "Reshape", [trip, self.int64("trip_scalar", np.zeros(0, np.int64))], "trip_scalar")
        negative = self.op(self.before, "Less", [trip, self.int64("zero", 0)], "trip_negative")
        return self.op(self.before, "Where", [negative, self.int64("unbounded", _INT64_MAX), trip], "trip_count")

    def parts(self) -> str:
        """A TensorIterator's iteration count: the parts of its first sliced input, else of a static concatenated
        output, else 1 (as irgraph and openvino 2026.4.1's CPU plugin count)."""
        if self.first_sliced is not None:
            port, axis, step = self.first_sliced
            shape = self.ctx.input_type(self.node, port).shape
            if shape[axis].is_static:
                return self.int64("trip_count", shape[axis].value // step)
            size = self.size(self.names[port], axis, "parts")
            count = self.op(self.before, "Div", [size, self.int64("parts_step", [step])], "parts_count")
            return self.op(self.before, "Reshape", [count, self.int64("parts_scalar", np.zeros(0, np.int64))],
                           "trip_count")
        for entry in self.body.outputs:
            if entry.sliced and entry.external_port >= 0:
                shape = self.ctx.output_type(self.node, entry.external_port).shape
                if shape.rank_is_dynamic:
                    continue
                dim = shape[self.axis(entry, shape.rank)]
                if dim.is_static:
                    return self.int64("trip_count", dim.value // abs(entry.stride or 1))
        return self.int64("trip_count", 1)

    def initial_condition(self) -> str:
        """ONNX cond: a Loop's execution condition as a boolean scalar ('' when a constant true)."""
        if not self.is_loop:
            return ""
        value = self.ctx.constant(self.node, 1)
        if value is not None:
            return "" if bool(np.asarray(value).reshape(-1)[0]) else \
                self.ctx.initializer(self.node, "condition_false", np.asarray(False))
        return self.op(self.before, "Reshape", [self.names[1], self.int64("condition_scalar",
                                                                          np.zeros(0, np.int64))],
                       "condition_scalar")

    # -------------------------------------------------------------------------------- the export
    def build(self) -> list:
        node, ctx, body = self.node, self.ctx, self.body
        fed_back = {edge.to_layer: edge.from_layer for edge in body.back_edges}
        initial: dict[int, int] = {}
        counter_id = None
        for entry in body.inputs:
            if entry.purpose == CURRENT_ITERATION:
                if self.is_loop:
                    counter_id = entry.internal_layer_id
                    self.counter(entry)
            elif entry.external_port < 0:
                continue
            elif entry.sliced:
                self.sliced(entry)
            elif entry.internal_layer_id in fed_back:
                initial[entry.internal_layer_id] = entry.external_port
            else:
                self.outer[entry.internal_layer_id] = self.names[entry.external_port]
        inputs: list[tuple[str, ElementType, list | None]] = [(self.iteration, ElementType.I64, []),
                                                              (self.condition, ElementType.BOOLEAN, [])]
        carried_initial: list[str] = []
        body_outputs: list[int | str] = []
        carried_results: list[int] = []
        for edge in body.back_edges:
            if edge.to_layer == counter_id:
                continue  # the iteration number wins, as in irgraph and openvino's CPU plugin
            if edge.to_layer not in initial:
                raise ctx.refuse(f"<back_edges> edge to-layer {edge.to_layer} names a body Parameter no port map "
                                 "input gives a first value")
            parameter_type = port_type(body.model, OutputPort(edge.to_layer, 0))
            name = ctx.temp(node, f"carried{edge.to_layer}")
            self.outer[edge.to_layer] = name
            inputs.append((name, parameter_type.element_type, _dims(parameter_type.shape)))
            carried_initial.append(self.names[initial[edge.to_layer]])
            carried_results.append(edge.from_layer)
        outputs = ctx.outputs(node)
        condition_result = next((entry.internal_layer_id for entry in body.outputs
                                 if entry.purpose == EXECUTION_CONDITION and self.is_loop), None)
        body_outputs.append(self.condition if condition_result is None else condition_result)
        body_outputs.extend(carried_results)
        final = [ctx.temp(node, f"final{index}") for index in range(len(carried_results))]
        after: list = []
        last_only: list[tuple[int, int]] = []
        concatenated: list[PortMapEntry] = []
        for entry in body.outputs:
            if entry.external_port < 0 or entry.purpose is not None:
                continue
            if entry.sliced:
                concatenated.append(entry)
            elif entry.internal_layer_id in carried_results:
                index = carried_results.index(entry.internal_layer_id)
                after.append(ctx.make(node, "Identity", [final[index]], [outputs[entry.external_port]],
                                      step=f"out{entry.external_port}"))
            else:
                last_only.append((entry.external_port, entry.internal_layer_id))
        for port, result_id in last_only:
            # A value of the last iteration only: carried from zeros (what irgraph gives for no iteration).
            output_type = ctx.output_type(node, port)
            if output_type.shape.rank_is_dynamic:
                raise ctx.refuse(f"output {port} has a dynamic rank; its zero first value needs a known one")
            zeros = np.zeros([d.value if d.is_static else 0 for d in output_type.shape],
                             output_type.element_type.numpy_dtype)
            name = ctx.temp(node, f"last{port}")
            ctx.explain(f"layer {node.id} {node.name!r}: output {port} (the last iteration's value) is an ONNX Loop "
                        "carried value starting from zeros (irgraph's value when no iteration runs)")
            inputs.append((name, output_type.element_type, None))
            carried_initial.append(ctx.initializer(node, f"last{port}_initial", zeros))
            body_outputs.append(result_id)
            final.append(outputs[port])
        stacked = []
        for entry in concatenated:
            body_outputs.append(entry.internal_layer_id)
            stacked.append(ctx.temp(node, f"stacked{entry.external_port}"))
            after.extend(self.concatenation(entry, stacked[-1], outputs[entry.external_port]))
        graph = ctx.body_graph(node, body, self.outer, body_outputs, inputs=inputs, prelude=self.prelude,
                               scalar_outputs=frozenset({0}))
        trip, condition = self.trip_count(), self.initial_condition()
        loop = ctx.make(node, "Loop", [trip, condition, *carried_initial], [*final, *stacked], body=graph)
        return [*self.before, loop, *after]

    def concatenation(self, entry: PortMapEntry, stacked: str, output: str) -> list:
        """ONNX stacks each iteration's value on a new axis 0: reversed for a negative stride, moved to the
        output's axis and merged with the part's own axis (a scalar's stack is the concatenation)."""
        body_model = self.body.model
        source = body_model.input_sources(body_model.node(entry.internal_layer_id))[0]
        assert source is not None
        part = port_type(body_model, source).shape
        if part.rank_is_dynamic:
            raise self.ctx.refuse(f"{entry.describe()} concatenates values of dynamic rank; the export needs the rank")
        rank = part.rank
        axis = self.axis(entry, max(rank, 1))
        dim = part[axis] if rank else None
        step = self.whole_axis(entry, None, f"output {entry.external_port}")
        if dim is not None and dim.is_static and dim.value != step:
            raise self.ctx.refuse(f"{entry.describe()} concatenates parts of {dim.value} along axis {axis}; each "
                                  f"iteration must give |stride| = {step} (irgraph and openvino 2026.4.1's CPU "
                                  "plugin refuse to run it)")
        made: list = []
        current = stacked
        tag = f"concat{entry.external_port}"
        if entry.stride is not None and entry.stride < 0:
            current = self.op(made, "Slice", [current, self.int64(f"{tag}_last", [-1]),
                                              self.int64(f"{tag}_before_first", [_INT64_MIN]),
                                              self.int64(f"{tag}_axis0", [0]), self.int64(f"{tag}_back", [-1])],
                              f"{tag}_reversed")
        if rank == 0:
            made.append(self.ctx.make(self.node, "Identity", [current], [output], step=tag))
            return made
        if axis:
            order = [*range(1, axis + 1), 0, *range(axis + 1, rank + 1)]
            current = self.op(made, "Transpose", [current], f"{tag}_moved", perm=order)
        if step == 1:
            made.append(self.ctx.make(self.node, "Squeeze", [current, self.int64(f"{tag}_part_axis", [axis + 1])],
                                      [output], step=tag))
            return made
        shape = self.op(made, "Shape", [current], f"{tag}_shape")
        merged = self.op(made, "Concat", [
            self.op(made, "Slice", [shape, self.int64(f"{tag}_0", [0]), self.int64(f"{tag}_a", [axis])], f"{tag}_head"),
            self.int64(f"{tag}_merged", [-1]),
            self.op(made, "Slice", [shape, self.int64(f"{tag}_b", [axis + 2]), self.int64(f"{tag}_end", [_INT64_MAX])],
                    f"{tag}_tail")], f"{tag}_target", axis=0)
        made.append(self.ctx.make(self.node, "Reshape", [current, merged], [output], step=tag))
        return made


def _dims(shape: Shape) -> list[int | None] | None:
    return None if shape.rank_is_dynamic else [d.value if d.is_static else None for d in shape]


@exports(Loop, TensorIterator)
def loop(node: Node, op: Loop | TensorIterator, ctx: ExportContext) -> list:
    """ONNX Loop (module docstring)."""
    return _LoopExport(node, ctx).build()
