"""ReduceMin-1: the minimum over the axes (NaNs ignored)."""

from __future__ import annotations

from irgraph.ops.families.reduction import Reduction, minimum
from irgraph.ops.registry import register


@register
class ReduceMin(Reduction):
    """The minimum over the axes (NaNs ignored). Spec: ReduceMin-1."""

    type_name = "ReduceMin"
    introduced = 1
    reduce = staticmethod(minimum)

