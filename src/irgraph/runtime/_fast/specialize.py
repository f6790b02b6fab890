"""Plans for the feeds' shapes: a model with ``?`` dims, run again and again on inputs of the same shapes, runs a
plan built for those shapes (behind the switch in ``irgraph.runtime._fast``).

Shape inference on a model of dynamic inputs leaves most tensors without static shapes, so the plan checks them
at every run and no step can run as a bare ufunc call (``ufunc_steps``). The Interpreter of such a model counts
the feed shapes it is given; the second run on the same shapes builds a copy of the model whose Parameters have
exactly those shapes, shape inference settles every shape that does not depend on values, and an Interpreter of
that copy runs those feeds from then on. The copy shares the ops, the Const arrays and the constants the first
Interpreter folded (f16 weights converted once, not once per shape). The outputs are the same arrays the general
plan computes: the same ops run on the same values; only checks move to plan time.

Only models without control-flow bodies or marked tensors are specialised, and runs without step hooks. A stateful
model's plan is built for the shapes its runs share (:func:`general_key`): a generate loop's decode steps feed an
attention mask one token longer each time, so that dim stays ``?`` and the rest (one token, the hidden sizes) is
settled. That Interpreter shares the first one's variables: the same values, whichever plan runs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from irgraph.analysis.shape_inference import ensure_shapes
from irgraph.core.errors import IrError
from irgraph.core.shapes import Shape
from irgraph.graph import Input, Model, Node, Output

SEEN_LIMIT = 64
"""Distinct feed shapes an Interpreter counts; past this it stops counting (a decoder fed ever new lengths)."""
PLANS_LIMIT = 8
"""Plans for particular shapes an Interpreter keeps at most."""

ShapeKey = tuple[tuple[int, tuple[int, ...]], ...]
"""(slot, shape) of each feed, by slot."""


def shape_key(feeds: Mapping[str, Any], slots: Mapping[str, tuple[Node, int]], count: int) -> ShapeKey | None:
    """The feeds' shapes by Parameter slot; None when they are not one array of an accepted shape per Parameter
    (the general path then says what is wrong)."""
    if len(feeds) != count:
        return None
    found = []
    for name, value in feeds.items():
        entry = slots.get(name)
        shape = getattr(value, "shape", None)
        if entry is None or type(shape) is not tuple or not entry[0].op.shape.accepts(shape):  # type: ignore[attr-defined]  # a Parameter's op: per run, no op_as call
            return None
        found.append((entry[1], shape))
    found.sort()
    if len({slot for slot, _ in found}) != count:
        return None
    return tuple(found)


def general_key(key: ShapeKey, last: ShapeKey | None) -> ShapeKey:
    """``key`` with each dim that differs from ``last``'s as -1 (``?``): the shapes the runs of a generate loop share
    (the attention mask grows by a token each step, the rest stays), which a stateful model's plan is built for."""
    if last is None or len(last) != len(key):
        return key
    general = []
    for (slot, shape), (last_slot, last_shape) in zip(key, last, strict=True):
        if slot != last_slot or len(shape) != len(last_shape):
            return key
        general.append((slot, tuple(size if size == before else -1 for size, before in zip(shape, last_shape,
                                                                                          strict=True))))
    return tuple(general)


class Specialiser:
    """Counts an Interpreter's feed shapes and keeps the Interpreters of the copies built for them."""

    def __init__(self) -> None:
        self.seen: dict[ShapeKey, int] = {}
        self.plans: dict[ShapeKey, Any] = {}
        """Per feed shapes, the Interpreter of the copy (None: the copy failed, the general plan runs them); Any:
        the Interpreter's module imports this one."""
        self.last: tuple[ShapeKey | None, ShapeKey | None] = (None, None)
        """A stateful model's feed shapes of the run before, and their :meth:`loop_key`."""

    def loop_key(self, key: ShapeKey) -> ShapeKey | None:
        """A stateful model's ``key`` generalised against the run before's (:func:`general_key`); None (the general
        plan runs) until two runs in a row agree on it, unless a plan is built for it already."""
        last, before = self.last
        general = general_key(key, last)
        self.last = (key, general)
        return general if general == before or general in self.plans else None

    def interpreter_for(self, key: ShapeKey, build: Callable[[ShapeKey], Any]) -> Any:
        """The Interpreter for ``key``, built by ``build(key)`` on the second sight; None until then."""
        if key in self.plans:
            return self.plans[key]
        seen = self.seen.get(key, 0)
        if seen == 0 and len(self.seen) >= SEEN_LIMIT:
            return None
        self.seen[key] = seen + 1
        if seen == 0 or len(self.plans) >= PLANS_LIMIT:
            return None
        self.plans[key] = made = build(key)
        return made


def with_input_shapes(model: Model, shapes: Mapping[int, Sequence[int]]) -> Model | None:
    """A copy of ``model`` whose Parameters (by node id) have the ``shapes`` (-1: ``?``), its shapes inferred; None when
    inference refuses them (the general plan then reports the run's error). Ops, Const arrays and locations are
    shared."""
    copy = Model(model.name, ir_version=model.ir_version)
    copy.source, copy.source_line = model.source, model.source_line
    for node in model:
        op = node.op
        if node.id in shapes:
            op = dataclasses.replace(op, shape=Shape.of(list(shapes[node.id])))  # a Parameter
        node_id = node.id
        inputs = [Input(node_id, port.index, port.declared_type, port.rt_info) for port in node.inputs]
        outputs = [Output(node_id, output.index, list(output.tensor_names), output.declared_type, None, output.rt_info)
                   for output in node.outputs]
        copy.place(Node(node_id, node.name, op, inputs, outputs, result_names=node.result_names, rt_info=node.rt_info,
                        extra_attributes=node.extra_attributes, location=node.location, bodies=node.bodies))
    copy.connect_all(model.edges())
    try:
        ensure_shapes(copy)
    except IrError:
        return None
    return copy


def folded_constants(slots: Mapping[tuple[int, int], int], template: Sequence[Any]) -> dict[tuple[int, int], Any]:
    """The constants a plan bound (Consts and folded layers), by (node id, output index)."""
    return {key: template[slot] for key, slot in slots.items()
            if isinstance(template[slot], np.ndarray)}
