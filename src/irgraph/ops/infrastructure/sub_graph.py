"""SubGraphOp: the base of ops whose semantics live in sub-graph bodies (TensorIterator, Loop, If).

The op holds only attributes (these ops have none in IR: their port maps are typed data of the
graph, see ``irgraph.graph.subgraph``). Shape inference walks the bodies (``irgraph.analysis.shape_inference``);
the Interpreter runs them (``irgraph.control_flow.runners``): the op alone, without its bodies, cannot evaluate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from irgraph.core.errors import EvaluationError, OpError
from irgraph.core.shapes import TensorType
from irgraph.ops.op import Inputs, Op


class SubGraphOp(Op):
    """An op defined by its bodies: any number of inputs, outputs as the layer declares."""

    body_tags: ClassVar[tuple[str, ...]] = ("body",)
    """The body elements the op needs, in IR order."""
    inputs = Inputs.repeated("input", minimum=0)

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int | None:
        """Unknown from the inputs: as many as the layer's port map and ports say."""
        return None

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """Bodies are inferred by ``irgraph.analysis.shape_inference``, which owns the graph; never called alone."""
        raise OpError(f"{self.title()} needs its bodies to infer its outputs")

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Always fails: the bodies live on the graph node, and the Interpreter runs them (``irgraph.control_flow``)."""
        raise EvaluationError(f"{self.title()} runs its sub-graph bodies, which the op alone does not hold: run the "
                              "model with irgraph.Interpreter")
