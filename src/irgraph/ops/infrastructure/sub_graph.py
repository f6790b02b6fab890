"""SubGraphOp: the base of ops whose semantics live in sub-graph bodies (TensorIterator, Loop, If).

The op holds only attributes (these ops have none in IR: their port maps are typed data of the
graph, see ``irgraph.graph.subgraph``). Shape inference walks the bodies (``irgraph.shape_inference``);
the ops cannot run yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from irgraph.errors import EvaluationError, OpError
from irgraph.ops.op import Inputs, Op
from irgraph.shapes import TensorType


class SubGraphOp(Op):
    """An op defined by its bodies: any number of inputs, outputs as the layer declares."""

    body_tags: ClassVar[tuple[str, ...]] = ("body",)
    """The body elements the op needs, in IR order."""
    inputs = Inputs.repeated("input", minimum=0)
    runs: ClassVar[bool] = False
    """No NumPy implementation (``known_ops(runnable=True)`` leaves these out)."""

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int | None:
        """Unknown from the inputs: as many as the layer's port map and ports say."""
        return None

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """Bodies are inferred by ``irgraph.shape_inference``, which owns the graph; never called alone."""
        raise OpError(f"{self.title()} needs its bodies to infer its outputs")

    @property
    def cannot_run_reason(self) -> str:
        """Sub-graph ops are kept, checked and inferred, but not run."""
        return f"{self.title()} (a layer with sub-graph bodies) cannot run yet: irgraph does not execute bodies"

    def evaluate(self, inputs: Sequence[np.ndarray], out: Sequence[np.ndarray | None] = ()) -> list[np.ndarray]:
        """Always fails with ``cannot_run_reason``."""
        raise EvaluationError(self.cannot_run_reason)
