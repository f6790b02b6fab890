"""Loop-5: runs its body while the trip count and the execution condition allow."""

from __future__ import annotations

from dataclasses import dataclass

from irgraph.ops.infrastructure.sub_graph import SubGraphOp
from irgraph.ops.op import Inputs, InputSpec
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
