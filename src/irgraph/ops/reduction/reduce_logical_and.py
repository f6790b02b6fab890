"""ReduceLogicalAnd-1: True where every value over the axes is true."""

from __future__ import annotations

from irgraph.ops.families.reduction import LogicalReduction, logical_and
from irgraph.ops.registry import register


@register
class ReduceLogicalAnd(LogicalReduction):
    """True where every value over the axes is true. Spec: ReduceLogicalAnd-1."""

    type_name = "ReduceLogicalAnd"
    introduced = 1
    reduce = staticmethod(logical_and)

