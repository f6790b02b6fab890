"""PlanStep: what the interpreter asks of anything it runs in place of an op.

The interpreter runs ops, and a few objects that stand for a layer without being its op: the
runners of TensorIterator, Loop and If (``irgraph.control_flow.runners``) and the steps of ReadValue and
Assign (``irgraph.runtime.state``). They share this base, which answers the interpreter's questions the
way a plain op with nothing special does.
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

    def for_outputs(self, used: Sequence[bool]) -> Any:
        """The step itself: it computes every output."""
        return self

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]] | None:
        """Unknown before it runs (the interpreter checks the produced arrays instead)."""
        return None
