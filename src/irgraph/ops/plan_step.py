"""PlanStep: what the interpreter asks of everything it runs.

Every step of an interpreter's plan is a PlanStep: an op (``Op`` derives from it), or one of the few
objects that stand for a layer without being its op: the runners of TensorIterator, Loop and If
(``irgraph.control_flow``) and the steps of ReadValue and Assign (``irgraph.runtime.state``).
The defaults answer the interpreter's questions the way a plain op with nothing special does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from irgraph.ops.traits import PLAIN, OpTraits


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
