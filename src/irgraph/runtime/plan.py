"""The plan an Interpreter runs: every tensor numbered (a *slot*), every layer a :class:`Step`.

:func:`build_plan` walks the model once, when an Interpreter is built: Const values are bound ahead,
layers whose inputs are all constant (f16 weights -> Convert) are computed then, once, and each
remaining layer becomes a Step that knows how it runs (:class:`StepKind`), which slots it reads and
writes, and which it frees (their last use). A run then does no graph or dict work.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

import numpy as np

from irgraph.core.errors import GraphError, IrError
from irgraph.core.records import MutableRecord
from irgraph.core.shapes import TensorType
from irgraph.graph import Model, Node, OutputPort
from irgraph.ops import Const, Op, Parameter, Result
from irgraph.ops.plan_step import PlanStep
from irgraph.ops.traits import UfuncCall, WritesInPlace
from irgraph.runtime import _fast, _pages
from irgraph.runtime._fast import in_place, ufunc_steps
from irgraph.runtime._fast.ufunc_steps import UfuncStep
from irgraph.runtime.decompression import WidenedStep, already_f32, chain_nodes, widen, widened_nodes
from irgraph.runtime.marking import Mark
from irgraph.runtime.plan_records import Plan, PortKey, Slot, Step, StepKind
from irgraph.runtime.state import Variables
from irgraph.runtime.step_shapes import NOTHING_UNKNOWN, UnknownOutputs, shape_rule


class _Planner(MutableRecord):
    """The walk of :func:`build_plan`: slots handed out, constants bound, steps drafted."""

    __slots__ = ("state", "element_limit", "body_interpreter", "widened", "unfolded", "slots", "constants", "steps",
                 "last_use", "result_slots", "runs_bodies", "known", "model", "unfolded_readers", "fresh")

    state: Variables
    element_limit: int
    body_interpreter: Callable[[Model], Any]
    widened: frozenset[int]
    unfolded: frozenset[int]
    """Layers of decompression chains run at every step instead of folded (weights kept compressed)."""
    slots: dict[PortKey, Slot]
    constants: dict[Slot, np.ndarray]
    steps: list[Step]
    last_use: dict[Slot, int]
    """Each slot's last reader (its position in ``steps``)."""
    result_slots: dict[int, Slot]
    runs_bodies: bool
    known: Mapping[PortKey, np.ndarray]
    """Constants computed before (by an Interpreter of the same layers): bound as they are, not recomputed."""
    model: Model | None
    """The model planned, when its static types may be relied on (see build_plan's ``trusts_types``): a layer
    that reads only its inputs' shapes (ShapeOf) of static shapes is then computed here, and what follows it."""
    unfolded_readers: dict[PortKey, int]
    """Per constant tensor a folded layer reads, how many of its readers are still to be planned; at zero (all
    of them folded) its value is dropped: a decompression chain's intermediates (u8 -> f16 -> minus the zero
    point -> times the scale) are not all held until the plan is done, only the weight it ends in."""
    fresh: dict[Slot, PortKey]
    """Constants a fold allocated (no view, no Const's memory), by slot: a folded element-wise layer may write its
    result over one that only it still reads."""

    def __init__(self, state: Variables, element_limit: int, body_interpreter: Callable[[Model], Any],
                 widened: frozenset[int], unfolded: frozenset[int] = frozenset(),
                 slots: dict[PortKey, Slot] | None = None, constants: dict[Slot, np.ndarray] | None = None,
                 steps: list[Step] | None = None, last_use: dict[Slot, int] | None = None,
                 result_slots: dict[int, Slot] | None = None, runs_bodies: bool = False,
                 known: Mapping[PortKey, np.ndarray] | None = None, model: Model | None = None,
                 unfolded_readers: dict[PortKey, int] | None = None, fresh: dict[Slot, PortKey] | None = None) -> None:
        self.state = state
        self.element_limit = element_limit
        self.body_interpreter = body_interpreter
        self.widened = widened
        self.unfolded = unfolded
        self.slots = {} if slots is None else slots
        self.constants = {} if constants is None else constants
        self.steps = [] if steps is None else steps
        self.last_use = {} if last_use is None else last_use
        self.result_slots = {} if result_slots is None else result_slots
        self.runs_bodies = runs_bodies
        self.known = {} if known is None else known
        self.model = model
        self.unfolded_readers = {} if unfolded_readers is None else unfolded_readers
        self.fresh = {} if fresh is None else fresh

    def slot(self, node_id: int, index: int) -> Slot:
        """The slot of output ``index`` of node ``node_id``, numbered on first sight."""
        return self.slots.setdefault((node_id, index), len(self.slots))

    def add(self, node: Node, sources: Sequence[OutputPort | None]) -> None:
        """Plan one layer: a Result's slot, a bound Const, a folded constant layer, or a Step."""
        op: Any = node.op
        if isinstance(op, Result):
            if sources[0] is not None:
                self.result_slots[node.id] = self.slot(sources[0].node_id, sources[0].index)
            return
        if isinstance(op, Parameter):
            return
        op = op.plan_step(node, self.body_interpreter)  # TensorIterator, Loop, If: a runner of their bodies
        if node.bodies:
            self.runs_bodies = True
        connected = [source for source in sources if source is not None]
        if len(connected) < len(sources):  # shape inference refuses it first; the plan has no slot to read
            raise GraphError(f"{node.type_name} layer {node.id} ({node.name!r}) has an input no edge feeds",
                             node.location)
        slots = self.slots  # numbered inline, as slot() does: this runs for every tensor of the model
        inputs = tuple(slots.setdefault((s.node_id, s.index), len(slots)) for s in connected)
        outputs = tuple(slots.setdefault((node.id, index), len(slots)) for index in range(node.num_outputs))
        if self.model is not None and not getattr(op, "reads_values", True) and self._fold_shapes(
                node, op, connected, outputs):
            self._drop_folded(connected, inputs)
            return
        kind = self._kind(node, op, inputs, outputs)
        if kind is None:
            self._drop_folded(connected, inputs)
            return
        for slot in inputs:
            self.last_use[slot] = len(self.steps)
        step_op = self.state.bind(node, op, inputs, self.constants)
        if kind is StepKind.JOIN and step_op is not op:
            kind = StepKind.GENERIC  # a KV cache's Concat, appending to its buffer (runtime._fast.kv_cache)
        if node.id in self.unfolded and node.id in self.widened:
            step_op = WidenedStep(step_op)  # computed in f32 at every run, as _fold computes it once
        self.steps.append(Step(node, kind, step_op, inputs, outputs))

    def _drop_folded(self, sources: Sequence[OutputPort], inputs: tuple[Slot, ...]) -> None:
        """Drop the constants no reader still to be planned needs (a step's inputs, Results' and marks' tensors
        are never counted down: they are absent from ``unfolded_readers`` or read by a step)."""
        remaining = self.unfolded_readers
        for source, slot in zip(sources, inputs, strict=True):
            key = (source.node_id, source.index)
            count = remaining.get(key)
            if count is None:
                continue
            if count > 1:
                remaining[key] = count - 1
            elif slot not in self.last_use:  # no step reads it
                del remaining[key]
                self.constants.pop(slot, None)

    def _kind(self, node: Node, op: Any, inputs: tuple[Slot, ...], outputs: tuple[Slot, ...]) -> StepKind | None:
        """How ``op`` runs; None when it was computed now (a Const, a layer of constant inputs)."""
        if isinstance(op, Const):
            try:
                (self.constants[outputs[0]],) = op.evaluate([])
                return None
            except IrError:
                return StepKind.CONST  # evaluated (and failing, with its location) at run time
        if op.traits.keeps_run_state:
            return StepKind.STATEFUL  # new numbers every run, even from constant inputs: never folded
        if node.id in self.unfolded:
            return StepKind.GENERIC  # weights kept compressed: decompressed at every run, freed after their reader
        if self._bind_known(node, outputs):
            return None  # computed by the plan this one was made beside (what led to it is not planned at all)
        if inputs and all(slot in self.constants for slot in inputs) and self._fold(node, op, inputs, outputs):
            return None  # a constant sub-graph (f16 weights -> Convert): computed once, here, not per run
        if op.traits.joins_inputs:
            return StepKind.JOIN
        if op.traits.slices_data:
            return StepKind.SPLIT
        return StepKind.GENERIC

    def _fold_shapes(self, node: Node, op: Op, sources: Sequence[OutputPort], outputs: tuple[Slot, ...]) -> bool:
        """Compute a layer whose outputs depend on its inputs' static shapes alone (ShapeOf), on stand-ins of those
        shapes (one element each, broadcast: nothing allocated); False when a shape is not static."""
        types = [self.model.output_type(source) for source in sources]  # type: ignore[union-attr]  # set by caller
        if any(found is None or not found.shape.is_static or found.element_type.numpy_dtype is None
               for found in types):
            return False
        stand_ins = [np.broadcast_to(np.zeros((), found.element_type.numpy_dtype), found.shape.to_tuple())  # type: ignore[union-attr]  # None: returned above
                     for found in types]
        try:
            produced = op.evaluate(stand_ins)
        except IrError:
            return False
        if len(produced) != len(outputs):
            return False
        for slot, value in zip(outputs, produced, strict=True):
            self.constants[slot] = value
        return True

    def _bind_known(self, node: Node, outputs: tuple[Slot, ...]) -> bool:
        """Bind the outputs of a constant layer computed before, when all of them were."""
        known = [self.known.get((node.id, index)) for index in range(len(outputs))]
        if not known or any(value is None for value in known):
            return False
        for slot, value in zip(outputs, known, strict=True):
            self.constants[slot] = value  # type: ignore[assignment]  # None excluded above
        return True

    def _fold(self, node: Node, op: Op, inputs: tuple[Slot, ...], outputs: tuple[Slot, ...]) -> bool:
        """Evaluate an op whose inputs are all constant; False (it runs, and fails, at run time) when it fails or
        its outputs are above the element limit. A layer of a decompression chain the f32 policy widens is
        computed in f32."""
        stored = arguments = [self.constants[slot] for slot in inputs]
        if node.id in self.widened:
            op, arguments = widen(op, arguments)
        try:
            shapes = op.output_shapes(arguments)
            if shapes is not None and any(math.prod(shape) > self.element_limit for shape in shapes):
                return False
            # widen's f32 copy of input 0, or a fold's result only this layer reads: the result may take its place
            owned = bool(arguments) and (arguments[0] is not stored[0] or self._dying(inputs))
            if already_f32(op, arguments):
                produced = list(arguments)  # a widened chain's end: its f32 weight, not a copy of it
            elif owned and op.traits.writes_in_place:
                produced = cast(WritesInPlace, op).evaluate_into(arguments, arguments[0])  # so its traits say
            else:
                produced = op.evaluate(arguments)
        except IrError:
            return False
        if len(produced) != len(outputs) or any(np.size(value) > self.element_limit for value in produced):
            return False
        for index, (slot, value) in enumerate(zip(outputs, produced, strict=True)):
            self.constants[slot] = value
            # written over an owned input 0, a result is as fresh as it was: the next layer of a chain (Subtract,
            # then Multiply) writes over it in turn instead of allocating the weight once more
            if type(value) is np.ndarray and value.base is None and (
                    not any(value is a for a in stored) if not owned else
                    not any(value is a for a in stored[1:]) and not any(value is a for a in arguments[1:])):
                self.fresh[slot] = (node.id, index)
        for argument in stored:  # f16 weights read through the .bin mapping: converted, no longer resident
            _pages.release(argument)
        return True


    def _dying(self, inputs: tuple[Slot, ...]) -> bool:
        """Whether input 0 is a fold's own array that no other layer, step, Result or mark reads."""
        first = inputs[0]
        key = self.fresh.get(first)
        return key is not None and self.unfolded_readers.get(key) == 1 and first not in self.last_use and \
            first not in inputs[1:]


