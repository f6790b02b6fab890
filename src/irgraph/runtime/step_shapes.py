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
from typing import Any

import numpy as np

from irgraph.core.errors import EvaluationError, IrError
from irgraph.core.shapes import TensorType
from irgraph.graph import Node
from irgraph.ops import Op
from irgraph.ops.op import static_types
from irgraph.ops.plan_step import PlanStep

Shapes = list[tuple[int, ...]] | None
ShapeRule = Callable[[Sequence[np.ndarray]], Shapes]

MEMO_LIMIT = 64
"""Input shapes a step remembers the output shapes of; past this a step stops adding (a model fed ever
new lengths would otherwise grow the plan)."""

UNSETTLED_LIMIT = 8
"""Input shapes in a row whose output shapes a value-reading op's inference leaves open before a step stops
trying to remember them (then only the op's ``output_shapes`` is asked)."""


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
        key = tuple([(x.shape, x.dtype) for x in inputs])  # a list: faster than a generator
        try:
            return self.known[key]
        except KeyError:
            pass
        shapes = self.op.output_shapes(inputs)  # raises as infer does for inputs the op refuses: never remembered
        if len(self.known) < MEMO_LIMIT and self._settled(inputs):
            self.known[key] = shapes
        return shapes

    def _settled(self, inputs: Sequence[np.ndarray]) -> bool:
        """Whether the shapes just found hold for every input of these shapes and dtypes."""
        return True


class _RememberedWhereSettled(_Remembered):
    """The output shapes of an op whose shapes read input values (Reshape's target, Transpose's order, ReduceMean's
    axes), remembered per input shapes and dtypes when its ``infer`` settles them from those and the step's
    constant inputs alone (the values that vary are then not read); asked of ``op.output_shapes`` otherwise."""

    __slots__ = ("constants", "unsettled")

    def __init__(self, op: Op, constants: Sequence[np.ndarray | None]) -> None:
        super().__init__(op)
        self.constants = list(constants)
        self.unsettled = 0
        """Input shapes whose output shapes ``infer`` left open in a row: past UNSETTLED_LIMIT it is not asked
        again (a Broadcast to a computed target never settles, and inferring it cost as much as the step)."""

    def _settled(self, inputs: Sequence[np.ndarray]) -> bool:
        """Whether ``infer`` settles the output shapes from the input shapes and the constant inputs alone."""
        if self.unsettled >= UNSETTLED_LIMIT:
            return False
        try:
            inferred = self.op.infer(static_types(inputs), self.constants)
        except IrError:
            return False
        if all(found.shape.is_static for found in inferred):
            self.unsettled = 0
            return True
        self.unsettled += 1
        return False


def _unasked(inputs: Sequence[np.ndarray]) -> Shapes:
    return None


def shape_rule(node: Node, op: PlanStep, constants: Sequence[np.ndarray | None] = ()) -> ShapeRule:
    """How a step learns its output shapes before ``op`` (the node's op, or what runs in its place) allocates;
    ``constants``: the values of the step's constant inputs (None for the others)."""
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
    if isinstance(op, Op) and len(constants) == len(node.inputs) and any(value is not None for value in constants):
        return _RememberedWhereSettled(op, constants)
    return op.output_shapes  # values matter, or a PlanStep that answers None


class UnknownOutputs:
    """A step's outputs whose shape shape inference could not settle (it depends on input values: NonZero, Range,
    a computed Reshape, any ``?`` dim), checked after each run of the step against their inferred partial types.

    Most such dims are ``?`` and accept any size: the check compares only the rank, the bounded dims and the dtype,
    worked out once (a decode step of an LLM checks ~500 outputs)."""

    __slots__ = ("types", "_checks", "_passed")

    def __init__(self, types: tuple[tuple[int, TensorType], ...]) -> None:
        self.types = types
        """(output index, inferred type) of each output checked."""
        checks = []
        for index, expected in types:
            dims = expected.shape.dims
            bounded = () if dims is None else tuple(
                (axis, dim.min, dim.max) for axis, dim in enumerate(dims) if dim.min > 0 or dim.max is not None)
            element_type = expected.element_type
            checks.append((index, None if dims is None else len(dims), bounded,
                           None if element_type.is_dynamic else element_type.numpy_dtype, expected))
        self._checks = tuple(checks)
        self._passed: list[object] = [None] * len(checks)
        """The last shape each output passed with: a decoder's outputs mostly keep theirs from step to step."""

    def __bool__(self) -> bool:
        return bool(self.types)

    def check(self, produced: Sequence[Any]) -> None:
        """Refuse an output whose run-time shape or element type contradicts its inferred partial type."""
        passed = self._passed
        for position, (index, rank, bounded, dtype, expected) in enumerate(self._checks):
            value = produced[index]
            shape = getattr(value, "shape", None)
            if shape is not None and rank is not None and shape != passed[position]:
                if len(shape) != rank or any(shape[axis] < low or (high is not None and shape[axis] > high)
                                             for axis, low, high in bounded):
                    raise EvaluationError(f"output {index} has shape {list(shape)} at run time, outside its "
                                          f"inferred shape {expected.shape}")
                passed[position] = shape
            found = getattr(value, "dtype", None)
            if found is not None and dtype is not None and found != dtype:
                raise EvaluationError(f"output {index} has element type {found} at run time; shape inference gives "
                                      f"{expected.element_type}")


NOTHING_UNKNOWN = UnknownOutputs(())
"""The outputs of a step whose shapes shape inference settled: nothing to check."""
