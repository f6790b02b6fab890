"""PlanStep: what the interpreter asks of everything it runs.

Every step of an interpreter's plan is a PlanStep: an op (``Op`` derives from it), or one of the few
objects that stand for a layer without being its op: the runners of TensorIterator, Loop and If
(``irgraph.control_flow``) and the steps of ReadValue and Assign (``irgraph.runtime.state``).
The defaults answer the interpreter's questions the way a plain op with nothing special does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from irgraph.core.shapes import TensorType
from irgraph.ops.traits import PLAIN, OpTraits, UfuncCall


class PlanStep:
    """A layer's computation as the interpreter schedules it: no deferred joins or views, no state of its
    own between runs, no in-place writes, every output computed."""

    traits: ClassVar[OpTraits] = PLAIN
    """What the interpreter may do differently for this step (defer a join, write in place...)."""

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The outputs computed from ``inputs``."""
        raise NotImplementedError

    def evaluate_with_state(self, inputs: Sequence[np.ndarray], state: Any) -> tuple[list[np.ndarray], Any]:
        """``evaluate`` for steps whose traits say ``keeps_run_state``: the outputs from ``state`` (None for the
        first run) and the state of the next run."""
        return self.evaluate(inputs), state

    def for_outputs(self, used: Sequence[bool]) -> PlanStep:
        """The step to run when only the outputs marked ``used`` are read (asked once, when the plan is built):
        by default the step itself, which computes every output."""
        return self

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]] | None:
        """The shapes ``evaluate`` would produce, without allocating; None when unknown before it runs (the
        interpreter checks the produced arrays instead)."""
        return None

    def ufunc_call(self, inputs: Sequence[TensorType]) -> UfuncCall | None:
        """How a step of this op computes its one output with a single NumPy ufunc call, nothing checked at run
        time, when its inputs have exactly the static ``inputs`` types (asked once, when the plan is built); None
        (the default) when it does not. The interpreter then calls the ufunc directly, writing over input 0 when
        the output has input 0's shape and element type and nothing else sees it."""
        return None

    def bound_evaluate(self, inputs: Sequence[TensorType], constants: Sequence[np.ndarray | None],
                       outputs: Sequence[TensorType]) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]] | None:
        """``evaluate`` for inputs of exactly the static types ``inputs`` (the constant ones' values in
        ``constants``, else None) and outputs of the static types ``outputs``, with everything those settle
        worked out ahead (asked once, when the plan is built); None (the default): ``evaluate`` runs as it is.
        The function must give what ``evaluate`` gives, bit for bit."""
        return None


def reshaping(inputs: Sequence[TensorType], outputs: Sequence[TensorType]
              ) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]] | None:
    """``bound_evaluate`` of an op whose output is input 0 reshaped to its static output shape (Reshape, Squeeze,
    Unsqueeze: ``np.reshape(data, target)``, a view where NumPy can make one)."""
    if not inputs[0].shape.is_static or len(outputs) != 1 or not outputs[0].shape.is_static:
        return None
    target = outputs[0].shape.to_tuple()
    if math.prod(target) != math.prod(inputs[0].shape.to_tuple()):
        return None  # evaluate refuses it, saying why

    def reshaped(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.reshape(arrays[0], target)]

    return reshaped