def build_plan(
    model: Model, *, state: Variables, marks: Iterable[Mark], element_limit: int, widen_f16: bool,
    body_interpreter: Callable[[Model], Any], known: Mapping[PortKey, np.ndarray] | None = None,
    trusts_types: bool = True, keep_weights_compressed: bool = False,
) -> Plan:
    """Number the tensors of ``model``, bind its Consts and list its steps with the slots they free.

    ``widen_f16``: compute decompression chains in f32 (see irgraph.runtime.decompression);
    ``body_interpreter`` prepares the Interpreter of a control-flow body; ``known``: constant layer outputs
    computed before, by (node id, output index), bound instead of computed again; ``trusts_types``: the inputs a
    run binds have their Parameters' static shapes (not so in a Loop body whose back edges change shape), so the
    steps' static types may be relied on (ufunc steps, bound evaluates, limits checked ahead);
    ``keep_weights_compressed``: run the decompression chains at every run instead of folding them (the weights
    stay in their stored type in memory).
    """
    planner = _Planner(state, element_limit, body_interpreter,
                       widened_nodes(model) if widen_f16 else frozenset(),
                       chain_nodes(model) if keep_weights_compressed else frozenset(), known=known or {},
                       model=model if trusts_types and _fast.ENABLED else None)
    parameters = [(parameter, planner.slot(parameter.id, 0)) for parameter in model.parameters]
    feeds = {name: (parameter, planner.slots[(parameter.id, 0)]) for name, parameter in model.input_index().items()}
    marks = list(marks)  # read twice: what may be dropped, then the marked slots
    needed = _needed(model, known or {})
    order = [node for node in model.topological_order() if node.id in needed]
    sources = {node.id: model.input_sources(node) for node in order}
    planner.unfolded_readers = _droppable_readers(order, sources, marks)
    for node in order:
        planner.add(node, sources[node.id])
    output_keys = model.output_keys()
    # Outputs in model output order (Result document order), not in the topological order of the walk.
    results = [(output_keys[node.id], planner.result_slots[node.id])
               for node in model.results if node.id in planner.result_slots]
    marked = [(mark.key, planner.slots[(mark.port.node_id, mark.port.index)]) for mark in marks]
    kept = {slot for _, slot in results}.union(slot for _, slot in marked)
    read = kept.union(*(step.inputs for step in planner.steps))
    steps = _finished(model, planner, _frees(planner, kept), read, trusts_types)
    template: list[Any] = [None] * len(planner.slots)
    for slot, value in planner.constants.items():
        if slot in read:  # the inputs of folded sub-graphs (f16 weights) are not kept
            template[slot] = value
    return Plan(steps, planner.slots, parameters, feeds, results, marked, template, planner.runs_bodies)


