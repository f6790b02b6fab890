"""The records of a plan (see :mod:`irgraph.runtime.plan`): the kind of each step, the step, the plan.

Plain slotted records (:class:`~irgraph.core.records.Record`), not dataclasses: a cold ``ir-run`` imports them
with the runtime, and a dataclass compiles its methods at import.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any

from irgraph.core.records import Record
from irgraph.runtime.step_shapes import NOTHING_UNKNOWN

if TYPE_CHECKING:
    from irgraph.graph import Node
    from irgraph.ops.plan_step import PlanStep
    from irgraph.ops.traits import UfuncCall
    from irgraph.runtime._fast.ufunc_steps import UfuncStep
    from irgraph.runtime.step_shapes import ShapeRule, UnknownOutputs

__all__ = ["Plan", "PortKey", "Slot", "Step", "StepKind"]

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


class Step(Record):
    """One layer of the plan."""

    __slots__ = ("node", "kind", "op", "inputs", "outputs", "free_slots", "frees", "unknown", "output_shapes",
                 "checks_shapes", "ufunc", "deferred_inputs", "tracks", "evaluate", "direct")

    node: Node
    """The layer (its location names errors)."""
    kind: StepKind
    op: PlanStep
    """What runs: the layer's op, or what stands for it (a control-flow runner, a variable step)."""
    inputs: tuple[Slot, ...]
    """Slots read, in input order."""
    outputs: tuple[Slot, ...]
    """Slot written by each output."""
    free_slots: tuple[Slot, ...]
    """Slots dropped after the step (their last use)."""
    frees: tuple[PortKey, ...]
    """The same as (node id, output index) keys, for inspection."""
    unknown: UnknownOutputs
    """Outputs whose shape shape inference could not settle (it depends on input values: NonZero, Range,
    a computed Reshape): the arrays the run produces are checked against the inferred partial type."""
    output_shapes: ShapeRule | None
    """The output shapes before the op allocates (see irgraph.runtime.step_shapes); None for steps that allocate
    nothing new (Split's views, deferred Concats)."""
    checks_shapes: bool
    """Whether a run asks ``output_shapes`` before the op allocates: not when shape inference settled them within
    the element limit (checked once, here)."""
    ufunc: UfuncStep | None
    """How the step runs as one bare ufunc call (see irgraph.runtime._fast.ufunc_steps); None: through ``op``."""
    deferred_inputs: bool
    """Whether an input may be a deferred join (made by a JOIN or SPLIT step): written before ``evaluate``."""
    tracks: bool
    """Whether the step's slots matter to a later in-place step's ``private`` set (see runtime._fast.in_place)."""
    evaluate: Callable[[Sequence[Any]], Sequence[Any]] | None
    """What a GENERIC step calls in place of ``op.evaluate``: the op's ``bound_evaluate`` for the step's static
    types; None: ``op.evaluate``, looked up at each run."""
    direct: UfuncCall | None
    """An IN_PLACE step's ufunc call (its output of input 0's type): called with ``out=`` the donated input, or
    without when none is (the values of ``evaluate_into`` and ``evaluate``)."""

    def __init__(self, node: Node, kind: StepKind, op: PlanStep, inputs: tuple[Slot, ...], outputs: tuple[Slot, ...],
                 free_slots: tuple[Slot, ...] = (), frees: tuple[PortKey, ...] = (),
                 unknown: UnknownOutputs = NOTHING_UNKNOWN, output_shapes: ShapeRule | None = None,
                 checks_shapes: bool = True, ufunc: UfuncStep | None = None, deferred_inputs: bool = True,
                 tracks: bool = True, evaluate: Callable[[Sequence[Any]], Sequence[Any]] | None = None,
                 direct: UfuncCall | None = None) -> None:
        object.__setattr__(self, "node", node)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "op", op)
        object.__setattr__(self, "inputs", inputs)
        object.__setattr__(self, "outputs", outputs)
        object.__setattr__(self, "free_slots", free_slots)
        object.__setattr__(self, "frees", frees)
        object.__setattr__(self, "unknown", unknown)
        object.__setattr__(self, "output_shapes", output_shapes)
        object.__setattr__(self, "checks_shapes", checks_shapes)
        object.__setattr__(self, "ufunc", ufunc)
        object.__setattr__(self, "deferred_inputs", deferred_inputs)
        object.__setattr__(self, "tracks", tracks)
        object.__setattr__(self, "evaluate", evaluate)
        object.__setattr__(self, "direct", direct)


class Plan(Record):
    """Everything a run needs, by slot."""

    __slots__ = ("steps", "slots", "parameters", "feeds", "results", "marked", "template", "runs_bodies")

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
    """Whether a step runs sub-graph bodies (each run then counts them: see control_flow.bodies.run_budget)."""

    def __init__(self, steps: list[Step], slots: dict[PortKey, Slot], parameters: list[tuple[Node, Slot]],
                 feeds: dict[str, tuple[Node, Slot]], results: list[tuple[str, Slot]], marked: list[tuple[str, Slot]],
                 template: list[Any], runs_bodies: bool) -> None:
        object.__setattr__(self, "steps", steps)
        object.__setattr__(self, "slots", slots)
        object.__setattr__(self, "parameters", parameters)
        object.__setattr__(self, "feeds", feeds)
        object.__setattr__(self, "results", results)
        object.__setattr__(self, "marked", marked)
        object.__setattr__(self, "template", template)
        object.__setattr__(self, "runs_bodies", runs_bodies)
