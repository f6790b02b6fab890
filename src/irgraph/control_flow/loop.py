"""Loop-5: runs its body while the trip count and the execution condition allow."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.control_flow.bodies import MakeInterpreter, one_element
from irgraph.control_flow.inference import Walk, infer_iterations
from irgraph.control_flow.iterations import Iterations
from irgraph.control_flow.sub_graph_op import SubGraphOp
from irgraph.core.errors import OpError
from irgraph.core.shapes import TensorType
from irgraph.graph import Body, Node
from irgraph.ops.op import Inputs, InputSpec
from irgraph.ops.plan_step import PlanStep
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class Loop(SubGraphOp):
    """Loop-5: inputs 0 (trip count) and 1 (execution condition) drive the iterations; the rest feed the body."""

    type_name = "Loop"
    introduced = 5
    inputs = Inputs(
        fixed=(InputSpec("trip_count"), InputSpec("execution_condition")),
        variadic=InputSpec("input"),
        minimum=2,
    )
    first_body_input = 2
    negative_axes = True
    special_ports = True

    def infer_bodies(
        self, layer: Node, bodies: dict[str, Body], inputs: Sequence[TensorType], values: Sequence[np.ndarray | None],
        walk: Walk,
    ) -> list[TensorType]:
        """OpenVINO's ``loop.cpp``: the body Parameters take the outer types; back edges relax their shapes."""
        return infer_iterations(layer, bodies["body"], inputs, values, walk, loop=True)

    def runner(self, layer: Node, make_interpreter: MakeInterpreter) -> PlanStep:
        """The body prepared once; every run reads its trip count and conditions."""
        return _LoopRunner(layer, make_interpreter)


class _LoopRunner(Iterations):
    """Loop-5: the trip count and execution condition inputs, then the body condition, decide."""

    loop = True

    def count_iterations(self, inputs: Sequence[np.ndarray]) -> tuple[int, bool]:
        trip = one_element(inputs[0], "the trip count (input 0)")
        if trip.dtype.kind not in "iu":
            raise OpError(f"the trip count (input 0) must be an integer; got {trip.dtype}")
        count = int(trip[0])
        if not bool(one_element(inputs[1], "the execution condition (input 1)")[0]):
            count = 0
        return (-1 if count < 0 else count), self.condition is not None
