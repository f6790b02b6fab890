"""TensorIterator-1: runs its body once per slice of its sliced inputs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.control_flow.bodies import MakeInterpreter
from irgraph.control_flow.inference import Walk, infer_iterations
from irgraph.control_flow.iterations import Iterations
from irgraph.control_flow.sub_graph_op import SubGraphOp
from irgraph.core.errors import OpError
from irgraph.core.shapes import TensorType
from irgraph.graph import Body, Node
from irgraph.ops.plan_step import PlanStep
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class TensorIterator(SubGraphOp):
    """TensorIterator-1: one ``body``; iterations from the sliced inputs (or a concatenated output's range)."""

    type_name = "TensorIterator"
    introduced = 1

    def infer_bodies(
        self, layer: Node, bodies: dict[str, Body], inputs: Sequence[TensorType], values: Sequence[np.ndarray | None],
        walk: Walk,
    ) -> list[TensorType]:
        """OpenVINO's ``tensor_iterator.cpp``: the body Parameters keep their element types, take the shapes."""
        return infer_iterations(layer, bodies["body"], inputs, values, walk, loop=False)

    def runner(self, layer: Node, make_interpreter: MakeInterpreter) -> PlanStep:
        """The body prepared once; every run iterates over the parts of the sliced inputs."""
        return _TensorIteratorRunner(layer, make_interpreter)


class _TensorIteratorRunner(Iterations):
    """TensorIterator-1: as many iterations as its sliced inputs have parts."""

    def count_iterations(self, inputs: Sequence[np.ndarray]) -> tuple[int, bool]:
        if self.sliced:
            counts = {sliced.parts(np.asarray(inputs[sliced.port]))[0] for sliced in self.sliced}
            if len(counts) > 1:
                raise OpError(f"the sliced inputs give different numbers of iterations: {sorted(counts)}")
            return counts.pop(), False
        for port, _, sliced, _ in self.concatenated:  # the plugin counts the parts of a static concatenated output
            inferred = self.node.outputs[port].type
            if inferred is None:  # not inferred: nothing known to count
                continue
            shape = inferred.shape
            dim = None if shape.rank_is_dynamic else shape[sliced.axis(shape.rank)]
            if dim is not None and dim.is_static:
                return dim.value // abs(sliced.stride), False
        return 1, False
