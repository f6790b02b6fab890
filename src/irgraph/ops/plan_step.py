"""PlanStep: what the interpreter asks of anything it runs in place of an op.

The interpreter runs ops, and a few objects that stand for a layer without being its op: the
runners of TensorIterator, Loop and If (``irgraph.control_flow``) and the steps of ReadValue and
Assign (``irgraph.runtime.state``). They share this base, which answers the interpreter's questions the
way a plain op with nothing special does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


class PlanStep:
    """A layer's computation as the interpreter schedules it: no deferred joins or views, no state of its
    own between runs, no in-place writes, every output computed."""

    joins_inputs = False
    slices_data = False
    unconnected_extra_outputs = False
    keeps_run_state = False
    writes_in_place = False

    def for_outputs(self, used: Sequence[bool]) -> Any:
        """The step itself: it computes every output."""
        return self

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]] | None:
        """Unknown before it runs (the interpreter checks the produced arrays instead)."""
        return None
