"""The plan an Interpreter runs: every tensor numbered (a *slot*), every layer a :class:`Step`.

:func:`build_plan` walks the model once, when an Interpreter is built: Const values are bound ahead,
layers whose inputs are all constant (f16 weights -> Convert) are computed then, once, and each
remaining layer becomes a Step that knows how it runs (:class:`StepKind`), which slots it reads and
writes, and which it frees (their last use). A run then does no graph or dict work.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np

from irgraph.core.errors import GraphError, IrError
from irgraph.core.shapes import TensorType
from irgraph.graph import Model, Node, OutputPort
from irgraph.ops import Const, Op, Parameter, Result
from irgraph.ops.plan_step import PlanStep
from irgraph.runtime import _pages
from irgraph.runtime._fast import in_place
from irgraph.runtime.decompression import widen, widened_nodes
from irgraph.runtime.marking import Mark
from irgraph.runtime.state import Variables
from irgraph.runtime.step_shapes import ShapeRule, shape_rule

Slot = int
"""The index of a tensor in a run's list of values."""
PortKey = tuple[int, int]
"""(node id, output index): a tensor of the model."""


class StepKind(Enum):
    """How the interpreter runs a step."""

    GENERIC = "generic"
    """``evaluate`` on real arrays (a deferred join among the inputs is written first)."""
    SPLIT = "split"
    """``evaluate`` that only slices input 0 (``OpTraits.slices_data``): a deferred join is cut, not written."""
    JOIN = "join"
    """A join (``OpTraits.joins_inputs``): checked, and kept as its parts (see ``irgraph.runtime.deferred``)."""
    CONST = "const"
    """A Const whose value could not be bound ahead: evaluated (and failing, located at its layer) in the run."""
    STATEFUL = "stateful"
    """An op with ``OpTraits.keeps_run_state``: ``evaluate_with_state``, its state kept for the next run."""
    IN_PLACE = "in place"
    """A GENERIC step of a ``WritesInPlace`` op whose input 0 dies there: it may write over it (see _in_place)."""


