"""SubGraphOp: the base of the ops whose semantics live in sub-graph bodies (TensorIterator, Loop, If).

The op object holds only attributes (these ops have none in IR); its bodies and port maps hang off
the graph node (``node.bodies``, see :mod:`irgraph.graph.subgraph`). The op class says what its
bodies must be and answers the questions every op answers, through its bodies: shape inference
asks ``infer_layer``, the interpreter ``plan_step``; the body checks (:mod:`irgraph.control_flow.validation`)
read its port map rules (``first_body_input``, ``slices``, ``negative_axes``, ``special_ports``,
``mapped_inputs``). Without its bodies the op can neither infer nor evaluate.
The classes live here, not in ``irgraph.ops``, because they see the graph; the op registry imports
their modules from here (see :attr:`irgraph.ops.catalogue.OpVersion.module`).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import ContextVar
from typing import ClassVar

import numpy as np

from irgraph.control_flow.bodies import MakeInterpreter
from irgraph.control_flow.inference import Walk
from irgraph.core.errors import EvaluationError, OpError, ResourceLimitError
from irgraph.core.limits import MAX_BODY_DEPTH
from irgraph.core.shapes import TensorType
from irgraph.graph import Body, Node
from irgraph.ops.op import Inputs, Op
from irgraph.ops.plan_step import PlanStep

__all__ = ["SubGraphOp"]


_prepared: ContextVar[dict[int, PlanStep] | None] = ContextVar("irgraph_prepared_runners", default=None)
"""Runners prepared ahead for the layers (by ``id``) under the one being prepared (per thread)."""


class SubGraphOp(Op):
    """An op defined by its bodies: any number of inputs, outputs as the layer declares."""

    body_tags: ClassVar[tuple[str, ...]] = ("body",)
    """The body elements the op needs, in IR order."""
    inputs = Inputs.repeated("input", minimum=0)
    first_body_input: ClassVar[int] = 0
    """The first outer input a body Parameter gets (Loop's trip count and condition, If's condition come first)."""
    slices: ClassVar[bool] = True
    """Whether port map entries may slice inputs and concatenate outputs along an ``axis``."""
    negative_axes: ClassVar[bool] = False
    """Whether a slicing axis may count from the end (Loop normalizes it; TensorIterator takes it as given)."""
    special_ports: ClassVar[bool] = False
    """Whether port map entries may name a special body port (``purpose``: Loop's current_iteration and
    execution_condition)."""

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int | None:
        """Unknown from the inputs: as many as the layer's port map and ports say."""
        return None

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """Always fails: the bodies live on the graph node, which ``infer_layer`` is given."""
        raise OpError(f"{self.title()} needs its bodies to infer its outputs")

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Always fails: the bodies live on the graph node, and the runner ``plan_step`` gives runs them."""
        raise EvaluationError(f"{self.title()} runs its sub-graph bodies, which the op alone does not hold: run the "
                              "model with irgraph.Interpreter")

    # ------------------------------------------------------------------------------ shape inference
    def infer_layer(
        self, layer: Node, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None], infer_body: Walk,
    ) -> list[TensorType]:
        """The output types of ``layer`` from its inputs and its bodies (each inferred with ``infer_body``)."""
        if not layer.bodies:
            return self.infer(inputs, values)
        bodies = {body.tag: body for body in layer.bodies}
        missing = [tag for tag in self.body_tags if tag not in bodies]
        if missing:
            raise OpError(f"{self.title()} has no <{missing[0]}> (OpenVINO: 'Missing body part.')")
        for tag in self.body_tags:
            if bodies[tag].port_map is None:
                raise OpError(f"{self.title()} has no <{bodies[tag].port_map_tag}> for its <{tag}>")
        return self.infer_bodies(layer, bodies, inputs, values, infer_body)

    def infer_bodies(
        self, layer: Node, bodies: dict[str, Body], inputs: Sequence[TensorType], values: Sequence[np.ndarray | None],
        walk: Walk,
    ) -> list[TensorType]:
        """The output types through ``bodies`` (by tag: every one of ``body_tags``, each with a port map), each
        body inferred with ``walk``."""
        raise NotImplementedError

    # ------------------------------------------------------------------------------ validation
    def mapped_inputs(self, layer: Node) -> set[int]:
        """The outer inputs the port maps give to body Parameters (special body ports aside)."""
        return {entry.external_port for body in layer.bodies for entry in body.inputs if entry.purpose is None}

    # ------------------------------------------------------------------------------ running
    def runner(self, layer: Node, make_interpreter: MakeInterpreter) -> PlanStep:
        """The step that runs ``layer``'s bodies, each prepared with ``make_interpreter`` (the layers with bodies
        inside them are prepared first: see ``plan_step``)."""
        raise NotImplementedError

    def plan_step(self, layer: Node, prepare_body: MakeInterpreter) -> PlanStep:
        """The runner of ``layer`` (the op itself for a layer without bodies, which shape inference refuses).

        Preparation does not recurse with the nesting: the layers with bodies under ``layer`` are listed
        with an explicit stack and prepared deepest first, so a body's Interpreter finds the runners of
        its own layers ready. (Running recurses: a few Python frames per level, well within Python's
        limit at ``MAX_BODY_DEPTH``.)
        """
        prepared = _prepared.get()
        if prepared is not None and id(layer) in prepared:
            return prepared.pop(id(layer))
        if not layer.bodies:
            return self
        order: list[Node] = []
        stack = [(layer, 1)]
        while stack:
            current, depth = stack.pop()
            if depth > MAX_BODY_DEPTH:
                raise ResourceLimitError(f"sub-graph bodies nest more than {MAX_BODY_DEPTH} levels deep; irgraph runs "
                                         f"at most {MAX_BODY_DEPTH}", current.location)
            order.append(current)
            for body in current.bodies:
                stack.extend((inner, depth + 1) for inner in body.model
                             if inner.bodies and isinstance(inner.op, SubGraphOp))
        prepared = {}
        token = _prepared.set(prepared)
        try:
            for current in reversed(order):  # every layer comes after the layers whose bodies hold it
                op = current.op
                assert isinstance(op, SubGraphOp)  # only such layers are listed
                prepared[id(current)] = op.runner(current, prepare_body)
        finally:
            _prepared.reset(token)
        return prepared[id(layer)]
