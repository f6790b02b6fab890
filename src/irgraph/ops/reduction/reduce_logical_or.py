"""ReduceLogicalOr-1: True where any value over the axes is true."""

from __future__ import annotations

from irgraph.ops.families.reduction import LogicalReduction, logical_or
from irgraph.ops.registry import register


@register
class ReduceLogicalOr(LogicalReduction):
    """True where any value over the axes is true. Spec: ReduceLogicalOr-1."""

    type_name = "ReduceLogicalOr"
    introduced = 1
    reduce = staticmethod(logical_or)

