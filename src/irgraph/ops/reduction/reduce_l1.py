"""ReduceL1-4: the sum of absolute values over the axes."""

from __future__ import annotations

from irgraph.ops.families.reduction import Reduction, l1
from irgraph.ops.registry import register


@register
class ReduceL1(Reduction):
    """The sum of absolute values over the axes. Spec: ReduceL1-4."""

    type_name = "ReduceL1"
    introduced = 4
    reduce = staticmethod(l1)