def _needed(model: Model, known: Mapping[PortKey, np.ndarray]) -> set[int]:
    """Ids of the layers a run needs: those a Result or sink depends on, not looking past a layer whose outputs were
    all computed before (``known``). A plan for particular shapes binds those outputs, so what led to them (an
    int4 weight's Convert, Subtract, Multiply) is neither folded again nor held twice."""
    computed = {node_id for node_id, _ in known
                if all((node_id, index) in known for index in range(model.node(node_id).num_outputs))}
    return model.reachable_from_results(stop_at=computed)


def _droppable_readers(order: list[Node], sources: dict[int, list[OutputPort | None]], marks: Iterable[Mark]
                       ) -> dict[PortKey, int]:
    """How many layers read each tensor, for the tensors whose value may be dropped once all its readers are
    folded: not those a Result returns or a mark keeps."""
    readers: dict[PortKey, int] = {}
    kept = {(mark.port.node_id, mark.port.index) for mark in marks}
    for node in order:
        for source in sources[node.id]:
            if source is None:
                continue
            key = (source.node_id, source.index)
            if isinstance(node.op, Result):
                kept.add(key)
            readers[key] = readers.get(key, 0) + 1
    for key in kept:
        readers.pop(key, None)
    return readers


def _frees(planner: _Planner, kept: set[Slot]) -> dict[int, list[Slot]]:
    """By step position, the slots whose last use that step is (outputs, marks and constants never die)."""
    frees: dict[int, list[Slot]] = {}
    for slot, position in planner.last_use.items():
        if slot not in kept and slot not in planner.constants:
            frees.setdefault(position, []).append(slot)
    return frees


