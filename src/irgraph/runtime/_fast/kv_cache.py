"""A stateful LLM's KV cache at a decode step, without copying the cache (behind the switch in
``irgraph.runtime._fast``).

optimum-intel's stateful exports keep each layer's key and value cache in a variable:
``ReadValue -> Gather(beam_idx, axis 0) -> Concat(past, new rows) -> Assign``. Run as written, every decode step
copies every cache three times (the Gather, the Concat, the Assign's copy into the variable), so a step's cost
grows with the context. Here, with the same values:

- :class:`BeamGather`: a Gather along axis 0 (no batch dims) of a variable's value whose indices are
  ``0, 1, ..., n-1`` for the ``n`` rows of that axis returns the data itself: it would pick every row, in order.
  Any other indices gather as the op does.
- :class:`AppendStep`: the Concat writes the new rows after the past ones in a buffer with spare room along the
  axis (grown by half when full, one copy then) and returns a read-only view of the rows written; the Assign
  keeps that view as the variable's value without a copy (:meth:`Variables.commit` asks :func:`owned`).

Why nothing anyone can see changes: rows of a buffer that a view shows are never written again (an append
writes only past the rows written so far, and only when its past is the view the step itself returned last:
the variable's value; anything else, a failed run's leftovers, a value from ``set_state``, a reordered beam,
is copied into a new buffer). The buffer is read-only but for the append's own write, so no view of it (an
output computed from the cache) can be made writeable.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from irgraph.core.errors import IrError, ResourceLimitError
from irgraph.graph import Model, Node, OutputPort
from irgraph.ops import Op, registry
from irgraph.ops.plan_step import PlanStep

SPARE_ROWS = 16
"""Rows a buffer has room for past what it holds, at least (a decode step appends one)."""


def _variable_read(model: Model, node: Node, port: int = 0) -> str | None:
    """The variable whose ReadValue output feeds input ``port`` of ``node`` (None: another tensor)."""
    source = model.input_sources(node)[port]
    if source is None:
        return None
    from irgraph.ops.infrastructure.read_value import ReadValueBase  # loaded: only stateful models get here

    op = model.node(source.node_id).op
    return op.variable_id if isinstance(op, ReadValueBase) else None


def _gathered_axis(op: Op, constants: Sequence[np.ndarray | None]) -> bool:
    """Whether a Gather picks along axis 0 with no batch dims (axis a constant 0)."""
    axis = constants[2] if len(constants) > 2 else None
    return getattr(op, "batch", 0) == 0 and axis is not None and np.size(axis) == 1 and int(
        np.reshape(axis, -1)[0]) == 0


def _gather_classes() -> tuple[type[Op], ...]:
    """Gather-1/7/8's classes, or none while their module is not loaded (then no layer is a Gather): a stateful
    model without Gathers does not import it."""
    if not registry.loaded("Gather"):
        return ()
    from irgraph.ops.movement.gather import Gather, Gather7

    return Gather, Gather7


def _concat_classes() -> tuple[type[Op], ...]:
    """Concat's class, or none while its module is not loaded (then no layer is a Concat)."""
    if not registry.loaded("Concat"):
        return ()
    from irgraph.ops.movement.concat import Concat

    return (Concat,)


def beam_gather(model: Model, node: Node, op: Op, constants: Sequence[np.ndarray | None]) -> PlanStep | None:
    """A :class:`BeamGather` for a Gather of a variable's value along axis 0; None for any other layer."""
    if not isinstance(op, _gather_classes()) or len(constants) < 3 or _variable_read(model, node) is None:
        return None
    return BeamGather(op) if _gathered_axis(op, constants) else None


def cache_append(model: Model, node: Node, op: Op, element_limit: int) -> PlanStep | None:
    """An :class:`AppendStep` for a Concat whose input 0 is a variable's value (directly or through a Gather
    along axis 0) and whose output that variable's Assign writes back; None for any other layer."""
    sources = model.input_sources(node)
    if not isinstance(op, _concat_classes()) or len(sources) < 2 or sources[0] is None:
        return None
    past = model.node(sources[0].node_id)
    variable = _variable_read(model, node)
    if variable is None and isinstance(past.op, _gather_classes()):
        variable = _variable_read(model, past)
    if variable is None:
        return None
    from irgraph.ops.infrastructure.assign import AssignBase  # loaded: only stateful models get here

    readers = (model.node(port.node_id).op for port in model.consumers(OutputPort(node.id, 0)))
    written_back = any(isinstance(reader, AssignBase) and reader.variable_id == variable for reader in readers)
    return AppendStep(op, element_limit) if written_back else None


class BeamGather(PlanStep):
    """A Gather that returns its data when the indices pick every row of axis 0 in order (see the module)."""

    def __init__(self, gather: Op) -> None:
        self.gather = gather

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        data, indices = inputs[0], inputs[1]
        if (type(data) is np.ndarray and type(indices) is np.ndarray and indices.ndim == 1 and data.ndim >= 1
                and indices.shape[0] == data.shape[0] and indices.dtype.kind in "iu"
                and _in_order(indices)):
            return [data]
        return self.gather.evaluate(inputs)

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]] | None:
        return self.gather.output_shapes(inputs)


