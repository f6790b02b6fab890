"""The output shapes of a planned step, known before its op allocates: what the interpreter checks against
its element limit.

Shape inference settles most outputs when the Interpreter is built; those shapes hold for every run. The
others depend on the run's feeds (a model with ``?`` dims): the op's ``output_shapes`` says them, which by
default is ``infer`` on the inputs' static types (``Op.output_shapes``). Its answer depends only on the input
shapes and dtypes, so each step remembers it per those (a decoder's run repeats the same few): the memo lives
here, in the plan, and goes with it. Ops whose output shapes depend on input values are asked every run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from irgraph.graph import Node
from irgraph.ops import Op
from irgraph.ops.plan_step import PlanStep

Shapes = list[tuple[int, ...]] | None
ShapeRule = Callable[[Sequence[np.ndarray]], Shapes]

MEMO_LIMIT = 64
"""Input shapes a step remembers the output shapes of; past this a step stops adding (a model fed ever
new lengths would otherwise grow the plan)."""


class _Settled:
    """Shapes shape inference settled: the same every run."""

    __slots__ = ("shapes",)

    def __init__(self, shapes: list[tuple[int, ...]]) -> None:
        self.shapes = shapes

    def __call__(self, inputs: Sequence[np.ndarray]) -> Shapes:
        return self.shapes


class _Remembered:
    """``op.output_shapes`` (the default, which reads no values) remembered per input shapes and dtypes."""

    __slots__ = ("op", "known")

    def __init__(self, op: Op) -> None:
        self.op = op
        self.known: dict[tuple[object, ...], Shapes] = {}

    def __call__(self, inputs: Sequence[np.ndarray]) -> Shapes:
        key = tuple((x.shape, x.dtype) for x in inputs)
        try:
            return self.known[key]
        except KeyError:
            pass
        shapes = self.op.output_shapes(inputs)  # raises as infer does for inputs the op refuses: never remembered
        if len(self.known) < MEMO_LIMIT:
            self.known[key] = shapes
        return shapes


def _unasked(inputs: Sequence[np.ndarray]) -> Shapes:
    return None


def shape_rule(node: Node, op: PlanStep) -> ShapeRule:
    """How a step learns its output shapes before ``op`` (the node's op, or what runs in its place) allocates."""
    types = [output.type for output in node.outputs]
    shapes = [t.shape for t in types if t is not None]
    if types and len(shapes) == len(types) and all(shape.is_static for shape in shapes):
        return _Settled([shape.to_tuple() for shape in shapes])
    if isinstance(op, Op) and op.forwards_values and len(types) == 1:
        # Its output holds an input's values (Reshape, Convert), as many as that input, which is within the
        # limit already: nothing to check before it runs, and its shape rule (a pattern's values) is not free.
        return _unasked
    if isinstance(op, Op) and not op.shapes_read_values():
        return _Remembered(op)
    return op.output_shapes  # values matter, or a PlanStep that answers None
