"""ReduceL2-4: the square root of the sum of squares over the axes."""

from __future__ import annotations

from irgraph.ops.families.reduction import Reduction, l2
from irgraph.ops.registry import register


@register
class ReduceL2(Reduction):
    """The square root of the sum of squares over the axes. Spec: ReduceL2-4."""

    type_name = "ReduceL2"
    introduced = 4
    reduce = staticmethod(l2)

