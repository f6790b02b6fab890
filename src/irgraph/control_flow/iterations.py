"""Running TensorIterator-1 and Loop-5: the iterations of one body, the port map worked out once.

Semantics follow openvino 2026.4.1's CPU plugin (``tensoriterator.cpp``), the oracle of the tests:

* A sliced input is cut along ``axis`` into parts of ``|stride|`` (``part_size`` must equal it),
  first to last, or last to first when ``stride`` < 0; the range (``start``, ``end``) must cover
  the whole axis (the plugin gives wrong values for a partial range). A TensorIterator runs once
  per part (its sliced inputs must agree), or without sliced inputs as often as a concatenated
  output's static size says, else once. A Loop takes start 0, stride 1, part_size 1 and end -1
  only (OpenVINO's Loop refuses others), and may stop before its slices run out, not after.
* A concatenated output joins each iteration's value along ``axis`` (reversed when ``stride`` <
  0); every iteration must give ``|stride|`` along the axis and the same shape (the plugin
  refuses otherwise). A last-iteration output is the value of the last iteration.
* Loop: the trip count (input 0; negative: no limit) and the execution condition (input 1) are
  read at run time; the body condition Result (``execution_condition``) is read after each
  iteration; the ``current_iteration`` Parameter gets the iteration number. Unlike the plugin,
  an int64 trip count is not cut to 32 bits. A Loop that runs no iteration gives the initial
  value for an output fed back by a back edge, zeros for other last-iteration outputs (the plugin
  leaves that memory unwritten) and empty concatenated outputs, of the layer's inferred output
  types with unknown dims 0 (a constant false condition infers [0, ...]).

Every body execution counts against the run's budget (:mod:`irgraph.control_flow.bodies`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from irgraph.control_flow.bodies import MakeInterpreter, Program, check_type, current_budget, in_body, one_element, want
from irgraph.control_flow.inference import result_constant
from irgraph.core.errors import EvaluationError, IrError, OpError, ResourceLimitError
from irgraph.graph import Body, Node, PortMapEntry
from irgraph.graph.subgraph import CURRENT_ITERATION, EXECUTION_CONDITION
from irgraph.ops import Parameter
from irgraph.ops.plan_step import PlanStep

__all__ = ["Iterations"]


class _Sliced:
    """A sliced input (or the plan of a concatenated output): axis, part length and direction."""

    __slots__ = ("entry", "slot", "port", "loop")

    def __init__(self, entry: PortMapEntry, slot: int | None, loop: bool) -> None:
        self.entry = entry
        self.slot = slot
        self.port = entry.external_port
        self.loop = loop
        stride = 1 if entry.stride is None else entry.stride
        part_size = 1 if entry.part_size is None else entry.part_size
        if loop and (entry.start not in (None, 0) or stride != 1 or part_size != 1 or entry.end not in (None, -1)):
            raise OpError(f"{entry.describe()} has start {entry.start}, stride {stride}, part_size {part_size} and end "
                          f"{entry.end}: a Loop slices and concatenates with start 0, stride 1, part_size 1 and end -1 "
                          "only (openvino 2026.4.1 refuses to build others and runs them wrongly from a file)")
        if stride == 0:
            raise OpError(f"{entry.describe()} has stride 0 (an endless iteration)")
        if part_size != abs(stride):
            raise OpError(f"{entry.describe()} has part_size {part_size} and stride {stride}: irgraph (as openvino "
                          "2026.4.1's CPU plugin) takes parts of |stride| elements, so they must be equal")

    @property
    def stride(self) -> int:
        return 1 if self.entry.stride is None else self.entry.stride

    def axis(self, rank: int) -> int:
        axis = self.entry.axis
        assert axis is not None
        low = -rank if self.loop else 0
        if not low <= axis < rank:
            raise OpError(f"{self.entry.describe()} axis {axis} is out of the range [{low}, {rank - 1}] of a "
                          f"rank-{rank} value")
        return axis + rank if axis < 0 else axis

    def range(self, size: int, what: str) -> tuple[int, int]:
        """The range (``start``, ``end``) of an axis of ``size`` as openvino's ``getNumIterations`` reads it
        (a negative bound counts from ``size + 1``), checked to hold a whole number of parts."""
        entry = self.entry
        start = 0 if entry.start is None else entry.start
        end = -1 if entry.end is None else entry.end
        first = start + size + 1 if start < 0 else start
        last = end + size + 1 if end < 0 else end
        step = abs(self.stride)
        low, high = (last, first) if self.stride < 0 else (first, last)
        if low < 0 or high > size or high - low < step:
            raise OpError(f"{entry.describe()}: start {start}, end {end} and stride {self.stride} make no range of "
                          f"{what} (size {size} along the axis)")
        if (high - low) % step:
            raise OpError(f"{entry.describe()}: the range {low}..{high} of {what} does not divide into parts of "
                          f"{step}")
        return low, high

    def parts(self, value: np.ndarray) -> tuple[int, Callable[[int], np.ndarray]]:
        """The number of parts of ``value`` and a function giving part ``i`` (a view) in iteration order."""
        if value.ndim == 0:
            raise OpError(f"{self.entry.describe()} slices a scalar")
        axis = self.axis(value.ndim)
        size = value.shape[axis]
        low, high = self.range(size, f"input {self.port}")
        if high - low != size:
            raise OpError(f"{self.entry.describe()}: the range {low}..{high} covers part of the axis (size {size}); "
                          "irgraph slices whole axes only (openvino 2026.4.1's CPU plugin gives wrong values for a "
                          "partial range)")
        step = abs(self.stride)
        count = size // step
        head = (slice(None),) * axis
        if self.stride > 0:
            return count, lambda i: value[(*head, slice(i * step, (i + 1) * step))]
        return count, lambda i: value[(*head, slice(size - (i + 1) * step, size - i * step))]


def _constant_true(body: Body, result_id: int) -> bool:
    """Whether body Result ``result_id`` gives a one-element Const true: such a body condition never stops a Loop,
    which then runs as many iterations as its trip count says (and is refused before the first when they are too
    many, not after the iteration limit's worth)."""
    value = result_constant(body.model, body.model.node(result_id))
    return value is not None and bool(value[0])


class Iterations(PlanStep):
    """TensorIterator-1 and Loop-5: the port map worked out once; ``evaluate`` runs the iterations."""

    loop = False
    """Loop-5's rules (negative axes, unit slices only, the execution condition) rather than TensorIterator-1's."""

    def __init__(self, node: Node, make_interpreter: MakeInterpreter) -> None:
        self.node = node
        body = next(body for body in node.bodies if body.tag == "body")  # inference checked it is there
        program = self.program = Program(body, node, make_interpreter)
        interpreter = program.interpreter
        self.iteration_limit = interpreter.iteration_limit
        self.element_limit = interpreter.element_limit
        try:
            self._plan(body, program)
        except OpError as err:
            raise EvaluationError(err.message, node.location) from None

    def _plan(self, body: Body, program: Program) -> None:
        wanted: list[int] = []
        fed_back = {edge.to_layer: edge.from_layer for edge in body.back_edges}
        self.invariant: list[tuple[int, int]] = []
        """(body slot, outer input) of inputs given whole to every iteration."""
        self.carried: list[tuple[int, int, int]] = []
        """(body slot, outer input of its first value, position of the back edge's Result in ``wanted``)."""
        self.sliced: list[_Sliced] = []
        self.current_iteration: tuple[int, np.dtype, tuple[int, ...]] | None = None
        self.condition: int | None = None
        self.input_checks: list[tuple[int, tuple[np.dtype, str] | None]] = []
        """(outer input, its check) of every input a body Parameter gets: its element type must be declared."""
        self.back_edge_checks: list[tuple[np.dtype, str] | None] = []
        """The check of each carried value's back edge (in ``carried`` order)."""
        initial: dict[int, int] = {}
        for entry in body.inputs:
            if entry.purpose == CURRENT_ITERATION:
                self.current_iteration = self._iteration_counter(program, entry)
            elif entry.external_port < 0:
                continue
            elif entry.sliced:
                self.sliced.append(_Sliced(entry, program.parameter(entry), self.loop))
                self.input_checks.append((entry.external_port, program.type_check(
                    entry.internal_layer_id, f"<{body.port_map_tag}> {entry.describe()}")))
            elif entry.internal_layer_id in fed_back:
                initial[entry.internal_layer_id] = entry.external_port
                self.input_checks.append((entry.external_port, program.type_check(
                    entry.internal_layer_id, f"<{body.port_map_tag}> {entry.describe()}")))
            else:
                self.invariant.append((program.parameter(entry), entry.external_port))
                self.input_checks.append((entry.external_port, program.type_check(
                    entry.internal_layer_id, f"<{body.port_map_tag}> {entry.describe()}")))
        for edge in body.back_edges:
            slot = program.parameter_slots.get(edge.to_layer)
            if slot is None:
                raise OpError(f"<back_edges> edge to-layer {edge.to_layer} is not a body Parameter")
            if self.current_iteration is not None and slot == self.current_iteration[0]:
                continue  # the plugin writes the iteration number there whatever the back edge says
            if edge.to_layer not in initial:
                raise OpError(f"<back_edges> edge to-layer {edge.to_layer} names a body Parameter no port map input "
                              "gives a first value")
            self.carried.append((slot, initial[edge.to_layer], want(wanted, program.result(edge.from_layer))))
            self.back_edge_checks.append(program.type_check(
                edge.to_layer, f"<back_edges> edge from body layer {edge.from_layer} to body layer {edge.to_layer}"))
        self.input_checks = [(port, check) for port, check in self.input_checks if check is not None]
        self.last: list[tuple[int, int, int]] = []
        """(outer output, position in ``wanted``, body Result id) of last-iteration outputs."""
        self.concatenated: list[tuple[int, int, _Sliced, int]] = []
        """(outer output, position in ``wanted``, its slicing, body Result id) of concatenated outputs."""
        for entry in body.outputs:
            slot = program.result(entry.internal_layer_id)
            if entry.purpose == EXECUTION_CONDITION:
                if self.loop and not _constant_true(body, entry.internal_layer_id):
                    self.condition = want(wanted, slot)
            elif entry.external_port < 0:
                continue
            elif entry.sliced:
                self.concatenated.append((entry.external_port, want(wanted, slot), _Sliced(entry, None, self.loop),
                                          entry.internal_layer_id))
            else:
                self.last.append((entry.external_port, want(wanted, slot), entry.internal_layer_id))
        bound = {slot for slot, _ in self.invariant} | {slot for slot, _, _ in self.carried}
        bound |= {sliced.slot for sliced in self.sliced if sliced.slot is not None}  # inputs: all have a slot
        if self.current_iteration is not None:
            bound.add(self.current_iteration[0])
        program.check_bound(bound)
        self.wanted = wanted
        self.back_edge_results = {edge.from_layer: initial.get(edge.to_layer) for edge in body.back_edges}

    def _iteration_counter(self, program: Program, entry: PortMapEntry) -> tuple[int, np.dtype, tuple[int, ...]]:
        slot = program.parameter(entry)
        parameter = program.body.model._nodes[entry.internal_layer_id].op_as(Parameter)
        element_type = parameter.element_type
        if element_type.numpy_dtype is None or np.dtype(element_type.numpy_dtype).kind not in "iu":
            raise OpError(f"the current_iteration Parameter has element type {element_type}; it must be an integer")
        shape = parameter.shape
        dims = shape.to_tuple() if not shape.rank_is_dynamic and shape.is_static else ()
        if math.prod(dims) != 1:
            raise OpError(f"the current_iteration Parameter has shape {shape}; it must hold one element")
        return slot, np.dtype(element_type.numpy_dtype), dims

    # -------------------------------------------------------------------------------- the interpreter's op protocol

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Run the iterations; the outer outputs in order."""
        count, stoppable = self.count_iterations(inputs)
        for port, check in self.input_checks:
            check_type(inputs[port], check)
        budget = current_budget(self.iteration_limit)  # evaluated outside a run: its own budget
        earlier = budget.used
        if count > budget.limit - earlier and not stoppable:
            raise budget.exceeded(self.node, f"run {count} iterations", earlier)
        slices = []
        available = -1
        for sliced in self.sliced:
            part_count, part = sliced.parts(np.asarray(inputs[sliced.port]))
            available = part_count if available == -1 else min(available, part_count)  # a Loop stops at the shortest
            assert sliced.slot is not None  # an input's _Sliced always has its Parameter's slot (None: outputs)
            slices.append((sliced.slot, part))
        # One list of body inputs, updated in place: invariants, then carried values, then slices, then the counter.
        slots = [slot for slot, _ in self.invariant] + [slot for slot, _, _ in self.carried]
        slots += [slot for slot, _ in slices]
        bound: list[Any] = [inputs[port] for _, port in self.invariant]
        carried_from = len(bound)
        bound += [inputs[port] for _, port, _ in self.carried]
        carried_results = [position for _, _, position in self.carried]
        back_edge_checks = self.back_edge_checks
        sliced_from = len(bound)
        bound += [None] * len(slices)
        parts = [part for _, part in slices]
        counter = self.current_iteration
        if counter is not None:
            slots.append(counter[0])
            bound.append(None)
            counter_dtype, counter_shape = counter[1], counter[2]
        condition = self.condition
        program = self.program
        run = program.run
        wanted = self.wanted
        concatenated = self.concatenated
        gathered: list[list[np.ndarray]] = [[] for _ in concatenated]
        totals = [0] * len(concatenated)
        element_limit = self.element_limit
        outputs: list[np.ndarray] | None = None
        iteration = 0
        while iteration != count:
            if budget.used >= budget.limit:
                raise budget.exceeded(self.node, f"run {count if count >= 0 else f'more than {iteration}'} iterations",
                                      budget.used - iteration)
            budget.used += 1
            if iteration == available and slices:
                raise OpError(f"{self.node.op.title()} would run iteration {iteration + 1} but its sliced inputs have "
                              f"{available} parts (openvino 2026.4.1's CPU plugin refuses too)")
            for index, part in enumerate(parts, sliced_from):
                bound[index] = part(iteration)
            if counter is not None:
                bound[-1] = np.array(iteration, counter_dtype).reshape(counter_shape)
            try:
                outputs = run(slots, bound, wanted, iteration)
            except IrError as err:
                raise in_body(err, program.body, self.node, iteration) from None
            for index, (_, position, sliced, _) in enumerate(concatenated):
                value = outputs[position]
                joined = gathered[index]
                if joined:
                    if value.shape != joined[0].shape:
                        raise self._uneven(sliced, joined[0], value, iteration)
                else:
                    self._check_part(sliced, value, iteration)
                totals[index] += value.size
                if totals[index] > element_limit:
                    raise ResourceLimitError(
                        f"output {sliced.entry.external_port} (concatenated) would have more than {element_limit} "
                        f"elements after iteration {iteration}, above the limit of {element_limit}")
                joined.append(value)
            for index, position in enumerate(carried_results, carried_from):
                bound[index] = outputs[position]
                check_type(bound[index], back_edge_checks[index - carried_from], iteration)
            iteration += 1
            if condition is not None and not bool(one_element(outputs[condition], "the body condition")[0]):
                break
        return self._outputs(outputs, gathered, inputs)

    def count_iterations(self, inputs: Sequence[np.ndarray]) -> tuple[int, bool]:
        """(the most iterations to run, -1 for no bound; whether the body condition can stop them)."""
        raise NotImplementedError

    @staticmethod
    def _check_part(sliced: _Sliced, value: np.ndarray, iteration: int) -> None:
        rank = max(value.ndim, 1)
        axis = sliced.axis(rank)
        size = 1 if value.ndim == 0 else value.shape[axis]
        if size != abs(sliced.stride):
            raise OpError(f"{sliced.entry.describe()} concatenates {size} along axis {axis} at iteration "
                          f"{iteration}; each iteration must give |stride| = {abs(sliced.stride)} (openvino "
                          "2026.4.1's CPU plugin refuses too)")

    @staticmethod
    def _uneven(sliced: _Sliced, first: np.ndarray, value: np.ndarray, iteration: int) -> OpError:
        return OpError(f"{sliced.entry.describe()}: iteration {iteration} gives shape "
                       f"[{','.join(map(str, value.shape))}] but iteration 0 gave "
                       f"[{','.join(map(str, first.shape))}]; concatenated parts must have one shape")

    def _outputs(
        self, last: list[np.ndarray] | None, gathered: list[list[np.ndarray]], inputs: Sequence[np.ndarray]
    ) -> list[np.ndarray]:
        produced: dict[int, np.ndarray] = {}
        for port, position, result_id in self.last:
            if last is not None:
                produced[port] = last[position]
            else:
                initial = self.back_edge_results.get(result_id)
                produced[port] = self._zeros(port) if initial is None else np.asarray(inputs[initial])
        for (port, _, sliced, _), parts in zip(self.concatenated, gathered, strict=True):
            if not parts:
                empty = self._zeros(port)  # inference gives a concatenated output rank 1 at least
                shape = list(empty.shape)
                shape[sliced.axis(len(shape))] = 0
                produced[port] = np.zeros(shape, empty.dtype)
                continue
            if parts[0].ndim == 0:
                parts = [part.reshape(1) for part in parts]
            if sliced.stride < 0:
                parts = parts[::-1]
            produced[port] = np.concatenate(parts, axis=sliced.axis(parts[0].ndim))
        missing = [port for port in range(self.node.num_outputs) if port not in produced]
        if missing:  # inference refuses such a layer first
            raise OpError(f"output {missing[0]} of the layer has no port map output entry")
        return [produced[port] for port in range(self.node.num_outputs)]

    def _zeros(self, port: int) -> np.ndarray:
        """Zeros of outer output ``port``'s inferred type, unknown dims 0 (what a Loop of no iteration gives)."""
        tensor = self.node.outputs[port].type
        assert tensor is not None  # inferred when the Interpreter was prepared
        dims = () if tensor.shape.rank_is_dynamic else tuple(d.value if d.is_static else 0 for d in tensor.shape)
        return np.zeros(dims, tensor.element_type.numpy_dtype)