def _finished(model: Model, planner: _Planner, frees: dict[int, list[Slot]], read: set[Slot],
              trusts_types: bool) -> list[Step]:
    """The drafted steps with what only the whole walk tells: the outputs nothing reads, the slots each frees,
    the in-place steps, the ufunc steps, the outputs to check."""
    keys = {slot: key for key, slot in planner.slots.items()}
    drafted = []
    for position, step in enumerate(planner.steps):
        freed = tuple(frees.get(position, ()))
        # Ops told which outputs nothing reads can skip them (MaxPool's indices).
        op = step.op.for_outputs([slot in read for slot in step.outputs])
        # may write over input 0 (see runtime._fast.in_place)
        in_place_step = step.kind is StepKind.GENERIC and in_place.writes_over_input(op, step.inputs, freed)
        kind = StepKind.IN_PLACE if in_place_step else step.kind
        drafted.append((step, op, kind, freed))
    producers = {slot: kind for step, _, kind, _ in drafted for slot in step.outputs}
    # Without trusted types every type is unknown here: no ufunc steps, no bound evaluates, limits checked per run.
    types = {slot: _slot_type(model, key) if trusts_types else None for slot, key in keys.items()}
    calls: list[UfuncCall | None] = []
    directs: list[UfuncCall | None] = []
    made_by_call: set[Slot] = set()
    for step, op, kind, _ in drafted:
        call = _ufunc_call(step, op, kind, producers, types, planner.element_limit)
        direct = None
        if kind is StepKind.IN_PLACE and step.inputs[0] in producers and step.inputs[0] not in made_by_call:
            # Input 0, made by another kind of step, may be written over: only a run can tell (in_place.donor).
            if call is not None and types.get(step.inputs[0]) == types[step.outputs[0]]:
                direct = call
            call = None
        calls.append(call)
        directs.append(direct)
        if call is not None:
            made_by_call.update(step.outputs)
    read_by_other: set[Slot] = set()
    for (step, *_), call in zip(drafted, calls, strict=True):
        if call is None:
            read_by_other.update(step.inputs)
    donors = {step.inputs[0] for (step, _, kind, _), call in zip(drafted, calls, strict=True)
              if kind is StepKind.IN_PLACE and call is None}
    steps = []
    for (step, op, kind, freed), call, direct in zip(drafted, calls, directs, strict=True):
        how = None
        if call is not None:
            first = step.inputs[0]
            writes_over = kind is StepKind.IN_PLACE and ufunc_steps.plan_writes_over(
                step.inputs, freed, types.get(first) == types[step.outputs[0]], first in made_by_call,
                first not in read_by_other)
            how = UfuncStep(call.ufunc, call.leading, writes_over, step.outputs[0] in donors)
        allocates = kind is not StepKind.JOIN and kind is not StepKind.SPLIT
        rule = shape_rule(step.node, op, [planner.constants.get(slot) for slot in step.inputs]) if allocates else None
        settled = getattr(rule, "shapes", None)
        checks = rule is not None and not (trusts_types and settled is not None and all(
            math.prod(shape) <= planner.element_limit for shape in settled))
        unknown = _unknown_outputs(step.node) if kind is not StepKind.JOIN else NOTHING_UNKNOWN
        steps.append(Step(step.node, kind, op, step.inputs, step.outputs, freed, tuple(keys[slot] for slot in freed),
                          unknown, rule, checks, how,
                          any(producers.get(slot) in _DEFERRING for slot in step.inputs),
                          any(slot in donors for slot in (*step.inputs, *step.outputs)),
                          _evaluate(step, op, kind, types, planner.constants), direct))
    return steps


