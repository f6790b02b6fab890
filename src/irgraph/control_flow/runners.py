"""Running TensorIterator-1, Loop-5 and If-8: their bodies run with the same Interpreter as the model.

When an :class:`~irgraph.runtime.interpreter.Interpreter` is prepared, each layer with bodies gets a
*runner* from :data:`RUNNERS` (keyed by op class) that stands for the op in the plan. The runner
prepares an Interpreter per body once (bodies inside bodies are prepared by those, in turn) and
works out once which body slots the port map binds; an iteration then binds the body's Parameters
and runs its plan, with no graph or dict work.

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
* If: the condition (input 0, one element) picks ``then_body`` or ``else_body``.

Bounded: one run executes at most ``iteration_limit`` bodies in all (every TensorIterator and Loop
iteration and If branch, at any nesting depth; :func:`run_budget` shares one budget between the
runs of a command, as ``ir-run --steps`` does), so nested Loops cannot multiply their counts. A
Loop whose count is known and above what is left is refused up front, any other when the budget
runs out, naming the layer. Concatenated outputs are counted against the element limit iteration
by iteration (before they are allocated), and bodies nest at most ``MAX_BODY_DEPTH`` deep.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from typing import Any, Protocol

import numpy as np

from irgraph.core.errors import EvaluationError, IrError, OpError, ResourceLimitError
from irgraph.core.limits import DEFAULT_ITERATION_LIMIT, MAX_BODY_DEPTH
from irgraph.graph import Body, Model, Node, OutputPort, PortMapEntry
from irgraph.graph.subgraph import CURRENT_ITERATION, EXECUTION_CONDITION
from irgraph.ops.condition.if_ import If
from irgraph.ops.infrastructure.loop import Loop
from irgraph.ops.infrastructure.tensor_iterator import TensorIterator
from irgraph.ops.plan_step import PlanStep

__all__ = ["RUNNERS", "BodyBudget", "BodyInterpreter", "body_runner", "run_budget"]


class BodyBudget:
    """The body executions one run (or one command's runs) may still make: see :func:`run_budget`."""

    __slots__ = ("limit", "used")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def exceeded(self, node: Node, what: str, earlier: int) -> ResourceLimitError:
        """The refusal of ``node``, which would ``what`` (``run 5 iterations``) after ``earlier`` other body
        executions of the run, past the limit."""
        after = f" after {earlier} other body executions in this run" if earlier else ""
        return ResourceLimitError(
            f"{node.op.title()} would {what}{after}, above the iteration limit of {self.limit} (sub-graph body "
            "executions per run, nested ones included; raise it with Interpreter(..., iteration_limit=N) or ir-run "
            "--iteration-limit N)")


_budget: ContextVar[BodyBudget | None] = ContextVar("irgraph_body_budget", default=None)
"""The budget of the run under way in this thread (None: no run, or one without bodies)."""


@contextlib.contextmanager
def run_budget(limit: int) -> Iterator[BodyBudget]:
    """One budget of ``limit`` body executions for every run inside the block (the runs of one command).

    Inside another such block (a body running, or ``ir-run --steps`` around its runs) the outer
    budget is the one used, so its limit holds for the whole.
    """
    current = _budget.get()
    if current is not None:
        yield current
        return
    current = BodyBudget(limit)
    token = _budget.set(current)
    try:
        yield current
    finally:
        _budget.reset(token)


class BodyInterpreter(Protocol):
    """What a runner asks of the Interpreter prepared for a body (``irgraph.runtime.interpreter.Interpreter``):
    a protocol, so control flow stays below the runtime that calls it."""

    element_limit: int
    iteration_limit: int
    _slots: dict[tuple[int, int], int]

    def _run_slots(self, slots: Sequence[int], bound: Sequence[Any], wanted: Sequence[int]) -> list[np.ndarray]: ...


MakeInterpreter = Callable[[Model], BodyInterpreter]

_prepared: ContextVar[dict[int, Any] | None] = ContextVar("irgraph_prepared_runners", default=None)
"""Runners prepared ahead for the layers (by ``id``) under the one being prepared (per thread)."""


def body_runner(node: Node, make_interpreter: MakeInterpreter) -> Any:
    """What runs ``node`` in a plan: a runner for a TensorIterator, Loop or If (its bodies prepared
    now with ``make_interpreter``), or the op itself for any other op a file gave bodies (they are
    ignored, as OpenVINO ignores them).

    Preparation does not recurse with the nesting: the layers with bodies under ``node`` are listed
    with an explicit stack and prepared deepest first, so a body's Interpreter finds the runners of
    its own layers ready. (Running recurses: a few Python frames per level, well within Python's
    limit at ``MAX_BODY_DEPTH``.)
    """
    prepared = _prepared.get()
    if prepared is not None and id(node) in prepared:
        return prepared.pop(id(node))
    if type(node.op) not in RUNNERS:  # every SubGraphOp class has a runner
        return node.op
    order: list[Node] = []
    stack = [(node, 1)]
    while stack:
        current, depth = stack.pop()
        if depth > MAX_BODY_DEPTH:
            raise ResourceLimitError(f"sub-graph bodies nest more than {MAX_BODY_DEPTH} levels deep; irgraph runs at "
                                     f"most {MAX_BODY_DEPTH}", current.location)
        order.append(current)
        for body in current.bodies:
            stack.extend((inner, depth + 1) for inner in body.model if inner.bodies and type(inner.op) in RUNNERS)
    prepared = {}
    token = _prepared.set(prepared)
    try:
        for current in reversed(order):  # every layer comes after the layers whose bodies hold it
            prepared[id(current)] = RUNNERS[type(current.op)](current, make_interpreter)
    finally:
        _prepared.reset(token)
    return prepared[id(node)]


# ------------------------------------------------------------------------------------ one body
class _Program:
    """One body, prepared once: its Interpreter and the slots of its Parameters and Results by layer id."""

    __slots__ = ("body", "owner", "interpreter", "parameter_dtypes", "parameter_slots", "result_slots")

    def __init__(self, body: Body, owner: Node, make_interpreter: MakeInterpreter) -> None:
        self.body = body
        self.owner = owner
        try:
            self.interpreter = make_interpreter(body.model)
        except IrError as err:
            raise _in_body(err, body, owner, None) from None
        slots = self.interpreter._slots
        model = body.model
        self.parameter_slots = {node.id: slots[(node.id, 0)] for node in model.parameters}
        self.parameter_dtypes = {node.id: _declared_dtype(node) for node in model.parameters}
        self.result_slots: dict[int, int] = {}
        for result in model.results:
            source = model.input_sources(result)[0]
            if source is not None:
                self.result_slots[result.id] = slots[(source.node_id, source.index)]

    def parameter(self, entry: PortMapEntry) -> int:
        """The slot of the body Parameter ``entry`` names."""
        slot = self.parameter_slots.get(entry.internal_layer_id)
        if slot is None:
            raise EvaluationError(f"<{self.body.tag}> {entry.describe()} names no body Parameter", self.owner.location)
        return slot

    def result(self, layer_id: int) -> int:
        """The slot of the value body Result ``layer_id`` gives (shape inference checked it names one)."""
        return self.result_slots[layer_id]

    def type_check(self, layer_id: int, what: str) -> tuple[np.dtype, str] | None:
        """What :func:`_check_type` needs to check values given to body Parameter ``layer_id`` (None: any type)."""
        dtype = self.parameter_dtypes.get(layer_id)
        if dtype is None:
            return None
        parameter = self.body.model.node(layer_id)
        return dtype, (f"{what} gives {{}}{{}} to body Parameter {layer_id} ({parameter.name!r}), which declares "
                       f"{parameter.op.element_type}; element types must match")  # type: ignore[attr-defined]

    def check_bound(self, bound: set[int]) -> None:
        """Refuse a body Parameter the body reads that no port map entry, back edge or special port gives."""
        model = self.body.model
        for parameter in model.parameters:
            if self.parameter_slots[parameter.id] not in bound and model.consumers(OutputPort(parameter.id, 0)):
                raise OpError(f"<{self.body.tag}> body Parameter {parameter.id} ({parameter.name!r}) gets no value: "
                              "no port map input, back edge or special port names it")


def _declared_dtype(parameter: Node) -> np.dtype | None:
    """The NumPy dtype of the values a body Parameter declares, None when it takes any (dynamic, strings)."""
    element_type = parameter.op.element_type  # type: ignore[attr-defined]
    if element_type.is_dynamic or element_type.numpy_dtype is None or np.dtype(element_type.numpy_dtype).kind in "OU":
        return None
    return np.dtype(element_type.numpy_dtype)


def _check_type(value: Any, check: tuple[np.dtype, str] | None, iteration: int | None = None) -> None:
    """Refuse a value for a body Parameter of another element type than it declares (shape inference refuses
    what it can see; this catches what only the run shows). ``check`` from :meth:`_Program.type_check`."""
    if check is not None and value.dtype != check[0]:
        when = "" if iteration is None else f" after iteration {iteration}"
        raise OpError(check[1].format(np.dtype(value.dtype).name, when))


def _in_body(err: IrError, body: Body, owner: Node, iteration: int | None) -> IrError:
    """``err`` (located at the body layer) with a message saying which layer's body and iteration it came from."""
    where = f"in <{body.tag}> of {owner.location.layer()}"
    if iteration is not None:
        where += f", iteration {iteration}"
    return type(err)(f"{where}: {err.message}", err.location)


def _want(wanted: list[int], slot: int) -> int:
    """The position of ``slot`` in ``wanted`` (added when new)."""
    if slot not in wanted:
        wanted.append(slot)
    return wanted.index(slot)


def _one_element(value: np.ndarray, what: str) -> np.ndarray:
    value = np.asarray(value)
    if value.size != 1:
        raise EvaluationError(f"{what} must hold one element; got shape [{','.join(map(str, value.shape))}]")
    return value.reshape(-1)


# ------------------------------------------------------------------------------------ TensorIterator, Loop
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


class _Iterations(PlanStep):
    """TensorIterator-1 and Loop-5: the port map worked out once; ``evaluate`` runs the iterations."""

    loop = False

    def __init__(self, node: Node, make_interpreter: MakeInterpreter) -> None:
        self.node = node
        body = next(body for body in node.bodies if body.tag == "body")  # inference checked it is there
        program = self.program = _Program(body, node, make_interpreter)
        interpreter = program.interpreter
        self.iteration_limit = interpreter.iteration_limit
        self.element_limit = interpreter.element_limit
        try:
            self._plan(body, program)
        except OpError as err:
            raise EvaluationError(err.message, node.location) from None

    def _plan(self, body: Body, program: _Program) -> None:
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
            self.carried.append((slot, initial[edge.to_layer], _want(wanted, program.result(edge.from_layer))))
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
                if self.loop:
                    self.condition = _want(wanted, slot)
            elif entry.external_port < 0:
                continue
            elif entry.sliced:
                self.concatenated.append((entry.external_port, _want(wanted, slot), _Sliced(entry, None, self.loop),
                                          entry.internal_layer_id))
            else:
                self.last.append((entry.external_port, _want(wanted, slot), entry.internal_layer_id))
        bound = {slot for slot, _ in self.invariant} | {slot for slot, _, _ in self.carried}
        bound |= {sliced.slot for sliced in self.sliced if sliced.slot is not None}  # inputs: all have a slot
        if self.current_iteration is not None:
            bound.add(self.current_iteration[0])
        program.check_bound(bound)
        self.wanted = wanted
        self.back_edge_results = {edge.from_layer: initial.get(edge.to_layer) for edge in body.back_edges}

    def _iteration_counter(self, program: _Program, entry: PortMapEntry) -> tuple[int, np.dtype, tuple[int, ...]]:
        slot = program.parameter(entry)
        parameter = program.body.model._nodes[entry.internal_layer_id]
        element_type = parameter.op.element_type  # type: ignore[attr-defined]
        if element_type.numpy_dtype is None or np.dtype(element_type.numpy_dtype).kind not in "iu":
            raise OpError(f"the current_iteration Parameter has element type {element_type}; it must be an integer")
        shape = parameter.op.shape  # type: ignore[attr-defined]
        dims = shape.to_tuple() if not shape.rank_is_dynamic and shape.is_static else ()
        if math.prod(dims) != 1:
            raise OpError(f"the current_iteration Parameter has shape {shape}; it must hold one element")
        return slot, np.dtype(element_type.numpy_dtype), dims

    # -------------------------------------------------------------------------------- the interpreter's op protocol

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Run the iterations; the outer outputs in order."""
        count, stoppable = self._iterations(inputs)
        for port, check in self.input_checks:
            _check_type(inputs[port], check)
        budget = _budget.get() or BodyBudget(self.iteration_limit)  # evaluated outside a run: its own budget
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
        run = program.interpreter._run_slots
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
                outputs = run(slots, bound, wanted)
            except IrError as err:
                raise _in_body(err, program.body, self.node, iteration) from None
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
                _check_type(bound[index], back_edge_checks[index - carried_from], iteration)
            iteration += 1
            if condition is not None and not bool(_one_element(outputs[condition], "the body condition")[0]):
                break
        return self._outputs(outputs, gathered, inputs)

    def _iterations(self, inputs: Sequence[np.ndarray]) -> tuple[int, bool]:
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
        produced: list[np.ndarray | None] = [None] * self.node.num_outputs
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
        return produced  # type: ignore[return-value]

    def _zeros(self, port: int) -> np.ndarray:
        """Zeros of outer output ``port``'s inferred type, unknown dims 0 (what a Loop of no iteration gives)."""
        tensor = self.node.output_types[port]
        assert tensor is not None  # inferred when the Interpreter was prepared
        dims = () if tensor.shape.rank_is_dynamic else tuple(d.value if d.is_static else 0 for d in tensor.shape)
        return np.zeros(dims, tensor.element_type.numpy_dtype)


class _TensorIteratorRunner(_Iterations):
    """TensorIterator-1: as many iterations as its sliced inputs have parts."""

    def _iterations(self, inputs: Sequence[np.ndarray]) -> tuple[int, bool]:
        if self.sliced:
            counts = {sliced.parts(np.asarray(inputs[sliced.port]))[0] for sliced in self.sliced}
            if len(counts) > 1:
                raise OpError(f"the sliced inputs give different numbers of iterations: {sorted(counts)}")
            return counts.pop(), False
        for port, _, sliced, _ in self.concatenated:  # the plugin counts the parts of a static concatenated output
            shape = self.node.output_types[port].shape  # type: ignore[union-attr]
            dim = None if shape.rank_is_dynamic else shape[sliced.axis(shape.rank)]
            if dim is not None and dim.is_static:
                return dim.value // abs(sliced.stride), False
        return 1, False


class _LoopRunner(_Iterations):
    """Loop-5: the trip count and execution condition inputs, then the body condition, decide."""

    loop = True

    def _iterations(self, inputs: Sequence[np.ndarray]) -> tuple[int, bool]:
        trip = _one_element(inputs[0], "the trip count (input 0)")
        if trip.dtype.kind not in "iu":
            raise OpError(f"the trip count (input 0) must be an integer; got {trip.dtype}")
        count = int(trip[0])
        if not bool(_one_element(inputs[1], "the execution condition (input 1)")[0]):
            count = 0
        return (-1 if count < 0 else count), self.condition is not None


class _IfRunner(PlanStep):
    """If-8: the condition picks a body; its port map gives the outer outputs."""

    def __init__(self, node: Node, make_interpreter: MakeInterpreter) -> None:
        self.node = node
        bodies = {body.tag: body for body in node.bodies}  # inference checked both are there, with port maps
        self.iteration_limit = DEFAULT_ITERATION_LIMIT
        self.branches = []
        for tag in ("then_body", "else_body"):
            body = bodies[tag]
            program = _Program(body, node, make_interpreter)
            wanted: list[int] = []
            slots = [program.parameter(entry) for entry in body.inputs]
            ports = [entry.external_port for entry in body.inputs]
            checks = [(entry.external_port, check) for entry in body.inputs if (check := program.type_check(
                entry.internal_layer_id, f"<{body.port_map_tag}> {entry.describe()}")) is not None]
            try:
                program.check_bound(set(slots))
            except OpError as err:
                raise EvaluationError(err.message, node.location) from None
            produced = [0] * node.num_outputs  # inference checked every output has an entry in each body
            for entry in body.outputs:
                produced[entry.external_port] = _want(wanted, program.result(entry.internal_layer_id))
            self.branches.append((program, slots, ports, wanted, produced, checks))
            self.iteration_limit = program.interpreter.iteration_limit


    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Run the body the condition picks."""
        condition = bool(_one_element(inputs[0], "the condition (input 0)")[0])
        budget = _budget.get() or BodyBudget(self.iteration_limit)
        if budget.used >= budget.limit:
            raise budget.exceeded(self.node, f"run its {'then' if condition else 'else'} branch", budget.used)
        budget.used += 1
        program, slots, ports, wanted, produced, checks = self.branches[0 if condition else 1]
        for port, check in checks:
            _check_type(inputs[port], check)
        try:
            outputs = program.interpreter._run_slots(slots, [inputs[port] for port in ports], wanted)
        except IrError as err:
            raise _in_body(err, program.body, self.node, None) from None
        return [outputs[position] for position in produced]


RUNNERS: dict[type, Callable[[Node, MakeInterpreter], Any]] = {
    TensorIterator: _TensorIteratorRunner,
    Loop: _LoopRunner,
    If: _IfRunner,
}
"""Op class -> the runner class that executes its bodies."""