@dataclass(frozen=True, slots=True)
class Step:
    """One layer of the plan."""

    node: Node
    """The layer (its location names errors)."""
    kind: StepKind
    op: PlanStep
    """What runs: the layer's op, or what stands for it (a control-flow runner, a variable step)."""
    inputs: tuple[Slot, ...]
    """Slots read, in input order."""
    outputs: tuple[Slot, ...]
    """Slot written by each output."""
    free_slots: tuple[Slot, ...] = ()
    """Slots dropped after the step (their last use)."""
    frees: tuple[PortKey, ...] = ()
    """The same as (node id, output index) keys, for inspection."""
    unknown: tuple[tuple[int, TensorType], ...] = ()
    """Outputs whose shape shape inference could not settle (it depends on input values: NonZero, Range,
    a computed Reshape): the arrays the run produces are checked against the inferred partial type."""
    output_shapes: ShapeRule | None = None
    """The output shapes before the op allocates (see irgraph.runtime.step_shapes); None for steps that allocate
    nothing new (Split's views, deferred Concats)."""


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything a run needs, by slot."""

    steps: list[Step]
    slots: dict[PortKey, Slot]
    """Where each tensor lives (a body's Parameters and Results are bound through it)."""
    parameters: list[tuple[Node, Slot]]
    feeds: dict[str, tuple[Node, Slot]]
    """The Parameter and slot of each name a feed may use (Parameter name or tensor name)."""
    results: list[tuple[str, Slot]]
    """The outputs in model output order (Result document order), keyed as DESIGN.md section 6 says."""
    marked: list[tuple[str, Slot]]
    template: list[Any]
    """A run's starting values: the constants the steps read, None elsewhere."""
    runs_bodies: bool
    """Whether a step runs sub-graph bodies (each run then counts them: see control_flow.run_budget)."""


@dataclass
class _Planner:
    """The walk of :func:`build_plan`: slots handed out, constants bound, steps drafted."""

    state: Variables
    element_limit: int
    body_interpreter: Callable[[Model], Any]
    widened: frozenset[int]
    slots: dict[PortKey, Slot] = field(default_factory=dict)
    constants: dict[Slot, np.ndarray] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    last_use: dict[Slot, int] = field(default_factory=dict)
    """Each slot's last reader (its position in ``steps``)."""
    result_slots: dict[int, Slot] = field(default_factory=dict)
    runs_bodies: bool = False
    unfolded_readers: dict[PortKey, int] = field(default_factory=dict)
    """Per constant tensor a folded layer reads, how many of its readers are still to be planned; at zero (all
    of them folded) its value is dropped: a decompression chain's intermediates (u8 -> f16 -> minus the zero
    point -> times the scale) are not all held until the plan is done, only the weight it ends in."""

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
        kind = self._kind(node, op, inputs, outputs)
        if kind is None:
            self._drop_folded(connected, inputs)
            return
        for slot in inputs:
            self.last_use[slot] = len(self.steps)
        self.steps.append(Step(node, kind, self.state.bind(node, op, inputs, self.constants), inputs, outputs))

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
        if inputs and all(slot in self.constants for slot in inputs) and self._fold(node, op, inputs, outputs):
            return None  # a constant sub-graph (f16 weights -> Convert): computed once, here, not per run
        if op.traits.joins_inputs:
            return StepKind.JOIN
        if op.traits.slices_data:
            return StepKind.SPLIT
        return StepKind.GENERIC

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
            produced = op.evaluate(arguments)
        except IrError:
            return False
        if len(produced) != len(outputs) or any(np.size(value) > self.element_limit for value in produced):
            return False
        for slot, value in zip(outputs, produced, strict=True):
            self.constants[slot] = value
        for argument in stored:  # f16 weights read through the .bin mapping: converted, no longer resident
            _pages.release(argument)
        return True


def build_plan(
    model: Model, *, state: Variables, marks: Iterable[Mark], element_limit: int, widen_f16: bool,
    body_interpreter: Callable[[Model], Any],
) -> Plan:
    """Number the tensors of ``model``, bind its Consts and list its steps with the slots they free.

    ``widen_f16``: compute decompression chains in f32 (see irgraph.runtime.decompression);
    ``body_interpreter`` prepares the Interpreter of a control-flow body.
    """
    planner = _Planner(state, element_limit, body_interpreter,
                       widened_nodes(model) if widen_f16 else frozenset())
    parameters = [(parameter, planner.slot(parameter.id, 0)) for parameter in model.parameters]
    feeds = {name: (parameter, planner.slots[(parameter.id, 0)]) for name, parameter in model.input_index().items()}
    marks = list(marks)  # read twice: what may be dropped, then the marked slots
    needed = model.reachable_from_results()
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
    steps = _finished(planner, _frees(planner, kept), read)
    template: list[Any] = [None] * len(planner.slots)
    for slot, value in planner.constants.items():
        if slot in read:  # the inputs of folded sub-graphs (f16 weights) are not kept
            template[slot] = value
    return Plan(steps, planner.slots, parameters, feeds, results, marked, template, planner.runs_bodies)


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


def _finished(planner: _Planner, frees: dict[int, list[Slot]], read: set[Slot]) -> list[Step]:
    """The drafted steps with what only the whole walk tells: the outputs nothing reads, the slots each frees,
    the in-place steps, the outputs to check."""
    keys = {slot: key for key, slot in planner.slots.items()}
    steps = []
    for position, step in enumerate(planner.steps):
        freed = tuple(frees.get(position, ()))
        # Ops told which outputs nothing reads can skip them (MaxPool's indices).
        op = step.op.for_outputs([slot in read for slot in step.outputs])
        # may write over input 0 (see runtime._fast.in_place)
        in_place_step = step.kind is StepKind.GENERIC and in_place.writes_over_input(op, step.inputs, freed)
        kind = StepKind.IN_PLACE if in_place_step else step.kind
        allocates = kind is not StepKind.JOIN and kind is not StepKind.SPLIT
        steps.append(Step(step.node, kind, op, step.inputs, step.outputs, freed, tuple(keys[slot] for slot in freed),
                          _unknown_outputs(step.node) if kind is not StepKind.JOIN else (),
                          shape_rule(step.node, op) if allocates else None))
    return steps


def _unknown_outputs(node: Node) -> tuple[tuple[int, TensorType], ...]:
    """The outputs of ``node`` whose inferred shape is not static, with their inferred types."""
    return tuple((index, found) for index, found in enumerate(node.output_types)
                 if found is not None and not found.shape.is_static)