def _evaluate(step: Step, op: PlanStep, kind: StepKind, types: dict[Slot, TensorType | None],
              constants: dict[Slot, np.ndarray]) -> Callable[[Sequence[Any]], Sequence[Any]] | None:
    """A GENERIC step's bound evaluate (see Step.evaluate), or None."""
    if kind is not StepKind.GENERIC:
        return None
    inputs = [types.get(slot) for slot in step.inputs]
    outputs = [types.get(slot) for slot in step.outputs]
    if _fast.ENABLED and not step.node.bodies and all(t is not None for t in (*inputs, *outputs)) and (
            bound := op.bound_evaluate(inputs, [constants.get(slot) for slot in step.inputs], outputs)  # type: ignore[arg-type]  # no None: checked above
    ) is not None:
        return bound
    return None


_DEFERRING = (StepKind.JOIN, StepKind.SPLIT)
"""Steps whose outputs may be deferred joins (see irgraph.runtime.deferred)."""


def _slot_type(model: Model, key: PortKey) -> TensorType | None:
    node_id, index = key
    outputs = model.node(node_id).outputs
    return outputs[index].type if index < len(outputs) else None


def _ufunc_call(step: Step, op: PlanStep, kind: StepKind, producers: dict[Slot, StepKind],
                types: dict[Slot, TensorType | None], element_limit: int) -> UfuncCall | None:
    """The ufunc call a step runs as (see irgraph.runtime._fast.ufunc_steps), or None: the switch is on, the step
    is a plain one-output step of static types within the element limit, its inputs are real arrays (no deferred
    join) and its op names the call."""
    if not ufunc_steps.enabled() or kind not in (StepKind.GENERIC, StepKind.IN_PLACE) or len(step.outputs) != 1:
        return None
    if step.unknown or not step.inputs or any(producers.get(slot) in _DEFERRING for slot in step.inputs):
        return None
    output = types.get(step.outputs[0])
    inputs = [types.get(slot) for slot in step.inputs]
    if output is None or not output.shape.is_static or math.prod(output.shape.to_tuple()) > element_limit:
        return None
    if any(found is None or not found.shape.is_static for found in inputs):
        return None
    return op.ufunc_call(inputs)  # type: ignore[arg-type]  # None excluded above


def _unknown_outputs(node: Node) -> UnknownOutputs:
    """The outputs of ``node`` whose inferred shape is not static, with their inferred types."""
    unknown = tuple((output.index, found) for output in node.outputs
                    if (found := output.type) is not None and not found.shape.is_static)
    return UnknownOutputs(unknown) if unknown else NOTHING_UNKNOWN