def _in_order(indices: np.ndarray) -> bool:
    """Whether the 1-D integer ``indices`` are ``0, 1, ..., n-1``: compared as Python ints for a beam's few rows
    (a fifth of ``np.array_equal``'s time), as arrays past that."""
    count = indices.shape[0]
    return indices.tolist() == list(range(count)) if count <= 64 else np.array_equal(indices, np.arange(count))


class AppendStep(PlanStep):
    """A Concat that appends to its past's buffer when it can (see the module); the values of ``np.concatenate``."""

    def __init__(self, concat: Op, element_limit: int) -> None:
        self.concat, self.element_limit = concat, element_limit
        self.buffer: np.ndarray | None = None
        """The rows written so far and room for more, along the axis; read-only between appends."""
        self.filled = 0
        """How many rows along the axis the buffer holds: views show at most these, appends write after them."""
        self.last: np.ndarray | None = None
        """The view this step returned last: the only past it appends to."""

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        axis = self.concat.check_inputs(inputs)  # type: ignore[attr-defined]  # Concat's checks, its errors
        past = inputs[0]
        total = sum(part.shape[axis] for part in inputs)
        elements = math.prod(past.shape[:axis]) * total * math.prod(past.shape[axis + 1:])
        if elements > self.element_limit:  # as the interpreter refuses any step's output, before allocating
            raise ResourceLimitError(f"output 0 has {elements} elements, above the limit of {self.element_limit}")
        buffer = self.buffer
        if past is not self.last or buffer is None or total > buffer.shape[axis]:
            buffer, start = self._new_buffer(inputs, axis, total), 0
        else:
            start = self.filled
            inputs = inputs[1:]  # the past rows are in the buffer already
        index: list[slice] = [slice(None)] * buffer.ndim
        buffer.flags.writeable = True  # the buffer owns its memory: only this write may change it
        try:
            for part in inputs:
                index[axis] = slice(start, start + part.shape[axis])
                buffer[tuple(index)] = part
                start += part.shape[axis]
        finally:
            buffer.flags.writeable = False
        index[axis] = slice(0, total)
        view = buffer[tuple(index)]
        self.buffer, self.filled, self.last = buffer, total, view
        return [view]

    def release(self) -> None:
        """Drop the buffer (the variables were reset): the next append starts a new one."""
        self.buffer, self.filled, self.last = None, 0, None

    def _new_buffer(self, inputs: Sequence[np.ndarray], axis: int, total: int) -> np.ndarray:
        shape = list(inputs[0].shape)
        across = math.prod(shape[:axis] + shape[axis + 1:])
        room = self.element_limit // across if across else total + SPARE_ROWS  # the spare room within the limit too
        shape[axis] = max(total, min(total + max(total // 2, SPARE_ROWS), room))
        return np.empty(shape, inputs[0].dtype)

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]] | None:
        return None  # evaluate checks the limit itself, before allocating: no inference at every decode step


def owned(steps: Sequence[PlanStep]) -> set[int]:
    """The ids of the views the :class:`AppendStep` s of ``steps`` returned last (read-only, their rows never
    written again): a variable may keep such a value as it is. A set: one look-up a variable, whatever the steps."""
    return {id(step.last) for step in steps if isinstance(step, AppendStep) and step.last is not None}


def release_stale(steps: Sequence[PlanStep], values: Iterable[np.ndarray]) -> None:
    """Drop the buffer of each :class:`AppendStep` of ``steps`` whose last view no variable holds any more: another
    plan's step appended this run (a generate loop's decode steps run a plan of their own, see
    ``_fast.specialize``); that step would copy its past into a new buffer anyway."""
    held = {id(value) for value in values}
    for step in steps:
        if isinstance(step, AppendStep) and step.buffer is not None and id(step.last) not in held:
            step.release()


def writable_outputs(outputs: dict[str, np.ndarray], steps: Sequence[PlanStep]) -> dict[str, np.ndarray]:
    """``outputs`` with each view of an :class:`AppendStep`'s buffer (a cache, or a view of it, the model returns)
    copied: the caller owns what a run returns, and may write into it."""
    buffers = [step.buffer for step in steps if isinstance(step, AppendStep) and step.buffer is not None]
    for key, value in outputs.items():
        if type(value) is np.ndarray and any(value.base is buffer for buffer in buffers):
            outputs[key] = value.copy()
    return outputs


def plan_step(model: Model, node: Node, op: Op, constants: Sequence[np.ndarray | None], element_limit: int
              ) -> PlanStep | None:
    """What runs in place of ``op`` for a KV cache's Gather or Concat (see the module); None for other layers."""
    try:
        return beam_gather(model, node, op, constants) or cache_append(model, node, op, element_limit)
    except IrError:
        return None
